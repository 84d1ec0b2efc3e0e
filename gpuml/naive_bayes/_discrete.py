"""The discrete naive Bayes models' shared machinery: counts, smoothing,
priors, ``partial_fit`` and the batched search.

The sufficient statistics of a discrete model are counts: ``X.T @ Y`` with
``Y`` the one-hot label matrix (the sample weights folded into its rows),
a sparse-dense product for CSR input (SciPy on the host, cupyx on the
device; sparse ``X`` is never densified), and the class totals
``Y.sum(axis=0)``. They are accumulated in float64, as scikit-learn's
counters are, whatever the input's dtype (float32 input gives float64
log-probabilities there too). Everything a model derives from them (the
smoothed log-probabilities, the class log-prior) is a few operations on a
(n_classes, n_features) array, which is why a search fits every ``alpha``
(and ``fit_prior``, ``force_alpha``, ComplementNB's ``norm``) of a fold from
one count pass (:meth:`_BaseDiscreteNB._fit_batch`).

The joint log-likelihood of every model here is affine in ``X``:
``X @ W.T + b`` (:meth:`_BaseDiscreteNB._linear_terms`), so a batch of
``k`` candidates predicts with one product against their stacked ``W``.
"""

from __future__ import annotations

import warnings
from functools import partial
from numbers import Real
from types import ModuleType

import numpy as np
from sklearn.base import clone
from sklearn.preprocessing import label_binarize
from sklearn.utils.validation import check_consistent_length, column_or_1d

from gpuml._array import compute_namespace, input_family, is_sparse, to_host
from gpuml._sklearn_compat import Interval, validate_estimator_params
from gpuml._validation import (
    NUMERIC_FLOAT,
    check_array,
    check_sample_weight,
    check_y,
    validate_data,
)
from gpuml.base import BatchUnsupported
from gpuml.naive_bayes._base import (
    NaiveBayesBatch,
    _BaseNB,
    check_non_negative,
    device_classes,
    encode_labels,
    first_partial_fit_call,
    fold_labels,
    fold_rows,
    fold_weights,
    one_hot,
)

ALPHA_MIN = 1e-10


def count_features(X, Y):
    """The (n_classes, n_features) counts ``(X.T @ Y).T``: one pass over
    ``X`` (dense, SciPy or cupyx CSR) against the weighted one-hot labels."""
    counts = X.T @ Y
    if hasattr(counts, "toarray"):  # a sparse result of some library versions
        counts = counts.toarray()
    return counts.T


def as_float64(X):
    """``X`` (dense or sparse, any namespace) in float64: the counters'
    dtype (exact for float32 and integer input)."""
    return X if X.dtype == np.float64 else X.astype(np.float64)


def checked_alpha(alpha, force_alpha: bool, n_features: int):
    """scikit-learn's ``_check_alpha``: the smoothing to use (a float or a
    host array of ``n_features`` values), its errors and its warning."""
    alpha = np.asarray(alpha) if not isinstance(alpha, Real) else alpha
    alpha_min = np.min(alpha)
    if isinstance(alpha, np.ndarray):
        if not alpha.shape[0] == n_features:
            raise ValueError(
                "When alpha is an array, it should contains `n_features`. "
                f"Got {alpha.shape[0]} elements instead of {n_features}."
            )
        if alpha_min < 0:
            raise ValueError("All values in alpha must be greater than 0.")
    if alpha_min < ALPHA_MIN and not force_alpha:
        warnings.warn(
            "alpha too small will result in numeric errors, setting alpha ="
            f" {ALPHA_MIN:.1e}. Use `force_alpha=True` to keep alpha"
            " unchanged.",
            UserWarning,
            stacklevel=3,
        )
        return np.maximum(alpha, ALPHA_MIN)
    return alpha


def as_smoothing(alpha, xp: ModuleType):
    """A checked alpha where it is added to ``xp`` counts."""
    return (
        xp.asarray(alpha, dtype=xp.float64) if isinstance(alpha, np.ndarray) else alpha
    )


