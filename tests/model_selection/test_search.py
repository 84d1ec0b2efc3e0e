"""GridSearchCV / RandomizedSearchCV: parity with scikit-learn, on every backend.

scikit-learn's search around scikit-learn's estimators is the oracle: same
``cv_results_`` keys, dtypes, masked parameter arrays and ranks, test scores
within 1e-6 (float64 data), same ``best_params_``.
"""

from __future__ import annotations

import os
import pickle
import re
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.stats import loguniform
from sklearn.exceptions import FitFailedWarning
from sklearn.linear_model import LogisticRegression
from sklearn.linear_model import Ridge as SkRidge
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.model_selection import GroupKFold as SkGroupKFold
from sklearn.model_selection import KFold as SkKFold
from sklearn.model_selection import RandomizedSearchCV as SkRandomizedSearchCV
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import StandardScaler as SkStandardScaler

from gpuml._array import HOST
from gpuml._sklearn_compat import InvalidParameterError
from gpuml.linear_model import Ridge
from gpuml.metrics import make_scorer, mean_squared_error
from gpuml.model_selection import GridSearchCV, KFold, RandomizedSearchCV
from gpuml.preprocessing import StandardScaler

ALPHAS = [1e-3, 1e-1, 1.0, 10.0, 100.0, 1e3]


def regression(rng, n_samples=120, n_features=6, n_targets=None):
    X = rng.normal(size=(n_samples, n_features)) * rng.uniform(0.5, 3, n_features)
    X += rng.normal(size=n_features) * 4
    shape = (n_features,) if n_targets is None else (n_features, n_targets)
    y = X @ rng.normal(size=shape) * 0.3 + rng.normal(size=(n_samples, *shape[1:]))
    return X, y


def classification(rng, n_samples=150, n_features=5):
    X = rng.normal(size=(n_samples, n_features))
    y = (X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=n_samples) > 0).astype(np.int64)
    return X, y


def _assert_ranks_match(ours, theirs, means, atol, key):
    """Our ranks are scikit-learn's, except that candidates whose mean scores
    agree to ``atol`` (an AUC that no C changes, say) may be ranked either
    way: the two searches round differently."""
    finite = np.where(np.isnan(means), -np.inf, means)
    for i, mean in enumerate(finite):
        if not np.isfinite(mean):  # failed candidates rank last, as theirs
            assert ours[i] == theirs[i], (key, i, ours, theirs)
            continue
        best = 1 + np.sum(finite > mean + atol)
        worst = np.sum(finite > mean - atol)
        assert best <= ours[i] <= worst, (key, i, ours, means)


def assert_results_match(ours, theirs, atol=1e-6):
    """``cv_results_`` parity: keys, dtypes, params, ranks and scores."""
    a, b = ours.cv_results_, theirs.cv_results_
    assert sorted(a) == sorted(b)
    for key in b:
        if key == "params":
            assert a[key] == b[key]
        elif isinstance(b[key], np.ma.MaskedArray):
            assert isinstance(a[key], np.ma.MaskedArray), key
            assert a[key].dtype == b[key].dtype, key
            np.testing.assert_array_equal(a[key].mask, b[key].mask)
            assert a[key].tolist() == b[key].tolist(), key
        elif key.startswith("rank_"):
            assert a[key].dtype == b[key].dtype == np.int32
            means = b["mean_" + key[len("rank_") :]]
            _assert_ranks_match(a[key], b[key], means, atol, key)
        else:
            assert a[key].dtype == b[key].dtype, key
            assert a[key].shape == b[key].shape, key
            if "time" not in key:
                np.testing.assert_allclose(
                    a[key], b[key], rtol=0, atol=atol, err_msg=key
                )
    if hasattr(theirs, "best_params_"):
        assert ours.best_params_ == theirs.best_params_
        assert ours.best_index_ == theirs.best_index_
    if hasattr(theirs, "best_score_"):
        assert ours.best_score_ == pytest.approx(theirs.best_score_, abs=atol)
    assert ours.n_splits_ == theirs.n_splits_
    assert ours.multimetric_ == theirs.multimetric_


