"""UMAP's quality on every kind of data (issue 36): gpuml on the GPU against
umap-learn on the host, in the same run, at default settings.

Families (each float32 unless said):

- ``swiss``, ``scurve``, ``sphere``, ``torus``: 3-D manifolds of 100,000
  points (:func:`benchmarks.bench_umap.manifold`);
- ``clusters``: clustered high-dimensional data, ``make_classification(
  20_000, 64, n_informative=20, n_classes=10, n_clusters_per_class=1)``;
- ``digits``: scikit-learn's digits (1,797 x 64 images);
- ``images``: a larger image-like set, 20,000 x 256: the digits drawn at
  16 x 16, shifted by up to two pixels each way, scaled by 0.8-1.2, with
  Gaussian noise (sd 0.5);
- ``text``: sparse tf-idf (scikit-learn's ``TfidfVectorizer``) of 5,000
  synthetic documents of 10 topics over a 5,000-word Zipf vocabulary
  (CSR input);
- ``noise``: 10,000 x 10 uniform noise (labels: the first coordinate's
  decile);
- ``duplicates``: 10,000 rows of 1,000 distinct points of 20 blobs, each
  repeated 10 times;
- ``few``: 300 x 20 blobs of 4 centres;
- ``million``: ``make_classification(1_000_000, 64, ...)`` as
  ``clusters`` (gpuml only unless ``--umap-learn-million``: umap-learn
  takes many minutes there).

For each: gpuml's ``UMAP(random_state=0).fit_transform`` (first call in
this process, then warm, the median of 2), umap-learn's ``UMAP()`` once
(its parallel mode: no seed); trustworthiness (k=15) and the accuracy of a
15-nearest-neighbour classifier (3-fold cross-validation) on each embedding,
both on the same sample of at most 5,000 points, computed on the host with
scikit-learn (trustworthiness of sparse data from its dense sample).

``python -m benchmarks.bench_umap_quality [--families a,b] [--no-umap-learn]
[--umap-learn-million]``: one JSON line per family.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

from benchmarks.bench_umap import manifold, time_gpuml

FAMILIES = (
    "swiss",
    "scurve",
    "sphere",
    "torus",
    "clusters",
    "digits",
    "images",
    "text",
    "noise",
    "duplicates",
    "few",
    "million",
)


def _images(n: int = 20_000):
    from sklearn.datasets import load_digits

    digits = load_digits()
    rng = np.random.default_rng(0)
    pick = rng.integers(0, digits.images.shape[0], n)
    big = np.kron(digits.images[pick], np.ones((1, 2, 2)))  # 16 x 16
    out = np.zeros_like(big)
    shifts = rng.integers(-2, 3, size=(n, 2))
    for i in range(n):
        out[i] = np.roll(big[i], tuple(shifts[i]), axis=(0, 1))
    out *= rng.uniform(0.8, 1.2, size=(n, 1, 1))
    out += rng.normal(scale=0.5, size=out.shape)
    return out.reshape(n, 256).astype(np.float32), digits.target[pick]


def _text(n: int = 5_000, vocabulary: int = 5_000, topics: int = 10):
    from sklearn.feature_extraction.text import TfidfVectorizer

    rng = np.random.default_rng(0)
    zipf = 1.0 / np.arange(1, vocabulary + 1)
    weights = []
    for _ in range(topics):  # each topic: the Zipf weights on its own order
        w = np.empty(vocabulary)
        w[rng.permutation(vocabulary)] = zipf
        weights.append(w / w.sum())
    labels = rng.integers(0, topics, n)
    lengths = rng.integers(30, 200, n)
    docs = []
    for label, length in zip(labels, lengths, strict=True):
        # a document: 70% its topic's words, 30% the common background
        own = rng.choice(vocabulary, int(0.7 * length), p=weights[label])
        common = rng.choice(vocabulary, length - own.shape[0], p=zipf / zipf.sum())
        docs.append(" ".join(f"w{i}" for i in np.concatenate([own, common])))
    X = TfidfVectorizer().fit_transform(docs).astype(np.float32)
    return X, labels


def family(name: str):
    """(X, labels) of a family."""
    from sklearn.datasets import load_digits, make_blobs, make_classification

    if name in ("swiss", "scurve", "sphere", "torus"):
        X, t = manifold(name, 100_000)
        return X, np.digitize(t, np.quantile(t, np.linspace(0, 1, 11)[1:-1]))
    if name in ("clusters", "million"):
        X, y = make_classification(
            20_000 if name == "clusters" else 1_000_000,
            64,
            n_informative=20,
            n_classes=10,
            n_clusters_per_class=1,
            random_state=0,
        )
        return X.astype(np.float32), y
    if name == "digits":
        X, y = load_digits(return_X_y=True)
        return X.astype(np.float32), y
    if name == "images":
        return _images()
    if name == "text":
        return _text()
    if name == "noise":
        X = np.random.default_rng(0).uniform(size=(10_000, 10)).astype(np.float32)
        return X, np.minimum((X[:, 0] * 10).astype(int), 9)
    if name == "duplicates":
        X, y = make_blobs(1_000, 16, centers=20, random_state=0)
        return np.repeat(X, 10, axis=0).astype(np.float32), np.repeat(y, 10)
    X, y = make_blobs(300, 20, centers=4, random_state=0)
    return X.astype(np.float32), y


def scores(X, E, labels, sample: int = 5000) -> dict:
    """Trustworthiness (k=15) and 15-NN accuracy on a sample."""
    import scipy.sparse as sp
    from sklearn.manifold import trustworthiness
    from sklearn.model_selection import cross_val_score
    from sklearn.neighbors import KNeighborsClassifier

    idx = np.arange(X.shape[0])
    if X.shape[0] > sample:
        idx = np.random.default_rng(0).choice(X.shape[0], sample, replace=False)
    Xs = X[idx].toarray() if sp.issparse(X) else X[idx]
    Es = np.asarray(E)[idx]
    trust = trustworthiness(Xs, Es, n_neighbors=min(15, Xs.shape[0] // 2 - 1))
    knn = KNeighborsClassifier(15)
    accuracy = cross_val_score(knn, Es, labels[idx], cv=3).mean()
    return {"trustworthiness": round(float(trust), 4), "knn": round(float(accuracy), 4)}


def run(name: str, umap_learn: bool) -> dict:
    X, labels = family(name)
    first, _ = time_gpuml(X)
    warm = []
    for _ in range(2):
        seconds, E = time_gpuml(X)
        warm.append(seconds)
    row = {"family": name, "shape": list(X.shape), "gpuml_first": round(first, 3)}
    row["gpuml_warm"] = round(float(np.median(warm)), 3)
    row["gpuml"] = scores(X, E, labels)
    if umap_learn:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import umap

            start = time.perf_counter()
            theirs = umap.UMAP().fit_transform(X)
        row["umap_learn_seconds"] = round(time.perf_counter() - start, 2)
        row["umap_learn"] = scores(X, theirs, labels)
        gap = row["gpuml"]["trustworthiness"] - row["umap_learn"]["trustworthiness"]
        row["trustworthiness_gap"] = round(gap, 4)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--families", default=",".join(FAMILIES))
    parser.add_argument("--no-umap-learn", action="store_true")
    parser.add_argument("--umap-learn-million", action="store_true")
    args = parser.parse_args()
    for name in args.families.split(","):
        umap_learn = not args.no_umap_learn
        if name == "million":
            umap_learn = umap_learn and args.umap_learn_million
        print(json.dumps(run(name, umap_learn)), flush=True)


if __name__ == "__main__":
    main()
