# ruff: noqa: RUF001  (the look-alike letters are the test data)
"""HashingVectorizer against scikit-learn's, bit for bit, on each device.

Fresh random corpora (ASCII, accented and non-Latin UTF-8, combining
characters, capital sigmas in every context, emoji, empty documents, very
long tokens, whitespace of every kind) under a random sample of settings:
the matrix must equal scikit-learn's in type, shape, dtype, index dtypes,
structure and the bits of every value. On the GPU this checks the device's
analysis, hashing and assembly; on the CPU, gpuml's class is scikit-learn's
code.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.feature_extraction.text import HashingVectorizer as SkHashingVectorizer
from sklearn.utils.murmurhash import murmurhash3_32

from gpuml import config_context
from gpuml._sklearn_compat import InvalidParameterError
from gpuml.feature_extraction.text import HashingVectorizer
from tests.conftest import DEVICES

# Pieces of text that exercise a rule each.
_WORDS = [
    "the",
    "Data",
    "GPU",
    "x",
    "_",
    "a_b",
    "42",
    "3.14",
    "naïve",
    "Café",
    "ÉCOLE",
    "straße",
    "İstanbul",
    "ǅemal",
    "ﬁnance",
    "Ｆｕｌｌ",
    "①②",
    "x²",
    "½",
    "ΟΔΟΣ",
    "ΣΑΣ",
    "Σ",
    "ΑΣ'Σ",
    "άσΣ.",
    "Σ̈α",
    "e\u0301te\u0301",
    "a\u0308\u0301",
    "한국어",
    "中文字",
    "日本語テキスト",
    "кириллица",
    "ΜΙΚΡΌΣ",
    "مرحبا",
    "हिन्दी",
    "😀",
    "emoji😀x",
    "👩\u200d💻",
    "ÅNGSTRÖM",
    "Ⅻ",
    "ǈ",
    "ꭰ",
    "𝔘𝔫𝔦",
    "ﬀ",
    "don't",
    "e-mail",
    "U.S.A.",
    "#tag",
    "@user",
    "a" * 300,
    "é" * 257,
]
_SPACES = [
    " ",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\u00a0",
    "\u3000",
    "\u2003 ",
    "\x1c",
    " \x0b ",
]


def make_corpus(rng, n_docs: int = 30) -> list[str]:
    docs = []
    for i in range(n_docs):
        if i % 11 == 3:
            docs.append("")
            continue
        n = int(rng.integers(0, 25))
        parts = []
        for _ in range(n):
            parts.append(_WORDS[int(rng.integers(len(_WORDS)))])
            parts.append(_SPACES[int(rng.integers(len(_SPACES)))])
        docs.append("".join(parts))
    docs.append("  leading and trailing  ")
    docs.append("ASCII only, with Punctuation! And CAPS.")
    return docs


def assert_identical(got, want):
    """Same type, shape, dtypes, structure and value bits."""
    assert type(got) is type(want), (type(got), type(want))
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    assert got.indices.dtype == want.indices.dtype
    assert got.indptr.dtype == want.indptr.dtype
    np.testing.assert_array_equal(got.indptr, want.indptr)
    np.testing.assert_array_equal(got.indices, want.indices)
    bits = np.dtype(f"u{want.dtype.itemsize}")
    np.testing.assert_array_equal(got.data.view(bits), want.data.view(bits))


_SETTING_SPACE = dict(
    analyzer=["word", "char", "char_wb"],
    lowercase=[True, False],
    strip_accents=[None, "ascii", "unicode"],
    ngram_range=[(1, 1), (1, 3), (2, 2), (2, 4)],
    n_features=[2**20, 17, 2**31 - 1],
    binary=[False, True],
    norm=["l2", "l1", None],
    alternate_sign=[True, False],
    dtype=[np.float64, np.float32],
)


def random_settings(rng, n: int) -> list[dict]:
    return [
        {k: v[int(rng.integers(len(v)))] for k, v in _SETTING_SPACE.items()}
        for _ in range(n)
    ]


@pytest.mark.parametrize("device", DEVICES)
def test_matches_sklearn_on_random_settings(device, rng):
    corpus = make_corpus(rng)
    ascii_corpus = [doc.encode("ascii", "ignore").decode() for doc in corpus]
    for settings in random_settings(rng, 40):
        for docs in (corpus, ascii_corpus):
            want = SkHashingVectorizer(**settings).transform(docs)
            with config_context(device=device):
                got = HashingVectorizer(**settings).transform(docs)
            assert_identical(got, want)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("analyzer", ["word", "char", "char_wb"])
@pytest.mark.parametrize("strip_accents", [None, "ascii", "unicode"])
@pytest.mark.parametrize("lowercase", [True, False])
def test_every_preprocessing(device, rng, analyzer, strip_accents, lowercase):
    """Every preprocessing on each analyzer, default n-grams and a range."""
    corpus = make_corpus(rng, 40)
    for ngram_range in [(1, 1), (1, 2)]:
        settings = dict(
            analyzer=analyzer,
            strip_accents=strip_accents,
            lowercase=lowercase,
            ngram_range=ngram_range,
        )
        want = SkHashingVectorizer(**settings).fit_transform(corpus)
        with config_context(device=device):
            got = HashingVectorizer(**settings).fit_transform(corpus)
        assert_identical(got, want)


@pytest.mark.parametrize("device", DEVICES)
def test_final_sigma_contexts(device):
    """Python's str.lower chooses the final sigma from the neighbours,
    skipping case-ignorable characters, within each document."""
    docs = [
        "ΟΔΟΣ",
        "Σ",
        "ΑΣ",
        "ΑΣΑ",
        "ΑΣ'",
        "Α'Σ",
        "ΑΣ'Α",
        "Α\u0301Σ",
        "ΑΣ\u0301",
        "ΑΣ.Α",
        "1Σ",
        "ΑΣ1",
        "Σ Α",
        "ΑΣ ",
        "ΑΣ\u00adΑ",
        "ΑΣ\u00ad",
        "ΑΣ",
        "ΑΣ",
    ]
    for analyzer in ("word", "char"):
        want = SkHashingVectorizer(analyzer=analyzer, ngram_range=(1, 2)).transform(
            docs
        )
        with config_context(device=device):
            got = HashingVectorizer(analyzer=analyzer, ngram_range=(1, 2)).transform(
                docs
            )
        assert_identical(got, want)


@pytest.mark.parametrize("device", DEVICES)
def test_murmurhash_of_any_token(device, rng):
    """Tokens from a callable analyzer are hashed exactly as scikit-learn's
    MurmurHash3 (x86, 32 bits, seed 0) of their UTF-8 bytes: every length
    mod 4, every UTF-8 width, hash values of both signs."""
    alphabet = [*"abcXYZ09 _-é中😀", "\u0301", "\U0010fffd", "\x00"]
    token_lists = [
        [
            "".join(alphabet[int(k)] for k in rng.integers(len(alphabet), size=n))
            for n in rng.integers(0, 13, size=int(rng.integers(0, 30)))
        ]
        for _ in range(40)
    ]
    settings = dict(analyzer=lambda tokens: tokens, n_features=2**31 - 1, norm=None)
    want = SkHashingVectorizer(**settings).transform(token_lists)
    with config_context(device=device):
        got = HashingVectorizer(**settings).transform(token_lists)
    assert_identical(got, want)
    # The columns and signs are murmurhash3_32's.
    flat = [t for tokens in token_lists for t in tokens]
    h = np.array([murmurhash3_32(t, seed=0) for t in flat], dtype=np.int64)
    assert set(np.abs(h) % (2**31 - 1)) == set(got.indices)


@pytest.mark.parametrize("device", DEVICES)
def test_host_analysis_settings(device, rng):
    """Python callables, other token patterns and stop words: tokens from
    scikit-learn's analyzer, hashed on the device."""
    corpus = make_corpus(rng)
    settings_list = [
        dict(stop_words="english"),
        dict(stop_words=["the", "data", "gpu"], ngram_range=(1, 2)),
        dict(token_pattern=r"(?u)\b\w+\b"),
        dict(token_pattern=r"\b\w+\b", lowercase=False),
        dict(token_pattern=r"[a-z]+'?[a-z]*"),
        dict(token_pattern=r"(\w)\w*"),
        dict(tokenizer=str.split, token_pattern=None),
        dict(preprocessor=lambda doc: doc.upper()),
        dict(strip_accents=lambda doc: doc.replace("é", "e")),
        dict(analyzer=lambda doc: doc.split()),
        dict(analyzer=lambda doc: (w for w in doc.split() if len(w) > 2)),
        dict(analyzer=lambda doc: [w.encode() for w in doc.split()]),
    ]
    for settings in settings_list:
        want = SkHashingVectorizer(**settings).transform(corpus)
        with config_context(device=device):
            got = HashingVectorizer(**settings).transform(corpus)
        assert_identical(got, want)


