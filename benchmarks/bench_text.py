"""HashingVectorizer on a large corpus: gpuml (GPU) against scikit-learn.

The corpus of issue 15: 200,000 synthetic documents of 120 words (about
164 MB of ASCII text), given as a Python list of str. Words are drawn with
Zipf-like frequencies from a vocabulary of 50,000 made-up words (2 to 10
letters, a tenth capitalised). Rows:

- scikit-learn's ``HashingVectorizer().transform`` (one core; it has no
  ``n_jobs``), once;
- gpuml's, default settings, first call in this process and warm (median of
  5), from the list to the SciPy CSR matrix on the host, checked equal to
  scikit-learn's (indices, indptr and value bits);
- the warm call's phases (host join and encode, copy to the GPU, analysis
  and hashing, sort and assembly, copy back, SciPy's constructor);
- ``--first-use``: the first call in fresh processes, with an empty CuPy
  kernel cache and then with the cache that run filled;
- ``--accented``: instead, a non-ASCII corpus (accented and Greek words),
  default settings and ``strip_accents="unicode"``;
- ``--mixed``: instead, issue 35's corpus of mixed scripts (100,000
  documents; :func:`make_mixed_corpus`), HashingVectorizer with default
  settings and with accent stripping and bigrams, TfidfVectorizer's fit,
  against scikit-learn's, and the phases;
- ``--tfidf``: instead, ``TfidfVectorizer().fit_transform`` (vocabulary,
  counts, pruning, sorting and weighting on the GPU, one copy back), first
  call and warm (median of 3), the counting step alone, ``min_df=2,
  max_df=0.5``, and scikit-learn's, checked equal (``vocabulary_``,
  indices, value bits); with ``--first-use``, its first call in fresh
  processes as above.

``python -m benchmarks.bench_text [--docs N] [--first-use]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

N_DOCS, N_WORDS, VOCABULARY = 200_000, 120, 50_000


def make_corpus(
    n_docs: int = N_DOCS,
    n_words: int = N_WORDS,
    seed: int = 0,
    accented: bool = False,
    return_ids: bool = False,
):
    """The documents (and, with ``return_ids``, each one's word ids)."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    lengths = rng.integers(2, 11, size=VOCABULARY)
    vocabulary = np.array(
        ["".join(rng.choice(letters, size=n)) for n in lengths], dtype=object
    )
    capital = rng.random(VOCABULARY) < 0.1
    vocabulary[capital] = [w.capitalize() for w in vocabulary[capital]]
    if accented:  # a fifth of the words accented, a twentieth Greek capitals
        accent = rng.random(VOCABULARY) < 0.2
        vocabulary[accent] = [
            w.replace("e", "é").replace("a", "à") for w in vocabulary[accent]
        ]
        greek = rng.random(VOCABULARY) < 0.05
        table = str.maketrans(
            "abcdefghijklmnopqrstuvwxyz", "ΑΒΨΔΕΦΓΗΙΞΚΛΜΝΟΠΣΡΣΤΘΩΣΧΥΖ"
        )
        vocabulary[greek] = [w.translate(table) for w in vocabulary[greek]]
    weights = 1.0 / np.arange(1, VOCABULARY + 1) ** 0.9
    ids = rng.choice(VOCABULARY, size=(n_docs, n_words), p=weights / weights.sum())
    words = vocabulary[ids]
    docs = [" ".join(row) for row in words]
    return (docs, ids) if return_ids else docs


#: The scripts of ``make_mixed_corpus``: (first, last) code points of each
#: script's letters, or an explicit alphabet.
_SCRIPTS = {
    "latin": "abcdefghijklmnopqrstuvwxyzéèêàâçñöüäßøåœæ",
    "latin_capital": "ABCDEFGHIJKLMNOPRSTUVWÉÈÀÇÑÖÜÄØÅ",
    "cyrillic": (0x0410, 0x044F),
    "greek": "αβγδεζηθικλμνξοπρσςτυφχψωάέήίόύώΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ",
    "cjk": (0x4E00, 0x9FFF),
    "arabic": (0x0627, 0x064A),
    "hebrew": (0x05D0, 0x05EA),
    "devanagari": (0x0915, 0x0939),
}


def make_mixed_corpus(n_docs: int = 100_000, n_words: int = 80, seed: int = 0):
    """Issue 35's mixed-script corpus: Latin with accents, Cyrillic, Greek,
    CJK, Arabic, Hebrew and Devanagari words (with vowel signs), emoji,
    ligatures (U+FB01, U+FB02) and combining accents, words drawn with the
    Zipf-like frequencies of :func:`make_corpus` (about 53 MB of UTF-8 at
    100,000 documents)."""
    rng = np.random.default_rng(seed)
    alphabets = {}
    for name, spec in _SCRIPTS.items():
        if isinstance(spec, tuple):
            spec = "".join(map(chr, range(spec[0], spec[1] + 1)))
        alphabets[name] = np.array(list(spec))
    names = list(alphabets)
    share = np.array([0.35, 0.05, 0.15, 0.12, 0.1, 0.08, 0.07, 0.08])
    vowel_signs = [chr(c) for c in range(0x093E, 0x094D)]
    emoji = [chr(c) for c in range(0x1F600, 0x1F650)] + [
        "\u2764\ufe0f",
        "\U0001f44d\U0001f3fd",
    ]
    vocabulary = []
    for script in rng.choice(len(names), size=VOCABULARY, p=share):
        name = names[script]
        length = rng.integers(1, 4) if name == "cjk" else rng.integers(2, 11)
        word = "".join(rng.choice(alphabets[name], size=length))
        if name == "devanagari":
            word = "".join(
                c + (rng.choice(vowel_signs) if rng.random() < 0.4 else "")
                for c in word
            )
        elif name == "latin":
            draw = rng.random()
            if draw < 0.05:
                word = word[:1] + "\ufb01" + word[1:]
            elif draw < 0.08:
                word = word[:1] + "\ufb02" + word[1:]
            elif draw < 0.15:
                word = word[:1] + "e\u0301" + word[1:]
        vocabulary.append(word)
    vocabulary += [*emoji, ",", ".", "!", "?", "«", "»", "—", "1999", "42"]
    vocabulary = np.array(vocabulary, dtype=object)
    weights = 1.0 / np.arange(1, len(vocabulary) + 1) ** 0.9
    rng.shuffle(weights)
    ids = rng.choice(len(vocabulary), size=(n_docs, n_words), p=weights / weights.sum())
    return [" ".join(row) for row in vocabulary[ids]]


def _sync():
    import cupy

    cupy.cuda.get_current_stream().synchronize()


def phases(docs) -> dict:
    """The warm call's steps, timed one by one (the GPU synchronised)."""
    import scipy.sparse as sp

    from gpuml.feature_extraction import _text_device as device

    times = {}
    t = time.perf_counter()
    joined = "".join(docs)
    np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
    joined.encode("ascii" if joined.isascii() else "utf-32-le")
    reference = "reference, not in gpuml: one whole join, lengths, encode"
    times[reference] = time.perf_counter() - t
    t = time.perf_counter()
    documents = device.upload(docs, True, None)
    _sync()
    times["upload (lengths, pieces joined and copied)"] = time.perf_counter() - t
    t = time.perf_counter()
    hashing = device.hashing_args(2**20, True)
    keys = device.word_keys(documents, 2, (1, 1), hashing)
    _sync()
    times["tokens and hashes"] = time.perf_counter() - t
    t = time.perf_counter()
    data, indices, indptr = device.assemble(
        keys, len(docs), 2**20, np.dtype(np.float64), False, "l2"
    )
    _sync()
    times["sort, assemble, normalize"] = time.perf_counter() - t
    t = time.perf_counter()
    host = device.to_host_csr(data, indices, indptr)
    times["copy back"] = time.perf_counter() - t
    t = time.perf_counter()
    sp.csr_array(host, shape=(len(docs), 2**20))
    times["SciPy constructor"] = time.perf_counter() - t
    return {k: round(v, 4) for k, v in times.items()}


def child(n_docs: int, tfidf: bool) -> None:
    """One fresh process: corpus made first, then the first call timed
    (HashingVectorizer's transform, or TfidfVectorizer's fit_transform)."""
    docs = make_corpus(n_docs)
    import cupy

    cupy.cuda.Device().synchronize()  # CUDA context, as any CuPy program
    from gpuml.feature_extraction.text import HashingVectorizer, TfidfVectorizer

    def call():
        if tfidf:
            return TfidfVectorizer().fit_transform(docs)
        return HashingVectorizer().transform(docs)

    t = time.perf_counter()
    X = call()
    first = time.perf_counter() - t
    t = time.perf_counter()
    call()
    again = time.perf_counter() - t
    print(
        json.dumps({"first": round(first, 3), "again": round(again, 3), "nnz": X.nnz})
    )


def run_child(n_docs: int, cache: str, tfidf: bool = False) -> dict:
    env = dict(os.environ, CUPY_CACHE_DIR=cache)
    command = [sys.executable, "-m", "benchmarks.bench_text", "--child"]
    command += ["--docs", str(n_docs)] + (["--tfidf"] if tfidf else [])
    out = subprocess.run(
        command,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def accented(n_docs: int) -> None:
    """Non-ASCII text: UTF-32 upload and the preprocessing tables."""
    from sklearn.feature_extraction.text import HashingVectorizer as Sk

    from gpuml.feature_extraction.text import HashingVectorizer

    docs = make_corpus(n_docs, accented=True)
    print(
        f"accented corpus: {len(docs):,} docs, {sum(map(len, docs)) / 1e6:.1f} M chars"
    )
    for settings in ({}, {"strip_accents": "unicode"}):
        t = time.perf_counter()
        X = HashingVectorizer(**settings).transform(docs)
        first = time.perf_counter() - t
        warm = []
        for _ in range(3):
            t = time.perf_counter()
            X = HashingVectorizer(**settings).transform(docs)
            warm.append(time.perf_counter() - t)
        t = time.perf_counter()
        want = Sk(**settings).transform(docs)
        sk = time.perf_counter() - t
        same = np.array_equal(X.indices, want.indices) and np.array_equal(
            X.data.view(np.uint64), want.data.view(np.uint64)
        )
        print(
            f"{settings}: gpuml first {first:.3f} s, warm median "
            f"{np.median(warm):.3f} s; scikit-learn {sk:.2f} s "
            f"({sk / np.median(warm):.0f}x); identical: {same}"
        )


def mixed(n_docs: int, run_sklearn: bool) -> None:
    """Issue 35 item 4: the mixed-script corpus (:func:`make_mixed_corpus`),
    HashingVectorizer (default settings; ``strip_accents='unicode'`` with
    bigrams) and TfidfVectorizer's fit_transform, first call in process and
    warm, against scikit-learn's, checked identical; then the warm call's
    phases."""
    from sklearn.feature_extraction.text import HashingVectorizer as SkHashing
    from sklearn.feature_extraction.text import TfidfVectorizer as SkTfidf

    from gpuml.feature_extraction.text import HashingVectorizer, TfidfVectorizer

    docs = make_mixed_corpus(n_docs)
    chars = sum(map(len, docs))
    utf8 = sum(len(doc.encode()) for doc in docs)
    print(
        f"mixed-script corpus: {len(docs):,} docs, {chars / 1e6:.1f} M characters, "
        f"{utf8 / 1e6:.1f} MB as UTF-8"
    )
    cases = (
        ("HashingVectorizer()", HashingVectorizer, SkHashing, {}, 5),
        (
            "HashingVectorizer(strip_accents='unicode', ngram_range=(1, 2))",
            HashingVectorizer,
            SkHashing,
            {"strip_accents": "unicode", "ngram_range": (1, 2)},
            5,
        ),
        ("TfidfVectorizer().fit_transform", TfidfVectorizer, SkTfidf, {}, 3),
    )
    for label, ours, theirs, settings, repeat in cases:

        def call(cls, settings=settings):
            vectorizer = cls(**settings)
            if cls in (TfidfVectorizer, SkTfidf):
                return vectorizer.fit_transform(docs)
            return vectorizer.transform(docs)

        t = time.perf_counter()
        X = call(ours)
        first = time.perf_counter() - t
        warm = []
        for _ in range(repeat):
            t = time.perf_counter()
            X = call(ours)
            warm.append(time.perf_counter() - t)
        median = float(np.median(warm))
        line = (
            f"{label}: gpuml first {first:.3f} s, warm median {median:.3f} s (min "
            f"{min(warm):.3f}); {chars / median / 1e6:.0f} M characters/s, "
            f"{utf8 / median / 1e6:.0f} MB/s of UTF-8"
        )
        if run_sklearn:
            t = time.perf_counter()
            want = call(theirs)
            sk = time.perf_counter() - t
            same = (
                np.array_equal(X.indptr, want.indptr)
                and np.array_equal(X.indices, want.indices)
                and np.array_equal(X.data.view(np.uint64), want.data.view(np.uint64))
            )
            line += f"; scikit-learn {sk:.2f} s ({sk / median:.1f}x); identical: {same}"
        print(line)
    print("phases:", phases(docs))


def tfidf(n_docs: int, run_sklearn: bool, **settings) -> None:
    from functools import partial

    from sklearn.feature_extraction.text import TfidfVectorizer as SkTfidf

    from gpuml.feature_extraction.text import TfidfVectorizer as GpumlTfidf

    TfidfVectorizer = partial(GpumlTfidf, **settings)
    Sk = partial(SkTfidf, **settings)
    docs = make_corpus(n_docs)
    print(f"corpus: {len(docs):,} docs, {sum(map(len, docs)) / 1e6:.1f} MB")
    print(f"settings: {settings or 'defaults'}")
    t = time.perf_counter()
    ours = TfidfVectorizer()
    X = ours.fit_transform(docs)
    print(
        f"gpuml TfidfVectorizer first call in process: {time.perf_counter() - t:.3f} s"
    )
    warm = []
    for _ in range(3):
        t = time.perf_counter()
        ours = TfidfVectorizer()
        X = ours.fit_transform(docs)
        warm.append(time.perf_counter() - t)
    counting = []
    for _ in range(3):
        t = time.perf_counter()
        TfidfVectorizer()._count_vocab(docs, False)
        counting.append(time.perf_counter() - t)
    pruned = []
    for _ in range(3):
        t = time.perf_counter()
        TfidfVectorizer(min_df=2, max_df=0.5).fit_transform(docs)
        pruned.append(time.perf_counter() - t)
    print(
        f"gpuml warm: median {np.median(warm):.3f} s (min {min(warm):.3f}, max "
        f"{max(warm):.3f}); its _count_vocab alone (counts left on the device) "
        f"{np.median(counting):.3f} s; with min_df=2, max_df=0.5 "
        f"{np.median(pruned):.3f} s; {len(ours.vocabulary_):,} terms, nnz {X.nnz:,}"
    )
    if run_sklearn:
        t = time.perf_counter()
        sk = Sk()
        want = sk.fit_transform(docs)
        elapsed = time.perf_counter() - t
        same_vocabulary = list(ours.vocabulary_.items()) == list(sk.vocabulary_.items())
        same = (
            np.array_equal(X.indptr, want.indptr)
            and np.array_equal(X.indices, want.indices)
            and np.allclose(X.data, want.data, rtol=1e-12, atol=0)
        )
        print(
            f"scikit-learn: {elapsed:.2f} s; ratio {elapsed / np.median(warm):.1f}x; "
            f"same vocabulary_: {same_vocabulary}; same matrix: {same}; "
            f"bit-identical values: {np.array_equal(X.data, want.data)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=N_DOCS)
    parser.add_argument("--first-use", action="store_true")
    parser.add_argument("--child", action="store_true")
    parser.add_argument("--no-sklearn", action="store_true")
    parser.add_argument(
        "--accented",
        action="store_true",
        help="non-ASCII corpus; times default settings and strip_accents='unicode'",
    )
    parser.add_argument(
        "--mixed",
        action="store_true",
        help="issue 35's mixed-script corpus (--docs defaults to 100,000)",
    )
    parser.add_argument("--tfidf", action="store_true", help="TfidfVectorizer")
    parser.add_argument(
        "--analyzer", default="word", help="with --tfidf: word, char or char_wb"
    )
    parser.add_argument(
        "--ngram-range", type=int, nargs=2, default=(1, 1), metavar=("MIN", "MAX")
    )
    args = parser.parse_args()
    if args.child:
        return child(args.docs, args.tfidf)
    if args.accented:
        return accented(args.docs)
    if args.mixed:
        n_docs = 100_000 if args.docs == N_DOCS else args.docs
        return mixed(n_docs, not args.no_sklearn)
    if args.first_use:
        cache = tempfile.mkdtemp(prefix="gpuml-text-cache-")
        print("empty cache:", run_child(args.docs, cache, args.tfidf))
        for _ in range(2):
            print("warm cache: ", run_child(args.docs, cache, args.tfidf))
    if args.tfidf:
        settings = {}
        if args.analyzer != "word" or tuple(args.ngram_range) != (1, 1):
            settings = dict(analyzer=args.analyzer, ngram_range=tuple(args.ngram_range))
        return tfidf(args.docs, not args.no_sklearn, **settings)
    from sklearn.feature_extraction.text import HashingVectorizer as Sk

    from gpuml.feature_extraction.text import HashingVectorizer

    t = time.perf_counter()
    docs = make_corpus(args.docs)
    n_bytes = sum(map(len, docs))
    print(
        f"corpus: {len(docs):,} docs, {n_bytes / 1e6:.1f} MB, made in "
        f"{time.perf_counter() - t:.1f} s"
    )
    t = time.perf_counter()
    X = HashingVectorizer().transform(docs)
    print(f"gpuml first call in process: {time.perf_counter() - t:.3f} s")
    warm = []
    for _ in range(5):
        t = time.perf_counter()
        X = HashingVectorizer().transform(docs)
        warm.append(time.perf_counter() - t)
    print(
        f"gpuml warm: median {np.median(warm):.3f} s (min {min(warm):.3f}, "
        f"max {max(warm):.3f}); nnz {X.nnz:,}"
    )
    print("phases:", phases(docs))
    if not args.no_sklearn:
        t = time.perf_counter()
        want = Sk().transform(docs)
        sk = time.perf_counter() - t
        same = (
            np.array_equal(X.indptr, want.indptr)
            and np.array_equal(X.indices, want.indices)
            and np.array_equal(X.data.view(np.uint64), want.data.view(np.uint64))
            and X.dtype == want.dtype
            and type(X) is type(want)
        )
        print(
            f"scikit-learn: {sk:.2f} s; ratio {sk / np.median(warm):.0f}x; "
            f"identical: {same}"
        )


if __name__ == "__main__":
    main()
