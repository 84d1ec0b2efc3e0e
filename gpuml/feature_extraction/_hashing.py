"""Hashed term counts: :class:`HashingVectorizer`, scikit-learn's, on the GPU.

The class is scikit-learn's own (its parameters, validation, analyzer
builders and errors) with a ``transform`` that, on a GPU, does the analysis
and hashing there (``_text_device``) and returns exactly scikit-learn's
matrix. What runs where:

- built-in analyzers ``"word"`` (with the default token pattern
  ``(?u)\\b\\w\\w+\\b``, or ``(?u)\\b\\w+\\b``, and no stop words), ``"char"``
  and ``"char_wb"``, with ``strip_accents`` ``None``, ``"ascii"`` or
  ``"unicode"``, ``lowercase``, any ``ngram_range`` from 1 up, float32 or
  float64 ``dtype``: all on the device; documents given as bytes or files
  are decoded on the host first (Python's codecs and errors);
- Python callables (``analyzer``, ``preprocessor``, ``tokenizer``,
  ``strip_accents``), other token patterns and stop words: the analyzer
  runs on the host, as scikit-learn's, and its tokens are hashed and
  assembled on the device;
- what the device cannot reproduce exactly (other dtypes, text holding lone
  surrogates, tokens that are not ``str``, ``ngram_range`` starting at 0) and
  the CPU: scikit-learn's own code.

A cuDF string Series is read where it lies (its characters' lengths and code
points, decoded on the device) and gives a ``cupyx`` CSR matrix (device in,
device out); settings that need the host take its strings there first.
"""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import (
    HashingVectorizer as _SkHashingVectorizer,
)
from sklearn.preprocessing import normalize

from gpuml._array import compute_namespace, to_namespace
from gpuml._backend import get_cupy, is_cudf_object, is_cudf_strings
from gpuml._sklearn_compat import align_sparse_output

_STRING_INPUT = "Iterable over raw text documents expected, string object received."
_FLOAT_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
# Token patterns the device tokenizes, with the shortest token each keeps.
_WORD_PATTERNS = {
    r"(?u)\b\w\w+\b": 2,
    r"\b\w\w+\b": 2,
    r"(?u)\b\w+\b": 1,
    r"\b\w+\b": 1,
}


