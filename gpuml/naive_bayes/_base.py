"""What every naive Bayes classifier shares: labels, posteriors, batches.

A naive Bayes model is its joint log-likelihood ``log P(c) + log P(x | c)``
per sample and class (``_joint_log_likelihood``, computed in the compute
namespace ``xp``); predictions are its argmax and probabilities its
normalisation by a log-sum-exp written as scikit-learn's (so the two agree
to rounding). Labels are encoded on the host (a device cannot hold strings),
once per fit, into one integer per sample; the one-hot, weighted label
matrix ``Y`` that the counts ``X.T @ Y`` need is then made where ``X`` is.

A search's batch of candidates (see :mod:`gpuml.model_selection._batch`)
is a :class:`NaiveBayesBatch`: ``k`` models of one fold, stacked.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import LabelBinarizer
from sklearn.utils.multiclass import unique_labels
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    DEVICE,
    HOST,
    compute_namespace,
    input_family,
    is_sparse,
    namespace_of,
    take_rows,
    to_family,
    to_family_attribute,
    to_host,
    to_namespace,
    to_output,
)
from gpuml._validation import check_sample_weight
from gpuml.base import DeviceCacheMixin


def logsumexp(array, xp: ModuleType):
    """Row-wise log-sum-exp of a 2-D (or the last axis of a 3-D) array:
    scikit-learn's ``_logsumexp`` (scipy's algorithm), in ``xp``."""
    axis = array.ndim - 1
    array_max = xp.max(array, axis=axis, keepdims=True)
    index_max = array == array_max
    array = array.copy()
    array[index_max] = -xp.inf
    m = xp.sum(index_max.astype(array.dtype), axis=axis, keepdims=True)
    shift = xp.where(xp.isfinite(array_max), array_max, 0)
    s = xp.sum(xp.exp(array - shift), axis=axis, keepdims=True)
    s = xp.where(s == 0, s, s / m)
    out = xp.log1p(s) + xp.log(m) + array_max
    return xp.squeeze(out, axis=axis)


def check_non_negative(X, whom: str, xp: ModuleType) -> None:
    """scikit-learn's ``check_non_negative`` in ``xp`` (sparse: the stored
    values)."""
    values = X.data if is_sparse(X) else X
    if values.size and bool(xp.min(values) < 0):
        raise ValueError(f"Negative values in data passed to {whom}.")


def first_partial_fit_call(clf, classes) -> bool:
    """scikit-learn's ``_check_partial_fit_first_call``: its errors; sets
    ``classes_`` (host) on the first call and says whether it was."""
    fitted = getattr(clf, "classes_", None)
    if fitted is None and classes is None:
        raise ValueError("classes must be passed on the first call to partial_fit.")
    if classes is not None:
        if fitted is not None:
            if not np.array_equal(to_host(fitted), unique_labels(classes)):
                raise ValueError(
                    f"`classes={classes!r}` is not the same as on last call "
                    f"to partial_fit, was: {fitted!r}"
                )
        else:
            clf.classes_ = unique_labels(classes)
            return True
    return False


def encode_labels(y) -> tuple:
    """``(classes, indices)`` of host labels ``y`` as scikit-learn's
    ``LabelBinarizer`` reads them (its errors for targets that are not
    classes)."""
    classes = LabelBinarizer().fit(y).classes_
    return classes, np.searchsorted(classes, y)


def one_hot(indices, n_classes: int, weights, xp: ModuleType):
    """The (n_samples, n_classes) float64 label matrix: row ``i`` holds
    ``weights[i]`` (one without weights) in column ``indices[i]``, zeros
    where ``indices[i]`` is negative (labels outside the classes)."""
    indices = to_namespace(np.asarray(indices, dtype=np.int64), xp)
    Y = (indices[:, None] == xp.arange(n_classes)[None, :]).astype(xp.float64)
    if weights is not None:
        Y *= weights[:, None]
    return Y


def device_classes(classes, family: str):
    """``classes_`` in the training input's family (NumPy for labels a
    device cannot hold)."""
    if family == DEVICE and classes.dtype.kind in "biuf":
        return to_family(classes, family)
    return classes


def take_labels(classes, indices, family: str):
    """``classes[indices]`` in ``family`` (the host for labels a device
    cannot hold)."""
    if namespace_of(classes) is np:
        labels = np.asarray(classes)[to_host(indices)]
        if family == DEVICE and labels.dtype.kind in "biuf":
            return to_family(labels, family)
        return labels
    return to_family(classes[to_namespace(indices, namespace_of(classes))], family)


class _BaseNB(ClassifierMixin, DeviceCacheMixin, BaseEstimator):
    """Predictions and posteriors from ``_joint_log_likelihood(X, xp)``,
    which subclasses define on the ``X`` their ``_check_X`` validated."""

    def _store(self, family: str, **attributes) -> None:
        """Set fitted attributes in the training input's family."""
        for name, value in attributes.items():
            setattr(self, name, to_family_attribute(value, family))

    def _jll(self, X):
        check_is_fitted(self)
        xp = compute_namespace()
        X = self._check_X(X, xp)
        return self._joint_log_likelihood(X, xp), xp

    def predict_joint_log_proba(self, X):
        """Return joint log probability estimates for the test vector X.

        For each row x of X and class y, the joint log probability is
        ``log P(x, y) = log P(y) + log P(x|y)``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The input samples.

        Returns
        -------
        C : ndarray of shape (n_samples, n_classes)
            The joint log-probability of the samples for each class, in the
            order of :term:`classes_`; NumPy or CuPy like ``X``.
        """
        jll, _ = self._jll(X)
        return to_output(to_family(jll, input_family(X)), X)

    def predict(self, X):
        """Perform classification on an array of test vectors X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The input samples.

        Returns
        -------
        C : ndarray of shape (n_samples,)
            Predicted target values for X, NumPy or CuPy like ``X`` (NumPy
            for labels a device cannot hold).
        """
        jll, xp = self._jll(X)
        family = input_family(X)
        indices = xp.argmax(jll, axis=1)
        return to_output(take_labels(self.classes_, indices, family), X)

    def predict_log_proba(self, X):
        """Return log-probability estimates for the test vector X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The input samples.

        Returns
        -------
        C : ndarray of shape (n_samples, n_classes)
            The log-probability of the samples for each class, in the order
            of :term:`classes_`; NumPy or CuPy like ``X``.
        """
        jll, xp = self._jll(X)
        log_proba = jll - logsumexp(jll, xp)[:, None]
        return to_output(to_family(log_proba, input_family(X)), X)

    def predict_proba(self, X):
        """Return probability estimates for the test vector X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The input samples.

        Returns
        -------
        C : ndarray of shape (n_samples, n_classes)
            The probability of the samples for each class, in the order of
            :term:`classes_`; NumPy or CuPy like ``X``.
        """
        jll, xp = self._jll(X)
        proba = xp.exp(jll - logsumexp(jll, xp)[:, None])
        return to_output(to_family(proba, input_family(X)), X)

    def score(self, X, y, sample_weight=None):
        """Mean accuracy on the given test data and labels (gpuml's
        ``accuracy_score``: on the device for device predictions)."""
        from gpuml.metrics import accuracy_score

        y_pred = self.predict(X)
        if sample_weight is not None and input_family(y_pred) == HOST:
            sample_weight = to_host(sample_weight)
        return accuracy_score(y, y_pred, sample_weight=sample_weight)


