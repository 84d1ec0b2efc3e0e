"""Term counts: :class:`CountVectorizer` and :class:`TfidfVectorizer`.

Both classes are scikit-learn's own (parameters, validation, errors,
``fit_transform``'s pruning and sorting of the vocabulary, the tf-idf
weighting) with one method replaced: ``_count_vocab``, which analyzes the
documents, builds the vocabulary in scikit-learn's first-seen order and
counts the terms. On a GPU that method runs on the device
(:mod:`gpuml.feature_extraction._vocabulary`) for the word analyzer with the
default token pattern and no stop words, any ``ngram_range`` from 1 up,
``strip_accents`` ``None``, ``"ascii"`` or ``"unicode"``, and ``dtype``
int32, int64, float32 or float64; it returns what scikit-learn's returns
(the same vocabulary dict, in the same order, and the same CSR matrix), so
everything scikit-learn does after it gives the same results. Other
settings (char analyzers, callables, other token patterns, stop words,
other dtypes) and the CPU run scikit-learn's code.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.feature_extraction.text import CountVectorizer as _SkCountVectorizer
from sklearn.feature_extraction.text import TfidfVectorizer as _SkTfidfVectorizer

from gpuml._array import compute_namespace
from gpuml._sklearn_compat import align_sparse_output
from gpuml.feature_extraction._hashing import (
    _WORD_PATTERNS,
    _all_str,
    device_analysis,
)

_COUNT_DTYPES = tuple(np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64))


class _DeviceCountMixin:
    """``_count_vocab`` on the device where the settings allow it."""

    def _count_vocab(self, raw_documents, fixed_vocab):
        docs = raw_documents if isinstance(raw_documents, list) else list(raw_documents)
        if not docs or compute_namespace() is np or not self._device_counts():
            return super()._count_vocab(docs, fixed_vocab)
        if self.input == "content" and _all_str(docs):
            texts = docs
        else:
            texts = [self.decode(doc) for doc in docs]
            if not _all_str(texts):  # scikit-learn's error
                return super()._count_vocab(docs, fixed_vocab)
        from gpuml.feature_extraction import _text_device as device
        from gpuml.feature_extraction import _vocabulary as vocab

        try:
            documents = device.upload(texts, self.lowercase, self.strip_accents)
        except UnicodeEncodeError:  # lone surrogates: Python's rules
            return super()._count_vocab(texts, fixed_vocab)
        min_length = _WORD_PATTERNS[self.token_pattern]
        ngrams = vocab.word_ngrams(documents, min_length, self.ngram_range)
        if fixed_vocab:
            vocabulary = self.vocabulary_
            terms = list(vocabulary)
            table = vocab.vocabulary_table(terms) if terms else None
            if table is None:
                return super()._count_vocab(texts, fixed_vocab)
            columns = np.fromiter(vocabulary.values(), dtype=np.int64, count=len(terms))
            keys = vocab.lookup(ngrams, table, columns)
        else:
            learned = vocab.learn(ngrams)
            if learned is None:  # a fingerprint collision
                return super()._count_vocab(texts, fixed_vocab)
            terms, keys = learned
            vocabulary = dict(zip(terms, range(len(terms)), strict=True))
            if not vocabulary:
                raise ValueError(
                    "empty vocabulary; perhaps the documents only contain stop words"
                )
        data, indices, indptr = device.assemble(
            keys, len(docs), len(vocabulary), np.dtype(self.dtype), False, None
        )
        data, indices, indptr = device.to_host_csr(data, indices, indptr)
        X = sp.csr_array((data, indices, indptr), shape=(len(docs), len(vocabulary)))
        X.sort_indices()  # sorted already: sets the flag, as scikit-learn's call
        return vocabulary, align_sparse_output(X)

    def _limit_features(self, X, vocabulary, high=None, low=None, limit=None):
        """scikit-learn's, less its copy of the whole matrix (``X[:, kept]``
        over every column) when no term is pruned and no ``limit`` is set:
        the same matrix, without the cached sorted-indices flag, which the
        renumbering that follows makes untrue."""
        if limit is None and sp.issparse(X) and X.format == "csr" and X.shape[1]:
            dfs = np.bincount(X.indices, minlength=X.shape[1])
            kept = np.ones(len(dfs), dtype=bool)
            if high is not None:
                kept &= dfs <= high
            if low is not None:
                kept &= dfs >= low
            if kept.all():
                return type(X)((X.data, X.indices, X.indptr), shape=X.shape)
        return super()._limit_features(X, vocabulary, high, low, limit)

    def _device_counts(self) -> bool:
        """Whether the device analyzes and counts with these settings."""
        try:
            dtype = np.dtype(self.dtype)
        except TypeError:
            return False
        min_n = self.ngram_range[0]
        return (
            dtype in _COUNT_DTYPES
            and isinstance(min_n, int)
            and min_n >= 1
            and self.analyzer == "word"  # the vocabulary kernels' analyzer
            and device_analysis(self)
        )


class CountVectorizer(_DeviceCountMixin, _SkCountVectorizer):
    """Convert a collection of text documents to a matrix of token counts.

    scikit-learn's :class:`sklearn.feature_extraction.text.CountVectorizer`
    (same parameters, same ``vocabulary_``, same matrix: shape, indices in
    the same order, values and dtype), with the analysis, the vocabulary and
    the counting on the GPU when one is in use.

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
        preprocessing step.
    lowercase : bool, default=True
        Convert all characters to lowercase before tokenizing.
    preprocessor : callable, default=None
        Override the preprocessing (string transformation) stage.
    tokenizer : callable, default=None
        Override the string tokenization step (``analyzer == 'word'`` only).
    stop_words : {'english'}, list, default=None
        Words removed from the tokens (``analyzer == 'word'`` only).
    token_pattern : str or None, default=r"(?u)\\b\\w\\w+\\b"
        Regular expression denoting what constitutes a "token".
    ngram_range : tuple (min_n, max_n), default=(1, 1)
        The lower and upper boundary of the range of n-values for the
        n-grams to be extracted.
    analyzer : {'word', 'char', 'char_wb'} or callable, default='word'
        Whether the features are word n-grams or character n-grams.
    max_df : float in range [0.0, 1.0] or int, default=1.0
        Ignore terms with a document frequency strictly higher than this
        (a proportion of documents if float, a count if integer).
    min_df : float in range [0.0, 1.0] or int, default=1
        Ignore terms with a document frequency strictly lower than this.
    max_features : int, default=None
        Keep only the ``max_features`` terms of highest frequency.
    vocabulary : Mapping or iterable, default=None
        A given vocabulary (terms to columns, or an iterable of terms).
    binary : bool, default=False
        If True, all non zero counts are set to 1.
    dtype : dtype, default=np.int64
        Type of the matrix returned by fit_transform() or transform().

    Attributes
    ----------
    vocabulary_ : dict
        A mapping of terms to feature indices.
    fixed_vocabulary_ : bool
        True if a fixed vocabulary of term to indices mapping is provided
        by the user.

    See Also
    --------
    sklearn.feature_extraction.text.CountVectorizer : The scikit-learn
        estimator.
    HashingVectorizer : Counts without a vocabulary.
    TfidfVectorizer : Counts weighted by inverse document frequency.

    Notes
    -----
    Output is a SciPy CSR matrix, as scikit-learn's. On a GPU, terms are told
    apart by a 128-bit fingerprint of their characters; a collision of its
    first 64 bits is detected and then scikit-learn's code runs, so the
    results differ only if two different terms share all 128 bits.

    Examples
    --------
    >>> from gpuml.feature_extraction.text import CountVectorizer
    >>> corpus = ["This is the first document.", "And this is the second one."]
    >>> vectorizer = CountVectorizer()
    >>> X = vectorizer.fit_transform(corpus)
    >>> vectorizer.get_feature_names_out()
    array(['and', 'document', 'first', 'is', 'one', 'second', 'the', 'this'],
          dtype=object)
    >>> X.toarray()
    array([[0, 1, 1, 1, 0, 0, 1, 1],
           [1, 0, 0, 1, 1, 1, 1, 1]])
    """


class TfidfVectorizer(_DeviceCountMixin, _SkTfidfVectorizer):
    """Convert a collection of raw documents to a matrix of TF-IDF features.

    scikit-learn's :class:`sklearn.feature_extraction.text.TfidfVectorizer`:
    :class:`CountVectorizer` (its counting on the GPU when one is in use)
    followed by scikit-learn's tf-idf weighting.

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
        Remove accents and perform other character normalization.
    lowercase : bool, default=True
        Convert all characters to lowercase before tokenizing.
    preprocessor : callable, default=None
        Override the preprocessing (string transformation) stage.
    tokenizer : callable, default=None
        Override the string tokenization step (``analyzer == 'word'`` only).
    analyzer : {'word', 'char', 'char_wb'} or callable, default='word'
        Whether the features are word n-grams or character n-grams.
    stop_words : {'english'}, list, default=None
        Words removed from the tokens (``analyzer == 'word'`` only).
    token_pattern : str, default=r"(?u)\\b\\w\\w+\\b"
        Regular expression denoting what constitutes a "token".
    ngram_range : tuple (min_n, max_n), default=(1, 1)
        The lower and upper boundary of the range of n-values.
    max_df : float or int, default=1.0
        Ignore terms with a document frequency strictly higher than this.
    min_df : float or int, default=1
        Ignore terms with a document frequency strictly lower than this.
    max_features : int, default=None
        Keep only the ``max_features`` terms of highest frequency.
    vocabulary : Mapping or iterable, default=None
        A given vocabulary (terms to columns, or an iterable of terms).
    binary : bool, default=False
        If True, all non-zero term counts are set to 1 (tf becomes binary).
    dtype : dtype, {np.float64, np.float32}, default=np.float64
        Type of the matrix returned by fit_transform() or transform().
    norm : {'l1', 'l2'} or None, default='l2'
        Each output row will have unit norm.
    use_idf : bool, default=True
        Enable inverse-document-frequency reweighting.
    smooth_idf : bool, default=True
        Smooth idf weights by adding one to document frequencies.
    sublinear_tf : bool, default=False
        Apply sublinear tf scaling, i.e. replace tf with 1 + log(tf).

    Attributes
    ----------
    vocabulary_ : dict
        A mapping of terms to feature indices.
    fixed_vocabulary_ : bool
        True if a fixed vocabulary of term to indices mapping is provided.
    idf_ : array of shape (n_features,)
        The inverse document frequency (IDF) vector.

    See Also
    --------
    sklearn.feature_extraction.text.TfidfVectorizer : The scikit-learn
        estimator.
    CountVectorizer : The counts alone.
    TfidfTransformer : The weighting alone.

    Examples
    --------
    >>> from gpuml.feature_extraction.text import TfidfVectorizer
    >>> corpus = ["This is the first document.", "And this is the second one."]
    >>> X = TfidfVectorizer().fit_transform(corpus)
    >>> X.shape
    (2, 8)
    """
