"""The device side of CountVectorizer: vocabularies and count matrices.

Builds on :mod:`gpuml.feature_extraction._text_device` (documents on the
device, word tokens, the whitespace rules of the char analyzers) with the
kernels of ``gpuml/_cuda/text.cu``'s vocabulary section. Each n-gram (of
words, ``analyzer="word"``; of characters, ``"char"``; of characters inside
padded words, ``"char_wb"``) gets a 128-bit fingerprint of its UTF-8 bytes
(four MurmurHash3 hashes): ``fp1`` to sort on, ``fp2`` to check. Then:

- learning a vocabulary: the fingerprints are sorted (``cupy.argsort``,
  compiled into CuPy) and grouped, one term per group; each term's lowest
  rank in the order scikit-learn's analyzer emits n-grams gives its column
  in scikit-learn's first-seen order, and its first occurrence's characters
  (written on the device) its name. A group whose ``fp2`` differ is a
  collision of ``fp1``: the functions return ``None`` and the caller uses
  scikit-learn's code (two different n-grams would have to share all 128
  bits to be counted as one);
- a given vocabulary: its terms are fingerprinted on the device and each
  n-gram is looked up by binary search;
- the count matrix: one sorted key per n-gram (document, column) and the
  CSR assembly of the hashing vectorizer (:func:`_text_device.assemble`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
import scipy.sparse as sp

from gpuml import _cuda
from gpuml._array import device_to_host
from gpuml._backend import get_cupy
from gpuml.feature_extraction import _text_device as device


@dataclass
class Ngrams:
    """The n-grams of some documents on the device, one slot each (a slot
    may be empty: ``fp1`` all ones): the fingerprints ``fp1`` and ``fp2``,
    the ``rank`` in scikit-learn's order and the ``doc``; ``names(slots)``
    gives the text of the n-grams at ``slots`` (a device array), as str."""

    fp1: object
    fp2: object
    rank: object
    doc: object
    names: Callable[[object], list[str]]

    @property
    def n_slots(self) -> int:
        return self.fp1.shape[0]


def _slot_arrays(n_slots: int):
    cupy = get_cupy()
    return (
        cupy.empty(n_slots, dtype=cupy.uint64),
        cupy.empty(n_slots, dtype=cupy.uint64),
        cupy.empty(n_slots, dtype=cupy.int64),
        cupy.empty(n_slots, dtype=cupy.int64),
    )


def word_ngrams(documents: device.Documents, min_length: int, ngram_range) -> Ngrams:
    """Tokenize (the default token pattern) and fingerprint every n-gram."""
    token_start, token_end, doc_tokens = device._word_tokens(documents, min_length)
    min_n, max_n = ngram_range
    n_tokens = token_start.shape[0]
    slots = _slot_arrays(n_tokens * (max_n - min_n + 1))
    args = device.word_ngram_args(
        documents, token_start, token_end, doc_tokens, ngram_range
    )
    name = f"fingerprint_word_ngrams<{documents.ctype}>"
    device._launch(name, n_tokens, (*args, *slots))
    names = partial(
        _word_ngram_strings, documents, token_start, token_end, tuple(ngram_range)
    )
    return Ngrams(*slots, names)


def char_ngrams(documents: device.Documents, ngram_range) -> Ngrams:
    """``analyzer="char"``: the whitespace-normalized documents' character
    n-grams, fingerprinted (slot ``i * sizes + n - min_n`` for the n-gram of
    ``n`` characters at position ``i``)."""
    docs = device._collapse_spaces(documents)
    min_n, max_n = ngram_range
    slots = _slot_arrays(docs.n * (max_n - min_n + 1))
    args = (*docs.ngram_args(), np.int32(min_n), np.int32(max_n))
    device._launch(f"fingerprint_char_ngrams<{docs.ctype}>", docs.n, (*args, *slots))
    return Ngrams(*slots, partial(_char_ngram_strings, docs, min_n, max_n))


def char_wb_ngrams(documents: device.Documents, ngram_range) -> Ngrams:
    """``analyzer="char_wb"``: the n-grams of each word padded with spaces,
    fingerprinted, numbered in scikit-learn's order."""
    docs = documents
    bounds = (np.int32(ngram_range[0]), np.int32(ngram_range[1]))
    counts = get_cupy().empty(docs.n, dtype=np.int32)
    device._launch(
        f"char_wb_counts<{docs.ctype}>", docs.n, (*docs.scan_args(), *bounds, counts)
    )
    positions = device.exclusive_scan(counts)
    slots = _slot_arrays(int(positions[-1]))
    args = (*docs.ngram_args(), docs.tables, *bounds, positions)
    name = f"fingerprint_char_wb_ngrams<{docs.ctype}>"
    device._launch(name, docs.n, (*args, *slots))
    return Ngrams(*slots, partial(_char_wb_ngram_strings, docs, bounds, positions))


