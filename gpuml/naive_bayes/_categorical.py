"""CategoricalNB: naive Bayes for categorical features.

Feature ``i``'s categories ``0 .. n_i - 1`` are columns ``offset_i ..
offset_i + n_i - 1`` of a one-hot CSR matrix of ``X`` (one stored value per
sample and feature; SciPy on the host, cupyx on the device), so that every
feature's (class, category) counts come from one sparse-dense product
``onehot(X).T @ Y``, and the joint log-likelihood from one product
``onehot(X) @ table.T`` with the features' log-probabilities side by side.
The public attributes are scikit-learn's lists of per-feature arrays.
"""

from __future__ import annotations

from functools import partial
from numbers import Integral, Real
from types import ModuleType

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_consistent_length, column_or_1d

from gpuml._array import (
    DEVICE,
    as_device_native,
    compute_namespace,
    input_family,
    namespace_of,
    to_family,
    to_host,
    to_namespace,
)
from gpuml._backend import import_cupyx
from gpuml._sklearn_compat import Interval, validate_estimator_params
from gpuml._validation import (
    assert_all_finite,
    check_array,
    check_y,
    validate_data,
)
from gpuml.base import BatchUnsupported
from gpuml.naive_bayes._base import (
    NaiveBayesBatch,
    check_non_negative,
    fold_labels,
    fold_rows,
    fold_weights,
)
from gpuml.naive_bayes._discrete import _BaseDiscreteNB


def one_hot_features(X, widths: np.ndarray, xp: ModuleType):
    """The (n_samples, sum(widths)) CSR one-hot matrix of integer ``X``."""
    n, p = X.shape
    offsets = np.concatenate(([0], np.cumsum(widths)[:-1])).astype(np.int64)
    indices = (X.astype(xp.int64) + xp.asarray(offsets)[None, :]).reshape(-1)
    data = xp.ones(n * p, dtype=xp.float64)
    indptr = xp.arange(0, n * p + 1, p, dtype=xp.int64)
    shape = (n, int(widths.sum()))
    if xp is np:
        import scipy.sparse as sp

        return sp.csr_matrix((data, indices, indptr), shape=shape)
    cusp = import_cupyx("scipy.sparse")
    return cusp.csr_matrix(
        (data, indices.astype(xp.int32), indptr.astype(xp.int32)), shape=shape
    )


def check_categories(X, widths, xp: ModuleType) -> None:
    """Raise NumPy's IndexError (as scikit-learn's gather does) for a
    category beyond the ones a feature's table holds."""
    if X.shape[0] == 0:
        return
    highest = to_host(X.max(axis=0))
    for value, width in zip(highest, widths, strict=True):
        if value >= width:
            raise IndexError(
                f"index {value} is out of bounds for axis 1 with size {width}"
            )


def split_table(table, widths: np.ndarray) -> list:
    """Feature ``i``'s (n_classes, widths[i]) block of a side-by-side table."""
    bounds = np.cumsum(widths)[:-1]
    return [
        table[:, a:b]
        for a, b in zip(np.r_[0, bounds], np.r_[bounds, table.shape[1]], strict=True)
    ]


