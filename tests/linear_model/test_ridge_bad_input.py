"""Ridge on bad or extreme input: scikit-learn 1.9's outcome (its error type
and message, or its result), on every backend (issue 33)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import Ridge as SkRidge

from gpuml.linear_model import Ridge, ridge_path

FLOAT_MAX = np.finfo(np.float64).max


def _data(rng, n=30, p=3):
    return rng.normal(size=(n, p)), rng.normal(size=n)


def _sklearn_outcome(fit):
    """scikit-learn's exception, or None; its warnings silenced (it warns of
    the overflow or of the square roots of negative weights, then raises)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fit()
        except Exception as exc:  # the outcome is compared
            return exc
    return None


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("solver", ["auto", "cholesky", "svd"])
def test_negative_weights_raise_as_sklearn(backend, rng, solver, fit_intercept):
    # scikit-learn takes their square roots: NaN, which its cholesky
    # solver's finiteness check and its SVD refuse.
    X, y = _data(rng)
    sw = np.ones(30)
    sw[:10] = -1
    params = dict(solver=solver, fit_intercept=fit_intercept)
    expected = _sklearn_outcome(lambda: SkRidge(**params).fit(X, y, sample_weight=sw))
    assert expected is not None
    with pytest.raises(type(expected)) as got:
        Ridge(**params).fit(
            backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(sw)
        )
    assert str(got.value) == str(expected)


def test_negative_weights_raise_with_sparse_cg_and_ridge_path(backend, rng):
    # scikit-learn's sparse_cg returns NaN coefficients; gpuml raises
    # (docs/differences.rst), and so does ridge_path.
    X, y = _data(rng)
    sw = np.ones(30)
    sw[3] = -0.5
    for fmt in ["dense", "csr"]:
        with pytest.raises(ValueError, match="Negative values in data passed to"):
            Ridge(solver="sparse_cg").fit(
                backend.as_format(X, fmt),
                backend.asarray(y),
                sample_weight=backend.asarray(sw),
            )
    with pytest.raises(ValueError, match="array must not contain infs or NaNs"):
        ridge_path(
            backend.asarray(X),
            backend.asarray(y),
            [1.0],
            sample_weight=backend.asarray(sw),
        )
    # -0.0 is not negative (its square root is -0.0, not NaN)
    sw[3] = -0.0
    Ridge(solver="sparse_cg").fit(
        backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(sw)
    )


def test_all_zero_weights_raise_as_sklearn(backend, rng):
    X, y = _data(rng)
    message = "Sample weights must contain at least one non-zero number."
    with pytest.raises(ValueError, match=message):
        SkRidge().fit(X, y, sample_weight=np.zeros(30))
    with pytest.raises(ValueError, match=message):
        Ridge().fit(
            backend.asarray(X),
            backend.asarray(y),
            sample_weight=backend.asarray(np.zeros(30)),
        )


