"""gpuml's PCA against scikit-learn's, on every backend, on fresh random data.

Components are compared with their signs (both follow scikit-learn's
``svd_flip`` convention); the data have a spectral gap, so the leading
components are well defined and the randomized solver (same draws as
scikit-learn's) recovers them to rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn import decomposition as skd

from gpuml.decomposition import PCA

SOLVERS = ["full", "covariance_eigh", "arpack", "randomized"]


def _gapped(rng, n_samples=120, n_features=20, rank=4, dtype=np.float64):
    """Low-rank signal with decreasing strengths plus small noise, shifted."""
    scales = np.linspace(10.0, 4.0, rank)
    signal = (rng.standard_normal((n_samples, rank)) * scales) @ rng.standard_normal(
        (rank, n_features)
    )
    noise = 0.05 * rng.standard_normal((n_samples, n_features))
    return (signal + noise + rng.uniform(-3, 3, n_features)).astype(dtype)


def _assert_same_fit(ours, theirs, backend, rtol=1e-6, atol=1e-6):
    for name in (
        "components_",
        "explained_variance_",
        "explained_variance_ratio_",
        "singular_values_",
        "mean_",
    ):
        value = getattr(ours, name)
        backend.assert_family(value, dtype=getattr(theirs, name).dtype)
        np.testing.assert_allclose(
            backend.to_numpy(value),
            getattr(theirs, name),
            rtol=rtol,
            atol=atol,
            err_msg=name,
        )
    # the noise variance is a difference of variances: in float32 it keeps
    # fewer digits than the components (1.1e-5 apart in one draw in 200)
    np.testing.assert_allclose(
        float(ours.noise_variance_), float(theirs.noise_variance_), rtol=max(rtol, 1e-5)
    )
    assert ours.n_components_ == theirs.n_components_
    assert ours.n_samples_ == theirs.n_samples_
    assert ours.n_features_in_ == theirs.n_features_in_


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("whiten", [False, True])
def test_matches_sklearn(backend, rng, solver, whiten):
    X = _gapped(rng)
    X_test = _gapped(rng, n_samples=30)
    params = dict(n_components=3, svd_solver=solver, whiten=whiten, random_state=0)
    ours = PCA(**params)
    theirs = skd.PCA(**params)
    out = ours.fit_transform(backend.asarray(X))
    expected = theirs.fit_transform(X)
    backend.assert_family(out, dtype=np.float64, shape=expected.shape)
    _assert_same_fit(ours, theirs, backend)
    np.testing.assert_allclose(backend.to_numpy(out), expected, rtol=1e-6, atol=1e-6)
    projected = ours.transform(backend.asarray(X_test))
    backend.assert_family(projected, dtype=np.float64, shape=(30, 3))
    np.testing.assert_allclose(
        backend.to_numpy(projected), theirs.transform(X_test), rtol=1e-6, atol=1e-6
    )
    back = ours.inverse_transform(projected)
    backend.assert_family(back, dtype=np.float64, shape=X_test.shape)
    np.testing.assert_allclose(
        backend.to_numpy(back),
        theirs.inverse_transform(theirs.transform(X_test)),
        rtol=1e-6,
        atol=1e-6,
    )
    scores = ours.score_samples(backend.asarray(X_test))
    backend.assert_family(scores, dtype=np.float64, shape=(30,))
    np.testing.assert_allclose(
        backend.to_numpy(scores), theirs.score_samples(X_test), rtol=1e-6
    )
    assert ours.score(backend.asarray(X_test)) == pytest.approx(
        theirs.score(X_test), rel=1e-6
    )
    for method in ("get_covariance", "get_precision"):
        np.testing.assert_allclose(
            backend.to_numpy(getattr(ours, method)()),
            getattr(theirs, method)(),
            rtol=1e-6,
            atol=1e-8,
            err_msg=method,
        )


@pytest.mark.parametrize(
    "n_components, solver",
    [(0.9, "full"), (0.999, "covariance_eigh"), ("mle", "full"), (None, "auto")],
)
def test_n_components_by_variance_and_mle(backend, rng, n_components, solver):
    X = _gapped(rng, n_samples=200, n_features=12)
    ours = PCA(n_components=n_components, svd_solver=solver).fit(backend.asarray(X))
    theirs = skd.PCA(n_components=n_components, svd_solver=solver).fit(X)
    assert ours._fit_svd_solver == theirs._fit_svd_solver
    _assert_same_fit(ours, theirs, backend, atol=1e-7)


def test_whitened_output_has_unit_variance(backend, rng):
    X = _gapped(rng)
    out = backend.to_numpy(
        PCA(n_components=4, whiten=True).fit_transform(backend.asarray(X))
    )
    np.testing.assert_allclose(out.std(axis=0, ddof=1), 1.0, rtol=1e-10)


@pytest.mark.parametrize("solver", SOLVERS)
def test_float32_stays_float32(backend, rng, solver):
    X = _gapped(rng, dtype=np.float32)
    params = dict(n_components=3, svd_solver=solver, random_state=0)
    ours = PCA(**params)
    theirs = skd.PCA(**params).fit(X)
    out = ours.fit_transform(backend.asarray(X))
    backend.assert_family(out, dtype=np.float32, shape=(X.shape[0], 3))
    _assert_same_fit(ours, theirs, backend, rtol=1e-3, atol=1e-3)
    back = ours.inverse_transform(out)
    backend.assert_family(back, dtype=np.float32, shape=X.shape)
    # the round trip through all components is the data
    full = PCA(svd_solver=solver if solver != "arpack" else "full").fit(
        backend.asarray(X)
    )
    round_trip = full.inverse_transform(full.transform(backend.asarray(X)))
    np.testing.assert_allclose(backend.to_numpy(round_trip), X, atol=1e-3)


def test_integers_become_float64(backend, rng):
    X = rng.integers(0, 100, size=(50, 6))
    ours = PCA(n_components=2).fit(backend.asarray(X.astype(np.float64)))
    ours_int = PCA(n_components=2).fit(X)  # host integers
    assert ours_int.components_.dtype == np.float64
    np.testing.assert_allclose(
        ours_int.components_, backend.to_numpy(ours.components_), atol=1e-10
    )


@pytest.mark.parametrize("solver", ["arpack", "covariance_eigh", "auto"])
@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_input(backend, rng, solver, fmt):
    X = sp.random(150, 25, density=0.2, format="csr", random_state=rng) * 5.0
    params = dict(n_components=4, svd_solver=solver, random_state=0)
    ours = PCA(**params)
    theirs = skd.PCA(**params)
    out = ours.fit_transform(backend.as_format(X.toarray(), fmt))
    expected = theirs.fit_transform(X.asformat(fmt))
    assert ours._fit_svd_solver == theirs._fit_svd_solver
    _assert_same_fit(ours, theirs, backend, atol=1e-8)
    backend.assert_family(out, dtype=np.float64, shape=expected.shape)
    np.testing.assert_allclose(backend.to_numpy(out), expected, atol=1e-8)


@pytest.mark.parametrize("solver", ["full", "randomized"])
def test_sparse_with_a_dense_solver_is_scikit_learns_error(backend, solver):
    X = backend.as_format(np.eye(10), "csr")
    with pytest.raises(TypeError, match=f'while "{solver}" was passed'):
        PCA(n_components=2, svd_solver=solver).fit(X)


@pytest.mark.parametrize(
    "params, data_shape, message",
    [
        (
            dict(n_components=7),
            (6, 10),
            r"n_components=7 must be between 0 and min\(n_samples, n_features\)=6 "
            r"with svd_solver='full'",
        ),
        (
            dict(n_components=5, svd_solver="arpack"),
            (20, 5),
            r"n_components=5 must be strictly less than min\(n_samples, "
            r"n_features\)=5 with svd_solver='arpack'",
        ),
        (
            dict(n_components=0, svd_solver="randomized"),
            (20, 5),
            r"must be between 1 and min\(n_samples, n_features\)=5",
        ),
        (
            dict(n_components="mle", svd_solver="randomized"),
            (20, 5),
            "n_components='mle' cannot be a string with svd_solver='randomized'",
        ),
        (
            dict(n_components="mle"),
            (5, 20),
            "n_components='mle' is only supported if n_samples >= n_features",
        ),
        (dict(svd_solver="lobpcg"), (20, 5), "The 'svd_solver' parameter"),
    ],
)
def test_errors_are_scikit_learns(backend, rng, params, data_shape, message):
    X = backend.asarray(rng.standard_normal(data_shape))
    with pytest.raises(ValueError, match=message):
        PCA(**params).fit(X)
    with pytest.raises(ValueError, match=message):
        skd.PCA(**params).fit(backend.to_numpy(X))


@pytest.mark.filterwarnings("ignore:invalid value encountered in divide")
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_covariance_eigh_of_one_sample_raises_as_sklearn(backend, rng, fmt):
    # the covariance divides by n_samples - 1 = 0: NaNs, on which LAPACK's
    # eigensolver raises (scikit-learn's error); cuSOLVER would return NaNs
    X = rng.uniform(size=(1, 6))
    with pytest.raises(np.linalg.LinAlgError):
        skd.PCA(n_components=1, svd_solver="covariance_eigh").fit(X)
    with pytest.raises(np.linalg.LinAlgError, match="did not converge"):
        PCA(n_components=1, svd_solver="covariance_eigh").fit(backend.as_format(X, fmt))


def test_the_auto_policy_is_scikit_learns(rng):
    for shape, n_components in [
        ((1000, 50), 5),
        ((100, 60), 5),
        ((600, 550), 10),
        ((600, 550), 500),
        ((600, 550), 0.5),
    ]:
        X = rng.standard_normal(shape)
        ours = PCA(n_components=n_components, random_state=0).fit(X)
        theirs = skd.PCA(n_components=n_components, random_state=0).fit(X)
        assert ours._fit_svd_solver == theirs._fit_svd_solver, shape
        np.testing.assert_allclose(
            ours.components_[:3], theirs.components_[:3], atol=1e-8
        )


def test_a_shared_random_state_advances_as_scikit_learns(rng):
    """The solvers draw what scikit-learn's draw, so a RandomState passed on
    to the next estimator continues as it would."""
    X = _gapped(rng)
    for solver in ("arpack", "randomized"):
        ours, theirs = np.random.RandomState(3), np.random.RandomState(3)
        PCA(n_components=2, svd_solver=solver, random_state=ours).fit(X)
        skd.PCA(n_components=2, svd_solver=solver, random_state=theirs).fit(X)
        assert ours.randint(1 << 30) == theirs.randint(1 << 30), solver


def test_the_input_is_not_overwritten(backend, rng):
    X = backend.asarray(_gapped(rng))
    before = backend.to_numpy(X).copy()
    PCA(n_components=2, copy=False).fit_transform(X)
    np.testing.assert_array_equal(backend.to_numpy(X), before)


def test_feature_names_out(rng):
    pca = PCA(n_components=2).fit(rng.standard_normal((20, 5)))
    assert list(pca.get_feature_names_out()) == ["pca0", "pca1"]


# TruncatedSVD of constant data: explained_variance_ratio_ divides by a
# total variance of 0 (both libraries warn)
@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize(
    "case", ["zeros", "constant", "squares underflow", "float32 squares underflow"]
)
def test_arpack_without_variance_raises_as_scikit_learn(backend, rng, fmt, case):
    """Where scikit-learn's ARPACK finds its first Gram product zero (no
    variance, or squares below the smallest float), PCA's and
    TruncatedSVD's "arpack" raise its ArpackError, not components of
    nothing; just above that scale both fit."""
    from scipy.sparse.linalg import ArpackError

    from gpuml.decomposition import TruncatedSVD

    X = rng.normal(size=(30, 5))
    X[rng.uniform(size=X.shape) < 0.5] = 0
    data = {
        "zeros": np.zeros_like(X),
        "constant": np.ones_like(X),
        "squares underflow": X * 1e-300,
        "float32 squares underflow": (X * 1e-25).astype(np.float32),
    }[case]
    models = [
        (PCA(2, svd_solver="arpack"), skd.PCA(2, svd_solver="arpack")),
        (
            TruncatedSVD(2, algorithm="arpack", random_state=0),
            skd.TruncatedSVD(2, algorithm="arpack", random_state=0),
        ),
    ]
    for ours, theirs in models:
        given = backend.as_format(data, fmt)
        if case == "constant" and fmt == "csr" and isinstance(ours, PCA):
            # a known difference (docs/differences.rst): the covariance of
            # sparse constant data can keep a rounding residue (the CPU's),
            # or be 0 and raise as scikit-learn (the GPU's)
            with pytest.raises(ArpackError, match="Starting vector is zero"):
                theirs.fit(sp.csr_matrix(data))
            try:
                variance = ours.fit(given).explained_variance_[0]
            except ArpackError as error:
                assert str(error) == "ARPACK error -9: Starting vector is zero."
            else:
                assert variance < 1e-12
            continue
        try:
            theirs.fit(sp.csr_matrix(data) if fmt == "csr" else data)
        except ArpackError as expected:
            with pytest.raises(ArpackError, match="Starting vector is zero"):
                ours.fit(given)
            assert str(expected) == "ARPACK error -9: Starting vector is zero."
        else:  # TruncatedSVD of constant data: no centring, a variance
            ours.fit(given)
    # scaled to 1e-160, the squares are subnormal, not zero: both fit
    PCA(2, svd_solver="arpack").fit(backend.as_format(X * 1e-160, fmt))
