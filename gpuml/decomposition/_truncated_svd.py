"""Truncated SVD without centring (latent semantic analysis): :class:`TruncatedSVD`.

Sparse CSR/CSC input (the text vectorizers' output) is never densified:

- ``algorithm="randomized"`` (the default) is scikit-learn's randomized
  range finder, whose only contact with the data is sparse-times-dense
  products, with scikit-learn's random draws (NumPy's ``RandomState`` on the
  host, copied to the device: the same ``random_state`` gives the same
  result as scikit-learn's to rounding).
- ``algorithm="arpack"`` is served by an exact method: a thin SVD of dense
  data; for sparse data the float64 eigendecomposition of the Gram matrix
  of the smaller side (``min(n_samples, n_features)`` squared, formed by a
  sparse product). ARPACK's restriction ``n_components < min(X.shape)`` is
  kept; ``tol`` has nothing to stop and is not used.
"""

from __future__ import annotations

import copy
from numbers import Integral, Real
from types import ModuleType

from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_output,
)
from gpuml._sklearn_compat import fit_context
from gpuml._validation import FLOAT_DTYPES, check_array, validate_data
from gpuml.base import BatchUnsupported, DeviceCacheMixin
from gpuml.decomposition import _kernels
from gpuml.preprocessing._data import sparse_mean_var


def _project(X, components, xp: ModuleType):
    """``X @ components.T`` as a dense array, ``X`` dense or sparse."""
    out = X @ components.T
    return out.toarray() if is_sparse(out) else xp.asarray(out)


def _fit_arpack(X, estimator, random_state, xp: ModuleType):
    smallest = min(X.shape)
    if not 0 < estimator.n_components < smallest:
        # scipy.sparse.linalg.svds's condition and message
        raise ValueError("`k` must be an integer satisfying `0 < k < min(A.shape)`.")
    # ARPACK's starting vector, drawn as scikit-learn draws it (a shared
    # RandomState continues as after scikit-learn's fit)
    random_state.uniform(-1, 1, smallest)
    if is_sparse(X):
        fit = _kernels.sparse_gram_svd(X, estimator.n_components, xp)
    else:
        fit = _kernels.exact_svd(X, estimator.n_components, xp)
    _kernels.check_arpack_start(fit[1], X.dtype)
    return fit


def _fit_randomized(X, estimator, random_state, xp: ModuleType):
    if estimator.n_components > X.shape[1]:
        raise ValueError(
            f"n_components({estimator.n_components}) must be <="
            f" n_features({X.shape[1]})."
        )
    return _kernels.randomized_svd(
        X,
        estimator.n_components,
        n_oversamples=estimator.n_oversamples,
        n_iter=estimator.n_iter,
        normalizer=estimator.power_iteration_normalizer,
        random_state=random_state,
        xp=xp,
    )


# Algorithms: pure functions ``(X, estimator, random_state, xp) -> (U, S, Vt)``
# (``U`` may be None: the projection is then computed from ``Vt``).
_ALGORITHMS = {"arpack": _fit_arpack, "randomized": _fit_randomized}


