"""A search over a Pipeline starting with PCA or TruncatedSVD decomposes each
fold once for every ``n_components`` of an exact solver
(``gpuml/model_selection/_truncation.py``), with the results of separate
fits (scikit-learn's search, which fits each candidate on its own)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV as SkGridSearchCV
from sklearn.pipeline import make_pipeline

from gpuml.decomposition import PCA, TruncatedSVD, _pca, _truncated_svd
from gpuml.linear_model import LogisticRegression, Ridge
from gpuml.model_selection import GridSearchCV
from gpuml.preprocessing import StandardScaler

N_SPLITS = 3


@pytest.fixture
def fits(monkeypatch):
    """The ``n_components`` of every decomposition fitted (a spy)."""
    seen = []
    for cls, method in (
        (_pca.PCA, "_fit"),
        (_truncated_svd.TruncatedSVD, "fit_transform"),
    ):
        original = getattr(cls, method)

        def spy(self, *args, _original=original, **kwargs):
            seen.append(self.n_components)
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(cls, method, spy)
    return seen


def _data(rng, n_samples=150, n_features=30):
    X = rng.standard_normal((n_samples, n_features)) @ rng.standard_normal(
        (n_features, n_features)
    )
    y = (X[:, 0] - X[:, 3] + rng.standard_normal(n_samples) > 0).astype(int)
    return X, y


def _assert_same_results(ours, theirs):
    for key in ("mean_test_score", "split0_test_score", "rank_test_score"):
        np.testing.assert_allclose(
            ours.cv_results_[key], theirs.cv_results_[key], rtol=1e-9, atol=1e-12
        )
    assert ours.best_params_ == theirs.best_params_


@pytest.mark.parametrize("solver", ["full", "covariance_eigh", "arpack", "auto"])
@pytest.mark.parametrize("scaled", [False, True])
def test_one_pca_per_fold_serves_every_n_components(backend, rng, fits, solver, scaled):
    X, y = _data(rng)
    steps = [PCA(svd_solver=solver)] + ([StandardScaler()] if scaled else [])
    pipe = make_pipeline(*steps, LogisticRegression())
    grid = {"pca__n_components": [2, 4, 8, 16], "logisticregression__C": [0.1, 1.0]}
    ours = GridSearchCV(pipe, grid, cv=N_SPLITS).fit(backend.asarray(X), y)
    # one decomposition per fold, at the largest n_components, and the refit
    assert fits == [16] * N_SPLITS + [ours.best_params_["pca__n_components"]]
    theirs = SkGridSearchCV(pipe, grid, cv=N_SPLITS).fit(X, y)
    _assert_same_results(ours, theirs)


def test_randomized_pca_is_fitted_per_candidate(rng, fits):
    """The randomized solver's components are not nested: no sharing."""
    X, y = _data(rng)
    pipe = make_pipeline(PCA(svd_solver="randomized", random_state=0), Ridge())
    grid = {"pca__n_components": [2, 4, 8]}
    GridSearchCV(pipe, grid, cv=N_SPLITS).fit(X, y)
    assert sorted(fits[:-1]) == sorted([2, 4, 8] * N_SPLITS)


def test_truncated_pca_equals_a_separate_fit(rng):
    X, _ = _data(rng)
    for solver in ("full", "covariance_eigh", "arpack"):
        for whiten in (False, True):
            big = PCA(n_components=12, svd_solver=solver, whiten=whiten).fit(X)
            small = big._truncated(n_components=5)
            alone = PCA(n_components=5, svd_solver=solver, whiten=whiten).fit(X)
            assert big.n_components_ == 12, "the source is left as it was"
            for name in (
                "components_",
                "explained_variance_",
                "explained_variance_ratio_",
                "singular_values_",
                "mean_",
                "noise_variance_",
            ):
                np.testing.assert_array_equal(
                    getattr(small, name), getattr(alone, name), err_msg=name
                )
            assert small.n_components_ == alone.n_components_ == 5
            np.testing.assert_allclose(
                small.transform(X), alone.transform(X), rtol=1e-12, atol=1e-12
            )
            assert small.score(X) == pytest.approx(alone.score(X), rel=1e-12)


def test_a_truncation_raises_what_the_separate_fit_raises(rng):
    X, _ = _data(rng, n_samples=20, n_features=10)
    big = PCA(n_components=9, svd_solver="arpack").fit(X)
    with pytest.raises(ValueError, match="must be between 1 and"):
        big._truncated(n_components=0)
    with pytest.raises(ValueError, match="must be between 1 and"):
        PCA(n_components=0, svd_solver="arpack").fit(X)


