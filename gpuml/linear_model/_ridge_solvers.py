"""Ridge's iterative and bound-constrained solvers.

scikit-learn's :class:`~sklearn.linear_model.Ridge` has eight solver names;
gpuml's direct solvers (``"cholesky"``, ``"svd"``) live in
:mod:`~gpuml.linear_model._ridge`. This module serves the others, each a
pure function of the centred, weighted problem (:class:`_RidgeProblem`)
with the registry's signature ``(problem, alpha, *, max_iter, tol, xp)``,
returning ``(coef (n_targets, n_features), n_iter)``:

- ``"sparse_cg"``: conjugate gradients (:func:`gpuml._linalg.block_cg`) on
  the normal equations (or their dual for wide dense X), all targets at
  once; ``n_iter`` is None, as scikit-learn's.
- ``"lsqr"``: LSQR (:func:`~gpuml.linear_model._linear.block_lsqr`, SciPy's
  recurrences, all targets at once) with SciPy's damping ``sqrt(alpha)``
  and stopping rules (``atol = btol = tol``; ``max_iter`` iterations, else
  SciPy's ``2 * n_features``): scikit-learn's ``scipy.sparse.linalg.lsqr``
  per target, with its ``n_iter_``.
- ``"sag"``, ``"saga"``: scikit-learn's stochastic average gradient solvers
  converge to the unique ridge optimum; gpuml reaches it by the
  deterministic conjugate gradients of ``"sparse_cg"``, one pass over the
  data per iteration (a sag epoch is one pass too), with sag's default of
  1,000 passes and its ``ConvergenceWarning`` when ``max_iter`` ends the
  iterations; ``n_iter_`` counts the passes of each target. ``tol`` bounds
  the relative residual of the normal equations (sag's bounds the last
  epoch's relative change of the coefficients).
- ``"lbfgs"`` (``positive=True``): the bound-constrained problem
  ``min ½||Xw - y||² + ½ alpha ||w||²`` subject to ``w >= 0``, which
  scikit-learn approaches by L-BFGS-B, solved exactly: one
  eigendecomposition ``Xᵀ X = V Λ Vᵀ`` of the (centred, weighted) Gram
  matrix (on the device), then per target ``scipy.optimize.nnls`` (the
  Lawson-Hanson active-set method, finite and exact) on the square root
  ``R = (Λ + alpha)^½ Vᵀ`` and ``c = (Λ + alpha)^-½ Vᵀ Xᵀ y``, for which
  ``||R w - c||² = wᵀ (XᵀX + alpha I) w - 2 wᵀ Xᵀ y + const``, twice the
  ridge objective up to a constant. The host runs the active-set steps
  (sequential, one small solve each, as LinearRegression's positive fit);
  the ``O(n p²)`` Gram matrix and the eigendecomposition run on the device.

The three new solvers compute in float64 whatever X's dtype (the caller
casts the problem), as SciPy's lsqr and L-BFGS-B do.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import nnls
from sklearn.exceptions import ConvergenceWarning

from gpuml._array import to_host
from gpuml._linalg import block_cg, eigh
from gpuml.linear_model._linear import block_lsqr
from gpuml.linear_model._ridge_problem import _RidgeProblem, check_finite_system

# scikit-learn's sag_solver: its default number of epochs for Ridge.
SAG_MAX_ITER = 1000
SAG_NOT_CONVERGED = "The max_iter was reached which means the coef_ did not converge"


def ridge_cg(problem: _RidgeProblem, alpha, *, max_iter: int, tol: float, xp):
    """Conjugate gradients on ``(XᵀX + alpha I) w = Xᵀ y`` (or the dual
    ``(X Xᵀ + alpha I) d = y`` for wide dense X), all targets at once.

    Returns ``(coef (t, p), n_iter (t,) host int array, converged)``.
    """
    if problem.use_kernel():

        def apply(V):
            return problem.matvec(problem.rmatvec(V)) + alpha[None, :] * V

        rhs = problem.y
    else:

        def apply(V):
            return problem.rmatvec(problem.matvec(V)) + alpha[None, :] * V

        rhs = problem.rmatvec(problem.y)
    # An overflowing right-hand side would stop the iterations at once, at
    # zero coefficients (scikit-learn's sparse_cg gives NaN): raise instead.
    check_finite_system((rhs * rhs).sum(axis=0), xp=xp)
    solution, n_iter, converged = block_cg(
        apply, rhs, tol=tol, max_iter=max_iter, xp=xp
    )
    coef = problem.rmatvec(solution) if problem.use_kernel() else solution
    return coef.T, n_iter, converged


def solve_sparse_cg(problem: _RidgeProblem, alpha, *, max_iter, tol, xp):
    n_system = problem.X.shape[0 if problem.use_kernel() else 1]
    max_iter = 10 * n_system if max_iter is None else max_iter
    coef, _, converged = ridge_cg(problem, alpha, max_iter=max_iter, tol=tol, xp=xp)
    if not converged:
        warnings.warn(
            f"sparse_cg did not converge after {max_iter} iterations.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return coef, None  # scikit-learn's sparse_cg reports no n_iter_


def solve_sag(problem: _RidgeProblem, alpha, *, max_iter, tol, xp):
    """``"sag"`` and ``"saga"``: the ridge optimum by conjugate gradients,
    with sag's iteration budget and warning (see the module docstring)."""
    max_iter = SAG_MAX_ITER if max_iter is None else max_iter
    coef, n_iter, converged = ridge_cg(
        problem, alpha, max_iter=max_iter, tol=tol, xp=xp
    )
    if not converged:
        warnings.warn(SAG_NOT_CONVERGED, ConvergenceWarning, stacklevel=3)
    return coef, n_iter.astype(np.int32)