class HashingVectorizer(_SkHashingVectorizer):
    """Convert a collection of text documents to a matrix of token occurrences.

    scikit-learn's :class:`sklearn.feature_extraction.text.HashingVectorizer`
    (same parameters, same matrix: shape, indices, values and dtype), with
    the analysis and hashing on the GPU when one is in use. Stateless: the
    same documents give the same matrix whatever was seen before.

    Parameters
    ----------
    input : {'filename', 'file', 'content'}, default='content'
        'filename': the documents are file names to read; 'file': file
        objects with a ``read`` method; 'content': strings or bytes.
    encoding : str, default='utf-8'
        The encoding to decode bytes (and files) with.
    decode_error : {'strict', 'ignore', 'replace'}, default='strict'
        What to do with bytes that are not valid in ``encoding``.
    strip_accents : {'ascii', 'unicode'} or callable, default=None
        Remove accents and perform other character normalization during the
        preprocessing step: 'ascii' keeps the ASCII characters of the NFKD
        form, 'unicode' the characters of nonzero combining class removed
        from it; a callable replaces both.
    lowercase : bool, default=True
        Convert all characters to lowercase before tokenizing.
    preprocessor : callable, default=None
        Override the preprocessing (string transformation) stage while
        preserving the tokenizing and n-grams generation steps. Only applies
        if ``analyzer`` is not callable.
    tokenizer : callable, default=None
        Override the string tokenization step while preserving the
        preprocessing and n-grams generation steps. Only applies if
        ``analyzer == 'word'``.
    stop_words : {'english'}, list, default=None
        Words removed from the tokens (``analyzer == 'word'`` only).
    token_pattern : str or None, default=r"(?u)\\b\\w\\w+\\b"
        Regular expression denoting what constitutes a "token", only used if
        ``analyzer == 'word'``.
    ngram_range : tuple (min_n, max_n), default=(1, 1)
        The lower and upper boundary of the range of n-values for different
        n-grams to be extracted.
    analyzer : {'word', 'char', 'char_wb'} or callable, default='word'
        Whether the features are word n-grams, character n-grams, or
        character n-grams inside word boundaries (padded with space).
    n_features : int, default=(2 ** 20)
        The number of features (columns) in the output matrices.
    binary : bool, default=False
        If True, all non zero counts are set to 1.
    norm : {'l1', 'l2'}, default='l2'
        Norm used to normalize term vectors. None for no normalization.
    alternate_sign : bool, default=True
        When True, an alternating sign is added to the features as to
        approximately conserve the inner product in the hashed space even
        for small n_features.
    dtype : type, default=np.float64
        Type of the matrix returned by fit_transform() or transform().

    See Also
    --------
    sklearn.feature_extraction.text.HashingVectorizer : The scikit-learn
        estimator.
    TfidfTransformer : Weight the counts by inverse document frequency.

    Notes
    -----
    ``transform`` returns a SciPy CSR matrix (or array, as scikit-learn's
    ``sparse_interface`` setting says), the type scikit-learn returns, so
    that any step after it keeps working. On a GPU, the analysis runs
    there for the built-in analyzers with the default token pattern and no
    stop words; with Python callables, other token patterns or stop words
    the tokens are made on the host by scikit-learn's code and hashed on the
    device. Unicode rules (lowercasing, NFKD, ``\\w``, ``\\s``) are the
    running Python's, read from its ``str`` and ``unicodedata``.

    Examples
    --------
    >>> from gpuml.feature_extraction.text import HashingVectorizer
    >>> corpus = ["This is the first document.", "And this is the second one."]
    >>> X = HashingVectorizer(n_features=2**4).fit_transform(corpus)
    >>> X.shape
    (2, 16)
    >>> print(X.nnz)
    8
    """

    # Documents given as a cuDF string Series are read on the device
    # (gpuml.base.accepts_device_input).
    _reads_device_documents = True

    def transform(self, X):
        """Transform a sequence of documents to a document-term matrix.

        Parameters
        ----------
        X : iterable over raw text documents, length = n_samples
            Samples. Each sample must be a text document (either bytes or
            unicode strings, file name or file object depending on the
            constructor argument) which will be tokenized and hashed.

        Returns
        -------
        X : sparse matrix of shape (n_samples, n_features)
            Document-term matrix (SciPy CSR).
        """
        if isinstance(X, str):
            raise ValueError(_STRING_INPUT)
        if is_cudf_object(X):
            return self._transform_cudf(X)
        if compute_namespace() is np or not self._device_parameters():
            return super().transform(X)
        docs = X if isinstance(X, list) else list(X)
        if not docs:
            return super().transform(docs)  # scikit-learn's error
        self._validate_ngram_range()
        if not self._device_analysis():
            return self._transform_host_tokens(docs)
        if self.input == "content" and _all_str(docs):
            texts = docs
        else:
            texts = [self.decode(doc) for doc in docs]
            if not _all_str(texts):  # scikit-learn's error (content only)
                return super().transform(docs)
        from gpuml.feature_extraction import _text_device as device

        try:
            documents = device.upload(texts, self.lowercase, self.strip_accents)
        except UnicodeEncodeError:  # lone surrogates: Python's rules
            return super().transform(texts if self.input != "content" else docs)
        return self._matrix(device, self._keys(device, documents), len(docs))

    def _transform_cudf(self, series):
        """A cuDF Series of str: a cupyx CSR matrix, computed from the
        Series's own device memory where the settings allow it."""
        from gpuml._cuda import csr_from_parts

        on_device = (
            cudf_documents_on_device(self, series)
            and self._device_parameters()
            and self._device_analysis()
        )
        if not on_device:  # the host's analysis, then device out
            X = self.transform(series.to_arrow().to_pylist())
            return to_namespace(X, get_cupy())
        from gpuml.feature_extraction import _text_device as device

        self._validate_ngram_range()
        documents = device.upload_cudf(series, self.lowercase, self.strip_accents)
        keys = self._keys(device, documents)
        data, indices, indptr = device.assemble(
            keys,
            len(series),
            self.n_features,
            np.dtype(self.dtype),
            self.binary,
            self.norm,
        )
        return csr_from_parts(
            data, indices, indptr, (len(series), self.n_features), True
        )

    def _keys(self, device, documents):
        """The hashed keys of the documents' n-grams, by analyzer."""
        hashing = device.hashing_args(self.n_features, self.alternate_sign)
        if self.analyzer == "word":
            min_length = _WORD_PATTERNS[self.token_pattern]
            return device.word_keys(documents, min_length, self.ngram_range, hashing)
        if self.analyzer == "char":
            return device.char_keys(documents, self.ngram_range, hashing)
        return device.char_wb_keys(documents, self.ngram_range, hashing)

    def _device_parameters(self) -> bool:
        """Whether the parameters are valid and the device can build this
        matrix exactly (else scikit-learn's code runs, errors included)."""
        try:
            self._validate_params()
            dtype = np.dtype(self.dtype)
        except (ValueError, TypeError):
            return False
        min_n = self.ngram_range[0]
        return dtype in _FLOAT_DTYPES and isinstance(min_n, int) and min_n >= 1

    def _device_analysis(self) -> bool:
        """Whether the analyzer itself runs on the device."""
        return device_analysis(self)

    def _transform_host_tokens(self, docs):
        """scikit-learn's analyzer on the host, hashing on the device."""
        analyzer = self.build_analyzer()
        outputs = [analyzer(doc) for doc in docs]
        if isinstance(outputs[0], str):  # scikit-learn's error
            return self._finish_on_host(outputs)
        token_lists = [
            tokens if type(tokens) is list else list(tokens) for tokens in outputs
        ]
        if not all(map(_all_str, token_lists)):  # bytes or other tokens
            return self._finish_on_host(token_lists)
        from gpuml.feature_extraction import _text_device as device

        try:
            documents, doc_tokens = device.upload_tokens(token_lists)
        except UnicodeEncodeError:
            return self._finish_on_host(token_lists)
        hashing = device.hashing_args(self.n_features, self.alternate_sign)
        keys = device.token_keys(documents, doc_tokens, hashing)
        return self._matrix(device, keys, len(docs))

    def _finish_on_host(self, token_lists):
        """The end of scikit-learn's ``transform`` from the analyzer's output."""
        X = self._get_hasher().transform(token_lists)
        if self.binary:
            X.data.fill(1)
        if self.norm is not None:
            X = normalize(X, norm=self.norm, copy=False)
        return align_sparse_output(X)

    def _matrix(self, device, keys, n_docs: int):
        data, indices, indptr = device.assemble(
            keys, n_docs, self.n_features, np.dtype(self.dtype), self.binary, self.norm
        )
        data, indices, indptr = device.to_host_csr(data, indices, indptr)
        X = sp.csr_array((data, indices, indptr), shape=(n_docs, self.n_features))
        return align_sparse_output(X)


