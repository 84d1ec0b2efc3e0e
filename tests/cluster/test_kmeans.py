"""KMeans against scikit-learn's, on every backend.

From the same initial centres the iterates are scikit-learn's: the same
labels (up to a permutation on the GPU, where sums are ordered otherwise),
inertia within 1e-6 (float64). On the CPU, k-means++ and 'random' draw
scikit-learn's initial centres from the same ``random_state``.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.cluster import KMeans as SkKMeans
from sklearn.exceptions import ConvergenceWarning

from gpuml._array import namespace_of
from gpuml.cluster import KMeans
from gpuml.cluster import _lloyd as kmeans_module


def _blobs(rng, n=600, p=5, k=4, spread=1.5, dtype=np.float64):
    """Overlapping blobs of unequal sizes, features of unequal scales and
    non-zero means."""
    centers = rng.normal(scale=4.0, size=(k, p))
    sizes = rng.multinomial(n - k, rng.dirichlet(np.ones(k))) + 1
    X = np.concatenate(
        [
            c + spread * rng.normal(size=(m, p))
            for c, m in zip(centers, sizes, strict=True)
        ]
    )
    X = X * rng.uniform(0.5, 3.0, p) + rng.uniform(-10, 10, p)
    return X[rng.permutation(n)].astype(dtype)


def _same_partition(a, b) -> bool:
    """Whether two labelings are equal up to a permutation of the labels."""
    pairs = {(int(x), int(y)) for x, y in zip(a, b, strict=True)}
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))


def _assert_matches(ours, theirs, backend, *, rtol=1e-6):
    labels = backend.to_numpy(ours.labels_)
    if backend.device == "cpu":
        np.testing.assert_array_equal(labels, theirs.labels_)
        assert ours.n_iter_ == theirs.n_iter_
    else:
        assert _same_partition(labels, theirs.labels_)
    np.testing.assert_allclose(ours.inertia_, theirs.inertia_, rtol=rtol)
    order = np.argsort(np.unique(labels, return_index=True)[1])
    ours_by_first = backend.to_numpy(ours.cluster_centers_)[np.unique(labels)[order]]
    theirs_labels = theirs.labels_
    theirs_by_first = theirs.cluster_centers_[
        np.unique(theirs_labels)[
            np.argsort(np.unique(theirs_labels, return_index=True)[1])
        ]
    ]
    scale = np.abs(theirs.cluster_centers_).max()
    np.testing.assert_allclose(
        ours_by_first, theirs_by_first, rtol=rtol, atol=rtol * scale
    )


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
def test_same_iterates_from_the_same_centres(backend, rng, fmt, weighted):
    X = _blobs(rng)
    if fmt == "csr":
        X[np.abs(X) < 4] = 0.0
    w = rng.uniform(0.2, 3.0, X.shape[0]) if weighted else None
    init = X[rng.choice(X.shape[0], 4, replace=False)]
    Xs = sp.csr_matrix(X) if fmt == "csr" else X
    theirs = SkKMeans(4, init=init, n_init=1, tol=1e-6).fit(Xs, sample_weight=w)
    ours = KMeans(4, init=backend.asarray(init), n_init=1, tol=1e-6).fit(
        backend.as_format(X, fmt),
        sample_weight=None if w is None else backend.asarray(w),
    )
    _assert_matches(ours, theirs, backend)
    backend.assert_family(ours.cluster_centers_, dtype=np.float64, shape=(4, 5))
    backend.assert_family(ours.labels_, dtype=np.int32, shape=(X.shape[0],))
    assert isinstance(ours.inertia_, float)


@pytest.mark.parametrize("init", ["k-means++", "random"])
@pytest.mark.parametrize("algorithm", ["lloyd", "elkan"])
def test_restarts_match_scikit_learn(backend, rng, init, algorithm):
    """n_init restarts fitted as one batch: scikit-learn's draws, runs and
    choice of the best one (exactly on the CPU)."""
    X = _blobs(rng, k=5, spread=3.0)
    seed = int(rng.integers(2**31))
    kwargs = dict(init=init, n_init=4, random_state=seed, algorithm=algorithm)
    theirs = SkKMeans(5, **kwargs).fit(X)
    ours = KMeans(5, **kwargs).fit(backend.asarray(X))
    if backend.device == "cpu":
        _assert_matches(ours, theirs, backend)
    else:
        # A near-tie between k-means++ candidates can go the other way on
        # the GPU: the objective is then compared, not the partition.
        assert ours.inertia_ <= theirs.inertia_ * (1 + 1e-3)


def test_batched_runs_equal_runs_alone(rng):
    """Each run of a batch ends where it ends when run alone (runs that
    converge early leave the batch; the others go on)."""
    X = _blobs(rng, n=400, k=6, spread=3.0)
    starts = np.stack([X[rng.choice(400, 6, replace=False)] for _ in range(5)])
    xp, w = np, np.ones(400)
    x_sq = np.einsum("ij,ij->i", X, X)
    centers, labels, n_iter = kmeans_module.lloyd(
        X, w, w, starts, x_sq, max_iter=300, tol=1e-8, xp=xp
    )
    assert len(set(n_iter.tolist())) > 1  # the runs stop at different times
    for r in range(5):
        alone = kmeans_module.lloyd(
            X, w, w, starts[r : r + 1], x_sq, max_iter=300, tol=1e-8, xp=xp
        )
        np.testing.assert_array_equal(alone[0][0], centers[r])
        np.testing.assert_array_equal(alone[1][0], labels[r])
        assert alone[2][0] == n_iter[r]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dense_and_sparse_one_hot_sums_agree(backend, rng, monkeypatch, dtype):
    """The device's M-step (dense one-hot blocks times X) and the host's
    (one sparse one-hot product) give the same sums and weights, in X's
    dtype, over several blocks of rows."""
    X = backend.asarray(rng.normal(size=(700, 5)).astype(dtype))
    xp = namespace_of(X)
    w = backend.asarray(rng.uniform(0.5, 2.0, 700).astype(dtype))
    labels = backend.asarray(rng.integers(0, 4, size=(3, 700)).astype(np.int32))
    monkeypatch.setattr(kmeans_module, "_BLOCK", 12 * 50)  # 14 blocks
    dense = kmeans_module._dense_one_hot_sums(X, labels, w, 4, xp)
    monkeypatch.undo()
    if backend.family == "host":
        sparse = kmeans_module._sparse_one_hot_sums(X, labels, w, 4, xp)
    else:  # the host's product, from host copies
        host = [backend.to_numpy(a) for a in (X, labels, w)]
        sparse = kmeans_module._sparse_one_hot_sums(*host, 4, np)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for got, want in zip(dense, sparse, strict=True):
        assert got.dtype == want.dtype == dtype
        np.testing.assert_allclose(backend.to_numpy(got), want, rtol=rtol, atol=rtol)


def test_empty_cluster_takes_the_farthest_sample(backend, rng):
    """A centre far from every sample loses them all: it moves to the sample
    farthest from its centre, as scikit-learn's relocation does."""
    X = _blobs(rng, n=300, k=3)
    init = np.vstack([X[:3], X.max(axis=0) + 1e3])
    theirs = SkKMeans(4, init=init, n_init=1).fit(X)
    ours = KMeans(4, init=backend.asarray(init), n_init=1).fit(backend.asarray(X))
    _assert_matches(ours, theirs, backend)
    assert len(np.unique(backend.to_numpy(ours.labels_))) == 4