# --------------------------------------------------------------------------
# Parity matrix
# --------------------------------------------------------------------------


@pytest.mark.parametrize("n_targets", [None, 2])
def test_ridge_grid_matches_sklearn(backend, rng, n_targets):
    X, y = regression(rng, n_targets=n_targets)
    grid = {"alpha": ALPHAS, "fit_intercept": [True, False]}
    theirs = SkGridSearchCV(SkRidge(), grid, cv=5).fit(X, y)
    ours = GridSearchCV(Ridge(), grid, cv=5).fit(backend.asarray(X), backend.asarray(y))
    assert_results_match(ours, theirs)
    backend.assert_family(ours.best_estimator_.coef_)
    backend.assert_family(ours.predict(backend.asarray(X)))
    expected = theirs.score(X, y)
    assert ours.score(backend.asarray(X), backend.asarray(y)) == pytest.approx(expected)


def test_pipeline_with_scaler_matches_sklearn(backend, rng):
    X, y = regression(rng)
    grid = {"ridge__alpha": ALPHAS, "standardscaler__with_std": [True, False]}
    theirs = SkGridSearchCV(
        make_pipeline(SkStandardScaler(), SkRidge()),
        grid,
        cv=4,
        return_train_score=True,
    ).fit(X, y)
    ours = GridSearchCV(
        make_pipeline(StandardScaler(), Ridge()), grid, cv=4, return_train_score=True
    ).fit(backend.asarray(X), backend.asarray(y))
    assert_results_match(ours, theirs)
    backend.assert_family(ours.best_estimator_[-1].coef_)
    backend.assert_family(ours.best_estimator_[0].mean_)


def test_pipeline_mixing_gpuml_and_sklearn_steps(backend, rng):
    X, y = regression(rng)
    grid = {"ridge__alpha": ALPHAS[:3]}
    theirs = SkGridSearchCV(make_pipeline(SkStandardScaler(), SkRidge()), grid).fit(
        X, y
    )
    # A scikit-learn Ridge after gpuml's scaler: the pipeline reads host data.
    ours = GridSearchCV(make_pipeline(StandardScaler(), SkRidge()), grid).fit(
        backend.asarray(X), backend.asarray(y)
    )
    assert_results_match(ours, theirs)
    assert isinstance(ours.best_estimator_[-1].coef_, np.ndarray)


def test_multimetric_with_refit_by_name(backend, rng):
    X, y = classification(rng)
    grid = {"C": [0.01, 0.1, 1.0, 10.0]}
    scoring = ["accuracy", "roc_auc", "neg_log_loss", "f1"]
    kwargs = dict(scoring=scoring, refit="neg_log_loss", return_train_score=True)
    theirs = SkGridSearchCV(LogisticRegression(), grid, **kwargs).fit(X, y)
    ours = GridSearchCV(LogisticRegression(), grid, **kwargs).fit(
        backend.asarray(X), backend.asarray(y)
    )
    assert_results_match(ours, theirs)
    assert set(ours.scorer_) == set(scoring)


def test_multimetric_regression_batched(backend, rng):
    X, y = regression(rng)
    scoring = {
        "r2": "r2",
        "mse": "neg_mean_squared_error",
        "mae": "neg_mean_absolute_error",
    }
    kwargs = dict(scoring=scoring, refit="mse", return_train_score=True)
    theirs = SkGridSearchCV(SkRidge(), {"alpha": ALPHAS}, **kwargs).fit(X, y)
    ours = GridSearchCV(Ridge(), {"alpha": ALPHAS}, **kwargs).fit(
        backend.asarray(X), backend.asarray(y)
    )
    assert_results_match(ours, theirs)