def solve_lsqr(problem: _RidgeProblem, alpha, *, max_iter, tol, xp):
    """scikit-learn's ``sp_linalg.lsqr(X, y_j, damp=sqrt(alpha_j), atol=tol,
    btol=tol, iter_lim=max_iter)`` for every target at once."""
    n_features = problem.X.shape[1]
    coef, n_iter = block_lsqr(
        problem.matvec,
        problem.rmatvec,
        problem.y,
        n_columns=n_features,
        atol=tol,
        btol=tol,
        iter_lim=2 * n_features if max_iter is None else max_iter,
        xp=xp,
        damp=xp.sqrt(alpha),
    )
    return coef.T, n_iter


def _nonnegative_least_squares(R, c, p: int):
    """``scipy.optimize.nnls(R, c)``; more active-set steps than SciPy's
    default ``3 p`` when a hard problem needs them (the method is finite)."""
    if R.shape[0] == 0:  # no curvature at all (X = 0 and alpha = 0)
        return np.zeros(p)
    try:
        return nnls(R, c)[0]
    except RuntimeError:  # "Maximum number of iterations reached."
        return nnls(R, c, maxiter=100 * max(p, 1))[0]


def solve_positive(problem: _RidgeProblem, alpha, *, max_iter, tol, xp):
    """Ridge with ``w >= 0``, exactly (see the module docstring); ``tol``
    and ``max_iter`` (L-BFGS-B's) have no effect on the finite method."""
    A = problem.gram()
    B = problem.rmatvec(problem.y)
    check_finite_system(A, B, xp=xp)
    evals, evecs = eigh(A, xp)
    projected = evecs.T @ B  # (p, t)
    evals = np.maximum(np.asarray(to_host(evals), dtype=np.float64), 0)
    evecs = np.asarray(to_host(evecs), dtype=np.float64)
    projected = np.asarray(to_host(projected), dtype=np.float64)
    alphas = np.asarray(to_host(alpha), dtype=np.float64)
    p = A.shape[0]
    coefs = []
    for j, alpha_j in enumerate(alphas):
        shifted = evals + alpha_j
        # directions of no curvature (as _eigh_solve cuts them) carry no
        # part of Xᵀy either: they leave the objective unchanged
        keep = shifted > shifted.max(initial=0) * p * np.finfo(np.float64).eps
        root = np.sqrt(shifted[keep])
        R = root[:, None] * evecs[:, keep].T
        with np.errstate(over="ignore"):
            c = projected[keep, j] / root
        # a finite system whose scaled right-hand side overflows (y near the
        # float maximum over a small curvature): the same error
        check_finite_system(c, xp=np)
        coefs.append(_nonnegative_least_squares(R, c, p))
    return xp.asarray(np.vstack(coefs)), None