def test_float32_stays_float32(backend, rng):
    X = _blobs(rng, dtype=np.float32)
    init = X[:4].copy()
    theirs = SkKMeans(4, init=init, n_init=1).fit(X)
    ours = KMeans(4, init=backend.asarray(init), n_init=1).fit(backend.asarray(X))
    backend.assert_family(ours.cluster_centers_, dtype=np.float32)
    assert _same_partition(backend.to_numpy(ours.labels_), theirs.labels_)
    np.testing.assert_allclose(ours.inertia_, theirs.inertia_, rtol=1e-5)
    backend.assert_family(ours.transform(backend.asarray(X)), dtype=np.float32)


@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_predict_transform_score(backend, rng, fmt):
    X = _blobs(rng)
    if fmt == "csr":
        X[np.abs(X) < 4] = 0.0
    X_new = _blobs(rng, n=50)
    init = X[:4]
    theirs = SkKMeans(4, init=init, n_init=1).fit(X)
    ours = KMeans(4, init=init, n_init=1).fit(backend.as_format(X, fmt))
    Xn = backend.as_format(X_new, fmt)
    X_new = sp.csr_matrix(X_new) if fmt == "csr" else X_new
    labels = ours.predict(Xn)
    backend.assert_family(labels, dtype=np.int32, shape=(50,))
    np.testing.assert_array_equal(backend.to_numpy(labels), theirs.predict(X_new))
    distances = ours.transform(Xn)
    backend.assert_family(distances, dtype=np.float64, shape=(50, 4))
    np.testing.assert_allclose(
        backend.to_numpy(distances), theirs.transform(X_new), rtol=1e-9
    )
    w = rng.uniform(0.5, 2.0, 50)
    np.testing.assert_allclose(
        ours.score(Xn, sample_weight=w), theirs.score(X_new, sample_weight=w), rtol=1e-9
    )
    # A centre is at distance 0 from itself.
    centers = backend.to_numpy(ours.cluster_centers_)
    np.testing.assert_array_equal(
        np.diag(backend.to_numpy(ours.transform(backend.asarray(centers)))), 0.0
    )


