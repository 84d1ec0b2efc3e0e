"""What Ridge's fit and its batched fit share: the centred problem, the
penalty checks and the solves of one or many penalties.

:mod:`~gpuml.linear_model._ridge` (the estimator) and
:mod:`~gpuml.linear_model._ridge_batch` (the search's batched fit) both
import from here; neither imports the other's private helpers back.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import numpy as np

from gpuml._array import is_sparse, to_host
from gpuml._linalg import cho_solve, eigh, sparse_gram
from gpuml._reductions import column_mean

_ACCEPT_SPARSE = ("csr", "csc", "coo")

# scikit-learn's message when the (centred, weighted) system of the
# cholesky solver is not finite: ``scipy.linalg.solve``'s own check.
NON_FINITE_SYSTEM = "array must not contain infs or NaNs"


def check_finite_system(*arrays, xp: ModuleType) -> None:
    """Raise scikit-learn's ``ValueError`` when a system matrix or right-hand
    side is not finite (an overflow while centring, weighting or forming the
    Gram matrix: scikit-learn's cholesky solver raises there)."""
    for array in arrays:
        if not bool(xp.isfinite(array).all()):
            raise ValueError(NON_FINITE_SYSTEM)


def has_negative(sample_weight, xp: ModuleType) -> bool:
    """Whether any weight is negative (``-0.0`` is not).

    Device weights are checked on the host: a copy of one vector costs less
    than compiling CuPy's comparison and reduction on first use.
    """
    if sample_weight is None:
        return False
    return bool((np.asarray(to_host(sample_weight)) < 0).any())


@dataclass
class _RidgeProblem:
    """``min_w ||Xs w - ys||² + alpha ||w||²`` with centred, weighted data.

    Dense ``X`` is stored already centred and scaled by ``sqrt(sample_weight)``.
    Sparse ``X`` is stored raw; :meth:`matvec`, :meth:`rmatvec` and
    :meth:`gram` apply the centring and weighting implicitly.
    """

    X: object
    y: object  # (n_samples, n_targets), centred and weighted
    X_offset: object  # (n_features,)
    y_offset: object  # (n_targets,)
    sqrt_sw: object  # (n_samples,) or None
    xp: ModuleType

    @property
    def sparse(self) -> bool:
        return is_sparse(self.X)

    def matvec(self, V):
        """``Xs @ V`` for ``V`` of shape (n_features, k)."""
        if not self.sparse:
            return self.X @ V
        out = self.X @ V - (self.X_offset @ V)[None, :]
        return out if self.sqrt_sw is None else out * self.sqrt_sw[:, None]

    def rmatvec(self, U):
        """``Xs.T @ U`` for ``U`` of shape (n_samples, k)."""
        if not self.sparse:
            return self.X.T @ U
        if self.sqrt_sw is not None:
            U = U * self.sqrt_sw[:, None]
        return self.X.T @ U - self.X_offset[:, None] * U.sum(axis=0)[None, :]

    def gram(self):
        """Dense ``Xs.T @ Xs`` of shape (n_features, n_features)."""
        xp = self.xp
        if not self.sparse:
            return self.X.T @ self.X  # one GEMM; cuBLAS splits the long axis
        weights = None if self.sqrt_sw is None else self.sqrt_sw**2
        total = self.X.shape[0] if weights is None else weights.sum()
        return sparse_gram(self.X, weights, xp) - total * xp.outer(
            self.X_offset, self.X_offset
        )

    def use_kernel(self) -> bool:
        """Solve in the n_samples-sized dual when that system is smaller."""
        n_samples, n_features = self.X.shape
        return not self.sparse and n_features > n_samples


def _writeable(X) -> bool:
    """Whether ``X`` may be written in place (read-only NumPy views, as
    pandas 3 hands out, may not; CuPy arrays have no such flag)."""
    flags = getattr(X, "flags", None)
    return bool(getattr(flags, "writeable", True))


def _make_problem(
    X, y, sample_weight, *, fit_intercept: bool, overwrite_X: bool, xp: ModuleType
) -> _RidgeProblem:
    """Centre (weighted means) and weight the data, as scikit-learn does.

    ``X`` is centred in place only when ``overwrite_X`` and it is writeable.
    """
    y = y.reshape(-1, 1) if y.ndim == 1 else y
    n_samples, n_features = X.shape
    sparse = is_sparse(X)
    if fit_intercept:
        if sparse:
            weights = (
                xp.ones(n_samples, dtype=X.dtype)
                if sample_weight is None
                else sample_weight
            )
            X_offset = (X.T @ weights) / weights.sum()
        else:
            X_offset = column_mean(X, sample_weight, xp=xp)
        y_offset = column_mean(y, sample_weight, xp=xp)
    else:
        X_offset = xp.zeros(n_features, dtype=X.dtype)
        y_offset = xp.zeros(y.shape[1], dtype=X.dtype)
    sqrt_sw = None if sample_weight is None else xp.sqrt(sample_weight)
    y = y - y_offset
    if sqrt_sw is not None:
        y *= sqrt_sw[:, None]
    if not sparse and (fit_intercept or sqrt_sw is not None):
        if not (overwrite_X and _writeable(X)):
            X = X.copy()
        if fit_intercept:
            X -= X_offset
        if sqrt_sw is not None:
            X *= sqrt_sw[:, None]
    return _RidgeProblem(X, y, X_offset, y_offset, sqrt_sw, xp)


def _add_to_diagonal(A, value, xp: ModuleType):
    idx = xp.arange(A.shape[0])
    A[idx, idx] += value
    return A


def _shifted_solve(A, B, alpha, xp: ModuleType):
    """Solve ``(A + alpha_j I) x_j = b_j`` by Cholesky; one factorisation per alpha.

    Raises ``numpy.linalg.LinAlgError`` when a system is not positive
    definite; without a penalty, also when it is numerically singular
    (the caller then takes the minimum-norm solution). With ``alpha > 0``
    the system is positive definite however ill-conditioned ``A`` is, and a
    successful factorisation is used as scikit-learn's solver uses it.
    """
    alpha_host = np.asarray(to_host(alpha), dtype=np.float64)

    def solve(j, rhs):
        system = _add_to_diagonal(A.copy(), alpha[j], xp)
        return cho_solve(system, rhs, xp, check_pivots=alpha_host[j] == 0)

    if np.all(alpha_host == alpha_host[0]):
        return solve(0, B)
    columns = [solve(j, B[:, j : j + 1]) for j in range(B.shape[1])]
    return xp.concatenate(columns, axis=1)


def _eigh_solve(A, B, alphas, xp: ModuleType, decomposition=None):
    """``(A + alpha I)^+ B`` for every alpha, from one eigendecomposition of A.

    ``alphas`` has shape (n_alphas, n_targets) (or broadcastable); returns
    (n_alphas, n, n_targets). Directions whose shifted eigenvalue vanishes
    get zero weight: the minimum-norm solution, as with an SVD.
    ``decomposition`` is ``eigh(A)`` when the caller has it already.
    """
    evals, evecs = eigh(A, xp) if decomposition is None else decomposition
    evals = xp.maximum(evals, 0)  # a PSD matrix; clip rounding below zero
    projected = evecs.T @ B  # (n, n_targets)
    shifted = evals[None, :, None] + alphas[:, None, :]
    cutoff = evals.max() * A.shape[0] * np.finfo(A.dtype).eps
    inverse = xp.where(shifted > cutoff, 1 / xp.where(shifted > cutoff, shifted, 1), 0)
    return evecs[None] @ (inverse * projected[None])


def _dense_targets(y):
    """Validated targets as a dense array of one or two dimensions."""
    if is_sparse(y):
        y = y.toarray()
    if y.ndim > 2:
        raise ValueError(f"Target y has the wrong shape {y.shape}")
    return y


def _check_alpha(alpha, n_targets: int, dtype, xp: ModuleType):
    """Return the penalties as an ``xp`` array of shape (n_targets,)."""
    values = np.asarray(to_host(alpha), dtype=np.float64).ravel()
    if values.shape[0] not in (1, n_targets):
        raise ValueError(
            "Number of targets and number of penalties do not correspond: "
            f"{values.shape[0]} != {n_targets}"
        )
    if np.any(values < 0) or not np.all(np.isfinite(values)):
        raise ValueError(f"alpha must be non-negative and finite; got {alpha!r}.")
    return xp.asarray(np.broadcast_to(values, (n_targets,)), dtype=dtype)


def _path_from_problem(problem: _RidgeProblem, alphas, xp: ModuleType):
    """(n_alphas, n_targets, n_features) coefficients and their intercepts.

    ``alphas`` has shape (n_alphas,), or (n_alphas, n_targets) for one
    penalty per target. Raises scikit-learn's ``ValueError`` when the
    system overflowed (see :func:`check_finite_system`).
    """
    n_targets = problem.y.shape[1]
    if alphas.ndim == 1:
        alphas = alphas[:, None]
    shifts = xp.broadcast_to(alphas, (alphas.shape[0], n_targets))
    with np.errstate(over="ignore", invalid="ignore"):
        if problem.use_kernel():
            K = problem.X @ problem.X.T
            check_finite_system(K, problem.y, xp=xp)
            dual = _eigh_solve(K, problem.y, shifts, xp)
            n_alphas, n_samples, _ = dual.shape
            flat = dual.transpose(1, 0, 2).reshape(n_samples, n_alphas * n_targets)
            coefs = problem.rmatvec(flat).reshape(-1, n_alphas, n_targets)
            coefs = coefs.transpose(1, 2, 0)
        else:
            A, B = problem.gram(), problem.rmatvec(problem.y)
            check_finite_system(A, B, xp=xp)
            coefs = _eigh_solve(A, B, shifts, xp).transpose(0, 2, 1)
    intercepts = problem.y_offset[None, :] - coefs @ problem.X_offset
    return coefs, intercepts