def test_an_invalid_largest_value_fails_alone(rng, fits):
    """n_components beyond the data's: that candidate gets error_score (and
    scikit-learn's warning); the others their separate fits' scores."""
    X, y = _data(rng, n_features=10)
    pipe = make_pipeline(PCA(svd_solver="arpack"), LogisticRegression())
    grid = {"pca__n_components": [2, 5, 10]}  # 10 is not < min(shape) = 10
    searches = []
    for Search in (GridSearchCV, SkGridSearchCV):
        with pytest.warns(FitFailedWarning, match="3 fits failed"):
            with warnings.catch_warnings():
                # both searches warn so about the failed candidate's NaN mean
                warnings.filterwarnings("ignore", "One or more of the test scores")
                searches.append(Search(pipe, grid, cv=N_SPLITS).fit(X, y))
    ours, theirs = searches
    scores, expected = (
        ours.cv_results_["mean_test_score"],
        theirs.cv_results_["mean_test_score"],
    )
    assert np.isnan(scores[2]) and np.isnan(expected[2])
    np.testing.assert_allclose(scores[:2], expected[:2], rtol=1e-9)


def test_truncated_svd_arpack_on_sparse_text_like_data(backend, rng, fits):
    X = sp.random(120, 40, density=0.2, format="csr", random_state=rng)
    sums = np.asarray(X.sum(axis=1)).ravel()
    y = (sums > np.median(sums)).astype(int)
    pipe = make_pipeline(
        TruncatedSVD(algorithm="arpack", random_state=0), LogisticRegression()
    )
    grid = {"truncatedsvd__n_components": [2, 5, 10]}
    ours = GridSearchCV(pipe, grid, cv=N_SPLITS).fit(backend.asarray(X), y)
    assert fits == [10] * N_SPLITS + [ours.best_params_["truncatedsvd__n_components"]]
    theirs = SkGridSearchCV(pipe, grid, cv=N_SPLITS).fit(X, y)
    _assert_same_results(ours, theirs)


def test_a_piece_of_a_shared_unit_fits_its_own_prefix(rng, fits):
    """A Dask task may hold one candidate of a shared unit (whose Pipeline
    has the unit's largest n_components): it fits the candidate's own."""
    from gpuml.metrics import get_scorer
    from gpuml.model_selection._batch import group_candidates
    from gpuml.model_selection._dask import _one_by_one
    from gpuml.model_selection._data import SearchData
    from gpuml.model_selection._results import Options
    from gpuml.model_selection._search import _units
    from gpuml.model_selection._tasks import evaluate_unit

    X, y = _data(rng)
    pipe = make_pipeline(PCA(svd_solver="full"), Ridge())
    candidates = [{"pca__n_components": n} for n in (3, 9)]
    (unit,) = _units(pipe, group_candidates(pipe, candidates))
    assert unit[0].get_params()["pca__n_components"] == 9
    piece = next(p for p in _one_by_one(unit) if p[1][0].members[0][0] == 0)
    train, test = np.arange(100), np.arange(100, 150)
    options = Options(np.nan, False, 0, 1, 2)
    table: dict = {}
    data = SearchData(X, y.astype(float), {}, np)
    scorer = get_scorer("r2")
    evaluate_unit(pipe, piece, data, [(train, test)], [0], scorer, options, table)
    assert fits == [3]
    expected = (
        make_pipeline(PCA(n_components=3), Ridge())
        .fit(X[train], y[train])
        .score(X[test], y[test])
    )
    assert float(table[0, 0]["test_scores"]) == pytest.approx(expected, rel=1e-10)


@pytest.fixture
def together(monkeypatch):
    """The truncations' final fits shared (as on the GPU) also on the CPU,
    and the folds that shared them (a spy: a fold is listed once it was
    evaluated so; one that fell back is not)."""
    from gpuml.model_selection import _tasks

    folds = []
    original = _tasks._together_fold

    def spy(*args, **kwargs):
        original(*args, **kwargs)
        folds.append(args[5])  # the split

    monkeypatch.setattr(_tasks, "_together_on", lambda xp: True)
    monkeypatch.setattr(_tasks, "_together_fold", spy)
    return folds


def _apart(monkeypatch):
    from gpuml.model_selection import _tasks

    monkeypatch.setattr(_tasks, "_together_on", lambda xp: False)