def test_fit_predict_and_fit_transform(rng):
    X = _blobs(rng)
    km = KMeans(4, random_state=0)
    np.testing.assert_array_equal(km.fit_predict(X), km.labels_)
    np.testing.assert_array_equal(
        km.fit_predict(X), KMeans(4, random_state=0).fit(X).labels_
    )
    np.testing.assert_allclose(km.fit_transform(X), km.transform(X))
    assert list(km.get_feature_names_out()) == [f"kmeans{i}" for i in range(4)]


def test_pickle_of_a_host_model(backend, rng):
    X = _blobs(rng)
    km = KMeans(4, random_state=0).fit(X)
    assert type(km.cluster_centers_) is np.ndarray
    km.predict(backend.asarray(X))  # fills a device cache on the GPU
    back = pickle.loads(pickle.dumps(km))
    np.testing.assert_array_equal(back.predict(X), km.labels_)


def test_n_init_auto_and_init_array_warning(rng):
    X = _blobs(rng)
    assert KMeans(4).fit(X)._n_init == 1
    assert KMeans(4, init="random").fit(X)._n_init == 10
    with pytest.warns(RuntimeWarning, match="performing only one init"):
        km = KMeans(4, init=X[:4], n_init=3).fit(X)
    assert km._n_init == 1


def test_callable_init_gets_the_centred_data(rng):
    X = _blobs(rng)
    seen = []

    def init(data, n_clusters, random_state):
        seen.append(data.copy())
        return data[:n_clusters].copy()

    km = KMeans(4, init=init, n_init=2).fit(X)
    assert len(seen) == 2
    np.testing.assert_allclose(seen[0], X - X.mean(axis=0))
    # (a copy: scikit-learn's Lloyd loop writes into the initial centres'
    # buffer, which a view of its centred data would be)
    theirs = SkKMeans(4, init=lambda d, k, random_state: d[:k].copy(), n_init=2).fit(X)
    np.testing.assert_array_equal(km.labels_, theirs.labels_)


def test_duplicates_warn_as_scikit_learn():
    X = np.array([[0.0, 0.0]] * 5 + [[1.0, 1.0]] * 5)
    with pytest.warns(ConvergenceWarning, match=r"Number of distinct clusters \(2\)"):
        KMeans(3, random_state=0).fit(X)


def test_verbose_prints_scikit_learn_lines(rng, capsys):
    X = _blobs(rng)
    KMeans(4, init=X[:4], n_init=1, verbose=1).fit(X)
    out = capsys.readouterr().out
    assert out.startswith("Initialization complete\nIteration 0, inertia ")
    assert "Converged at iteration" in out


@pytest.mark.parametrize(
    "params, X, message",
    [
        (
            {"n_clusters": 11},
            np.ones((10, 2)),
            r"n_samples=10 should be >= n_clusters=11",
        ),
        (
            {"n_clusters": 2, "init": np.zeros((3, 2))},
            np.ones((10, 2)),
            r"The shape of the initial centers \(3, 2\) does not match the number "
            r"of clusters 2",
        ),
        (
            {"n_clusters": 2, "init": np.zeros((2, 3))},
            np.ones((10, 2)),
            r"does not match the number of features of the data 2",
        ),
        ({"n_clusters": 0}, np.ones((10, 2)), r"The 'n_clusters' parameter"),
        ({"algorithm": "full"}, np.ones((10, 2)), r"The 'algorithm' parameter"),
        ({"n_clusters": 2}, np.array([[0.0, np.nan]] * 4), r"Input X contains NaN"),
    ],
)
def test_errors_as_scikit_learn(params, X, message):
    with pytest.raises(ValueError, match=message):
        SkKMeans(**params).fit(X)
    with pytest.raises(ValueError, match=message):
        KMeans(**params).fit(X)


