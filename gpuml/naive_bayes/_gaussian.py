"""GaussianNB: per-class means and variances of each feature.

Every class's statistics come from two products with the one-hot, weighted
label matrix ``Y`` (n_samples, n_classes): the class sums ``Y.T @ X``, then,
with the class means subtracted row by row, ``Y.T @ (X - theta[y]) ** 2``
(two passes, as scikit-learn's ``np.var``: no cancellation of
``E[x^2] - E[x]^2``). ``partial_fit`` merges them with the statistics so
far by Chan, Golub and LeVeque's update, for all classes at once. The
statistics are in ``X``'s floating dtype (float32 stays float32), as
scikit-learn's.

A search batches ``var_smoothing``: it only adds ``var_smoothing *
max(var(X))`` to the variances, so every candidate of a fold shares one
pass of statistics.
"""

from __future__ import annotations

from functools import partial
from numbers import Real
from types import ModuleType

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_consistent_length, column_or_1d

from gpuml._array import compute_namespace, input_family, namespace_of, to_host
from gpuml._sklearn_compat import Interval, validate_estimator_params
from gpuml._validation import (
    NUMERIC_FLOAT,
    check_array,
    check_sample_weight,
    check_y,
    validate_data,
)
from gpuml.naive_bayes._base import (
    NaiveBayesBatch,
    _BaseNB,
    device_classes,
    first_partial_fit_call,
    fold_labels,
    fold_rows,
    fold_weights,
    one_hot,
)


def class_statistics(X, Y, indices, xp: ModuleType):
    """``(weight, mean, variance)`` of each class: ``Y`` is the (weighted)
    one-hot label matrix in ``X``'s dtype, ``indices`` (device) each
    sample's class; classes without weight get zeros."""
    weight = Y.sum(axis=0)
    safe = xp.where(weight == 0, 1, weight)[:, None]
    mean = (Y.T @ X) / safe
    variance = (Y.T @ (X - mean[indices]) ** 2) / safe
    return weight, mean, variance


def joint_log_likelihood(X, theta, var, class_prior, xp: ModuleType):
    """scikit-learn's per-class Gaussian log-likelihoods, class by class."""
    columns = []
    for i in range(theta.shape[0]):
        jointi = xp.log(class_prior[i])
        n_ij = -0.5 * xp.sum(xp.log(2.0 * np.pi * var[i, :]))
        n_ij = n_ij - 0.5 * xp.sum(((X - theta[i, :]) ** 2) / (var[i, :]), axis=1)
        columns.append(jointi + n_ij)
    return xp.stack(columns).T