def _extreme_X(case, X):
    X = X.copy()
    if case == "1e308":
        X[0, 0] = 1e308
    elif case == "max":
        X[0, 0] = FLOAT_MAX
    elif case == "-max":
        X[4, 2] = -FLOAT_MAX
    elif case == "1e160":  # finite, but its centred square overflows
        X[2, 1] = 1e160
    elif case == "float32":
        X = X.astype(np.float32)
        X[0, 0] = np.float32(3.4e38)
    return X


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("case", ["1e308", "max", "-max", "1e160", "float32"])
def test_overflowing_X_raises_as_sklearn(backend, rng, case, fit_intercept):
    X, y = _data(rng)
    X = _extreme_X(case, X)
    y = y.astype(X.dtype)
    expected = _sklearn_outcome(lambda: SkRidge(fit_intercept=fit_intercept).fit(X, y))
    assert isinstance(expected, ValueError)
    assert str(expected) == "array must not contain infs or NaNs"
    with pytest.raises(ValueError, match=r"^array must not contain infs or NaNs$"):
        Ridge(fit_intercept=fit_intercept).fit(backend.asarray(X), backend.asarray(y))
    with pytest.raises(ValueError, match=r"^array must not contain infs or NaNs$"):
        ridge_path(
            backend.asarray(X), backend.asarray(y), [1.0], fit_intercept=fit_intercept
        )


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("case", ["y max", "y -1e308", "y 1e200", "weight 1e308"])
def test_extreme_finite_targets_and_weights_fit_as_sklearn(
    backend, rng, case, fit_intercept
):
    # scikit-learn fits these (its system stays finite): so does gpuml,
    # with its coefficients.
    X, y = _data(rng)
    X[0] = 0.25  # the extreme row's products stay finite
    sw = None
    if case == "y max":
        y[0] = FLOAT_MAX
    elif case == "y -1e308":
        y[0] = -1e308
    elif case == "y 1e200":
        y[0] = 1e200
    else:
        sw = np.ones(30)
        sw[0] = 1e308
        y[0] = 0.25  # and its weighted target: |y[0]| > 1.8 overflows np.average
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            expected = SkRidge(fit_intercept=fit_intercept).fit(X, y, sample_weight=sw)
        except ValueError:  # its finiteness check, after the overflow warning
            expected = None

    def fit():
        return Ridge(fit_intercept=fit_intercept).fit(
            backend.asarray(X),
            backend.asarray(y),
            sample_weight=None if sw is None else backend.asarray(sw),
        )

    if expected is None or any(issubclass(w.category, RuntimeWarning) for w in caught):
        # a draw whose sums overflow in scikit-learn's own arithmetic (its
        # "fit" is then not one; seen once in CI for "y max"): gpuml raises
        # its non-finite error or fits finitely, never returns inf or NaN
        try:
            model = fit()
        except ValueError as error:
            assert str(error) == "array must not contain infs or NaNs"
        else:
            assert np.all(np.isfinite(backend.to_numpy(model.coef_)))
        return
    model = fit()
    coef = backend.to_numpy(model.coef_)
    assert np.all(np.isfinite(coef))
    np.testing.assert_allclose(coef, expected.coef_, rtol=1e-6)
    np.testing.assert_allclose(
        backend.to_numpy(model.intercept_), expected.intercept_, rtol=1e-6
    )


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("fmt", ["dense", "csr"])
def test_column_vector_target_as_sklearn(backend, rng, fmt, fit_intercept):
    # scikit-learn 1.9 fits y of shape (n, 1) as one target: coef_ (p,),
    # intercept_ of shape (1,) (0.0 without an intercept), predict (n,).
    X, y = _data(rng)
    Y = y[:, None]
    expected = SkRidge(fit_intercept=fit_intercept).fit(X, Y)
    model = Ridge(fit_intercept=fit_intercept).fit(
        backend.as_format(X, fmt), backend.asarray(Y)
    )
    backend.assert_family(model.coef_, shape=expected.coef_.shape)
    if fit_intercept:
        backend.assert_family(model.intercept_, shape=(1,))
        assert expected.intercept_.shape == (1,)
    else:
        assert model.intercept_ == expected.intercept_ == 0.0
    pred = model.predict(backend.asarray(X))
    backend.assert_family(pred, shape=(30,))
    assert expected.predict(X).shape == (30,)
    # Sparse X is solved iteratively by both ("auto": sparse_cg, tol=1e-4),
    # so the two agree to the solvers' tolerance, not to rounding.
    rtol = 1e-6 if fmt == "dense" else 1e-3
    np.testing.assert_allclose(backend.to_numpy(pred), expected.predict(X), rtol=rtol)


def test_copy_X_false_on_read_only_input(rng):
    # pandas 3 hands out read-only views: scikit-learn copies, and so does
    # gpuml rather than centring the caller's array in place.
    X, y = _data(rng)
    X.flags.writeable = False
    y.flags.writeable = False
    expected = SkRidge(copy_X=False).fit(X, y)
    model = Ridge(copy_X=False).fit(X, y)
    np.testing.assert_allclose(model.coef_, expected.coef_, rtol=1e-10)
    sw = rng.uniform(0.5, 2, 30)
    sw.flags.writeable = False
    Ridge(copy_X=False, fit_intercept=False).fit(X, y, sample_weight=sw)


def test_sparse_overflow_raises_as_sklearn(backend, rng):
    # Sparse input with the cholesky solver (a dense Gram of sparse rows).
    X, y = _data(rng)
    X[0, 0] = 1e200
    expected = _sklearn_outcome(
        lambda: SkRidge(solver="cholesky", fit_intercept=False).fit(sp.csr_matrix(X), y)
    )
    assert str(expected) == "array must not contain infs or NaNs"
    with pytest.raises(ValueError, match=r"^array must not contain infs or NaNs$"):
        Ridge(solver="cholesky", fit_intercept=False).fit(
            backend.as_format(X, "csr"), backend.asarray(y)
        )


