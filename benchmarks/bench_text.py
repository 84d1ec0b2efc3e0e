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
    joined.encode("ascii")
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