class GaussianNB(_BaseNB):
    """Gaussian Naive Bayes, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.naive_bayes.GaussianNB`,
    with online updates by :meth:`partial_fit`. A search batches
    ``var_smoothing``: a fold's class statistics are computed once.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes; if given, not adjusted to the
        data.
    var_smoothing : float, default=1e-9
        Portion of the largest variance of all features that is added to
        variances for calculation stability.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Training samples (weighted) observed in each class.
    class_prior_ : ndarray of shape (n_classes,)
        Probability of each class.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    epsilon_ : float
        Absolute additive value to variances.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.
    var_ : ndarray of shape (n_classes, n_features)
        Variance of each feature per class.
    theta_ : ndarray of shape (n_classes, n_features)
        Mean of each feature per class.

    See Also
    --------
    MultinomialNB : Naive Bayes classifier for multinomial models.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.naive_bayes import GaussianNB
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]])
    >>> y = np.array([1, 1, 1, 2, 2, 2])
    >>> clf = GaussianNB().fit(X, y)
    >>> print(clf.predict([[-0.8, -1]]))
    [1]
    >>> clf_pf = GaussianNB().partial_fit(X, y, np.unique(y))
    >>> print(clf_pf.predict([[-0.8, -1]]))
    [1]
    """

    _parameter_constraints: dict = {
        "priors": ["array-like", None],
        "var_smoothing": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, *, priors=None, var_smoothing=1e-9):
        self.priors = priors
        self.var_smoothing = var_smoothing

    def fit(self, X, y, sample_weight=None):
        """Fit Gaussian Naive Bayes according to X, y.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
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
        y = column_or_1d(to_host(check_y(y, xp=np, estimator=self)), warn=False)
        return self._partial_fit(
            X, y, np.unique(y), refit=True, sample_weight=sample_weight
        )

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Incremental fit on a batch of samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
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
        if not hasattr(self, "classes_"):
            self._reset_device_cache()
        return self._partial_fit(X, y, classes, sample_weight=sample_weight)

    def _check_X(self, X, xp: ModuleType):
        return validate_data(self, X, xp=xp, reset=False, dtype=NUMERIC_FLOAT)

    @staticmethod
    def _update_mean_variance(n_past, mu, var, X, sample_weight=None):
        """scikit-learn's online update of Gaussian means and variances
        (Chan, Golub and LeVeque), for one set of Gaussians, in ``X``'s
        namespace."""
        xp = namespace_of(X)
        if X.shape[0] == 0:
            return mu, var
        if sample_weight is not None:
            n_new = float(xp.sum(sample_weight))
            if np.isclose(n_new, 0.0):
                return mu, var
            new_mu = xp.average(X, axis=0, weights=sample_weight)
            new_var = xp.average((X - new_mu) ** 2, axis=0, weights=sample_weight)
        else:
            n_new = X.shape[0]
            new_var = xp.var(X, axis=0)
            new_mu = xp.mean(X, axis=0)
        if n_past == 0:
            return new_mu, new_var
        n_total = float(n_past + n_new)
        total_mu = (n_new * new_mu + n_past * mu) / n_total
        old_ssd = n_past * var
        new_ssd = n_new * new_var
        total_ssd = old_ssd + new_ssd + (n_new * n_past / n_total) * (mu - new_mu) ** 2
        return total_mu, total_ssd / n_total

    def _partial_fit(self, X, y, classes=None, refit=False, sample_weight=None):
        if refit:
            self.classes_ = None
        first_call = first_partial_fit_call(self, classes)
        xp = compute_namespace()
        family = input_family(X)
        if y is None:
            check_y(None, xp=np, estimator=self)
        X = validate_data(self, X, xp=xp, reset=first_call, dtype=NUMERIC_FLOAT)
        y = column_or_1d(to_host(check_y(y, xp=np, estimator=self)))
        check_consistent_length(X, y)
        dtype = X.dtype
        weights = None
        if sample_weight is not None:
            weights = check_sample_weight(sample_weight, X.shape[0], xp=xp, dtype=dtype)
        epsilon = self.var_smoothing * xp.max(xp.var(X, axis=0))
        classes = to_host(self.classes_)
        n_classes = classes.shape[0]
        if first_call:
            theta = xp.zeros((n_classes, X.shape[1]), dtype=dtype)
            var = xp.zeros((n_classes, X.shape[1]), dtype=dtype)
            class_count = xp.zeros(n_classes, dtype=dtype)
            if self.priors is not None:
                priors = xp.asarray(np.asarray(self.priors), dtype=dtype)
                if priors.shape[0] != n_classes:
                    raise ValueError("Number of priors must match number of classes.")
                if not np.isclose(float(xp.sum(priors)), 1.0):
                    raise ValueError("The sum of the priors should be 1.")
                if bool(xp.any(priors < 0)):
                    raise ValueError("Priors must be non-negative.")
                class_prior = priors
        else:
            theta = self._fitted("theta_", xp)
            var = self._fitted("var_", xp) - epsilon
            class_count = self._fitted("class_count_", xp)
        unique_y = np.unique(y)
        unique_y_in_classes = np.isin(unique_y, classes)
        if not np.all(unique_y_in_classes):
            raise ValueError(
                f"The target label(s) {unique_y[~unique_y_in_classes]} in y do "
                f"not exist in the initial classes {classes}"
            )
        indices = np.searchsorted(classes, y)
        Y = one_hot(indices, n_classes, None, xp).astype(dtype)
        if weights is not None:
            Y *= weights[:, None]
        theta, var, class_count = _merge(
            theta, var, class_count, X, Y, indices, weights is not None, xp
        )
        var = var + epsilon
        if self.priors is None:
            class_prior = class_count / xp.sum(class_count)
        elif not first_call:
            class_prior = self._fitted("class_prior_", xp)
        self.classes_ = device_classes(classes, family)
        self._store(
            family,
            theta_=theta,
            var_=var,
            class_count_=class_count,
            class_prior_=class_prior,
            epsilon_=epsilon,
        )
        return self

    def _joint_log_likelihood(self, X, xp: ModuleType):
        return joint_log_likelihood(
            X,
            self._fitted("theta_", xp),
            self._fitted("var_", xp),
            self._fitted("class_prior_", xp),
            xp,
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = False
        return tags

    # -- the batched-candidates protocol of gpuml.model_selection ----------

    def _batch_params(self) -> frozenset:
        """``{"var_smoothing"}``: one pass of class statistics per fold."""
        return frozenset({"var_smoothing"})

    def _fit_batch(self, X, y, param_sets, *, folds=None, sample_weight=None):
        """One :class:`~gpuml.naive_bayes._base.NaiveBayesBatch` per training
        fold: the fold's class statistics once, each ``var_smoothing``'s
        variances from them."""
        validate_estimator_params(self)
        candidates = [clone(self).set_params(**params) for params in param_sets]
        for candidate in candidates:
            validate_estimator_params(candidate)
        xp = compute_namespace()
        X = check_array(X, xp=xp, dtype=NUMERIC_FLOAT)
        y_host = column_or_1d(to_host(y))
        for train in [None] if folds is None else folds:
            X_fold = fold_rows(X, train, xp)
            weights = fold_weights(sample_weight, train, X.shape[0], xp)
            if weights is not None:
                weights = weights.astype(X.dtype)
            host_classes, classes, Y = fold_labels(y_host, train, weights, xp)
            Y = Y.astype(X.dtype)
            n_classes = host_classes.shape[0]
            y_fold = y_host if train is None else y_host[train]
            indices = np.searchsorted(host_classes, y_fold)
            zeros = xp.zeros((n_classes, X.shape[1]), dtype=X.dtype)
            theta, var, class_count = _merge(
                zeros,
                zeros,
                xp.zeros(n_classes, dtype=X.dtype),
                X_fold,
                Y,
                indices,
                weights is not None,
                xp,
            )
            if self.priors is not None:
                class_prior = xp.asarray(np.asarray(self.priors), dtype=X.dtype)
                if class_prior.shape[0] != n_classes:
                    raise ValueError("Number of priors must match number of classes.")
            else:
                class_prior = class_count / xp.sum(class_count)
            spread = xp.max(xp.var(X_fold, axis=0))
            variances = [var + c.var_smoothing * spread for c in candidates]
            jll = partial(
                _stacked_jll, theta=theta, variances=variances, prior=class_prior, xp=xp
            )
            yield NaiveBayesBatch(jll, len(candidates), classes, xp)


def _merge(theta, var, class_count, X, Y, indices, weighted: bool, xp: ModuleType):
    """Statistics so far merged with those of ``X`` (labels ``Y``) for
    every class with rows in ``X`` (``rows``: host counts per class), as
    scikit-learn's ``_update_mean_variance`` class by class."""
    rows = np.bincount(indices, minlength=theta.shape[0])
    weight, new_mu, new_var = class_statistics(X, Y, xp.asarray(indices), xp)
    n_new = weight if weighted else xp.asarray(rows, dtype=X.dtype)
    present = rows > 0
    if weighted:  # scikit-learn skips classes of (nearly) zero weight
        present &= ~np.isclose(to_host(weight), 0.0)
    present = xp.asarray(present)[:, None]
    n_past = class_count[:, None]
    n_now = n_new[:, None]
    n_total = xp.where(n_past + n_now == 0, 1, n_past + n_now)
    total_mu = (n_now * new_mu + n_past * theta) / n_total
    total_ssd = (
        n_past * var
        + n_now * new_var
        + (n_now * n_past / n_total) * (theta - new_mu) ** 2
    )
    first = n_past == 0
    merged_mu = xp.where(first, new_mu, total_mu)
    merged_var = xp.where(first, new_var, total_ssd / n_total)
    theta = xp.where(present, merged_mu, theta)
    var = xp.where(present, merged_var, var)
    return theta, var, class_count + n_new


def _stacked_jll(X, *, theta, variances, prior, xp: ModuleType):
    """(k, n_samples, n_classes): one Gaussian model per variance array."""
    X = check_array(X, xp=xp, dtype=NUMERIC_FLOAT)
    if X.shape[1] != theta.shape[1]:
        raise ValueError(
            f"X has {X.shape[1]} features, but GaussianNB is expecting "
            f"{theta.shape[1]} features as input."
        )
    return xp.stack(
        [joint_log_likelihood(X, theta, var, prior, xp) for var in variances]
    )