def test_callable_refit(backend, rng):
    X, y = regression(rng)

    def lowest_alpha_within_a_percent(results):
        scores = results["mean_test_score"]
        return int(np.flatnonzero(scores >= scores.max() - 0.01 * abs(scores.max()))[0])

    kwargs = dict(refit=lowest_alpha_within_a_percent)
    theirs = SkGridSearchCV(SkRidge(), {"alpha": ALPHAS}, **kwargs).fit(X, y)
    ours = GridSearchCV(Ridge(), {"alpha": ALPHAS}, **kwargs).fit(
        backend.asarray(X), backend.asarray(y)
    )
    assert_results_match(ours, theirs)
    assert not hasattr(ours, "best_score_")


@pytest.mark.parametrize("error_score", [np.nan, -7.5])
def test_failing_candidates_get_error_score(backend, rng, error_score):
    X, y = regression(rng)
    grid = {"alpha": [1.0, -1.0, 10.0]}
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        theirs = SkGridSearchCV(SkRidge(), grid, error_score=error_score).fit(X, y)
    with warnings.catch_warnings(record=True) as ours_record:
        warnings.simplefilter("always")
        ours = GridSearchCV(Ridge(), grid, error_score=error_score).fit(
            backend.asarray(X), backend.asarray(y)
        )
    # The same warnings: the failures, and (for nan) the non-finite means.
    assert [w.category for w in ours_record] == [w.category for w in record]
    assert ours_record[0].category is FitFailedWarning
    message = str(ours_record[0].message)
    assert "5 fits failed out of a total of 15" in message
    assert "{'alpha': -1.0} on split(s) 0, 1, 2, 3, 4" in message
    assert "InvalidParameterError" in message
    assert_results_match(ours, theirs)


def test_error_score_raise_raises_the_original_error(backend, rng):
    X, y = regression(rng)
    search = GridSearchCV(Ridge(), {"alpha": [1.0, -1.0]}, error_score="raise")
    with pytest.raises(InvalidParameterError, match="'alpha' parameter of Ridge"):
        search.fit(backend.asarray(X), backend.asarray(y))


def test_all_fits_failing_raises(backend, rng):
    X, y = regression(rng)
    with pytest.raises(ValueError, match="All the 10 fits failed"):
        GridSearchCV(Ridge(), {"alpha": [-1.0, -2.0]}).fit(
            backend.asarray(X), backend.asarray(y)
        )


def test_randomized_search_matches_sklearn(backend, rng):
    X, y = regression(rng)
    dists = {"alpha": loguniform(1e-3, 1e3), "fit_intercept": [True, False]}
    kwargs = dict(n_iter=9, random_state=3, return_train_score=True)
    theirs = SkRandomizedSearchCV(SkRidge(), dists, **kwargs).fit(X, y)
    ours = RandomizedSearchCV(Ridge(), dists, **kwargs).fit(
        backend.asarray(X), backend.asarray(y)
    )
    assert_results_match(ours, theirs)


def test_sample_weight_goes_to_fit_and_scorer(backend, rng):
    X, y = regression(rng)
    weights = rng.uniform(0.1, 3, X.shape[0])
    grid = {"alpha": ALPHAS}
    theirs = SkGridSearchCV(SkRidge(), grid, scoring="r2").fit(
        X, y, sample_weight=weights
    )
    ours = GridSearchCV(Ridge(), grid, scoring="r2").fit(
        backend.asarray(X), backend.asarray(y), sample_weight=backend.asarray(weights)
    )
    assert_results_match(ours, theirs)


def test_groups_go_to_the_splitter(backend, rng):
    X, y = regression(rng)
    groups = rng.integers(0, 6, X.shape[0])
    grid = {"alpha": ALPHAS}
    theirs = SkGridSearchCV(SkRidge(), grid, cv=SkGroupKFold(3)).fit(
        X, y, groups=groups
    )
    ours = GridSearchCV(Ridge(), grid, cv=SkGroupKFold(3)).fit(
        backend.asarray(X), backend.asarray(y), groups=backend.asarray(groups)
    )
    assert_results_match(ours, theirs)