def test_weights_errors_as_scikit_learn():
    X = np.arange(20.0).reshape(10, 2)
    for km in (SkKMeans(2), KMeans(2)):
        with pytest.raises(ValueError, match="at least one non-zero"):
            km.fit(X, sample_weight=np.zeros(10))
        with pytest.raises(ValueError, match=r"sample_weight.shape == \(3,\)"):
            km.fit(X, sample_weight=np.ones(3))


def test_search_over_n_clusters_as_scikit_learns(rng):
    """KMeans in gpuml's searches: scored by its ``score`` without y, and as
    the transformer of a Pipeline; scikit-learn's GridSearchCV's results."""
    from sklearn.linear_model import LogisticRegression as SkLogistic
    from sklearn.model_selection import GridSearchCV as SkGridSearchCV
    from sklearn.pipeline import make_pipeline

    from gpuml.linear_model import LogisticRegression
    from gpuml.model_selection import GridSearchCV

    X = _blobs(rng, n=300, k=4)
    grid = {"n_clusters": [2, 3, 4, 5]}
    ours = GridSearchCV(KMeans(random_state=0), grid, cv=3).fit(X)
    theirs = SkGridSearchCV(SkKMeans(random_state=0), grid, cv=3).fit(X)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"]
    )
    assert ours.best_params_ == theirs.best_params_
    y = (X[:, 0] > np.median(X[:, 0])).astype(int)
    grid = {"kmeans__n_clusters": [2, 4], "logisticregression__C": [0.1, 10.0]}
    ours = GridSearchCV(
        make_pipeline(KMeans(random_state=0), LogisticRegression()), grid, cv=3
    ).fit(X, y)
    theirs = SkGridSearchCV(
        make_pipeline(SkKMeans(random_state=0), SkLogistic()), grid, cv=3
    ).fit(X, y)
    np.testing.assert_allclose(
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
        atol=1e-12,
    )
    assert ours.best_params_ == theirs.best_params_


def _host_assign(X, centers):
    """Reference labels in float64 on the host, and each sample's gap between
    its two best scores (relative to the score scale)."""
    X = X.astype(np.float64)
    centers = centers.astype(np.float64)
    scores = np.einsum("rcf,rcf->rc", centers, centers)[:, None, :] - 2 * np.einsum(
        "nf,rcf->rnc", X, centers
    )
    ordered = np.sort(scores, axis=2)
    scale = np.abs(scores).max() + 1.0
    return scores.argmin(axis=2), (ordered[..., 1] - ordered[..., 0]) / scale


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_device_lloyd_kernels(rng, monkeypatch, dtype):
    """The device's assignment (no score matrix) and cluster sums (blocks of
    rows in order) against float64 host references, with runs split into
    groups by shared memory, and the sums the same bits at every call."""
    import cupy as cp

    from gpuml.cluster import _lloyd_device as device

    n, p, k, runs = 1000, 7, 13, 3  # a last partial tile, k not a multiple of 8
    X = _blobs(rng, n=n, p=p, k=5).astype(dtype)
    X -= X.mean(axis=0)
    # distinct rows in each run (a repeated centre ties every sample it holds)
    centers = X[[rng.choice(n, k, replace=False) for _ in range(runs)]]
    want, gap = _host_assign(X, centers)
    clear = gap > (1e-4 if dtype == np.float32 else 1e-12)
    assert clear.mean() > 0.95
    got = device.assign(cp.asarray(X), cp.asarray(centers))
    assert got.dtype == np.int32 and got.shape == (runs, n)
    np.testing.assert_array_equal(got.get()[clear], want[clear])
    # one run a group: the same labels
    item = np.dtype(dtype).itemsize
    threads = device._assign_threads(item)
    fixed = (p * (threads + 1) + (p + 1) * (device._GROUP - 1)) * item
    monkeypatch.setattr(device, "_SHARED_BYTES", fixed + (p + 1) * k * item)
    grouped = device.assign(cp.asarray(X), cp.asarray(centers))
    np.testing.assert_array_equal(grouped.get(), got.get())
    monkeypatch.setattr(device, "_SHARED_BYTES", fixed)  # one run does not fit
    assert device.assign(cp.asarray(X), cp.asarray(centers)) is None
    monkeypatch.undo()

    labels = want.astype(np.int32)
    w = rng.uniform(0.5, 2.0, n).astype(dtype)
    sums, weights = device.cluster_sums(
        cp.asarray(X), cp.asarray(labels), cp.asarray(w), k
    )
    assert sums.dtype == weights.dtype == dtype
    host_sums = np.zeros((runs, k, p))
    host_weights = np.zeros((runs, k))
    for r in range(runs):
        np.add.at(host_sums[r], labels[r], w[:, None] * X.astype(np.float64))
        np.add.at(host_weights[r], labels[r], w.astype(np.float64))
    rtol = 1e-5 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(sums.get(), host_sums, rtol=rtol, atol=rtol * n)
    np.testing.assert_allclose(weights.get(), host_weights, rtol=rtol)
    again = device.cluster_sums(cp.asarray(X), cp.asarray(labels), cp.asarray(w), k)
    assert (again[0] == sums).all() and (again[1] == weights).all()
    monkeypatch.setattr(device, "_SHARED_BYTES", k * (p * item + 8))  # a run a group
    split = device.cluster_sums(cp.asarray(X), cp.asarray(labels), cp.asarray(w), k)
    assert (split[0] == sums).all() and (split[1] == weights).all()