class CategoricalNB(_BaseDiscreteNB):
    """Naive Bayes classifier for categorical features, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.naive_bayes.CategoricalNB`:
    each feature's categories are the integers ``0, ..., n - 1`` (for
    instance from an ordinal encoder). A search batches ``alpha``,
    ``fit_prior`` and ``force_alpha`` from one count pass per fold.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (set alpha=0 and
        force_alpha=True, for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it is set to 1e-10 (with a
        warning); if True, alpha is kept unchanged.
    fit_prior : bool, default=True
        Whether to learn class prior probabilities; if False, a uniform
        prior is used.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes; if given, not adjusted to the
        data.
    min_categories : int or array-like of shape (n_features,), default=None
        Minimum number of categories per feature (None: from the data).

    Attributes
    ----------
    category_count_ : list of arrays of shape (n_features,)
        Per feature, the (n_classes, n_categories) weighted counts.
    class_count_ : ndarray of shape (n_classes,)
        Samples (weighted) seen per class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log probability of each class (smoothed).
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    feature_log_prob_ : list of arrays of shape (n_features,)
        Per feature, the (n_classes, n_categories) ``log P(x_i|y)``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.
    n_categories_ : ndarray of shape (n_features,), dtype=np.int64
        Number of categories of each feature (in the last fit's data, or
        ``min_categories``).

    See Also
    --------
    MultinomialNB : Naive Bayes classifier for multinomial models.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.naive_bayes import CategoricalNB
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 5, 6])
    >>> clf = CategoricalNB().fit(X, y)
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    _parameter_constraints: dict = {
        **_BaseDiscreteNB._parameter_constraints,
        "min_categories": [
            None,
            "array-like",
            Interval(Integral, 1, None, closed="left"),
        ],
        "alpha": [Interval(Real, 0, None, closed="left")],
    }
    _counters = ("class_count_", "category_count_")

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        min_categories=None,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories

    def _integers(self, X, xp: ModuleType, **options):
        if input_family(X) == DEVICE:
            # a device array cast to integers must not hide NaN or inf
            # (scikit-learn's check_array refuses them before the cast)
            native = as_device_native(X)
            assert_all_finite(native, xp=namespace_of(native), estimator=self)
        X = validate_data(self, X, xp=xp, dtype="int", accept_sparse=False, **options)
        check_non_negative(X, "CategoricalNB (input X)", xp)
        return X

    def _check_X(self, X, xp: ModuleType):
        return self._integers(X, xp, reset=False)

    def _check_X_y(self, X, y, xp: ModuleType, reset: bool = True):
        if y is None:
            check_y(None, xp=np, estimator=self)
        X = self._integers(X, xp, reset=reset)
        y = to_host(check_y(y, xp=np, estimator=self))
        check_consistent_length(X, y)
        return X, column_or_1d(y)

    def _n_categories(self, X) -> np.ndarray:
        """scikit-learn's ``_validate_n_categories`` (host int64)."""
        n_categories_X = to_host(X.max(axis=0)) + 1
        min_categories = self.min_categories
        min_categories_ = np.array(min_categories)
        if min_categories is not None:
            if not np.issubdtype(min_categories_.dtype, np.signedinteger):
                raise ValueError(
                    "'min_categories' should have integral type. Got "
                    f"{min_categories_.dtype} instead."
                )
            n_categories_ = np.maximum(n_categories_X, min_categories_, dtype=np.int64)
            if n_categories_.shape != n_categories_X.shape:
                raise ValueError(
                    f"'min_categories' should have shape ({X.shape[1]},"
                    ") when an array-like is provided. Got"
                    f" {min_categories_.shape} instead."
                )
            return n_categories_
        return n_categories_X

    def _count(self, X, Y, xp: ModuleType) -> dict:
        widths = self._n_categories(X)
        table = (one_hot_features(X, widths, xp).T @ Y).T
        return {
            "class_count_": Y.sum(axis=0),
            "category_count_": split_table(table, widths),
            "n_categories_": widths,
        }

    def _accumulate(self, counts: dict, xp: ModuleType) -> dict:
        total = []
        for old, new in zip(
            self.category_count_, counts["category_count_"], strict=True
        ):
            old = to_namespace(old, xp)
            width = max(old.shape[1], new.shape[1])
            padded = xp.zeros((new.shape[0], width))
            padded[:, : old.shape[1]] += old
            padded[:, : new.shape[1]] += new
            total.append(padded)
        class_count = self._fitted("class_count_", xp) + counts["class_count_"]
        return {**counts, "class_count_": class_count, "category_count_": total}

    def _model(self, totals: dict, xp: ModuleType) -> dict:
        alpha = self._check_alpha()
        feature_log_prob = []
        for count in totals["category_count_"]:
            smoothed_cat_count = count + alpha
            smoothed_class_count = smoothed_cat_count.sum(axis=1)
            feature_log_prob.append(
                xp.log(smoothed_cat_count) - xp.log(smoothed_class_count.reshape(-1, 1))
            )
        return {
            "feature_log_prob_": feature_log_prob,
            "class_log_prior_": self._class_log_prior(totals["class_count_"], xp),
        }

    def _store(self, family: str, **attributes) -> None:
        for name in ("category_count_", "feature_log_prob_"):
            setattr(self, name, [to_family(a, family) for a in attributes.pop(name)])
        self.n_categories_ = np.asarray(attributes.pop("n_categories_"), dtype=np.int64)
        super()._store(family, **attributes)

    def _joint_log_likelihood(self, X, xp: ModuleType):
        tables = [to_namespace(a, xp) for a in self.feature_log_prob_]
        widths = np.array([a.shape[1] for a in tables], dtype=np.int64)
        check_categories(X, widths, xp)
        table = xp.concatenate(tables, axis=1)
        jll = one_hot_features(X, widths, xp) @ xp.ascontiguousarray(table.T)
        return jll + self._fitted("class_log_prior_", xp)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.sparse = False
        tags.input_tags.positive_only = True
        return tags

    # -- the batched-candidates protocol -----------------------------------

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        """One :class:`~gpuml.naive_bayes._base.NaiveBayesBatch` per training
        fold: the fold's category counts once, each candidate's
        log-probabilities from them."""
        validate_estimator_params(self)
        candidates = [clone(self).set_params(**params) for params in param_sets]
        for candidate in candidates:
            validate_estimator_params(candidate)
        xp = compute_namespace()
        X = check_array(X, xp=xp, dtype="int", accept_sparse=False)
        if X.size and bool(xp.min(X) < 0):
            raise BatchUnsupported("negative values: each fit reports its own")
        y_host = column_or_1d(to_host(y))
        for train in [None] if folds is None else folds:
            X_fold = fold_rows(X, train, xp)
            weights = fold_weights(sample_weight, train, X.shape[0], xp)
            _, classes, Y = fold_labels(y_host, train, weights, xp)
            counts = self._count(X_fold, Y, xp)
            widths = counts["n_categories_"]
            tables, priors = [], []
            for candidate in candidates:
                candidate.n_features_in_ = X.shape[1]
                model = candidate._model(counts, xp)
                tables.append(xp.concatenate(model["feature_log_prob_"], axis=1))
                priors.append(model["class_log_prior_"])
            jll = partial(
                _stacked_jll,
                W=xp.stack(tables),
                b=xp.stack(priors),
                widths=widths,
                xp=xp,
            )
            yield NaiveBayesBatch(jll, len(candidates), classes, xp)


def _stacked_jll(X, *, W, b, widths, xp: ModuleType):
    """(k, n_samples, n_classes) joint log-likelihoods of stacked models."""
    X = check_array(X, xp=xp, dtype="int", accept_sparse=False)
    if X.shape[1] != widths.shape[0]:
        raise ValueError(
            f"X has {X.shape[1]} features, but CategoricalNB is expecting "
            f"{widths.shape[0]} features as input."
        )
    check_non_negative(X, "CategoricalNB (input X)", xp)
    check_categories(X, widths, xp)
    k, n_classes, total = W.shape
    flat = one_hot_features(X, widths, xp) @ xp.ascontiguousarray(
        W.reshape(k * n_classes, total).T
    )
    stacked = flat.reshape(X.shape[0], k, n_classes).transpose(1, 0, 2)
    return stacked + b[:, None, :]