def test_foreign_scorer_callable(backend, rng):
    X, y = regression(rng)

    def neg_max_residual(estimator, X, y):
        return -float(np.max(np.abs(estimator.predict(X) - y)))

    theirs = SkGridSearchCV(SkRidge(), {"alpha": ALPHAS}, scoring=neg_max_residual)
    ours = GridSearchCV(Ridge(), {"alpha": ALPHAS}, scoring=neg_max_residual)
    theirs.fit(X, y)
    ours.fit(backend.asarray(X), backend.asarray(y))
    assert_results_match(ours, theirs)
    assert ours.scorer_ is neg_max_residual


@pytest.mark.parametrize("name", ["neg_log_loss", "accuracy"])
def test_foreign_scorer_object_of_a_classifier(backend, rng, name):
    # scikit-learn's own scorer objects read the fitted classifier's
    # classes_ with NumPy: they get a host view of a model fitted on CuPy
    from sklearn.metrics import get_scorer as sk_get_scorer

    from gpuml.linear_model import LogisticRegression as GpumlLogisticRegression

    X, y = classification(rng)
    grid = {"C": [0.01, 0.1, 1.0]}
    scoring = sk_get_scorer(name)
    tight = {"tol": 1e-10, "max_iter": 10_000}
    theirs = SkGridSearchCV(LogisticRegression(**tight), grid, scoring=scoring)
    ours = GridSearchCV(GpumlLogisticRegression(**tight), grid, scoring=scoring)
    theirs.fit(X, y)
    ours.fit(backend.asarray(X), backend.asarray(y))
    assert_results_match(ours, theirs)
    assert ours.score(backend.asarray(X), backend.asarray(y)) == pytest.approx(
        theirs.score(X, y), rel=1e-6
    )
    backend.assert_family(ours.best_estimator_.classes_)


def test_make_scorer_of_a_gpuml_metric(backend, rng):
    X, y = regression(rng)
    scoring = make_scorer(mean_squared_error, greater_is_better=False)
    theirs = SkGridSearchCV(
        SkRidge(), {"alpha": ALPHAS}, scoring="neg_mean_squared_error"
    )
    ours = GridSearchCV(Ridge(), {"alpha": ALPHAS}, scoring=scoring)
    theirs.fit(X, y)
    ours.fit(backend.asarray(X), backend.asarray(y))
    assert_results_match(ours, theirs)


def test_gpuml_splitter_and_iterable_cv(backend, rng):
    X, y = regression(rng)
    folds = list(SkKFold(4, shuffle=True, random_state=0).split(X))
    theirs = SkGridSearchCV(SkRidge(), {"alpha": ALPHAS}, cv=folds).fit(X, y)
    for cv in (folds, KFold(4, shuffle=True, random_state=0)):
        ours = GridSearchCV(Ridge(), {"alpha": ALPHAS}, cv=cv)
        ours.fit(backend.asarray(X), backend.asarray(y))
        assert_results_match(ours, theirs)


def test_sparse_input(backend, rng):
    X, y = regression(rng)
    X[np.abs(X) < 3] = 0
    X = sp.csr_matrix(X)
    grid = {"alpha": ALPHAS}
    for solver in ("cholesky", "sparse_cg"):  # batched, then one by one
        kwargs = dict(fit_intercept=False, tol=1e-10, solver=solver)
        ours = GridSearchCV(Ridge(**kwargs), grid)
        ours.fit(backend.asarray(X), backend.asarray(y))
        theirs = SkGridSearchCV(SkRidge(**kwargs), grid).fit(X, y)
        assert_results_match(ours, theirs, atol=1e-6)