class TruncatedSVD(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, DeviceCacheMixin, BaseEstimator
):
    """Dimensionality reduction by truncated SVD (LSA), on the GPU when one
    is used.

    Unlike :class:`PCA`, the data are not centred, so sparse matrices (from
    the text vectorizers) are decomposed without densifying. Same
    parameters, attributes and results as
    :class:`sklearn.decomposition.TruncatedSVD`; outputs come back in the
    family of the input (NumPy/SciPy in, NumPy out; CuPy/cupyx in, CuPy
    out).

    Parameters
    ----------
    n_components : int, default=2
        Dimension of the output; below the number of features.

    algorithm : {'arpack', 'randomized'}, default='randomized'
        ``'randomized'``: Halko et al.'s randomized SVD (scikit-learn's
        algorithm and random draws). ``'arpack'``: an exact truncated SVD
        (see Notes).

    n_iter : int, default=5
        Power iterations of the randomized algorithm.

    n_oversamples : int, default=10
        Extra random vectors of the randomized algorithm.

    power_iteration_normalizer : {'auto', 'QR', 'LU', 'none'}, default='auto'
        Normalization of the randomized algorithm's power iterations.

    random_state : int, RandomState instance or None, default=None
        Seeds the randomized algorithm's draws (NumPy's ``RandomState``, as
        in scikit-learn).

    tol : float, default=0.0
        ARPACK's tolerance in scikit-learn; not used (exact method).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The right singular vectors of the input data.

    explained_variance_ : ndarray of shape (n_components,)
        Variance of the training samples' projection on each component.

    explained_variance_ratio_ : ndarray of shape (n_components,)
        Fraction of the total variance explained by each component.

    singular_values_ : ndarray of shape (n_components,)
        The singular values of the components.

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`, when they are all strings.

    See Also
    --------
    sklearn.decomposition.TruncatedSVD : The scikit-learn estimator.
    PCA : Principal component analysis (centred).

    Notes
    -----
    ``algorithm='arpack'`` is served by an exact method (ARPACK is a host
    Fortran library): a thin SVD of dense data, or for sparse data the
    float64 eigendecomposition of the Gram matrix of the smaller side,
    ``min(n_samples, n_features)`` squared; for very large sparse data use
    the default ``'randomized'``, whose memory is ``(n_samples +
    n_features) * (n_components + n_oversamples)``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from gpuml.decomposition import TruncatedSVD
    >>> X = sp.random(100, 50, density=0.1, format="csr", random_state=0)
    >>> svd = TruncatedSVD(n_components=5, n_iter=7, random_state=42).fit(X)
    >>> svd.components_.shape
    (5, 50)
    >>> svd.transform(X).shape
    (100, 5)
    >>> bool((svd.singular_values_[:-1] >= svd.singular_values_[1:]).all())
    True
    """

    _parameter_constraints: dict = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "algorithm": [StrOptions({"arpack", "randomized"})],
        "n_iter": [Interval(Integral, 0, None, closed="left")],
        "n_oversamples": [Interval(Integral, 1, None, closed="left")],
        "power_iteration_normalizer": [StrOptions({"auto", "QR", "LU", "none"})],
        "random_state": ["random_state"],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        n_components=2,
        *,
        algorithm="randomized",
        n_iter=5,
        n_oversamples=10,
        power_iteration_normalizer="auto",
        random_state=None,
        tol=0.0,
    ):
        self.algorithm = algorithm
        self.n_components = n_components
        self.n_iter = n_iter
        self.n_oversamples = n_oversamples
        self.power_iteration_normalizer = power_iteration_normalizer
        self.random_state = random_state
        self.tol = tol

    def fit(self, X, y=None):
        """Fit the model on training data X.

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
        self.fit_transform(X)
        return self

    @fit_context(prefer_skip_nested_validation=True)
    def fit_transform(self, X, y=None):
        """Fit the model on X and reduce X's dimension.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.

        y : None
            Ignored.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            Reduced data (dense), in the family of ``X``.
        """
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = validate_data(
            self,
            X,
            xp=xp,
            accept_sparse=("csr", "csc"),
            dtype=FLOAT_DTYPES,
            ensure_min_features=2,
        )
        self._reset_device_cache()
        random_state = check_random_state(self.random_state)
        U, S, Vt = _ALGORITHMS[self.algorithm](X, self, random_state, xp)
        U, Vt = _kernels.svd_flip_v(U, Vt, xp)
        if U is None or self.algorithm == "randomized":
            # the randomized SVD approximates X: X V differs from U S
            X_new = _project(X, Vt, xp)
        else:
            X_new = U * S
        explained = xp.var(X_new, axis=0)
        if is_sparse(X):
            _, var, _ = sparse_mean_var(X, None, xp=xp)
            total = xp.sum(var).astype(X.dtype)
        else:
            total = xp.sum(xp.var(X, axis=0))
        self._n_samples = X.shape[0]  # for ``_truncated``
        self.components_ = to_family(xp.ascontiguousarray(Vt), family)
        self.explained_variance_ = to_family(explained, family)
        self.explained_variance_ratio_ = to_family(explained / total, family)
        self.singular_values_ = to_family(S, family)
        return to_output(to_family(X_new, family), X_in)

    def transform(self, X):
        """Reduce X's dimension: project it on the components.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            New data.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            Reduced data (dense), in the family of ``X``.
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
        out = _project(X, self._fitted("components_", xp), xp)
        return to_output(to_family(out, family), X_in)

    def inverse_transform(self, X):
        """Map reduced data back to the original space.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_components)
            Reduced data.

        Returns
        -------
        X_original : ndarray of shape (n_samples, n_features)
            Dense data in the original space, in the family of ``X``.
        """
        check_is_fitted(self)
        xp = compute_namespace()
        family = input_family(X)
        X_in = X
        X = check_array(X, xp=xp, dtype=FLOAT_DTYPES, input_name="X")
        out = X @ self._fitted("components_", xp)
        return to_output(to_family(out, family), X_in)

    @property
    def _n_features_out(self):
        """Number of transformed output features."""
        return self.components_.shape[0]

    # The truncation protocol of gpuml's searches (``_truncation.py``).

    def _truncation_params(self) -> frozenset:
        """``{"n_components"}`` for ``algorithm='arpack'`` (exact: a fit with
        fewer components is the first rows of this fit's); none for the
        randomized algorithm, whose range depends on ``n_components``."""
        if self.algorithm == "arpack":
            return frozenset({"n_components"})
        return frozenset()

    def _truncated(self, n_components):
        """This fitted model as a fit with ``n_components`` (no more than it
        has) would leave it, without decomposing again; raises the error
        that fit would raise."""
        check_is_fitted(self)
        if self.algorithm != "arpack" or n_components > self.n_components:
            raise BatchUnsupported("not a truncation of this fit")
        if not 0 < n_components < min(self._n_samples, self.n_features_in_):
            raise ValueError(
                "`k` must be an integer satisfying `0 < k < min(A.shape)`."
            )
        truncated = copy.copy(self)
        truncated._reset_device_cache()
        truncated.n_components = n_components
        for name in (
            "components_",
            "explained_variance_",
            "explained_variance_ratio_",
            "singular_values_",
        ):
            setattr(truncated, name, getattr(self, name)[:n_components].copy())
        return truncated

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags
