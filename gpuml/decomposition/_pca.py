"""Principal component analysis: :class:`PCA`.

``fit`` reads as the design asks: validate, resolve the solver (the
``"auto"`` policy is scikit-learn's: ``resolve_solver``), call one pure
solver function of the registry ``SOLVERS``, then assign the attributes
(the solvers and their rules are in ``_pca_solvers.py``). Each solver
returns the decomposition of the centred data, and its family decides how
``n_components`` is read:

- ``"full"`` and ``"covariance_eigh"`` decompose completely (every
  component), then keep the first ``n_components`` (an int, a variance
  fraction in ``(0, 1)``, or ``'mle'``); the components are nested, so the
  fit at ``k`` components is the first ``k`` rows of the fit at more.
- ``"randomized"`` and ``"arpack"`` compute ``n_components`` components
  only. ``"randomized"`` is scikit-learn's randomized range finder with its
  random draws (:mod:`gpuml.decomposition._kernels`); ``"arpack"`` is served
  by an exact method (a thin SVD of the centred data; for sparse input the
  eigendecomposition of their covariance, formed by sparse products): the
  result ARPACK converges to, with ARPACK's restrictions on
  ``n_components`` kept. ``tol`` (ARPACK's stopping tolerance) has nothing
  to stop and is not used.

The input is never overwritten: ``copy=False`` is accepted and changes
nothing (scikit-learn may then centre the caller's array in place).
"""

from __future__ import annotations

import copy
from math import log
from numbers import Integral, Real
from types import ModuleType

import numpy as np
import scipy.linalg
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, RealNotInt, StrOptions
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    namespace_of,
    to_family,
    to_family_attribute,
    to_namespace,
    to_output,
)
from gpuml._sklearn_compat import fit_context
from gpuml._validation import FLOAT_DTYPES, check_array, validate_data
from gpuml.base import BatchUnsupported, DeviceCacheMixin
from gpuml.decomposition._kernels import svd_flip_v
from gpuml.decomposition._pca_solvers import (
    COMPLETE,
    SOLVERS,
    SPARSE_SOLVERS,
    check_n_components,
    column_mean,
    n_kept,
    resolve_solver,
    to_numpy,
)