def device_analysis(vectorizer) -> bool:
    """Whether the device analyzes text with a vectorizer's settings: the
    built-in analyzers without Python callables, with ``strip_accents``
    None, "ascii" or "unicode"; for "word", the default token patterns and
    no stop words."""
    v = vectorizer
    if callable(v.analyzer) or v.preprocessor is not None:
        return False
    if v.strip_accents not in (None, "ascii", "unicode"):
        return False
    if v.analyzer != "word":
        return True
    return (
        v.tokenizer is None
        and v.stop_words is None
        and (v.token_pattern in _WORD_PATTERNS)
    )


def _all_str(items) -> bool:
    return all(map(isinstance, items, itertools.repeat(str)))


def cudf_documents_on_device(vectorizer, series) -> bool:
    """Whether a vectorizer may read a cuDF input where it lies (a non-empty
    Series of strings, given as content, with a GPU in use); the vectorizer
    adds its own settings' check. Raises the errors of
    :func:`check_cudf_documents` first."""
    check_cudf_documents(series, type(vectorizer).__name__)
    return (
        vectorizer.input == "content"
        and len(series) > 0
        and is_cudf_strings(series)
        and compute_namespace() is not np
    )


def check_cudf_documents(series, name: str) -> None:
    """scikit-learn-style errors for a cuDF input to a text vectorizer: one
    Series of strings, without nulls."""
    if getattr(series, "ndim", 1) != 1:
        raise ValueError(
            f"A cuDF input to {name} must be a Series of strings "
            f"(one document per row), not a {type(series).__name__}."
        )
    if series.null_count:
        raise ValueError(
            f"The cuDF Series holds {series.null_count} null entries; every "
            "document must be a string: fill them first, e.g. "
            "series.fillna('')."
        )