@pytest.mark.parametrize("device", DEVICES)
def test_inputs(device, tmp_path):
    """str, bytes (with decode errors), numpy arrays, generators, files."""
    docs = ["Hello wörld", "second DOC", "", "ΟΔΟΣ ΣΑΣ"]
    want = SkHashingVectorizer().transform(docs)
    encoded = [doc.encode("utf-8") for doc in docs]
    paths = []
    for i, doc in enumerate(encoded):
        paths.append(tmp_path / f"doc{i}.txt")
        paths[-1].write_bytes(doc)
    with config_context(device=device):
        for X in (
            docs,
            np.array(docs, dtype=object),
            np.array(docs),
            iter(docs),
            encoded,
        ):
            assert_identical(HashingVectorizer().transform(X), want)
        got = HashingVectorizer(input="filename").transform(paths)
        assert_identical(got, want)
        got = HashingVectorizer(input="file").transform(io.BytesIO(d) for d in encoded)
        assert_identical(got, want)
        latin = [doc.encode("latin-1", "replace") for doc in docs]
        for settings in (
            dict(encoding="latin-1"),
            dict(decode_error="replace"),
            dict(decode_error="ignore"),
        ):
            assert_identical(
                HashingVectorizer(**settings).transform(latin),
                SkHashingVectorizer(**settings).transform(latin),
            )