class NaiveBayesBatch:
    """``k`` fitted naive Bayes models of one training fold (one per
    candidate of a search), their responses stacked on a leading axis:
    ``predict_proba`` and ``predict_log_proba`` give (k, n, n_classes),
    ``predict`` (k, n) labels.

    ``jll(X)`` computes the stacked joint log-likelihoods in the namespace
    of the fitted arrays.
    """

    def __init__(self, jll, size: int, classes, xp: ModuleType):
        self._jll_function = jll
        self._size = size
        self.classes_ = classes
        self._xp = xp

    def __len__(self) -> int:
        return self._size

    def predict_joint_log_proba(self, X):
        return self._jll_function(X)

    def predict_log_proba(self, X):
        jll = self._jll_function(X)
        return jll - logsumexp(jll, self._xp)[..., None]

    def predict_proba(self, X):
        return self._xp.exp(self.predict_log_proba(X))

    def predict(self, X):
        indices = self._jll_function(X).argmax(axis=2)
        family = DEVICE if self._xp is not np else HOST
        return take_labels(self.classes_, indices, family)


def fold_labels(y_host, train, weights, xp: ModuleType):
    """A training fold's classes (host), their device copy for
    :class:`NaiveBayesBatch` and its one-hot label matrix ``Y``."""
    y_fold = y_host if train is None else y_host[train]
    classes, indices = encode_labels(y_fold)
    Y = one_hot(indices, classes.shape[0], weights, xp)
    family = DEVICE if xp is not np else HOST
    return classes, device_classes(classes, family), Y


def fold_rows(X, train, xp: ModuleType):
    """The training rows of ``X`` (all of them when ``train`` is None)."""
    if train is None:
        return X
    return take_rows(X, xp.asarray(np.asarray(train, dtype=np.int64)), xp)


def fold_weights(sample_weight, train, n_samples: int, xp: ModuleType):
    """A fold's sample weights in ``xp`` (None without weights)."""
    if sample_weight is None:
        return None
    weights = check_sample_weight(sample_weight, n_samples, xp=xp, dtype=np.float64)
    if train is None:
        return weights
    return weights[xp.asarray(np.asarray(train, dtype=np.int64))]