class _BaseDiscreteNB(_BaseNB):
    """Counts, priors and the fit methods of the discrete models.

    Subclasses define ``_count(X, Y, xp)`` (the increments of their
    counters), ``_feature_log_prob(counts, alpha, xp)`` and
    ``_linear_terms(feature_log_prob, class_log_prior, xp)``.
    """

    _parameter_constraints: dict = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "fit_prior": ["boolean"],
        "class_prior": ["array-like", None],
        "force_alpha": ["boolean"],
    }
    _counters = ("class_count_", "feature_count_")
    _non_negative = False  # whether _count refuses negative values

    # -- validation ---------------------------------------------------------

    def _transform(self, X, xp: ModuleType):
        """What the model reads of validated ``X`` (BernoulliNB binarises)."""
        return X

    def _check_X(self, X, xp: ModuleType):
        X = validate_data(
            self, X, xp=xp, reset=False, accept_sparse="csr", dtype=NUMERIC_FLOAT
        )
        return self._transform(as_float64(X), xp)

    def _check_X_y(self, X, y, xp: ModuleType, reset: bool = True):
        if y is None:
            check_y(None, xp=np, estimator=self)
        X = validate_data(
            self, X, xp=xp, reset=reset, accept_sparse="csr", dtype=NUMERIC_FLOAT
        )
        y = to_host(check_y(y, xp=np, estimator=self))
        check_consistent_length(X, y)
        return self._transform(as_float64(X), xp), column_or_1d(y)

    def _check_alpha(self):
        """The smoothing parameter to use, as scikit-learn's ``_check_alpha``."""
        # n_features_in_ is read only for an array, as scikit-learn's does
        scalar = isinstance(self.alpha, Real)
        n_features = None if scalar else self.n_features_in_
        return checked_alpha(self.alpha, self.force_alpha, n_features)

    # -- counts and what follows from them ---------------------------------

    def _count(self, X, Y, xp: ModuleType) -> dict:
        """The increments of the counters from ``X`` and labels ``Y``."""
        if self._non_negative:
            check_non_negative(X, f"{type(self).__name__} (input X)", xp)
        return {"feature_count_": count_features(X, Y), "class_count_": Y.sum(axis=0)}

    def _accumulate(self, counts: dict, xp: ModuleType) -> dict:
        """The counters of the model so far plus ``counts``."""
        return {name: self._fitted(name, xp) + counts[name] for name in self._counters}

    def _totals(self, counts: dict, xp: ModuleType) -> dict:
        """Counters after ``counts`` (ComplementNB adds ``feature_all_``)."""
        return counts

    def _class_log_prior(self, class_count, xp: ModuleType):
        """scikit-learn's ``_update_class_log_prior``."""
        n_classes = class_count.shape[0]
        if self.class_prior is not None:
            if len(self.class_prior) != n_classes:
                raise ValueError("Number of priors must match number of classes.")
            return xp.log(xp.asarray(np.asarray(self.class_prior, dtype=float)))
        if self.fit_prior:
            # a class not yet observed in partial_fit has a zero count
            with np.errstate(divide="ignore"):
                log_class_count = xp.log(class_count)
            return log_class_count - xp.log(class_count.sum())
        return xp.full(n_classes, -np.log(n_classes))

    def _model(self, totals: dict, xp: ModuleType) -> dict:
        """The fitted attributes derived from the counters."""
        alpha = self._check_alpha()
        return {
            "feature_log_prob_": self._feature_log_prob(totals, alpha, xp),
            "class_log_prior_": self._class_log_prior(totals["class_count_"], xp),
        }

    def _joint_log_likelihood(self, X, xp: ModuleType):
        W, b = self._linear_terms(
            self._fitted("feature_log_prob_", xp),
            self._fitted("class_log_prior_", xp),
            xp,
        )
        return X @ xp.ascontiguousarray(W.T) + b

    # -- fit and partial_fit -----------------------------------------------

    def fit(self, X, y, sample_weight=None):
        """Fit the naive Bayes classifier according to X, y.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors (host or device family).
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights applied to individual samples (1. for unweighted).

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        validate_estimator_params(self)
        self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        X, y = self._check_X_y(X, y, xp)
        classes, indices = encode_labels(y)
        self.classes_ = device_classes(classes, family)
        weights = None
        if sample_weight is not None:
            weights = check_sample_weight(
                sample_weight, X.shape[0], xp=xp, dtype=np.float64
            )
        Y = one_hot(indices, classes.shape[0], weights, xp)
        totals = self._totals(self._count(X, Y, xp), xp)
        self._store(family, **totals, **self._model(totals, xp))
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Incremental fit on a batch of samples.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors (host or device family).
        y : array-like of shape (n_samples,)
            Target values.
        classes : array-like of shape (n_classes,), default=None
            All the classes that can appear in ``y``: required on the first
            call, and if given later, the same.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights applied to individual samples (1. for unweighted).

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        validate_estimator_params(self)
        unfitted = not hasattr(self, "classes_")
        if unfitted:
            self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        X, y = self._check_X_y(X, y, xp, reset=unfitted)
        first_call = first_partial_fit_call(self, classes)
        host_classes = to_host(self.classes_)
        self.classes_ = device_classes(host_classes, family)
        Y = label_binarize(y, classes=host_classes)
        if Y.shape[1] == 1:
            if len(host_classes) == 2:
                Y = np.concatenate((1 - Y, Y), axis=1)
            else:  # degenerate case: just one class
                Y = np.ones_like(Y)
        Y = xp.asarray(Y.astype(np.float64))
        if sample_weight is not None:
            weights = check_sample_weight(
                sample_weight, X.shape[0], xp=xp, dtype=np.float64
            )
            Y *= weights[:, None]
        counts = self._count(X, Y, xp)
        if not first_call:
            counts = self._accumulate(counts, xp)
        totals = self._totals(counts, xp)
        self._store(family, **totals, **self._model(totals, xp))
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.classifier_tags.poor_score = True
        return tags

    # -- the batched-candidates protocol of gpuml.model_selection ----------

    _batch_names = ("alpha", "fit_prior", "force_alpha")

    def _batch_params(self) -> frozenset:
        """The smoothing and prior parameters: all of a fold's candidates
        come from one count pass."""
        return frozenset(self._batch_names)

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        """One :class:`~gpuml.naive_bayes._base.NaiveBayesBatch` per training
        fold (all rows when ``folds`` is None): the fold's counts once
        (:func:`count_features`), then each candidate's log-probabilities
        and prior from them, as its own ``fit`` derives them; a fold's
        classes are its own labels', as its fit's."""
        validate_estimator_params(self)
        candidates = [clone(self).set_params(**params) for params in param_sets]
        for candidate in candidates:
            validate_estimator_params(candidate)
        xp = compute_namespace()
        X = check_array(X, xp=xp, accept_sparse="csr", dtype=NUMERIC_FLOAT)
        X = self._transform(as_float64(X), xp)
        if self._non_negative and _values(X).size and bool(xp.min(_values(X)) < 0):
            raise BatchUnsupported("negative values: each fit reports its own")
        y_host = column_or_1d(to_host(y))
        n_features = X.shape[1]
        for train in [None] if folds is None else folds:
            X_fold = fold_rows(X, train, xp)
            weights = fold_weights(sample_weight, train, X.shape[0], xp)
            _, classes, Y = fold_labels(y_host, train, weights, xp)
            totals = self._totals(self._count(X_fold, Y, xp), xp)
            terms = []
            for candidate in candidates:
                candidate.n_features_in_ = n_features
                model = candidate._model(totals, xp)
                terms.append(
                    candidate._linear_terms(
                        model["feature_log_prob_"], model["class_log_prior_"], xp
                    )
                )
            W = xp.stack([w for w, _ in terms])
            b = xp.stack([xp.broadcast_to(b, (W.shape[1],)) for _, b in terms])
            jll = partial(self._stacked_jll, W=W, b=b, xp=xp)
            yield NaiveBayesBatch(jll, len(candidates), classes, xp)

    def _stacked_jll(self, X, *, W, b, xp: ModuleType):
        """(k, n_samples, n_classes) joint log-likelihoods of stacked
        models: one product of ``X`` with every candidate's ``W``."""
        X = check_array(X, xp=xp, accept_sparse="csr", dtype=NUMERIC_FLOAT)
        k, n_classes, n_features = W.shape
        if X.shape[1] != n_features:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is "
                f"expecting {n_features} features as input."
            )
        X = self._transform(as_float64(X), xp)
        flat = X @ xp.ascontiguousarray(W.reshape(k * n_classes, n_features).T)
        stacked = flat.reshape(X.shape[0], k, n_classes).transpose(1, 0, 2)
        return stacked + b[:, None, :]


def _values(X):
    return X.data if is_sparse(X) else X