@pytest.mark.parametrize("device", DEVICES)
def test_errors_match_sklearn(device, tmp_path):
    cases = [
        (dict(), "a string", ValueError, "Iterable over raw text documents expected"),
        (dict(), [], StopIteration, None),  # scikit-learn 1.9 lets it escape
        (dict(), ["ok", np.nan], ValueError, "np.nan is an invalid document"),
        (dict(ngram_range=(2, 1)), ["a b"], ValueError, "lower boundary larger"),
        (dict(), [b"\xff\xfe bad"], UnicodeDecodeError, "can't decode"),
        (
            dict(input="filename"),
            [str(tmp_path / "missing.txt")],
            FileNotFoundError,
            None,
        ),
        (dict(analyzer=lambda d: d), ["abc"], ValueError, "can not be a single string"),
        (
            dict(analyzer=lambda d: [1, 2]),
            ["abc"],
            TypeError,
            "feature names must be strings",
        ),
    ]
    for settings, X, error, message in cases:
        with pytest.raises(error, match=message):
            SkHashingVectorizer(**settings).transform(X)
        with config_context(device=device), pytest.raises(error, match=message):
            HashingVectorizer(**settings).transform(X)
    with config_context(device=device):
        for settings in (dict(norm="l3"), dict(n_features=0), dict(analyzer="chars")):
            with pytest.raises(InvalidParameterError):
                HashingVectorizer(**settings).fit(["a b"])