def _flag():
    return get_cupy().asarray(np.zeros(1, dtype=np.int32))


def learn(ngrams: Ngrams):
    """The vocabulary of the n-grams: ``(terms, keys)``, the terms (str) in
    scikit-learn's first-seen order and the count matrix's keys with those
    columns; ``None`` on a fingerprint collision."""
    cupy = get_cupy()
    n = ngrams.n_slots
    order = cupy.argsort(ngrams.fp1)
    sorted_fp1 = _cuda.take_rows(ngrams.fp1, order)
    heads = cupy.empty(n, dtype=cupy.int32)
    device._launch("term_heads", n, (sorted_fp1, np.int64(n), heads))
    positions = device.exclusive_scan(heads)
    n_terms = int(positions[-1])
    term_of_slot = cupy.empty(n, dtype=cupy.int64)
    head_slot = cupy.empty(n_terms, dtype=cupy.int64)
    first_rank = cupy.asarray(np.full(n_terms, np.iinfo(np.int64).max))
    args = (order, sorted_fp1, positions, ngrams.rank, np.int64(n))
    device._launch("term_records", n, (*args, term_of_slot, head_slot, first_rank))
    rep_slot = cupy.empty(n_terms, dtype=cupy.int64)
    collision = _flag()
    args = (order, sorted_fp1, ngrams.fp2, positions, head_slot, ngrams.rank)
    device._launch(
        "term_check", n, (*args, first_rank, np.int64(n), rep_slot, collision)
    )
    if int(collision.get()[0]):
        return None
    # Columns in first-seen order: terms ranked by their first occurrence.
    first_seen = np.argsort(first_rank.get(), kind="stable")
    column_of_term = np.empty(n_terms, dtype=np.int64)
    column_of_term[first_seen] = np.arange(n_terms)
    reps = _cuda.take_rows(rep_slot, cupy.asarray(first_seen))
    terms = ngrams.names(reps)
    keys = cupy.empty(n, dtype=cupy.int64)
    args = (term_of_slot, ngrams.doc, cupy.asarray(column_of_term), np.int64(n))
    device._launch("count_keys", n, (*args, keys))
    return terms, keys


def _word_ngram_strings(
    docs: device.Documents, token_start, token_end, ngram_range, slots
) -> list[str]:
    """The word n-grams at ``slots``, as str."""
    cupy = get_cupy()
    n = slots.shape[0]
    if n == 0:
        return []
    min_n, max_n = ngram_range
    lengths = cupy.empty(n, dtype=cupy.int32)
    bounds = (token_start, token_end, np.int32(min_n))
    n_sizes = np.int32(max_n - min_n + 1)
    args = (slots, np.int64(n), *bounds, n_sizes, lengths)
    device._launch("word_ngram_lengths", n, args)
    positions = device.exclusive_scan(lengths)
    out = cupy.empty(int(positions[-1]), dtype=docs.text.dtype)
    args = (docs.text, np.int32(docs.lower), slots, np.int64(n), *bounds, n_sizes)
    device._launch(f"word_ngram_write<{docs.ctype}>", n, (*args, positions, out))
    return _decode(out).split("\0")[:-1]