def test_boolean_mask_folds_match_sklearn(backend, rng):
    """``cv`` as (train_mask, test_mask) pairs, which scikit-learn accepts:
    the masks select rows (they are not indices 0 and 1)."""
    X, y = regression(rng)
    masks = []
    for train, _ in SkKFold(4, shuffle=True, random_state=0).split(X):
        train_mask = np.zeros(len(y), dtype=bool)
        train_mask[train] = True
        masks.append((train_mask, ~train_mask))
    theirs = SkGridSearchCV(SkRidge(), {"alpha": ALPHAS}, cv=masks).fit(X, y)
    ours = GridSearchCV(Ridge(), {"alpha": ALPHAS}, cv=masks)
    ours.fit(backend.asarray(X), backend.asarray(y))
    assert_results_match(ours, theirs)
    by_index = SkGridSearchCV(
        SkRidge(), {"alpha": ALPHAS}, cv=SkKFold(4, shuffle=True, random_state=0)
    ).fit(X, y)
    assert_results_match(ours, by_index)


@pytest.mark.parametrize("fmt", ["coo", "csc", "dia", "bsr", "lil"])
def test_sparse_formats_are_indexed_as_csr(backend, rng, fmt):
    """Every sparse format is searched as scikit-learn's ``indexable`` makes
    it: as CSR (COO, DIA and BSR have no rows to index)."""
    X, y = regression(rng, n_samples=60)
    X[np.abs(X) < 3] = 0
    X = sp.csr_matrix(X).asformat(fmt)
    if backend.family != HOST:
        import cupyx.scipy.sparse as cusp

        if not hasattr(cusp, f"{fmt}_matrix"):
            pytest.skip(f"cupyx.scipy.sparse has no {fmt} format")
        X_in = getattr(cusp, f"{fmt}_matrix")(X)
    else:
        X_in = X
    grid = {"alpha": ALPHAS[:3]}
    kwargs = dict(fit_intercept=False, solver="sparse_cg", tol=1e-10)
    theirs = SkGridSearchCV(SkRidge(**kwargs), grid, cv=3).fit(X, y)
    ours = GridSearchCV(Ridge(**kwargs), grid, cv=3).fit(X_in, backend.asarray(y))
    assert_results_match(ours, theirs)


def test_scoring_callable_without_y(backend, rng):
    """An unsupervised search: ``scoring(estimator, X)`` is called without
    ``y``, as scikit-learn calls it (single and multimetric)."""
    from sklearn.neighbors import KernelDensity

    X, _ = regression(rng, n_samples=80, n_features=3)

    def mean_log_density(estimator, X):
        return float(np.mean(estimator.score_samples(X)))

    def bandwidth_is(estimator, X):
        return 42.0 if estimator.bandwidth == 0.1 else 0.0

    grid = {"bandwidth": [0.01, 0.1, 1.0]}
    for scoring, refit in (
        (bandwidth_is, True),
        ({"density": mean_log_density, "marker": bandwidth_is}, "marker"),
    ):
        theirs = SkGridSearchCV(KernelDensity(), grid, scoring=scoring, refit=refit)
        ours = GridSearchCV(KernelDensity(), grid, scoring=scoring, refit=refit)
        theirs.fit(X)
        ours.fit(backend.asarray(X))
        assert_results_match(ours, theirs)
        assert ours.best_params_ == {"bandwidth": 0.1}

    def spread(estimator, X):  # a gpuml transformer, fitted on device data
        return -float(np.abs(backend.to_numpy(estimator.transform(X))).mean())

    grid = {"with_std": [True, False]}
    theirs = SkGridSearchCV(SkStandardScaler(), grid, scoring=spread).fit(X)
    ours = GridSearchCV(StandardScaler(), grid, scoring=spread)
    ours.fit(backend.asarray(X))
    assert_results_match(ours, theirs)


def test_n_jobs_spreads_host_work_over_joblib_workers(backend, rng):
    """``n_jobs`` as in scikit-learn for the work gpuml cannot batch: an
    estimator that is not gpuml's is fitted in joblib's workers, with
    scikit-learn's results."""
    X, y = classification(rng)
    grid = {"C": [0.1, 1.0, 10.0]}
    theirs = SkGridSearchCV(LogisticRegression(), grid, cv=3).fit(X, y)
    for n_jobs in (None, 2):
        ours = GridSearchCV(LogisticRegression(), grid, cv=3, n_jobs=n_jobs)
        ours.fit(backend.asarray(X), backend.asarray(y))
        assert_results_match(ours, theirs)

    def process(estimator, X, y):
        return float(os.getpid())

    pids = GridSearchCV(LogisticRegression(), grid, cv=3, n_jobs=2, scoring=process)
    pids.fit(backend.asarray(X), backend.asarray(y))
    assert os.getpid() not in pids.cv_results_["split0_test_score"]