@pytest.mark.parametrize("device", DEVICES)
def test_unusual_settings_run_sklearn_code(device):
    """Integer dtypes and n-gram ranges from 0 give scikit-learn's results."""
    docs = ["a bb ccc bb", "dd ee", ""]
    for settings in (
        dict(dtype=np.int64, norm=None),
        dict(dtype=np.int32, norm="l2"),
        dict(ngram_range=(0, 2)),
        dict(ngram_range=(0, 1), analyzer="char"),
    ):
        want = SkHashingVectorizer(**settings).transform(docs)
        with config_context(device=device):
            got = HashingVectorizer(**settings).transform(docs)
        assert_identical(got, want)


def test_is_sklearns_estimator():
    """Same parameters, clone, repr, tags; stateless (fit learns nothing)."""
    ours, theirs = (
        HashingVectorizer(ngram_range=(1, 2)),
        SkHashingVectorizer(ngram_range=(1, 2)),
    )
    assert ours.get_params() == theirs.get_params()
    assert clone(ours).get_params() == ours.get_params()
    assert repr(ours) == "HashingVectorizer(ngram_range=(1, 2))"
    assert ours.__sklearn_tags__() == theirs.__sklearn_tags__()
    assert ours.fit(["a b"]).__dict__ == HashingVectorizer(ngram_range=(1, 2)).__dict__


@pytest.mark.parametrize("device", DEVICES)
def test_large_documents_and_many_of_them(device, rng):
    """Long documents (tokens spanning scan tiles) and more documents than
    one launch's blocks."""
    words = np.array(["alpha", "beta", "Gamma", "δέλτα", "x", "42", "😀"])
    docs = [
        " ".join(words[rng.integers(len(words), size=int(n))])
        for n in rng.integers(0, 400, size=3000)
    ]
    docs[7] = "z" * 100_000
    for settings in (dict(), dict(analyzer="char_wb", ngram_range=(2, 3))):
        want = SkHashingVectorizer(**settings).transform(docs)
        with config_context(device=device):
            got = HashingVectorizer(**settings).transform(docs)
        assert_identical(got, want)


def test_default_pattern_list_matches_sklearn_default():
    assert SkHashingVectorizer().token_pattern == r"(?u)\b\w\w+\b"
    assert re.compile(r"\b\w\w+\b").flags == re.compile(r"(?u)\b\w\w+\b").flags
    assert sp.issparse(HashingVectorizer().transform(["a bb"]))


@pytest.mark.gpu
def test_gpu_runs_the_device_path(monkeypatch, rng):
    """On a GPU, supported settings never reach scikit-learn's analysis and
    hashing, and host-analyzed settings never reach its hasher."""
    import sklearn.feature_extraction.text as sk_text

    corpus = make_corpus(rng)

    def fail(*args, **kwargs):
        raise AssertionError("scikit-learn's code ran")

    monkeypatch.setattr(sk_text.HashingVectorizer, "transform", fail)
    monkeypatch.setattr(sk_text.HashingVectorizer, "_get_hasher", fail)
    with config_context(device="gpu"):
        for settings in (
            dict(),
            dict(analyzer="char", strip_accents="unicode", ngram_range=(1, 3)),
            dict(analyzer="char_wb", lowercase=False, dtype=np.float32),
            dict(stop_words="english"),
            dict(analyzer=str.split),
        ):
            assert HashingVectorizer(**settings).transform(corpus).nnz > 0


def test_ascii_buffer_is_the_strs_bytes():
    """The ASCII fast path reads a str's characters without a copy on
    CPython; the view stays valid after the caller drops the str."""
    from gpuml.feature_extraction._text_device import ascii_buffer

    for text in ["a", "hello world", "x" * 100_001, "".join(map(str, range(5000)))]:
        view = ascii_buffer(text)
        assert view.dtype == np.uint8
        assert bytes(view) == text.encode("ascii")
    view = ascii_buffer("".join(["made ", "at ", "run time"]))
    import gc

    gc.collect()
    assert bytes(view) == b"made at run time"


