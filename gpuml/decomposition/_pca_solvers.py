"""PCA's solvers: pure functions of one signature, and the rules that pick
and check them (scikit-learn's ``"auto"`` policy and errors).

Each solver takes ``(X, mean, n_components, params, xp)`` (``X`` validated,
dense or sparse, uncentred; ``params`` the estimator's randomized-solver
parameters and a NumPy ``RandomState``) and returns a :class:`_Fit`, the
decomposition of the centred data. ``"full"`` and ``"covariance_eigh"``
decompose completely (every component: :data:`COMPLETE`); ``"randomized"``
and ``"arpack"`` (an exact method, see :mod:`gpuml.decomposition._pca`)
compute ``n_components`` components and the total variance.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from gpuml._array import is_sparse
from gpuml.decomposition import _kernels
from gpuml.preprocessing._data import sparse_mean_var

SPARSE_SOLVERS = ("auto", "arpack", "covariance_eigh")


@dataclass
class _Fit:
    """A solver's result: ``U`` (None where not computed), singular values
    ``S``, components ``Vt``, explained variances, and the total variance
    (None for the complete solvers: the sum of their variances)."""

    U: object
    S: object
    Vt: object
    explained_variance: object
    total_var: object = None


def _fit_full(X, mean, n_components, params, xp: ModuleType) -> _Fit:
    U, S, Vt = _kernels.svd_full(X - mean, xp)
    return _Fit(U, S, Vt, S**2 / (X.shape[0] - 1))


def _fit_covariance_eigh(X, mean, n_components, params, xp: ModuleType) -> _Fit:
    evals, Vt = _kernels.covariance_eigh(X, mean, xp)
    return _Fit(None, xp.sqrt(evals * (X.shape[0] - 1)), Vt, evals)


def _total_variance(X, mean, xp: ModuleType):
    """Sum of the per-feature variances (ddof=1)."""
    n_samples = X.shape[0]
    if is_sparse(X):
        _, var, _ = sparse_mean_var(X, None, xp=xp)
        return (xp.sum(var) * n_samples / (n_samples - 1)).astype(X.dtype)
    centred = X - mean
    return xp.sum(centred * centred) / (n_samples - 1)


def _fit_arpack(X, mean, n_components, params, xp: ModuleType) -> _Fit:
    # ARPACK's starting vector, drawn as scikit-learn draws it, so that a
    # shared RandomState continues as it would after scikit-learn's fit.
    params["random_state"].uniform(-1, 1, min(X.shape))
    if is_sparse(X):
        evals, Vt = _kernels.covariance_eigh(X, mean, xp)
        U, S = None, xp.sqrt(evals[:n_components] * (X.shape[0] - 1))
        Vt = Vt[:n_components]
    else:
        U, S, Vt = _kernels.exact_svd(X - mean, n_components, xp)
    _kernels.check_arpack_start(S, X.dtype)
    total = _total_variance(X, mean, xp)
    return _Fit(U, S, Vt, S**2 / (X.shape[0] - 1), total)


def _fit_randomized(X, mean, n_components, params, xp: ModuleType) -> _Fit:
    U, S, Vt = _kernels.randomized_svd(
        X - mean,
        n_components,
        n_oversamples=params["n_oversamples"],
        n_iter=params["iterated_power"],
        normalizer=params["power_iteration_normalizer"],
        random_state=params["random_state"],
        xp=xp,
    )
    total = _total_variance(X, mean, xp)
    return _Fit(U, S, Vt, S**2 / (X.shape[0] - 1), total)


# Solvers: pure functions ``(X, mean, n_components, params, xp) -> _Fit``.
SOLVERS = {
    "full": _fit_full,
    "covariance_eigh": _fit_covariance_eigh,
    "arpack": _fit_arpack,
    "randomized": _fit_randomized,
}
COMPLETE = ("full", "covariance_eigh")


def resolve_solver(svd_solver: str, shape, n_components, sparse: bool) -> str:
    """scikit-learn's ``"auto"`` policy (``n_components`` resolved from None)."""
    if svd_solver != "auto":
        return svd_solver
    n_samples, n_features = shape
    if sparse:
        return "arpack"
    if n_features <= 1_000 and n_samples >= 10 * n_features:
        return "covariance_eigh"
    if max(shape) <= 500 or n_components == "mle":
        return "full"
    if 1 <= n_components < 0.8 * min(shape):
        return "randomized"
    return "full"


def check_n_components(n_components, solver: str, shape) -> None:
    """scikit-learn's errors for an ``n_components`` the solver cannot give."""
    n_samples, n_features = shape
    smallest = min(shape)
    if solver in COMPLETE:
        if n_components == "mle":
            if n_samples < n_features:
                raise ValueError(
                    "n_components='mle' is only supported if n_samples >= n_features"
                )
        elif not 0 <= n_components <= smallest:
            raise ValueError(
                f"n_components={n_components} must be between 0 and "
                f"min(n_samples, n_features)={smallest} with "
                f"svd_solver={solver!r}"
            )
        return
    if isinstance(n_components, str):
        raise ValueError(
            f"n_components={n_components!r} cannot be a string with "
            f"svd_solver='{solver}'"
        )
    if not 1 <= n_components <= smallest:
        raise ValueError(
            f"n_components={n_components!r} must be between 1 and "
            f"min(n_samples, n_features)={smallest!r} with svd_solver='{solver}'"
        )
    if solver == "arpack" and n_components == smallest:
        raise ValueError(
            f"n_components={n_components!r} must be strictly less than "
            f"min(n_samples, n_features)={smallest!r} with svd_solver='{solver}'"
        )


def n_kept(n_components, explained_variance, ratio, n_samples: int) -> int:
    """The number of components a complete solver keeps."""
    if n_components == "mle":
        return _kernels.infer_dimension(explained_variance, n_samples)
    if 0 < n_components < 1.0:
        # side="right": the kept variance is always above the fraction
        cumulative = np.cumsum(np.asarray(to_numpy(ratio), dtype=np.float64))
        return int(np.searchsorted(cumulative, n_components, side="right")) + 1
    return int(n_components)


def column_mean(X, xp: ModuleType):
    """Per-feature mean of dense or sparse ``X``, in X's dtype (SciPy's
    sparse ``mean`` on the host, as scikit-learn; a column sum on the
    device)."""
    if is_sparse(X) and xp is not np:
        mean = X.sum(axis=0) / X.shape[0]
    else:
        mean = X.mean(axis=0)
    return xp.asarray(mean).reshape(-1).astype(X.dtype)


def to_numpy(array):
    return array.get() if hasattr(array, "get") else np.asarray(array)