def test_n_jobs_spreads_cpu_work_and_keeps_device_work(backend, rng, monkeypatch):
    """On the CPU ``n_jobs`` sends every fit to joblib's workers: a batched
    group as one task per fold with all its candidates (fitted together
    there), a group fitted one by one as one task per candidate and fold, as
    scikit-learn does; on a GPU gpuml's estimators read device-resident data
    in the calling process. Results are scikit-learn's either way."""
    from gpuml.model_selection import _parallel

    sent = []
    run = _parallel.run

    def recording_run(n_jobs, pre_dispatch, estimator, units, *args):
        sent.extend(
            sorted(index for index, _ in g.members) for _, gs in units for g in gs
        )
        return run(n_jobs, pre_dispatch, estimator, units, *args)

    monkeypatch.setattr(_parallel, "run", recording_run)
    X, y = regression(rng)
    # Distinct alphas per solver: equal alphas would tie to rounding.
    grid = [
        {"alpha": ALPHAS[:3], "solver": ["cholesky"]},
        {"alpha": ALPHAS[3:], "solver": ["sparse_cg"]},
    ]
    theirs = SkGridSearchCV(SkRidge(tol=1e-10), grid, cv=3).fit(X, y)
    ours = GridSearchCV(Ridge(tol=1e-10), grid, cv=3, n_jobs=2)
    ours.fit(backend.asarray(X), backend.asarray(y))
    assert_results_match(ours, theirs)
    params = ours.cv_results_["params"]
    batched = [i for i, p in enumerate(params) if p["solver"] == "cholesky"]
    one_by_one = [[i] for i, p in enumerate(params) if p["solver"] == "sparse_cg"]
    if backend.device == "cpu":
        assert sorted(sent) == sorted([batched, *one_by_one])
    else:
        assert sent == []

    def process(estimator, X, y):
        return float(os.getpid())

    from gpuml.linear_model import LogisticRegression as GpumlLogisticRegression

    Xc, yc = classification(rng)
    pids = GridSearchCV(
        GpumlLogisticRegression(), {"C": [0.1, 1.0]}, cv=3, n_jobs=2, scoring=process
    )
    pids.fit(backend.asarray(Xc), backend.asarray(yc))
    in_process = os.getpid() in pids.cv_results_["split0_test_score"]
    assert in_process == (backend.device != "cpu")


# --------------------------------------------------------------------------
# Data movement, refit and outputs
# --------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("family", ["numpy", "cupy"])
def test_data_crosses_the_bus_once(monkeypatch, rng, family):
    import cupy

    import gpuml._array as array_module
    from gpuml import config_context

    X, y = regression(rng, n_samples=400, n_features=8)
    big = X.nbytes
    uploads, downloads = [], []
    real_asarray, real_down = cupy.asarray, array_module.device_to_host
    # Every host-to-device copy then goes through one cupy.asarray call.
    monkeypatch.setattr(array_module, "_PINNED_MIN_BYTES", 1 << 62)

    def counting_down(array):
        if array.nbytes >= big:
            downloads.append(array.shape)
        return real_down(array)

    def counting_asarray(obj, *args, **kwargs):
        if isinstance(obj, np.ndarray) and obj.nbytes >= big:
            uploads.append(obj.shape)
        return real_asarray(obj, *args, **kwargs)

    monkeypatch.setattr(array_module, "device_to_host", counting_down)
    monkeypatch.setattr(cupy, "asarray", counting_asarray)
    data = (X, y) if family == "numpy" else (real_asarray(X), real_asarray(y))
    grid = {"standardscaler__with_std": [True, False], "ridge__alpha": ALPHAS}
    with config_context(device="gpu"):
        GridSearchCV(Ridge(), {"alpha": ALPHAS}, cv=5).fit(*data)
        assert uploads == ([X.shape] if family == "numpy" else [])
        uploads.clear()
        GridSearchCV(make_pipeline(StandardScaler(), Ridge()), grid, cv=5).fit(*data)
        assert uploads == ([X.shape] if family == "numpy" else [])
    assert downloads == []


