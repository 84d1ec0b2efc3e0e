"""MultinomialNB, ComplementNB and BernoulliNB: models of feature counts.

Each is a few lines over :class:`~gpuml.naive_bayes._discrete._BaseDiscreteNB`:
how its counts are smoothed into log-probabilities, and the affine terms
``W``, ``b`` of its joint log-likelihood ``X @ W.T + b``, computed with
scikit-learn's formulas in the same order (so that the two agree to
rounding).
"""

from __future__ import annotations

from numbers import Real
from types import ModuleType

from gpuml._array import is_sparse
from gpuml._sklearn_compat import Interval
from gpuml.naive_bayes._discrete import _BaseDiscreteNB, as_smoothing


class MultinomialNB(_BaseDiscreteNB):
    """Naive Bayes classifier for multinomial models, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.naive_bayes.MultinomialNB`:
    the same parameters, attributes and results; the counts are one product
    ``X.T @ Y`` (sparse-dense for CSR input) in the compute namespace.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
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

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Samples (weighted) seen per class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log probability of each class (smoothed).
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted counts per (class, feature).
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Empirical log probability of features given a class, ``P(x_i|y)``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    ComplementNB : Complement naive Bayes classifier.
    BernoulliNB : Naive Bayes classifier for multivariate Bernoulli models.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.naive_bayes import MultinomialNB
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 5, 6])
    >>> clf = MultinomialNB().fit(X, y)
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    _non_negative = True

    def __init__(
        self, *, alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _feature_log_prob(self, counts: dict, alpha, xp: ModuleType):
        smoothed_fc = counts["feature_count_"] + as_smoothing(alpha, xp)
        smoothed_cc = smoothed_fc.sum(axis=1)
        return xp.log(smoothed_fc) - xp.log(smoothed_cc.reshape(-1, 1))

    def _linear_terms(self, feature_log_prob, class_log_prior, xp: ModuleType):
        return feature_log_prob, class_log_prior

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags


class ComplementNB(_BaseDiscreteNB):
    """The Complement Naive Bayes classifier (Rennie et al., 2003), on the
    GPU or the CPU.

    A drop-in replacement for :class:`sklearn.naive_bayes.ComplementNB`. A
    search batches ``alpha``, ``norm``, ``fit_prior`` and ``force_alpha``:
    all of a fold's candidates come from one count pass.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (set alpha=0 and
        force_alpha=True, for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it is set to 1e-10 (with a
        warning); if True, alpha is kept unchanged.
    fit_prior : bool, default=True
        Only used in the edge case of a single class in the training set.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes. Not used.
    norm : bool, default=False
        Whether a second normalization of the weights is performed.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Samples (weighted) seen per class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log probability of each class; only used with a single class.
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    feature_all_ : ndarray of shape (n_features,)
        Weighted counts per feature.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted counts per (class, feature).
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Empirical weights for class complements.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    MultinomialNB : Naive Bayes classifier for multinomial models.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.naive_bayes import ComplementNB
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 5, 6])
    >>> clf = ComplementNB().fit(X, y)
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    _parameter_constraints: dict = {
        **_BaseDiscreteNB._parameter_constraints,
        "norm": ["boolean"],
    }
    _non_negative = True
    _batch_names = (*_BaseDiscreteNB._batch_names, "norm")

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        norm=False,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.norm = norm

    def _totals(self, counts: dict, xp: ModuleType) -> dict:
        return {**counts, "feature_all_": counts["feature_count_"].sum(axis=0)}

    def _feature_log_prob(self, counts: dict, alpha, xp: ModuleType):
        comp_count = (
            counts["feature_all_"] + as_smoothing(alpha, xp) - counts["feature_count_"]
        )
        logged = xp.log(comp_count / comp_count.sum(axis=1, keepdims=True))
        # the largest score wins in predict: the complement's smallest weight
        if self.norm:
            return logged / logged.sum(axis=1, keepdims=True)
        return -logged

    def _linear_terms(self, feature_log_prob, class_log_prior, xp: ModuleType):
        if feature_log_prob.shape[0] == 1:
            return feature_log_prob, class_log_prior
        return feature_log_prob, xp.zeros(feature_log_prob.shape[0])

    def _joint_log_likelihood(self, X, xp: ModuleType):
        flp = self._fitted("feature_log_prob_", xp)
        jll = X @ xp.ascontiguousarray(flp.T)
        if len(self.classes_) == 1:
            jll = jll + self._fitted("class_log_prior_", xp)
        return jll

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        return tags


def binarize(X, threshold: float, xp: ModuleType):
    """scikit-learn's ``binarize`` in ``xp``: 1 where ``X > threshold``, else
    0, in ``X``'s dtype (sparse: the stored values, zeros then dropped)."""
    if is_sparse(X):
        X = X.copy()
        X.data = (X.data > threshold).astype(X.dtype)
        X.eliminate_zeros()
        return X
    return (X > threshold).astype(X.dtype)


class BernoulliNB(_BaseDiscreteNB):
    """Naive Bayes classifier for multivariate Bernoulli models, on the GPU
    or the CPU.

    A drop-in replacement for :class:`sklearn.naive_bayes.BernoulliNB`:
    features are binarised at ``binarize`` and counted by one product
    ``X.T @ Y``.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive (Laplace/Lidstone) smoothing parameter (set alpha=0 and
        force_alpha=True, for no smoothing).
    force_alpha : bool, default=True
        If False and alpha is less than 1e-10, it is set to 1e-10 (with a
        warning); if True, alpha is kept unchanged.
    binarize : float or None, default=0.0
        Threshold for binarizing sample features; None: the input already
        consists of binary vectors.
    fit_prior : bool, default=True
        Whether to learn class prior probabilities; if False, a uniform
        prior is used.
    class_prior : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes; if given, not adjusted to the
        data.

    Attributes
    ----------
    class_count_ : ndarray of shape (n_classes,)
        Samples (weighted) seen per class.
    class_log_prior_ : ndarray of shape (n_classes,)
        Log probability of each class (smoothed).
    classes_ : ndarray of shape (n_classes,)
        Class labels known to the classifier.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted counts per (class, feature).
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        Empirical log probability of features given a class, ``P(x_i|y)``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    MultinomialNB : Naive Bayes classifier for multinomial models.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.naive_bayes import BernoulliNB
    >>> rng = np.random.RandomState(1)
    >>> X = rng.randint(5, size=(6, 100))
    >>> y = np.array([1, 2, 3, 4, 4, 5])
    >>> clf = BernoulliNB().fit(X, y)
    >>> print(clf.predict(X[2:3]))
    [3]
    """

    _parameter_constraints: dict = {
        **_BaseDiscreteNB._parameter_constraints,
        "binarize": [None, Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        binarize=0.0,
        fit_prior=True,
        class_prior=None,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def _transform(self, X, xp: ModuleType):
        if self.binarize is None:
            return X
        return binarize(X, self.binarize, xp)

    def _feature_log_prob(self, counts: dict, alpha, xp: ModuleType):
        alpha = as_smoothing(alpha, xp)
        smoothed_fc = counts["feature_count_"] + alpha
        smoothed_cc = counts["class_count_"] + alpha * 2
        return xp.log(smoothed_fc) - xp.log(smoothed_cc.reshape(-1, 1))

    def _linear_terms(self, feature_log_prob, class_log_prior, xp: ModuleType):
        # neg_prob . (1 - X).T as sum(neg_prob) - X . neg_prob
        neg_prob = xp.log(1 - xp.exp(feature_log_prob))
        return feature_log_prob - neg_prob, class_log_prior + neg_prob.sum(axis=1)