@pytest.mark.parametrize("scoring", ["accuracy", "neg_log_loss"])
def test_truncations_share_one_logistic_fit_per_fold(
    backend, rng, fits, together, monkeypatch, scoring
):
    """Every n_components x C candidate of a fold in one L-BFGS over the
    largest decomposition, each on its leading columns: the scores of the
    candidates' own fits (scikit-learn's search of the same Pipeline)."""
    X, y = _data(rng, n_samples=300)
    y[::4] = 2  # multinomial
    pipe = make_pipeline(PCA(svd_solver="covariance_eigh"), LogisticRegression())
    grid = {"pca__n_components": [2, 5, 9, 16], "logisticregression__C": [0.05, 1.0]}
    batches = []
    fit_batch = LogisticRegression._fit_batch

    def spy(self, *args, n_features=None, **kwargs):
        batches.append(n_features)
        return fit_batch(self, *args, n_features=n_features, **kwargs)

    monkeypatch.setattr(LogisticRegression, "_fit_batch", spy)
    search = GridSearchCV(pipe, grid, cv=N_SPLITS, scoring=scoring)
    ours = search.fit(backend.asarray(X), y)
    assert together == list(range(N_SPLITS))
    # one batch a fold: each value's two C, largest value first
    assert batches == [[16, 16, 9, 9, 5, 5, 2, 2]] * N_SPLITS
    assert fits == [16] * N_SPLITS + [ours.best_params_["pca__n_components"]]
    theirs = SkGridSearchCV(pipe, grid, cv=N_SPLITS, scoring=scoring).fit(X, y)
    for key in ("mean_test_score", "split0_test_score", "split2_test_score"):
        np.testing.assert_allclose(
            ours.cv_results_[key], theirs.cv_results_[key], rtol=1e-6, atol=1e-9
        )
    assert ours.best_params_ == theirs.best_params_


def test_only_the_last_step_before_the_final_one_shares(rng, together):
    """A scaler after PCA is fitted on each value's columns: no sharing."""
    X, y = _data(rng)
    pipe = make_pipeline(PCA(), StandardScaler(), LogisticRegression())
    grid = {"pca__n_components": [2, 4], "logisticregression__C": [0.1, 1.0]}
    GridSearchCV(pipe, grid, cv=N_SPLITS).fit(X, y)
    assert together == []


@pytest.mark.parametrize("solver", ["lbfgs", "newton-cholesky"])
def test_failing_candidates_fail_as_when_apart(rng, together, monkeypatch, solver):
    """A fold where a candidate cannot be fitted together (an invalid C, or
    a solver that fits every column) is evaluated part by part: the same
    errors and scores as without sharing."""
    X, y = _data(rng)
    pipe = make_pipeline(PCA(), LogisticRegression(solver=solver))
    grid = {"pca__n_components": [2, 5], "logisticregression__C": [-1.0, 0.5]}
    searches = []
    for share in (True, False):
        if not share:
            _apart(monkeypatch)
        with pytest.warns(FitFailedWarning, match="6 fits failed"):
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "One or more of the test scores")
                searches.append(GridSearchCV(pipe, grid, cv=N_SPLITS).fit(X, y))
    assert together == []  # lbfgs fell back on every fold; newton-cholesky never tried
    shared, apart = (s.cv_results_["mean_test_score"] for s in searches)
    failed = [p["logisticregression__C"] < 0 for p in searches[0].cv_results_["params"]]
    np.testing.assert_array_equal(np.isnan(shared), failed)
    np.testing.assert_allclose(shared, apart, rtol=1e-12, equal_nan=True)


def test_a_largest_value_beyond_the_data_falls_back(rng, fits, together, capsys):
    """The shared decomposition fails on every fold: each value is
    evaluated on its own, the failing one getting error_score."""
    X, y = _data(rng, n_features=10)
    pipe = make_pipeline(PCA(svd_solver="arpack"), LogisticRegression())
    grid = {"pca__n_components": [2, 5, 10], "logisticregression__C": [0.1, 1.0]}
    with pytest.warns(FitFailedWarning, match="6 fits failed"):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "One or more of the test scores")
            ours = GridSearchCV(pipe, grid, cv=N_SPLITS).fit(X, y)
    assert together == []  # the shared decomposition failed on every fold
    assert "fitting each value apart" not in capsys.readouterr().out  # verbose=0
    scores = ours.cv_results_["mean_test_score"]
    failed = np.array(
        [p["pca__n_components"] == 10 for p in ours.cv_results_["params"]]
    )
    np.testing.assert_array_equal(np.isnan(scores), failed)
    theirs = SkGridSearchCV(pipe, {**grid, "pca__n_components": [2, 5]}, cv=N_SPLITS)
    theirs.fit(X, y)
    with pytest.warns(FitFailedWarning), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "One or more of the test scores")
        GridSearchCV(pipe, grid, cv=N_SPLITS, verbose=1).fit(X, y)
    said = capsys.readouterr().out
    assert said.count("fitting each value apart") == N_SPLITS
    assert "The n_components values' shared fit failed on split 0 (ValueError" in said
    np.testing.assert_allclose(
        scores[~failed], theirs.cv_results_["mean_test_score"], rtol=1e-9
    )