@pytest.mark.gpu
def test_large_corpus_uploaded_in_pieces(rng, monkeypatch):
    """A large ASCII corpus is joined and copied a piece at a time (tiny
    pieces and staging chunks here): the same matrices; a non-ASCII document
    in a later piece sends the whole corpus down the UTF-32 path."""
    from sklearn.feature_extraction.text import CountVectorizer as SkCountVectorizer

    from gpuml import _array
    from gpuml.feature_extraction import _text_device
    from gpuml.feature_extraction.text import CountVectorizer

    monkeypatch.setattr(_text_device, "_JOIN_CHARS", 37)
    monkeypatch.setattr(_array, "_CHUNK_BYTES", 16)
    corpus = [doc.encode("ascii", "ignore").decode() for doc in make_corpus(rng, 200)]
    mixed = [*corpus[:150], "Ünïcode ΣΑΣ words", *corpus[150:]]
    for docs in (corpus, mixed):
        want = SkHashingVectorizer().transform(docs)
        counts = SkCountVectorizer(analyzer="char_wb").fit_transform(docs)
        with config_context(device="gpu"):
            assert_identical(HashingVectorizer().transform(docs), want)
            got = CountVectorizer(analyzer="char_wb").fit_transform(docs)
        assert_identical(got, counts)


def test_pieces_of_a_large_corpus_cover_its_documents_in_order(rng, monkeypatch):
    """The host side of the piecewise upload (ASCII and UTF-32 alike): the
    pieces are runs of whole documents, in order, that together are the
    corpus, each but the last past a multiple of the piece size."""
    import itertools

    from gpuml.feature_extraction import _text_device

    monkeypatch.setattr(_text_device, "_JOIN_CHARS", 37)
    texts = make_corpus(rng, 200)
    offsets = np.concatenate(([0], np.cumsum([len(t) for t in texts])))
    edges = _text_device._piece_edges(offsets)
    assert edges[0] == 0 and edges[-1] == len(texts)
    assert all(a < b for a, b in itertools.pairwise(edges))
    pieces = ["".join(texts[a:b]) for a, b in itertools.pairwise(edges)]
    assert "".join(pieces) == "".join(texts)
    assert len(pieces) > 10  # many pieces at this size
    ends = offsets[edges[1:-1]]  # characters before each cut
    assert all(end >= 37 * (i + 1) for i, end in enumerate(ends))


class _Text(str):
    """A str subclass (CPython keeps its characters apart from the object)."""


def test_unicode_pieces_rebuild_the_code_points(rng, monkeypatch):
    """The host side of the non-ASCII upload: each piece of documents goes
    as one joined string per character width, read in place, and the runs
    put every character back in its document's place (rebuilt here with
    NumPy as the device's ``widen_runs`` does), for documents of every
    width (ASCII, Latin-1, BMP, astral), empty ones, str subclasses and
    runs cut short, at several piece sizes."""
    from gpuml.feature_extraction import _text_device

    docs = make_corpus(rng, 120)
    docs += ["", "abc", "é", "\U0001f600x", "Σ", _Text("sub ÿ"), _Text("中"), "", "ß"]
    docs += ["ab" * 40, "中" * 41, "😀" * 39]
    lengths = np.fromiter(map(len, docs), dtype=np.int64)
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    widths = _text_device.str_widths(docs, lengths)
    assert set(widths.tolist()) == {1, 2, 4}
    for doc, width in zip(docs, widths, strict=True):
        assert width >= _text_device.str_buffer(doc).itemsize
    want = np.frombuffer("".join(docs).encode("utf-32-le"), dtype="<u4")
    monkeypatch.setattr(_text_device, "_RUN_CHARS", 16)
    for join_chars in (37, 500, 1 << 22):
        monkeypatch.setattr(_text_device, "_JOIN_CHARS", join_chars)
        runs: list = []
        raw = np.concatenate(
            list(
                _text_device.unicode_pieces(
                    docs, offsets, _text_device._piece_edges(offsets), widths, runs
                )
            )
        )
        runs = np.concatenate(runs)
        pieces = len(_text_device._piece_edges(offsets))
        assert raw.nbytes <= int(widths @ lengths) + 4 * 3 * pieces
        assert (runs[:, 3] <= 16).all() and (runs[:, 3] > 0).all()
        out = np.zeros(offsets[-1], dtype=np.uint32)
        for start, width, first, length in runs.tolist():
            assert start % width == 0
            chars = raw[start : start + length * width].view(f"<u{width}")
            out[first : first + length] = chars
        np.testing.assert_array_equal(out, want)
        assert runs[:, 3].sum() == want.shape[0]  # each character once