def _char_ngram_strings(docs: device.Documents, min_n: int, max_n: int, slots):
    """The character n-grams at ``slots``, as str."""
    n_sizes = max_n - min_n + 1
    host_slots = device_to_host(slots)
    start = host_slots // n_sizes
    length = min_n + host_slots % n_sizes
    return _span_strings(docs, start, length, np.zeros(len(start), dtype=np.int32))


def _char_wb_ngram_strings(docs: device.Documents, bounds, positions, slots):
    """The char_wb n-grams at ``slots``, as str."""
    cupy = get_cupy()
    n = slots.shape[0]
    start = cupy.empty(n, dtype=cupy.int64)
    length = cupy.empty(n, dtype=cupy.int64)
    pads = cupy.empty(n, dtype=cupy.int32)
    args = (*docs.scan_args(), *bounds, positions, slots, np.int64(n))
    device._launch(f"char_wb_spans<{docs.ctype}>", n, (*args, start, length, pads))
    return _span_strings(
        docs, device_to_host(start), device_to_host(length), device_to_host(pads)
    )


def _span_strings(docs: device.Documents, start, length, pads) -> list[str]:
    """Spans of the documents' text (host arrays: first character, number of
    characters, padding flags: a space before (1), after (2)), as str. The
    text may hold any character, NUL included: the strings are cut by their
    lengths."""
    cupy = get_cupy()
    n = len(start)
    if n == 0:
        return []
    sizes = length + (pads & 1) + (pads >> 1)
    cuts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=cuts[1:])
    out = cupy.empty(int(cuts[-1]), dtype=docs.text.dtype)
    spans = (cupy.asarray(start), cupy.asarray(length), cupy.asarray(pads))
    args = (docs.text, np.int32(docs.lower), *spans, np.int64(n), cupy.asarray(cuts))
    device._launch(f"span_write<{docs.ctype}>", n, (*args, out))
    text = _decode(out)
    cuts = cuts.tolist()
    return [text[a:b] for a, b in itertools.pairwise(cuts)]


def _decode(characters) -> str:
    """Device characters (uint8 ASCII or uint32 code points) as one str."""
    raw = device_to_host(characters)
    return raw.tobytes().decode("ascii" if raw.dtype == np.uint8 else "utf-32-le")


def vocabulary_table(terms: list[str]):
    """A given vocabulary's terms fingerprinted on the device: ``(fp1
    sorted, fp2, rows)`` where ``rows`` are the terms' positions in
    ``terms``; ``None`` if two terms share an ``fp1`` (or a term cannot be
    encoded)."""
    cupy = get_cupy()
    try:
        docs = device.upload(terms, lowercase=False, strip_accents=None)
    except UnicodeEncodeError:
        return None
    n = len(terms)
    fp1 = cupy.empty(n, dtype=cupy.uint64)
    fp2 = cupy.empty(n, dtype=cupy.uint64)
    args = (docs.text, docs.offsets, np.int64(n), fp1, fp2)
    device._launch(f"fingerprint_documents<{docs.ctype}>", n, args)
    order = cupy.argsort(fp1)
    sorted_fp1 = _cuda.take_rows(fp1, order)
    duplicate = _flag()
    device._launch("any_equal_neighbours", n, (sorted_fp1, np.int64(n), duplicate))
    if int(duplicate.get()[0]):
        return None
    return sorted_fp1, _cuda.take_rows(fp2, order), order


