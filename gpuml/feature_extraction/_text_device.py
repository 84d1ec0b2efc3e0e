"""The device side of the text vectorizers: documents in, hashed CSR out.

Every kernel is in ``gpuml/_cuda/text.cu`` (one module, one compile); the
only other device calls are ``cupy.sort`` (CUB, compiled into CuPy) and
memory copies. The steps, each over all documents at once:

1. the documents as one buffer of characters: bytes for ASCII text, UTF-32
   code points otherwise, with their boundaries as flags (``starts``);
2. preprocessing (``str.lower``, accent stripping) for non-ASCII text, by
   the tables of :mod:`gpuml.feature_extraction._unicode` (ASCII text is
   lowercased on the fly); whitespace runs collapsed for ``analyzer="char"``;
3. the analyzer's n-grams, each hashed where it lies (MurmurHash3 of its
   UTF-8 bytes) into a 64-bit key: document, column, sign;
4. the keys sorted; equal (document, column) pairs summed into the CSR
   matrix scikit-learn builds, then ``binary`` and ``norm``.

Positions that a step keeps or writes to are found by an exclusive scan of
per-position counts (:func:`exclusive_scan`).
"""

from __future__ import annotations

import ctypes
import itertools
import operator
import sys

import numpy as np

from gpuml import _cuda
from gpuml._array import device_to_host, host_to_device, pieces_to_device
from gpuml._backend import get_cupy
from gpuml.feature_extraction import _unicode

_SCAN_TILE = 2048
_SCAN_THREADS = 256
_TOKEN_TILE = 256 * 32  # text.cu's TOKEN_TILE
_CHAR_TYPES = {np.dtype(np.uint8): "unsigned char", np.dtype(np.uint32): "unsigned int"}
_tables_on_device: dict = {}


#: The kernels of ``vocabulary.cu`` (CountVectorizer's), by name.
VOCABULARY_KERNELS = frozenset(
    {
        "csr_kept_counts",
        "csr_map_columns",
        "fingerprint_word_ngrams",
        "fingerprint_documents",
        "word_ngram_write",
        "word_ngram_lengths",
        "fingerprint_char_ngrams",
        "fingerprint_char_wb_ngrams",
        "char_wb_spans",
        "span_write",
        "term_heads",
        "term_records",
        "term_check",
        "count_keys",
        "lookup_terms",
        "any_equal_neighbours",
    }
)


def _module(name: str) -> str:
    """The module of kernel ``name``: ``text.cu``'s kernels are in ``text``
    and ``vocabulary.cu``'s in ``vocabulary``, each character type's
    templates in a module of their own (``text_ascii``, ``text_unicode``,
    ``vocabulary_ascii``, ``vocabulary_unicode``)."""
    family = "vocabulary" if name.partition("<")[0] in VOCABULARY_KERNELS else "text"
    if name.endswith("<unsigned char>"):
        return f"{family}_ascii"
    if name.endswith("<unsigned int>") or name.startswith("preprocess_"):
        return f"{family}_unicode"
    return family


def _kernel(name: str):
    return _cuda.kernel(_module(name), name)


def _launch(name: str, n: int, args) -> None:
    _cuda.launch(_module(name), name, n, args)