@pytest.mark.gpu
def test_device_kmeans_deterministic_and_close_to_scikit_learn(rng):
    """Two fits of the same data on the device give the same bits, and the
    inertia is scikit-learn's from the same initial centres (float64)."""
    import cupy as cp

    X = _blobs(rng, n=3000, p=6, k=9, spread=2.5)
    init = X[rng.choice(3000, 9, replace=False)]
    theirs = SkKMeans(9, init=init, n_init=1, tol=0).fit(X)
    fits = [
        KMeans(9, init=cp.asarray(init), n_init=1, tol=0).fit(cp.asarray(X))
        for _ in range(2)
    ]
    assert (fits[0].cluster_centers_ == fits[1].cluster_centers_).all()
    assert fits[0].inertia_ == fits[1].inertia_
    assert _same_partition(fits[0].labels_.get(), theirs.labels_)
    np.testing.assert_allclose(fits[0].inertia_, theirs.inertia_, rtol=1e-10)


@pytest.mark.parametrize(
    "weights",
    ["ones32", "ones64", "uniform64", "with zeros", "one heavy", "float32 skewed"],
)
def test_first_seed_draw_is_numpys_choice(rng, weights):
    """The first k-means++ seed drawn from a distribution made once a fit
    (kmeans_plusplus's first_cdf) is the installed NumPy's
    ``RandomState.choice(n, p=w / w.sum())``, draw for draw, and leaves the
    random stream where ``choice`` leaves it; weights that are not clearly
    a distribution go to ``choice`` itself."""
    n = 5000
    w = {
        "ones32": np.ones(n, dtype=np.float32),
        "ones64": np.ones(n),
        "uniform64": rng.uniform(0, 1, n),
        "with zeros": np.where(rng.uniform(size=n) < 0.7, 0.0, rng.uniform(0, 5, n)),
        "one heavy": np.r_[1e12, np.ones(n - 1)],
        "float32 skewed": rng.lognormal(0, 4, n).astype(np.float32),
    }[weights]
    cdf = kmeans_module.first_seed_cdf(w)
    assert cdf is not None
    for seed in range(40):
        theirs, ours = np.random.RandomState(seed), np.random.RandomState(seed)
        want = theirs.choice(n, p=w / w.sum())
        got = cdf.searchsorted(ours.random_sample(), side="right")
        assert got == want
        assert theirs.random_sample() == ours.random_sample()
    assert kmeans_module.first_seed_cdf(np.r_[-1.0, np.ones(5)]) is None
    assert kmeans_module.first_seed_cdf(np.zeros(5)) is None