@pytest.mark.parametrize("fmt", ["dense", "csr"])
@pytest.mark.parametrize("solver", ["svd", "sparse_cg"])
def test_overflow_with_svd_or_sparse_cg_raises(backend, rng, solver, fmt):
    # scikit-learn warns of the overflow and returns a model (svd: the
    # overflowing feature's coefficient zeroed; sparse_cg: NaN); gpuml
    # raises its cholesky solver's error rather than return NaN or zeros
    # (docs/differences.rst).
    if solver == "svd" and fmt == "csr":
        pytest.skip("svd refuses sparse input")
    X, y = _data(rng)
    X[0, 0] = 1e308
    with pytest.raises(ValueError, match=r"^array must not contain infs or NaNs$"):
        Ridge(solver=solver, fit_intercept=fmt == "dense").fit(
            backend.as_format(X, fmt), backend.asarray(y)
        )


def _extreme_weight_draws(rng, n_draws=12):
    """Data with a weight of 1e308 on its first row, and scikit-learn's fit
    (or its exception): it raises (its weighted means or its Gram matrix
    overflow) or fits, by draw."""
    for _ in range(n_draws):
        X = rng.normal(size=(30, 3))
        y = X @ rng.normal(size=3) + 0.1 * rng.normal(size=30)
        sw = np.r_[1e308, np.ones(29)]
        yield X, y, sw


def _sklearn_fit(X, y, sw, fit_intercept):
    model = SkRidge(fit_intercept=fit_intercept)
    error = _sklearn_outcome(lambda: model.fit(X, y, sample_weight=sw))
    return model, error


def test_extreme_weight_outcome_as_sklearn(backend, rng):
    # issue 33: the GPU's Gram statistics centred at their own exact mean,
    # where scikit-learn centres at np.average's (whose rounding a weight
    # of 1e308 magnifies, or whose sums overflow). (Without an intercept,
    # such a system is numerically of rank one: scikit-learn's Cholesky
    # may solve it, where gpuml's takes the SVD (gpuml/_linalg.cho_solve);
    # test_extreme_finite_targets_and_weights_fit_as_sklearn has the case
    # where both take the SVD.)
    fit_intercept = True
    for X, y, sw in _extreme_weight_draws(rng):
        expected, error = _sklearn_fit(X, y, sw, fit_intercept)
        model = Ridge(fit_intercept=fit_intercept)
        data = (backend.asarray(X), backend.asarray(y))
        if error is not None:
            with pytest.raises(type(error)) as got:
                model.fit(*data, sample_weight=backend.asarray(sw))
            assert str(got.value) == str(error)
            continue
        model.fit(*data, sample_weight=backend.asarray(sw))
        coef = backend.to_numpy(model.coef_)
        np.testing.assert_allclose(coef, expected.coef_, rtol=1e-6)
        np.testing.assert_allclose(
            backend.to_numpy(model.intercept_), expected.intercept_, rtol=1e-6
        )


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_moments_fit_system_is_sklearns_system(rng, fit_intercept):
    # The statistics that a GPU Ridge.fit forms (_DeviceRidgeMoments, here
    # in their NumPy form) give scikit-learn's outcome: its error where it
    # raises, its coefficients where the host Cholesky solves the system
    # (a system it refuses goes to the general path, which fits as above).
    from gpuml.linear_model._ridge_moments import _RidgeMoments
    from gpuml.linear_model._ridge_problem import _shifted_solve

    for X, y, sw in _extreme_weight_draws(rng, 20):
        expected, error = _sklearn_fit(X, y, sw, fit_intercept)
        moments = _RidgeMoments(X, y[:, None], sw, fit_intercept, np, [None])
        if error is not None:
            with pytest.raises(type(error), match=f"^{error}$"):
                moments.fit_system()
            continue
        A, B, X_offset, y_offset = moments.fit_system()
        try:
            coef = _shifted_solve(A, B, np.ones(1), np)[:, 0]
        except np.linalg.LinAlgError:
            continue
        np.testing.assert_allclose(coef, expected.coef_, rtol=1e-6)
        intercept = y_offset - coef @ X_offset
        np.testing.assert_allclose(intercept, expected.intercept_, rtol=1e-6)