def test_refit_on_pandas_keeps_feature_names(backend, rng):
    pd = pytest.importorskip("pandas")
    if backend.family != HOST:
        pytest.skip("pandas input is host data")
    X, y = regression(rng)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(X.shape[1])])
    search = GridSearchCV(Ridge(), {"alpha": ALPHAS}).fit(frame, y)
    np.testing.assert_array_equal(search.feature_names_in_, frame.columns)
    assert search.n_features_in_ == X.shape[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        search.predict(frame)


def test_best_estimator_pickles_in_the_input_family(backend, rng):
    X, y = regression(rng)
    search = GridSearchCV(Ridge(), {"alpha": ALPHAS}).fit(
        backend.asarray(X), backend.asarray(y)
    )
    restored = pickle.loads(pickle.dumps(search))
    backend.assert_family(restored.best_estimator_.coef_)
    np.testing.assert_allclose(
        backend.to_numpy(restored.predict(backend.asarray(X))),
        backend.to_numpy(search.predict(backend.asarray(X))),
    )
    assert search.refit_time_ >= 0


def test_verbose_progress(backend, rng, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)  # the text progress
    X, y = regression(rng)
    GridSearchCV(Ridge(), {"alpha": ALPHAS[:2]}, cv=3, verbose=3).fit(
        backend.asarray(X), backend.asarray(y)
    )
    captured = capsys.readouterr()
    out = captured.out
    assert re.search(
        r"^\[gpuml search\] 6/6 fits done in \d+\.\d s, about 0\.0 s left$",
        captured.err,
        re.MULTILINE,
    )
    assert "Fitting 3 folds for each of 2 candidates, totalling 6 fits" in out
    lines = [line for line in out.splitlines() if line.startswith("[CV")]
    assert len(lines) == 6
    assert re.search(
        r"\[CV 2/3\] END \.+alpha=0\.1;, score=-?\d\.\d{3} total time=", out
    )


class _FakeBar:
    """tqdm's interface as the progress display uses it."""

    bars: list = []

    def __init__(self, total, desc, unit):
        self.total, self.desc, self.unit = total, desc, unit
        self.steps, self.closed = [], False
        _FakeBar.bars.append(self)

    def update(self, step):
        self.steps.append(step)

    def close(self):
        self.closed = True


@pytest.mark.parametrize("verbose", [0, 1])
def test_progress_bar_with_tqdm(rng, capsys, monkeypatch, verbose):
    """With tqdm installed: one bar from verbose=1 (none at 0), advanced as
    units complete (a pipeline's candidates one at a time, a batched group all
    at once), to the total, then closed; no text progress."""
    fake = type(sys)("tqdm.auto")
    fake.tqdm = _FakeBar
    monkeypatch.setitem(sys.modules, "tqdm.auto", fake)
    monkeypatch.setattr(_FakeBar, "bars", [])
    X, y = regression(rng)
    grid = [{"alpha": ALPHAS[:3]}, {"alpha": [1.0], "fit_intercept": [False]}]
    GridSearchCV(Ridge(), grid, cv=2, verbose=verbose).fit(X, y)
    if not verbose:
        assert _FakeBar.bars == []
        return
    [bar] = _FakeBar.bars
    assert (bar.total, bar.desc, bar.unit) == (8, "gpuml search", "fit")
    assert sum(bar.steps) == 8 and len(bar.steps) == 2 and bar.closed
    assert "fits done" not in capsys.readouterr().err


def test_invalid_search_parameters_are_sklearns_errors(rng):
    X, y = regression(rng)
    with pytest.raises(InvalidParameterError, match="error_score"):
        GridSearchCV(Ridge(), {"alpha": ALPHAS}, error_score="oops").fit(X, y)
    with pytest.raises(ValueError, match="For multi-metric scoring, the parameter"):
        GridSearchCV(
            Ridge(), {"alpha": ALPHAS}, scoring=["r2", "neg_mean_absolute_error"]
        ).fit(X, y)


# --------------------------------------------------------------------------
# Batching: fallback and kept results
# --------------------------------------------------------------------------


def test_failing_batch_falls_back_one_by_one_keeping_done_folds(
    backend, rng, monkeypatch, capsys
):
    X, y = regression(rng)
    real = Ridge._fit_batch

    def fails_on_third_fold(self, *args, **kwargs):
        for split, model in enumerate(real(self, *args, **kwargs)):
            if split == 2:
                raise RuntimeError("solver failed (simulated)")  # not memory
            yield model

    fits = []
    real_fit = Ridge.fit

    def counting_fit(self, *args, **kwargs):
        fits.append(self.alpha)
        return real_fit(self, *args, **kwargs)

    monkeypatch.setattr(Ridge, "_fit_batch", fails_on_third_fold)
    monkeypatch.setattr(Ridge, "fit", counting_fit)
    theirs = SkGridSearchCV(SkRidge(), {"alpha": ALPHAS}, cv=5).fit(X, y)
    ours = GridSearchCV(Ridge(), {"alpha": ALPHAS}, cv=5, verbose=1, refit=False)
    ours.fit(backend.asarray(X), backend.asarray(y))
    theirs_no_refit = SkGridSearchCV(SkRidge(), {"alpha": ALPHAS}, cv=5, refit=False)
    assert_results_match(ours, theirs_no_refit.fit(X, y))
    assert ours.best_params_ == theirs.best_params_
    # Folds 0 and 1 came from the batch; folds 2-4 were fitted one by one.
    assert len(fits) == 3 * len(ALPHAS)
    assert "failed on split 2 (RuntimeError" in capsys.readouterr().out


def test_batch_and_one_by_one_agree(rng, monkeypatch):
    X, y = regression(rng, n_samples=300, n_features=12)
    grid = {"alpha": np.logspace(-3, 4, 15)}
    batched = GridSearchCV(Ridge(), grid, return_train_score=True).fit(X, y)
    monkeypatch.delattr(Ridge, "_fit_batch")
    single = GridSearchCV(Ridge(), grid, return_train_score=True).fit(X, y)
    assert_results_match(batched, single, atol=1e-9)


def test_wide_data_batched(backend, rng):
    X, y = regression(rng, n_samples=40, n_features=60)
    theirs = SkGridSearchCV(SkRidge(), {"alpha": ALPHAS}, cv=4).fit(X, y)
    ours = GridSearchCV(Ridge(), {"alpha": ALPHAS}, cv=4).fit(
        backend.asarray(X), backend.asarray(y)
    )
    assert_results_match(ours, theirs)


def test_pipeline_prefix_is_fitted_once_per_fold_and_prefix_params(rng, monkeypatch):
    X, y = regression(rng)
    fits = []
    real = StandardScaler.fit

    def counting(self, *args, **kwargs):
        fits.append(self.with_std)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(StandardScaler, "fit", counting)
    grid = {"standardscaler__with_std": [True, False], "ridge__alpha": ALPHAS}
    GridSearchCV(make_pipeline(StandardScaler(), Ridge()), grid, cv=3, refit=False).fit(
        X, y
    )
    assert len(fits) == 2 * 3
    fits.clear()
    # A final step that cannot batch: the prefix is still shared.
    sk_grid = {"standardscaler__with_std": [True, False], "ridge__alpha": ALPHAS}
    search = GridSearchCV(
        Pipeline([("standardscaler", StandardScaler()), ("ridge", SkRidge())]),
        sk_grid,
        cv=3,
        refit=False,
    )
    search.fit(X, y)
    assert len(fits) == 2 * 3