class PCA(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, DeviceCacheMixin, BaseEstimator
):
    """Principal component analysis (PCA), on the GPU when one is used.

    Linear dimensionality reduction by the singular value decomposition of
    the centred data. Same parameters, attributes and results as
    :class:`sklearn.decomposition.PCA` (components signed by scikit-learn's
    ``svd_flip`` convention, every row's largest entry positive); computed
    with cuSOLVER on the GPU (see :func:`gpuml.set_config`), and outputs
    come back in the family of the input (NumPy/SciPy in, NumPy out;
    CuPy/cupyx in, CuPy out).

    Parameters
    ----------
    n_components : int, float, 'mle' or None, default=None
        Number of components to keep: all (``min(n_samples, n_features)``,
        one less with ``svd_solver='arpack'``) when None; the fewest whose
        explained variance exceeds the fraction, for a float in (0, 1);
        Minka's MLE for ``'mle'``. Fractions and ``'mle'`` need the
        ``'full'`` or ``'covariance_eigh'`` solver.

    copy : bool, default=True
        Accepted for scikit-learn's API; gpuml never overwrites the input.

    whiten : bool, default=False
        Scale the projections to unit variance (by the square roots of the
        explained variances).

    svd_solver : {'auto', 'full', 'covariance_eigh', 'arpack', 'randomized'}, \
            default='auto'
        ``'auto'`` is scikit-learn's policy: ``'covariance_eigh'`` for at
        most 1,000 features and ten times as many samples, else ``'full'``
        up to 500 x 500 or for ``'mle'``, else ``'randomized'`` for fewer
        than 80 % of the components, else ``'full'``; sparse input:
        ``'arpack'``. ``'full'`` is an exact SVD of the centred data,
        ``'covariance_eigh'`` the eigendecomposition of their covariance,
        ``'randomized'`` Halko et al.'s randomized SVD (scikit-learn's
        algorithm and random draws), and ``'arpack'`` an exact truncated
        SVD (see Notes). Sparse input takes ``'arpack'`` and
        ``'covariance_eigh'``.

    tol : float, default=0.0
        ARPACK's tolerance in scikit-learn; not used (the ``'arpack'``
        solver is exact).

    iterated_power : int or 'auto', default='auto'
        Power iterations of the randomized solver (``'auto'``: 7 for fewer
        than 10 % of the components, else 4).

    n_oversamples : int, default=10
        Extra random vectors of the randomized solver.

    power_iteration_normalizer : {'auto', 'QR', 'LU', 'none'}, default='auto'
        Normalization of the randomized solver's power iterations.

    random_state : int, RandomState instance or None, default=None
        Seeds the randomized solver's draws (NumPy's ``RandomState``, as in
        scikit-learn: the same seed gives the same draws on either device).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        Principal axes, by decreasing explained variance.

    explained_variance_ : ndarray of shape (n_components,)
        Variance (ddof=1) along each component.

    explained_variance_ratio_ : ndarray of shape (n_components,)
        Fraction of the total variance along each component.

    singular_values_ : ndarray of shape (n_components,)
        Singular values of the centred data for each component.

    mean_ : ndarray of shape (n_features,)
        Per-feature mean of the training data.

    n_components_ : int
        Number of components kept.

    n_samples_ : int
        Number of training samples.

    noise_variance_ : float
        Noise variance of the probabilistic PCA model (the mean of the
        variances left out).

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`, when they are all strings.

    See Also
    --------
    sklearn.decomposition.PCA : The scikit-learn estimator.
    TruncatedSVD : Without centring, for sparse data.

    Notes
    -----
    ``svd_solver='arpack'`` is served by an exact method (ARPACK is a host
    Fortran library): a thin SVD of the centred data, or for sparse input
    the eigendecomposition of their covariance matrix (``n_features``
    squared, formed by sparse products without densifying the data). Its
    restrictions are kept (``n_components`` below ``min(n_samples,
    n_features)``), and its results are those ARPACK converges to.

    Fitted arrays live in the family of the training input and keep its
    dtype (float32 stays float32; integers become float64).

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.decomposition import PCA
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]])
    >>> pca = PCA(n_components=2).fit(X)
    >>> print(pca.explained_variance_ratio_.round(4))
    [0.9924 0.0076]
    >>> print(pca.singular_values_.round(4))
    [6.3006 0.5498]
    >>> print(pca.transform([[1, 1]]).round(4))
    [[1.3834 0.2936]]
    """

    _parameter_constraints: dict = {
        "n_components": [
            Interval(Integral, 0, None, closed="left"),
            Interval(RealNotInt, 0, 1, closed="neither"),
            StrOptions({"mle"}),
            None,
        ],
        "copy": ["boolean"],
        "whiten": ["boolean"],
        "svd_solver": [
            StrOptions({"auto", "full", "covariance_eigh", "arpack", "randomized"})
        ],
        "tol": [Interval(Real, 0, None, closed="left")],
        "iterated_power": [
            StrOptions({"auto"}),
            Interval(Integral, 0, None, closed="left"),
        ],
        "n_oversamples": [Interval(Integral, 1, None, closed="left")],
        "power_iteration_normalizer": [StrOptions({"auto", "QR", "LU", "none"})],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_components=None,
        *,
        copy=True,
        whiten=False,
        svd_solver="auto",
        tol=0.0,
        iterated_power="auto",
        n_oversamples=10,
        power_iteration_normalizer="auto",
        random_state=None,
    ):
        self.n_components = n_components
        self.copy = copy
        self.whiten = whiten
        self.svd_solver = svd_solver
        self.tol = tol
        self.iterated_power = iterated_power
        self.n_oversamples = n_oversamples
        self.power_iteration_normalizer = power_iteration_normalizer
        self.random_state = random_state

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit the model with X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.

        y : None
            Ignored.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        self._fit(X)
        return self

    @fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit the model with X and project X on the components.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.

        y : None
            Ignored.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            Projected data, in the family of ``X``.
        """
        U, S, X_valid, xp, family = self._fit(X)
        k = self.n_components_
        if U is None:  # the covariance solvers compute no U
            out = self._transform(X_valid, xp)
        elif self.whiten:
            out = U[:, :k] * np.sqrt(X_valid.shape[0] - 1)
        else:
            out = U[:, :k] * S[:k]
        return to_output(to_family(out, family), X)

    def _fit(self, X):
        """Validate, decompose and assign; ``(U, S, X, xp, family)`` for
        :meth:`fit_transform`."""
        xp = compute_namespace()
        family = input_family(X)
        if is_sparse(X) and self.svd_solver not in SPARSE_SOLVERS:
            raise TypeError(
                'PCA only support sparse inputs with the "arpack" and'
                f' "covariance_eigh" solvers, while "{self.svd_solver}" was passed.'
                " See TruncatedSVD for a possible alternative."
            )
        X = validate_data(
            self, X, xp=xp, accept_sparse=("csr", "csc"), dtype=FLOAT_DTYPES
        )
        self._reset_device_cache()
        sparse = is_sparse(X)
        n_samples, n_features = X.shape
        n_components = self.n_components
        if n_components is None:
            arpack = self.svd_solver == "arpack" or (
                sparse and self.svd_solver == "auto"
            )
            n_components = min(X.shape) - 1 if arpack else min(X.shape)
        solver = resolve_solver(self.svd_solver, X.shape, n_components, sparse)
        self._fit_svd_solver = solver
        check_n_components(n_components, solver, X.shape)

        mean = column_mean(X, xp)
        params = {
            "n_oversamples": self.n_oversamples,
            "iterated_power": self.iterated_power,
            "power_iteration_normalizer": self.power_iteration_normalizer,
            "random_state": check_random_state(self.random_state),
        }
        result = SOLVERS[solver](X, mean, n_components, params, xp)
        U, Vt = svd_flip_v(result.U, result.Vt, xp)
        variance = result.explained_variance
        smallest = min(n_samples, n_features)
        if solver in COMPLETE:
            ratio = variance / xp.sum(variance)
            k = n_kept(n_components, variance, ratio, n_samples)
            noise = xp.mean(variance[k:]) if k < smallest else 0.0
        else:
            ratio = variance / result.total_var
            k = int(n_components)
            noise = 0.0
            if k < smallest:
                noise = (result.total_var - xp.sum(variance)) / (smallest - k)

        # what a truncation to fewer components needs (``_truncated``)
        self._spectrum = to_family(variance, family)
        self._total_variance = result.total_var
        if result.total_var is not None:
            self._total_variance = to_family_attribute(result.total_var, family)
        self.n_samples_ = n_samples
        self.n_components_ = k
        self.mean_ = to_family(mean, family)
        self.components_ = to_family(xp.ascontiguousarray(Vt[:k]), family)
        self.explained_variance_ = to_family(variance[:k].copy(), family)
        self.explained_variance_ratio_ = to_family(ratio[:k].copy(), family)
        self.singular_values_ = to_family(result.S[:k].copy(), family)
        if isinstance(noise, float):
            noise = xp.asarray(noise, dtype=X.dtype)
        self.noise_variance_ = to_family_attribute(noise.astype(X.dtype), family)
        return U, result.S, X, xp, family

    def transform(self, X):
        """Project X on the principal components.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            Projected data, in the family of ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = validate_data(
            self,
            X,
            xp=xp,
            reset=False,
            accept_sparse=("csr", "csc"),
            dtype=FLOAT_DTYPES,
        )
        return to_output(to_family(self._transform(X, xp), family), X_in)

    def _transform(self, X, xp: ModuleType):
        components = self._fitted("components_", xp)
        mean = self._fitted("mean_", xp)
        out = X @ components.T
        out = out.toarray() if is_sparse(out) else xp.asarray(out)
        # centred after the projection: X (dense or sparse) is not copied
        out = out - mean[None, :] @ components.T
        if self.whiten:
            # variances near zero (rank-deficient data) are clipped at eps
            scale = xp.sqrt(self._fitted("explained_variance_", xp))
            floor = np.finfo(scale.dtype).eps
            out = out / xp.where(scale < floor, floor, scale).astype(scale.dtype)
        return out

    def inverse_transform(self, X):
        """Map projected data back to the original space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)
            Projected data.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            Data in the original space, in the family of ``X``; whitening
            is undone.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = check_array(X, xp=xp, dtype=FLOAT_DTYPES, input_name="X")
        components = self._fitted("components_", xp)
        if self.whiten:
            variance = self._fitted("explained_variance_", xp)
            components = xp.sqrt(variance[:, None]) * components
        out = X @ components + self._fitted("mean_", xp)
        return to_output(to_family(out, family), X_in)

    def get_covariance(self):
        """Data covariance of the generative model.

        ``components_.T * S**2 * components_ + sigma2 * eye(n_features)``,
        with ``S**2`` the explained variances and ``sigma2`` the noise
        variance.

        Returns
        -------
        cov : ndarray of shape (n_features, n_features)
            Estimated covariance, in the family of the fitted attributes.
        """
        check_is_fitted(self)
        xp = namespace_of(self.components_)
        components, exp_var, noise = self._generative(xp)
        diff = xp.where(exp_var > noise, exp_var - noise, xp.zeros_like(exp_var))
        cov = (components.T * diff) @ components
        return cov + noise * xp.eye(cov.shape[0], dtype=cov.dtype)

    def get_precision(self):
        """Data precision (inverse covariance) of the generative model, by
        the matrix inversion lemma.

        Returns
        -------
        precision : ndarray of shape (n_features, n_features)
            Estimated precision, in the family of the fitted attributes.
        """
        check_is_fitted(self)
        xp = namespace_of(self.components_)
        inv = scipy.linalg.inv if xp is np else xp.linalg.inv
        n_features = self.components_.shape[1]
        components, exp_var, noise = self._generative(xp)
        if self.n_components_ == 0:
            return xp.eye(n_features) / noise
        if float(noise) == 0.0:
            return inv(self.get_covariance())
        diff = xp.where(exp_var > noise, exp_var - noise, xp.zeros_like(exp_var))
        inner = components @ components.T / noise
        inner = inner + xp.diag(1.0 / diff).astype(inner.dtype)
        precision = components.T @ inv(inner) @ components
        precision /= -(noise**2)
        return precision + xp.eye(n_features, dtype=precision.dtype) / noise

    def _generative(self, xp: ModuleType):
        """Components (scaled back when whitened), variances and noise."""
        components = self.components_
        exp_var = self.explained_variance_
        if self.whiten:
            components = components * xp.sqrt(exp_var[:, None])
        return components, exp_var, xp.asarray(self.noise_variance_)

    def score_samples(self, X):
        """Log-likelihood of each sample under the probabilistic PCA model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        Returns
        -------
        ll : ndarray of shape (n_samples,)
            Log-likelihood of each sample, in the family of ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = validate_data(self, X, xp=xp, reset=False, dtype=FLOAT_DTYPES)
        residual = X - self._fitted("mean_", xp)
        precision = to_namespace(self.get_precision(), xp)
        n_features = X.shape[1]
        log_like = -0.5 * xp.sum(residual * (residual @ precision), axis=1)
        sign, logdet = xp.linalg.slogdet(precision)
        logdet = float(logdet) if float(sign) > 0 else -np.inf
        log_like -= 0.5 * (n_features * log(2.0 * np.pi) - logdet)
        return to_output(to_family(log_like, family), X_in)

    def score(self, X, y=None):
        """Average log-likelihood of the samples under the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.

        y : None
            Ignored.

        Returns
        -------
        ll : float
            Average log-likelihood of the samples.
        """
        return float(to_numpy(self.score_samples(X)).mean())

    @property
    def _n_features_out(self):
        """Number of transformed output features."""
        return self.components_.shape[0]

    # The truncation protocol of gpuml's searches (``_truncation.py``).

    def _truncation_params(self) -> frozenset:
        """``{"n_components"}`` where a fit with fewer components is the
        first rows of this fit's: an int ``n_components`` with an exact
        solver (``'auto'`` included: :meth:`_truncated` declines the
        counts for which it would choose ``'randomized'``)."""
        exact = self.svd_solver in ("auto", "full", "covariance_eigh", "arpack")
        integral = isinstance(self.n_components, Integral) and not isinstance(
            self.n_components, bool
        )
        return frozenset({"n_components"}) if exact and integral else frozenset()

    def _truncated(self, n_components):
        """This fitted PCA as a fit with ``n_components`` (no more than it
        has) would leave it, without decomposing again.

        Raises scikit-learn's error where that fit would raise, and
        :class:`~gpuml.base.BatchUnsupported` where it would choose another
        solver (``'auto'`` choosing ``'randomized'``).
        """
        check_is_fitted(self)
        shape = (self.n_samples_, self.n_features_in_)
        sparse = self.svd_solver == "auto" and self._fit_svd_solver == "arpack"
        solver = resolve_solver(self.svd_solver, shape, n_components, sparse)
        if solver != self._fit_svd_solver or solver == "randomized":
            raise BatchUnsupported(f"n_components={n_components} takes {solver!r}")
        check_n_components(n_components, solver, shape)
        if n_components > self.n_components_:
            raise BatchUnsupported("more components than this fit has")
        xp = namespace_of(self.components_)
        k = int(n_components)
        smallest = min(shape)
        variance = self._spectrum
        dtype = self.components_.dtype
        if solver in COMPLETE:
            noise = xp.mean(variance[k:]) if k < smallest else 0.0
        else:
            noise = 0.0
            if k < smallest:
                noise = (self._total_variance - xp.sum(variance[:k])) / (smallest - k)
        truncated = copy.copy(self)
        truncated._reset_device_cache()
        truncated.n_components = n_components
        truncated.n_components_ = k
        for name in (
            "components_",
            "explained_variance_",
            "explained_variance_ratio_",
            "singular_values_",
        ):
            setattr(truncated, name, getattr(self, name)[:k].copy())
        truncated._spectrum = (
            variance[:k].copy() if solver not in COMPLETE else variance
        )
        truncated.noise_variance_ = (
            xp.asarray(noise, dtype=dtype)[()]
            if xp is np
            else xp.asarray(noise, dtype=dtype)
        )
        return truncated

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        tags.input_tags.sparse = self.svd_solver in SPARSE_SOLVERS
        return tags