def exclusive_scan(counts):
    """Offsets (int64, ``n + 1``) of ``n`` int32 device counts."""
    cupy = get_cupy()
    n = counts.shape[0]
    tiles = max(1, -(-n // _SCAN_TILE))
    tile_sums = cupy.empty(tiles, dtype=cupy.int64)
    out = cupy.empty(n + 1, dtype=cupy.int64)
    n64 = np.int64(n)
    _kernel("scan_tile_sums")((tiles,), (_SCAN_THREADS,), (counts, n64, tile_sums))
    _kernel("scan_tiles")(
        (1,), (_SCAN_THREADS,), (tile_sums, np.int64(tiles), out, n64)
    )
    _kernel("scan_apply")((tiles,), (_SCAN_THREADS,), (counts, n64, tile_sums, out))
    return out


def _gather(values, index):
    out = get_cupy().empty(index.shape[0], dtype=np.int64)
    _launch(
        "gather_offsets", index.shape[0], (values, index, np.int64(index.shape[0]), out)
    )
    return out


def _starts(offsets, n: int):
    """One flag per position (and one past the end): a document begins."""
    cupy = get_cupy()
    starts = cupy.zeros(n + 1, dtype=cupy.uint8)
    n_docs = offsets.shape[0] - 1
    _launch("mark_starts", n_docs, (offsets, np.int64(n_docs), starts))
    return starts


def device_tables(lowercase: bool, strip_accents, final_sigma: bool):
    """The Unicode tables on the current device (built and copied once)."""
    cupy = get_cupy()
    key = (cupy.cuda.Device().id, lowercase, strip_accents, final_sigma)
    if key not in _tables_on_device:
        host = _unicode.tables(lowercase, strip_accents, final_sigma)
        _tables_on_device[key] = cupy.asarray(host)
    return _tables_on_device[key]


def _ascii_tables():
    """A header alone: ASCII text never reads the bitmaps or the mapping."""
    cupy = get_cupy()
    key = (cupy.cuda.Device().id, "ascii")
    if key not in _tables_on_device:
        header = np.full(_unicode.HEADER, _unicode.HEADER, dtype=np.uint32)
        header[7:] = 0
        _tables_on_device[key] = cupy.asarray(header)
    return _tables_on_device[key]


def _in_place(text: str, width: int):
    """A view of the characters of ``text``, ``width`` bytes each, in
    CPython's own buffer, without a copy; None elsewhere, or if the check
    fails.

    A compact str (every exact ``str`` CPython makes today, not a
    subclass's instance) keeps its characters in the narrowest of 1, 2 or 4
    bytes right after its header, then a NUL; ``str.__sizeof__`` counts
    them all, so the characters start ``(n + 1) * width`` bytes before the
    object's end. The view keeps ``text`` alive; its first, middle and last
    characters are checked against ``text`` before it is used."""
    n = len(text)
    if sys.implementation.name != "cpython" or type(text) is not str or not n:
        return None
    start = id(text) + str.__sizeof__(text) - (n + 1) * width
    raw = (ctypes.c_char * (n * width)).from_address(start)
    raw.owner = text  # the buffer lives as long as the view
    view = np.frombuffer(raw, dtype=f"<u{width}")
    return view if all(view[i] == ord(text[i]) for i in (0, n // 2, n - 1)) else None


def ascii_buffer(text: str) -> np.ndarray:
    """The characters of ASCII ``text`` as a uint8 array: a view of the
    str's own buffer on CPython (:func:`_in_place`), else an encoded copy."""
    view = _in_place(text, 1)
    return view if view is not None else np.frombuffer(text.encode("ascii"), np.uint8)


class Documents:
    """Documents on the device: ``text`` (uint8 or uint32 characters),
    ``offsets`` (int64, ``n_docs + 1``), ``starts`` (uint8 flags), the
    ``tables`` buffer and whether ASCII letters are still to be lowercased
    (``lower``)."""

    def __init__(self, text, offsets, tables, lower: bool):
        self.text = text
        self.offsets = offsets
        self.starts = _starts(offsets, text.shape[0])
        self.tables = tables
        self.lower = lower

    @property
    def n(self) -> int:
        return self.text.shape[0]

    @property
    def n_docs(self) -> int:
        return self.offsets.shape[0] - 1

    @property
    def ctype(self) -> str:
        return _CHAR_TYPES[self.text.dtype]

    def scan_args(self) -> tuple:
        """The leading arguments of the kernels that read characters by
        position: text, its length, starts, tables."""
        return (self.text, np.int64(self.n), self.starts, self.tables)

    def ngram_args(self) -> tuple:
        """The leading arguments of the character n-gram kernels: text, its
        length, lower, starts, offsets, number of documents."""
        return (
            self.text,
            np.int64(self.n),
            np.int32(self.lower),
            self.starts,
            self.offsets,
            np.int64(self.n_docs),
        )


#: Characters per joined piece of a large ASCII corpus (see _ascii_text).
_JOIN_CHARS = 4 << 20


def _ascii_text(texts: list[str], offsets: np.ndarray):
    """The documents' characters as one uint8 device array if they are all
    ASCII, else None.

    A large corpus is joined a few million characters at a time, each piece
    copied to the device while the next is joined: one ``"".join`` of a
    whole corpus writes a new allocation of its size, page by page (0.13 s of
    host time for 171 MB on the GPU machine), where the pieces reuse the
    same memory."""
    total = int(offsets[-1])
    if total < 2 * _JOIN_CHARS:
        joined = "".join(texts)
        return host_to_device(ascii_buffer(joined)) if joined.isascii() else None

    def pieces():
        for a, b in itertools.pairwise(_piece_edges(offsets)):
            piece = "".join(texts[a:b])
            yield ascii_buffer(piece) if piece.isascii() else None

    out = get_cupy().empty(total, dtype=np.uint8)
    return out if pieces_to_device(pieces(), out) else None


def _piece_edges(offsets: np.ndarray) -> list[int]:
    """Pieces of whole documents of about :data:`_JOIN_CHARS` characters:
    the documents' indices where each piece starts, and the number of
    documents (a piece is cut at the first document past each multiple)."""
    total, n_docs = int(offsets[-1]), offsets.shape[0] - 1
    cuts = np.searchsorted(offsets, np.arange(_JOIN_CHARS, total, _JOIN_CHARS))
    return np.unique(np.concatenate(([0], cuts, [n_docs]))).tolist()


#: CPython's str headers: the bytes before the characters of a compact
#: ASCII str, and of any other compact str (``sys.getsizeof`` counts them,
#: the characters and a terminating NUL).
#: Measured on new strings: a str that CPython shares (the empty string,
#: one-character ones) may hold a cached UTF-8 copy, which its size counts.
_ASCII_HEADER = str.__sizeof__("a" * 2) - 3
_COMPACT_HEADER = str.__sizeof__("\xe9" * 2) - 3
#: Characters per run that one block of ``widen_runs`` copies.
_RUN_CHARS = 1 << 14


def str_buffer(text: str) -> np.ndarray:
    """The code points of ``text`` in the width CPython stores them: uint8
    when every character is below U+0100, uint16 below U+10000, else uint32:
    a view of the str's own buffer (:func:`_in_place`), the width read from
    its size; elsewhere, or if that fails, its UTF-32 encoding."""
    if text.isascii():
        return ascii_buffer(text)
    size = str.__sizeof__(text) - _COMPACT_HEADER
    width = size // (len(text) + 1)
    view = None
    if width in (1, 2, 4) and size == (len(text) + 1) * width:
        view = _in_place(text, width)
    if view is not None:
        return view
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def str_widths(texts: list[str], lengths: np.ndarray) -> np.ndarray:
    """Each document's character width in bytes as CPython stores it (1, 2
    or 4), read from its size; 4 where the size does not tell (not CPython,
    a subclass of str, a str holding a cached UTF-8 copy). Never less than
    the width :func:`str_buffer` finds."""
    widths = np.full(len(texts), 4, dtype=np.int64)
    if sys.implementation.name != "cpython":
        return widths
    sizes = np.fromiter(map(str.__sizeof__, texts), dtype=np.int64, count=len(texts))
    for width in (2, 1):
        widths[sizes == _COMPACT_HEADER + (lengths + 1) * width] = width
    widths[sizes == _ASCII_HEADER + lengths + 1] = 1
    return widths


def unicode_pieces(texts: list[str], offsets, edges, widths, runs: list):
    """The host side of :func:`_unicode_text`: the characters of ``texts``
    (of :func:`str_widths` ``widths``), in the pieces of documents that
    ``edges`` (:func:`_piece_edges`) cut, as byte arrays to copy one after
    another, and in ``runs`` (appended to as the pieces are made) int64
    rows ``(byte start, width, first character, length)``: each run of
    characters and where it goes.

    A piece of consecutive documents is joined once per character width,
    the documents of each width together, so that no document is widened
    on the host (a join of documents of mixed widths copies every character
    one at a time into the widest); each joined
    string goes as its own buffer (:func:`str_buffer`), 4-byte aligned."""
    position = 0
    for a, b in itertools.pairwise(edges):
        piece_widths = widths[a:b]
        for width in (1, 2, 4):
            members = a + np.flatnonzero(piece_widths == width)
            if not members.shape[0]:
                continue
            if members.shape[0] == b - a:
                buffer = str_buffer("".join(texts[a:b]))
            else:
                picked = operator.itemgetter(*members.tolist())(texts)
                buffer = str_buffer(picked if len(members) == 1 else "".join(picked))
            if buffer.itemsize > width:  # a width misread: the caller falls back
                yield None
                return
            pad = -position % 4
            if pad:
                yield np.zeros(pad, dtype=np.uint8)
                position += pad
            runs.append(_runs(members, offsets, position, buffer.itemsize))
            yield buffer.view(np.uint8)
            position += buffer.nbytes


def _runs(members: np.ndarray, offsets: np.ndarray, start: int, width: int):
    """The runs (see :func:`unicode_pieces`) of documents ``members``
    (sorted) whose characters lie, joined, at byte ``start``: consecutive
    documents make one run, cut every :data:`_RUN_CHARS` characters."""
    first = np.flatnonzero(np.diff(members, prepend=-2) != 1)
    last = np.append(first[1:], members.shape[0]) - 1
    destination = offsets[members[first]]
    length = offsets[members[last] + 1] - destination
    joined = np.concatenate(([0], np.cumsum(np.diff(offsets)[members])))
    source = start + joined[first] * width
    keep = length > 0
    destination, length, source = destination[keep], length[keep], source[keep]
    # Long runs cut into pieces of at most _RUN_CHARS characters.
    cuts = -(-length // _RUN_CHARS)
    owner = np.repeat(np.arange(length.shape[0]), cuts)
    step = np.arange(owner.shape[0]) - np.repeat(np.cumsum(cuts) - cuts, cuts)
    skip = step * _RUN_CHARS
    rows = np.empty((owner.shape[0], 4), dtype=np.int64)
    rows[:, 0] = source[owner] + skip * width
    rows[:, 1] = width
    rows[:, 2] = destination[owner] + skip
    rows[:, 3] = np.minimum(length[owner] - skip, _RUN_CHARS)
    return rows


def _unicode_text(texts: list[str], offsets: np.ndarray):
    """``(text, has_sigma)``: the documents' code points as one uint32
    device array (UTF-32), and whether a capital sigma is among them.

    The documents go to the device in the width CPython stores each in (1,
    2 or 4 bytes a character), read from the str objects without an
    encoding pass (:func:`unicode_pieces`), a piece of the corpus at a time
    while the next is joined; one kernel (``widen_runs``) puts every
    character in its place as a code point. Raises UnicodeEncodeError for
    lone surrogates, as the UTF-32 encoding of before did."""
    cupy = get_cupy()
    lengths = np.diff(offsets)
    edges = _piece_edges(offsets)
    widths = str_widths(texts, lengths)
    # each piece's joins (one a width) 4-byte aligned
    raw = cupy.empty(int(widths @ lengths) + 4 * 3 * len(edges), dtype=np.uint8)
    runs: list = []
    pieces = unicode_pieces(texts, offsets, edges, widths, runs)
    if not pieces_to_device(pieces, raw):
        encoded = "".join(texts).encode("utf-32-le", "surrogatepass")
        raw = host_to_device(np.frombuffer(encoded, dtype=np.uint8))
        runs = [_runs(np.arange(len(texts)), offsets, 0, 4)]
    runs = cupy.asarray(np.concatenate(runs) if runs else np.empty((0, 4), np.int64))
    out = cupy.empty(int(offsets[-1]), dtype=np.uint32)
    flags = cupy.zeros(2, dtype=cupy.int32)
    n_runs = runs.shape[0]
    if n_runs:
        _kernel("widen_runs")(
            (n_runs,), (_SCAN_THREADS,), (raw, runs, np.int64(n_runs), out, flags)
        )
    has_sigma, surrogate = (bool(f) for f in flags.get())
    if surrogate:
        raise UnicodeEncodeError(
            "utf-32-le", "", 0, 1, "surrogates not allowed (a lone surrogate)"
        )
    return out, has_sigma


def upload(texts: list[str], lowercase: bool, strip_accents) -> Documents:
    """Copy str documents to the device and preprocess them as scikit-learn's
    ``_preprocess`` does (``lowercase``, then ``strip_accents`` ``None``,
    ``"ascii"`` or ``"unicode"``).

    Raises UnicodeEncodeError for text holding lone surrogates (which only
    Python's own code can treat as scikit-learn does).
    """
    cupy = get_cupy()
    for module in ("text", "text_ascii"):
        _cuda.prefetch_module(module)  # compiles while the host joins
    lengths = np.fromiter(map(len, texts), dtype=np.int64, count=len(texts))
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    d_offsets = cupy.asarray(offsets)
    # A corpus whose first document is not ASCII is not tried as ASCII.
    text = _ascii_text(texts, offsets) if not texts or texts[0].isascii() else None
    if text is not None:  # NFKD and accent stripping leave ASCII as it is
        return Documents(text, d_offsets, _ascii_tables(), lowercase)
    _cuda.prefetch_module("text_unicode")
    text, has_sigma = _unicode_text(texts, offsets)
    return _unicode_documents(text, d_offsets, lowercase, strip_accents, has_sigma)


def upload_cudf(series, lowercase: bool, strip_accents) -> Documents:
    """A cuDF string Series (no nulls) as documents, without a copy to the
    host: each string's length in characters (``str.len``) and its
    characters' packed UTF-8 bytes (``str.code_points``), decoded on the
    device, then preprocessed as :func:`upload` does."""
    cupy = get_cupy()
    for module in ("text", "text_ascii"):
        _cuda.prefetch_module(module)
    lengths = series.str.len().to_cupy().astype(cupy.int32, copy=False)
    offsets = exclusive_scan(lengths)
    packed = series.str.code_points().to_cupy().view(cupy.uint32)
    n = packed.shape[0]
    flags = cupy.zeros(2, dtype=cupy.int32)
    _launch("packed_utf8_flags", n, (packed, np.int64(n), flags))
    non_ascii, has_sigma = (bool(f) for f in flags.get())
    if not non_ascii:
        text = cupy.empty(n, dtype=cupy.uint8)
        _launch("decode_packed_utf8<unsigned char>", n, (packed, np.int64(n), text))
        return Documents(text, offsets, _ascii_tables(), lowercase)
    _cuda.prefetch_module("text_unicode")
    text = cupy.empty(n, dtype=cupy.uint32)
    _launch("decode_packed_utf8<unsigned int>", n, (packed, np.int64(n), text))
    return _unicode_documents(text, offsets, lowercase, strip_accents, has_sigma)


def _unicode_documents(text, offsets, lowercase: bool, strip_accents, has_sigma):
    """Documents of UTF-32 device text, preprocessed (``lowercase``, then
    ``strip_accents``) by the Unicode tables; ``has_sigma``: whether the
    text holds a capital sigma (whose lowercase depends on its place)."""
    cupy = get_cupy()
    tables = device_tables(lowercase, strip_accents, lowercase and has_sigma)
    docs = Documents(text, offsets, tables, False)
    if not lowercase and strip_accents is None:
        return docs
    counts = cupy.empty(docs.n, dtype=cupy.int32)
    _launch("preprocess_count", docs.n, (docs.text, np.int64(docs.n), tables, counts))
    positions = exclusive_scan(counts)
    out = cupy.empty(int(positions[-1]), dtype=cupy.uint32)
    args = (*docs.scan_args(), np.int32(lowercase))
    _launch("preprocess_write", docs.n, (*args, positions, out))
    return Documents(out, _gather(positions, offsets), tables, False)


def upload_tokens(token_lists: list[list[str]]) -> tuple[Documents, object]:
    """Tokens made on the host (by Python callables or patterns): their
    characters as one buffer, one "document" per token, and the token
    offsets of each document."""
    cupy = get_cupy()
    counts = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    doc_tokens = np.zeros(len(token_lists) + 1, dtype=np.int64)
    np.cumsum(counts, out=doc_tokens[1:])
    flat = [token for tokens in token_lists for token in tokens]
    docs = upload(flat, lowercase=False, strip_accents=None)
    return docs, cupy.asarray(doc_tokens)


def _collapse_spaces(docs: Documents) -> Documents:
    """scikit-learn's ``re.sub(r"\\s\\s+", " ", doc)`` for each document."""
    cupy = get_cupy()
    keep = cupy.empty(docs.n, dtype=cupy.int32)
    args = docs.scan_args()
    _launch(f"spaces_count<{docs.ctype}>", docs.n, (*args, keep))
    positions = exclusive_scan(keep)
    out = cupy.empty(int(positions[-1]), dtype=docs.text.dtype)
    _launch(f"spaces_write<{docs.ctype}>", docs.n, (*args, positions, out))
    return Documents(out, _gather(positions, docs.offsets), docs.tables, docs.lower)


def _word_tokens(docs: Documents, min_length: int):
    """Token bounds (start, end) and each document's token offsets."""
    cupy = get_cupy()
    tiles = max(1, -(-docs.n // _TOKEN_TILE))
    counts = cupy.empty(tiles, dtype=cupy.int32)
    args = (*docs.scan_args(), np.int32(min_length))
    grid, block = (tiles,), (_SCAN_THREADS,)
    _kernel(f"token_tile_counts<{docs.ctype}>")(grid, block, (*args, counts))
    tile_offsets = exclusive_scan(counts)
    n_tokens = int(tile_offsets[-1])
    token_start = cupy.empty(n_tokens, dtype=cupy.int64)
    token_end = cupy.empty(n_tokens, dtype=cupy.int64)
    _kernel(f"token_tile_write<{docs.ctype}>")(
        grid, block, (*args, tile_offsets, token_start, token_end)
    )
    doc_tokens = cupy.empty(docs.n_docs + 1, dtype=cupy.int64)
    args = (token_start, np.int64(n_tokens), docs.offsets, np.int64(docs.n_docs + 1))
    _launch("lower_bounds", docs.n_docs + 1, (*args, doc_tokens))
    return token_start, token_end, doc_tokens


def word_ngram_args(docs, token_start, token_end, doc_tokens, ngram_range) -> tuple:
    """The leading arguments of the word n-gram kernels (hashing and
    fingerprinting): text, lower, the tokens and each document's, the
    n-gram sizes."""
    min_n, max_n = ngram_range
    return (
        docs.text,
        np.int32(docs.lower),
        token_start,
        token_end,
        np.int64(token_start.shape[0]),
        doc_tokens,
        np.int64(doc_tokens.shape[0] - 1),
        np.int32(min_n),
        np.int32(max_n),
    )


def _hash_tokens(docs, token_start, token_end, doc_tokens, ngram_range, hashing):
    cupy = get_cupy()
    min_n, max_n = ngram_range
    n_tokens = token_start.shape[0]
    keys = cupy.empty(n_tokens * (max_n - min_n + 1), dtype=cupy.int64)
    args = word_ngram_args(docs, token_start, token_end, doc_tokens, ngram_range)
    _launch(f"hash_word_ngrams<{docs.ctype}>", n_tokens, (*args, *hashing, keys))
    return keys


def word_keys(docs: Documents, min_length: int, ngram_range, hashing):
    """The keys of the word n-grams (default token pattern)."""
    token_start, token_end, doc_tokens = _word_tokens(docs, min_length)
    return _hash_tokens(docs, token_start, token_end, doc_tokens, ngram_range, hashing)


def token_keys(docs: Documents, doc_tokens, hashing):
    """The keys of tokens uploaded by :func:`upload_tokens`."""
    return _hash_tokens(
        docs, docs.offsets[:-1], docs.offsets[1:], doc_tokens, (1, 1), hashing
    )


def char_keys(docs: Documents, ngram_range, hashing):
    """The keys of ``analyzer="char"``'s n-grams."""
    cupy = get_cupy()
    docs = _collapse_spaces(docs)
    min_n, max_n = ngram_range
    keys = cupy.empty(docs.n * (max_n - min_n + 1), dtype=cupy.int64)
    args = (*docs.ngram_args(), np.int32(min_n), np.int32(max_n), *hashing, keys)
    _launch(f"hash_char_ngrams<{docs.ctype}>", docs.n, args)
    return keys


def char_wb_keys(docs: Documents, ngram_range, hashing):
    """The keys of ``analyzer="char_wb"``'s n-grams (collapsing whitespace
    first would change no word, so it is skipped)."""
    cupy = get_cupy()
    min_n, max_n = ngram_range
    counts = cupy.empty(docs.n, dtype=cupy.int32)
    bounds = (np.int32(min_n), np.int32(max_n))
    args = (*docs.scan_args(), *bounds, counts)
    _launch(f"char_wb_counts<{docs.ctype}>", docs.n, args)
    positions = exclusive_scan(counts)
    keys = cupy.empty(int(positions[-1]), dtype=cupy.int64)
    args = (*docs.ngram_args(), docs.tables, *bounds, positions, *hashing, keys)
    _launch(f"hash_char_wb_ngrams<{docs.ctype}>", docs.n, args)
    return keys


def hashing_args(n_features: int, alternate_sign: bool) -> tuple:
    return (np.int64(n_features), np.int32(alternate_sign))


def assemble(keys, n_docs: int, n_features: int, dtype, binary: bool, norm):
    """The CSR matrix of summed signs (data, indices, indptr on the device;
    ``keys`` are sorted in place),
    as FeatureHasher's ``sum_duplicates`` leaves it, then ``binary`` and
    ``norm`` as HashingVectorizer applies them."""
    cupy = get_cupy()
    keys.sort()  # in place (cupy.sort's copy would compile a kernel)
    n = keys.shape[0]
    first = cupy.empty(n, dtype=cupy.int32)
    _launch("key_firsts", n, (keys, np.int64(n), first))
    positions = exclusive_scan(first)
    nnz = int(positions[-1])
    index = np.int32 if nnz <= np.iinfo(np.int32).max else np.int64
    value_type, index_type = _cuda.ctype(dtype), _cuda.ctype(index)
    data = cupy.empty(nnz, dtype=dtype)
    indices = cupy.empty(nnz, dtype=index)
    indptr = cupy.empty(n_docs + 1, dtype=index)
    args = (keys, np.int64(n), positions, np.int32(binary), data, indices)
    _launch(f"csr_write<{value_type}, {index_type}>", n, args)
    args = (keys, np.int64(n), positions, np.int64(n_docs), indptr)
    _launch(f"csr_indptr<{index_type}>", n_docs + 1, args)
    if norm is not None:
        args = (data, indptr, np.int64(n_docs), np.int32(norm == "l2"))
        _launch(f"csr_normalize<{value_type}, {index_type}>", n_docs, args)
    return data, indices, indptr


def to_host_csr(data, indices, indptr):
    """The three arrays copied to the host (pinned, in parallel chunks)."""
    return device_to_host(data), device_to_host(indices), device_to_host(indptr)