def lookup(ngrams: Ngrams, table, columns):
    """The count matrix's keys for a given vocabulary (``table`` from
    :func:`vocabulary_table`, ``columns`` the column of each of its terms,
    in the order of its ``terms``)."""
    cupy = get_cupy()
    sorted_fp1, sorted_fp2, order = table
    vocab_column = _cuda.take_rows(cupy.asarray(columns), order)
    n = ngrams.n_slots
    keys = cupy.empty(n, dtype=cupy.int64)
    args = (ngrams.fp1, ngrams.fp2, ngrams.doc, np.int64(n))
    vocab = (sorted_fp1, sorted_fp2, vocab_column, np.int64(sorted_fp1.shape[0]))
    device._launch("lookup_terms", n, (*args, *vocab, keys))
    return keys


@dataclass
class DeviceCounts:
    """A count matrix's CSR arrays on the device, from ``_count_vocab`` to
    the host output of ``fit_transform``/``transform`` (cupyx sparse
    matrices hold no integers, and CountVectorizer counts in int64 by
    default). It offers what scikit-learn's code between those steps uses of
    a SciPy matrix (``data.fill``, ``shape``, ``indices.dtype``); the
    renumbering and pruning of columns are methods here."""

    data: object
    indices: object
    indptr: object
    shape: tuple[int, int]
    sorted: bool  # whether each row's columns are in increasing order

    format = "csr"

    @property
    def dtype(self):
        return self.data.dtype

    @property
    def nnz(self) -> int:
        return self.data.shape[0]

    def map_columns(self, column_map: np.ndarray, n_columns: int) -> DeviceCounts:
        """The matrix with column ``c`` renamed ``column_map[c]`` (a host
        array) or dropped where that is negative; each row's values keep
        their order."""
        cupy = get_cupy()
        index = self.indices.dtype
        i = _cuda.ctype(index)
        n_rows = self.shape[0]
        kept = column_map[column_map >= 0]
        increasing = bool((kept[1:] > kept[:-1]).all())
        device_map = cupy.asarray(column_map.astype(index))
        if kept.shape[0] == column_map.shape[0]:  # renumbered only
            indptr = self.indptr
        else:
            counts = cupy.empty(n_rows, dtype=cupy.int32)
            args = (self.indices, self.indptr, np.int64(n_rows), device_map, counts)
            device._launch(f"csr_kept_counts<{i}>", n_rows, args)
            indptr = _cuda.cast(device.exclusive_scan(counts), index)
        nnz = int(indptr[-1])
        data = cupy.empty(nnz, dtype=self.data.dtype)
        indices = cupy.empty(nnz, dtype=index)
        if nnz:
            word = "unsigned int" if self.data.itemsize == 4 else "unsigned long long"
            args = (self.data, self.indices, self.indptr, np.int64(n_rows), device_map)
            device._launch(
                f"csr_map_columns<{word}, {i}>", n_rows, (*args, indptr, data, indices)
            )
        shape = (n_rows, n_columns)
        return DeviceCounts(data, indices, indptr, shape, self.sorted and increasing)

    def to_cupyx(self, dtype):
        """A cupyx CSR matrix of the counts in float ``dtype`` (sharing this
        matrix's arrays where it can)."""
        data = _cuda.cast(self.data, dtype)
        canonical = True if self.sorted else None
        return _cuda.csr_from_parts(
            data, self.indices, self.indptr, self.shape, canonical
        )

    def to_host(self):
        """The SciPy CSR matrix (a ``csr_array``, as scikit-learn builds it;
        the caller aligns it with the ``sparse_interface`` setting), with the
        sorted-indices flag set when the rows are known to be sorted."""
        return host_csr(self.data, self.indices, self.indptr, self.shape, self.sorted)


def host_csr(data, indices, indptr, shape, sorted_rows: bool):
    """A SciPy ``csr_array`` of device CSR arrays (pinned, chunked copies);
    ``sorted_rows`` sets SciPy's sorted-indices flag without a scan."""
    data, indices, indptr = device.to_host_csr(data, indices, indptr)
    X = sp.csr_array((data, indices, indptr), shape=shape)
    if sorted_rows:
        X.has_sorted_indices = True
    return X