def test_str_buffer_reads_each_width_in_place():
    from gpuml.feature_extraction._text_device import str_buffer

    for text, dtype in [
        ("plain", np.uint8),
        ("café ÿ", np.uint8),
        ("Σίσυφος", np.uint16),
        ("中文" * 5000, np.uint16),
        ("emoji 😀 ok", np.uint32),
        (_Text("a subclass é"), None),
        (_Text("an ASCII subclass" * 1000), None),  # never read in place
        (np.str_("numpy's str é"), None),
    ]:
        view = str_buffer(text)
        if dtype is not None:
            assert view.dtype == dtype
        assert view.tolist() == [ord(c) for c in text]


@pytest.mark.gpu
def test_mixed_widths_in_pieces_and_short_runs(rng, monkeypatch):
    """On the device: documents of every width, uploaded in tiny pieces
    and runs, give scikit-learn's matrices; a lone surrogate sends the
    corpus to Python's rules (scikit-learn's result, not an error)."""
    from sklearn.feature_extraction.text import CountVectorizer as SkCountVectorizer

    from gpuml.feature_extraction import _text_device
    from gpuml.feature_extraction.text import CountVectorizer

    monkeypatch.setattr(_text_device, "_JOIN_CHARS", 53)
    monkeypatch.setattr(_text_device, "_RUN_CHARS", 7)
    docs = [*make_corpus(rng, 80), "ΑΣ", _Text("Σ sub"), "ÿ", ""]
    for settings in (
        {},
        {"strip_accents": "unicode", "ngram_range": (1, 2)},
        {"analyzer": "char", "lowercase": False},
    ):
        want = SkHashingVectorizer(**settings).transform(docs)
        with config_context(device="gpu"):
            assert_identical(HashingVectorizer(**settings).transform(docs), want)
    with_surrogate = [*docs[:5], "bad \ud800 text", *docs[5:]]
    want = SkCountVectorizer().fit_transform(with_surrogate)
    with config_context(device="gpu"):
        got = CountVectorizer().fit_transform(with_surrogate)
    assert_identical(got, want)


def test_str_widths_never_below_the_stored_width(monkeypatch):
    """A str whose size also counts a cached UTF-8 copy (CPython keeps one
    once C code asks for it) reads as width 4, never narrower than its own;
    and a misread width (here a wrong header size) stops the pieces, which
    sends the corpus to the plain UTF-32 path, instead of overrunning the
    device buffer."""
    import ctypes

    from gpuml.feature_extraction import _text_device

    cached = "中文" + "x"  # a new str
    as_utf8 = ctypes.pythonapi.PyUnicode_AsUTF8
    as_utf8.restype = ctypes.c_char_p
    as_utf8.argtypes = [ctypes.py_object]
    assert as_utf8(cached) == cached.encode()
    fresh = ["".join(parts) for parts in (("asc", "ii"), ("é", "t"), ("中", "文"))]
    docs = [*fresh, cached, "😀"]
    lengths = np.fromiter(map(len, docs), dtype=np.int64)
    widths = _text_device.str_widths(docs, lengths)
    assert widths.tolist() == [1, 1, 2, 4, 4]
    monkeypatch.setattr(
        _text_device, "_COMPACT_HEADER", _text_device._COMPACT_HEADER + 3
    )
    widths = _text_device.str_widths(docs, lengths)
    assert widths[2] == 1  # misread: "中文" is 2 bytes a character
    offsets = np.concatenate(([0], np.cumsum(lengths)))
    pieces = list(
        _text_device.unicode_pieces(
            docs, offsets, _text_device._piece_edges(offsets), widths, []
        )
    )
    assert pieces[-1] is None
