"""Ordinary least squares on the GPU or the CPU, with scikit-learn's API and results.

``fit`` reads: validate (into the compute namespace ``xp``) → centre and
weight the problem (Ridge's :func:`_make_problem`: dense X centred and
scaled by ``sqrt(sample_weight)``, sparse X centred implicitly) → choose the
solver (:func:`_resolve_solver`) → call a pure solver from the registry →
store attributes in the training input's family.

The three solvers reach scikit-learn's solutions:

- ``"lstsq"`` (dense X): a QR factorisation along the long axis of X
  (cuSOLVER on the GPU), then the SVD of the small triangular factor (on the
  host by LAPACK up to 1,024 columns, as Ridge's ``"svd"`` solver), and the
  singular values at or below ``tol`` times the largest dropped: the
  minimum-norm least-squares solution, rank and singular values of
  ``scipy.linalg.lstsq(X, y, cond=tol)``, scikit-learn's dense path.
- ``"lsqr"`` (sparse X): LSQR (Paige and Saunders), as SciPy writes it,
  on every target at once, on the implicitly centred, weighted operator of
  :class:`_RidgeProblem`, in float64, with SciPy's stopping rules
  (``atol = btol = tol``, ``conlim = 1e8``, ``2 * n_features`` iterations):
  scikit-learn's ``scipy.sparse.linalg.lsqr`` per target. On the GPU the
  stopping test is read by the host every :data:`_CHECK_EVERY` iterations
  only; stopped targets are frozen, so the result is that of testing at
  every iteration.
- ``"nnls"`` (``positive=True``): a QR factorisation of the centred,
  weighted X in ``xp`` (float64), then ``scipy.optimize.nnls`` on the
  triangular factor ``R`` and ``Qᵀ y`` on the host. ``||Xw - y||²`` and
  ``||Rw - Qᵀy||²`` differ by a constant, so this is scikit-learn's
  Lawson-Hanson solver on the same objective. The host solves it because the
  active-set method is sequential (one coefficient enters or leaves per
  step, each step a small least-squares solve): on a GPU it would be a chain
  of tiny kernels with a synchronisation per step, while the ``O(n p²)``
  work, the QR, runs on the device.
"""

from __future__ import annotations

from numbers import Integral, Real
from types import ModuleType

import numpy as np
from scipy.optimize import nnls
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin
from sklearn.utils.parallel import Parallel, delayed

from gpuml._array import (
    DEVICE,
    HOST,
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_host,
)
from gpuml._linalg import thin_svd
from gpuml._sklearn_compat import Interval, validate_estimator_params
from gpuml._validation import NUMERIC_FLOAT, check_sample_weight, validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.linear_model._base import LinearRegressorMixin
from gpuml.linear_model._ridge_moments import _HOST_SOLVE_MAX
from gpuml.linear_model._ridge_problem import (
    _ACCEPT_SPARSE,
    NON_FINITE_SYSTEM,
    _make_problem,
    _RidgeProblem,
    check_finite_system,
    has_negative,
)

# How often the GPU's LSQR asks the host whether every target has stopped.
_CHECK_EVERY = 16
# SciPy's LSQR: the bound on the condition estimate, and its epsilon.
_CONLIM = 1e8
_EPS = np.finfo(np.float64).eps


# --------------------------------------------------------------------------
# Solvers: pure functions with one signature, returning (coef (t, p), extra).
# ``extra`` is ``(rank, singular values)`` for lstsq, else None.
# --------------------------------------------------------------------------


def _scale_of(X, xp: ModuleType) -> float:
    """1, or ``max |X|`` when X's values are so large (or small) that a QR
    factorisation's products would overflow (or underflow), as LAPACK's
    least-squares drivers scale; raises scikit-learn's error when centring
    or weighting overflowed (SciPy's finiteness check of its input)."""
    # two reductions, no temporary copy of X
    largest = max(float(X.max()), -float(X.min())) if X.size else 0.0
    if not np.isfinite(largest):
        raise ValueError(NON_FINITE_SYSTEM)
    info = np.finfo(X.dtype)
    if largest > np.sqrt(info.max) / max(X.shape) or 0 < largest < np.sqrt(info.tiny):
        return largest
    return 1.0


def _solve_lstsq(problem: _RidgeProblem, *, tol, n_jobs, xp):
    """scipy.linalg.lstsq's minimum-norm solution with ``cond=tol``."""
    X, Y = problem.X, problem.y  # centred and weighted; Y is (n, t)
    n_samples, n_features = X.shape
    scale = _scale_of(X, xp)
    if scale != 1.0:
        X = X / scale
    tall = n_samples >= n_features
    # X = Q R (tall) or Xᵀ = Q R (wide): the SVD of the small square factor
    # gives X's singular values and vectors.
    QtY = None
    if tall and xp is np:
        # NumPy: the augmented-matrix form, as the device path's: R of [X, Y]
        # holds R and Qᵀ Y, and forming Q (twice the work) is left out
        R_full = np.linalg.qr(np.concatenate([X, Y.astype(X.dtype)], axis=1), "r")
        R, QtY = R_full[:n_features, :n_features], R_full[:n_features, n_features:]
    else:
        Q, R = xp.linalg.qr(X if tall else X.T)
    check_finite_system(R, xp=xp)
    U, s, Vt = thin_svd(R if tall else R.T, xp, host_max=_HOST_SOLVE_MAX)
    s_host = np.asarray(to_host(s), dtype=np.float64)
    largest = s_host.max() if s_host.size else 0.0
    kept = s_host > tol * largest  # LAPACK's gelsd: s <= cond * s[0] is zero
    rank = int(kept.sum())
    keep = xp.asarray(kept)
    inverse = xp.where(keep, 1 / xp.where(keep, s, 1), 0).astype(X.dtype)
    if tall:  # X = (Q U) diag(s) Vt
        QtY = Q.T @ Y if QtY is None else QtY
        coef = Vt.T @ (inverse[:, None] * (U.T @ QtY))
    else:  # X = U diag(s) (Q Vtᵀ)ᵀ
        coef = Q @ (Vt.T @ (inverse[:, None] * (U.T @ Y)))
    if scale != 1.0:
        coef, s = coef / scale, s * scale
    return coef.T, (rank, s)


def _lstsq_device(X, y, sample_weight, *, fit_intercept: bool, tol, xp):
    """``(coef (t, p), intercept (t,), (rank, singular values))`` on the
    host, of :func:`_solve_lstsq` for dense, tall data on the GPU; None
    where the general path must run (NumPy, sparse or wide X, or values
    whose factorisation over- or underflows unscaled).

    The centred, weighted rows and targets are written side by side,
    ``Z = [√w (X - x̄), √w (y - ȳ), 1]``, by Ridge's design kernel (one
    pass, the copy the general path makes anyway), and a QR factorisation
    of ``Z`` without its ``Q`` gives ``R`` and ``Qᵀ y`` at once (the
    Householder reflections applied to the targets: the augmented-matrix
    form of least squares). The small rest, the SVD of ``R`` and the
    minimum-norm solution, runs on the host in X's dtype, as the general
    path's host SVD does. No CuPy element-wise or reduction kernel
    compiles on first use (cuSOLVER's QR needs one: ``triu``).
    """
    from gpuml import _cuda
    from gpuml._reductions import column_mean

    n_samples, n_features = X.shape
    dtype = X.dtype
    if (
        xp is np
        or is_sparse(X)
        or n_samples < n_features
        or n_features > _HOST_SOLVE_MAX
        or _cuda.ctype(dtype) is None
    ):
        return None
    Y = y.reshape(-1, 1) if y.ndim == 1 else y
    t = Y.shape[1]
    X = xp.ascontiguousarray(X)
    Y = _cuda.cast(xp.ascontiguousarray(Y), dtype)
    root = None
    if sample_weight is not None:
        host_weights = np.asarray(to_host(sample_weight), dtype=dtype)
        root = xp.asarray(np.sqrt(host_weights))
    shift = 0
    offsets = np.zeros(n_features + t, dtype=dtype)
    if fit_intercept:
        offsets = np.concatenate(
            [to_host(column_mean(a, sample_weight, xp=xp)) for a in (X, Y)]
        ).astype(dtype)
        shift = xp.asarray(offsets)
    width = n_features + t + 1
    Z = xp.empty((n_samples, width), dtype=dtype)
    null = 0
    design = _cuda.kernel("ridge", f"ridge_design<{_cuda.ctype(dtype)}>")
    design(
        (min(n_samples, 8192),),
        (_cuda.THREADS,),
        (
            X, Y, null, np.int64(0), np.int64(n_samples), np.int64(n_samples),
            np.int64(n_features), np.int64(t), shift,
            null if root is None else root, Z, Z,
        ),
    )  # fmt: skip
    with np.errstate(all="ignore"):
        R = np.asarray(to_host(xp.linalg.qr(Z, mode="r")))
        R_X, QtY = R[:n_features, :n_features], R[:n_features, n_features:-1]
        largest = float(np.abs(R_X).max()) if R_X.size else 0.0
    info = np.finfo(dtype)
    if not (np.isfinite(R).all() and (largest == 0 or largest > np.sqrt(info.tiny))):
        return None  # overflow or underflow: the general path scales X first
    U, s, Vt = (a.astype(dtype, copy=False) for a in thin_svd(R_X, np))
    s_host = s.astype(np.float64)
    largest_s = s_host.max() if s.size else 0.0
    kept = s_host > tol * largest_s  # LAPACK's gelsd: s <= cond * s[0] is zero
    inverse = np.where(kept, 1 / np.where(kept, s, 1), 0).astype(dtype)
    coef = (Vt.T @ (inverse[:, None] * (U.T @ QtY))).T
    intercept = offsets[n_features:] - coef @ offsets[:n_features]
    return coef, intercept, (int(kept.sum()), s)


def _solve_nnls(problem: _RidgeProblem, *, tol, n_jobs, xp):
    """scipy.optimize.nnls per target, on the triangular factor of X."""
    X = problem.X
    scale = _scale_of(X, xp)
    Q, R = xp.linalg.qr(X if scale == 1.0 else X / scale)
    R_host = np.asarray(to_host(R), dtype=np.float64)
    B_host = np.asarray(to_host(Q.T @ problem.y), dtype=np.float64)
    if B_host.shape[1] == 1:
        coefs = [nnls(R_host, B_host[:, 0])]
    else:
        coefs = Parallel(n_jobs=n_jobs)(
            delayed(nnls)(R_host, B_host[:, j]) for j in range(B_host.shape[1])
        )
    return xp.asarray(np.vstack([c[0] for c in coefs]) / scale), None


def _solve_lsqr(problem: _RidgeProblem, *, tol, n_jobs, xp):
    """scipy.sparse.linalg.lsqr per target (all targets at once)."""
    coef, _ = block_lsqr(
        problem.matvec,
        problem.rmatvec,
        problem.y,
        n_columns=problem.X.shape[1],
        atol=tol,
        btol=tol,
        iter_lim=2 * problem.X.shape[1],
        xp=xp,
    )
    return coef.T, None


_SOLVERS = {"lstsq": _solve_lstsq, "lsqr": _solve_lsqr, "nnls": _solve_nnls}


def _sym_ortho(a, b, xp: ModuleType):
    """SciPy's ``_sym_ortho`` (a stable Givens rotation), element-wise:
    ``(c, s, r)`` with ``[c s; -s c] [a; b] = [r; 0]``."""
    abs_a, abs_b = xp.abs(a), xp.abs(b)
    safe_a = xp.where(a == 0, 1, a)
    safe_b = xp.where(b == 0, 1, b)
    # |b| > |a|: tau = a / b
    tau_b = a / safe_b
    s_b = xp.sign(b) / xp.sqrt(1 + tau_b * tau_b)
    c_b, r_b = s_b * tau_b, b / xp.where(s_b == 0, 1, s_b)
    # otherwise: tau = b / a
    tau_a = b / safe_a
    c_a = xp.sign(a) / xp.sqrt(1 + tau_a * tau_a)
    s_a, r_a = c_a * tau_a, a / xp.where(c_a == 0, 1, c_a)
    b_wins = abs_b > abs_a
    c = xp.where(b_wins, c_b, c_a)
    s = xp.where(b_wins, s_b, s_a)
    r = xp.where(b_wins, r_b, r_a)
    # the special cases, in SciPy's order: b == 0 first, then a == 0
    c = xp.where(a == 0, 0, c)
    s = xp.where(a == 0, xp.sign(b), s)
    r = xp.where(a == 0, abs_b, r)
    c = xp.where(b == 0, xp.sign(a), c)
    s = xp.where(b == 0, 0, s)
    r = xp.where(b == 0, abs_a, r)
    return c, s, r


def _column_norms(A, xp: ModuleType):
    return xp.sqrt((A * A).sum(axis=0))


def block_lsqr(matvec, rmatvec, B, *, n_columns, atol, btol, iter_lim, xp, damp=None):
    """LSQR for several right-hand sides at once, as SciPy's ``lsqr`` solves
    each (``x0 = 0``, ``conlim = 1e8``).

    ``matvec`` maps (n_columns, k) to (n_rows, k), ``rmatvec`` the reverse;
    ``B`` is (n_rows, k); ``damp`` (None, or an ``xp`` array of shape (k,))
    is SciPy's damping of each column's problem, ``min ||A x - b||² +
    damp² ||x||²``. Every column runs SciPy's recurrences, on vectors of
    ``xp`` (the per-column scalars are arrays of shape (k,)), and stops by
    SciPy's tests; a stopped column is frozen while the others go on.

    Returns
    -------
    x : array of shape (n_columns, k)
    n_iter : ndarray of shape (k,)
        SciPy's ``itn`` of each column (host NumPy, int32).
    """
    k = B.shape[1]
    dtype = B.dtype
    check_every = 1 if xp is np else _CHECK_EVERY
    ctol = 1 / _CONLIM
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        x = xp.zeros((n_columns, k), dtype=dtype)
        n_iter = xp.zeros(k, dtype=xp.int32)
        damped = damp is not None
        dampsq = damp * damp if damped else None
        res2 = xp.zeros(k, dtype=dtype)
        bnorm = _column_norms(B, xp)
        beta = bnorm
        u = B / xp.where(beta > 0, beta, 1)
        v = rmatvec(u) * (beta > 0)
        alfa = _column_norms(v, xp)
        v = v / xp.where(alfa > 0, alfa, 1)
        w = v.copy()
        rhobar, phibar = alfa, beta
        zeros = xp.zeros(k, dtype=dtype)
        anorm, ddnorm, xxnorm, z, sn2 = zeros, zeros, zeros, zeros, zeros
        cs2 = zeros - 1
        # arnorm == 0 (b == 0, or b orthogonal to the range of A): x = 0
        active = alfa * beta != 0
        for itn in range(1, iter_lim + 1):
            if itn % check_every == 1 % check_every and not bool(active.any()):
                break
            u = matvec(v) - alfa * u
            beta = _column_norms(u, xp)
            moved = beta > 0
            u = u / xp.where(moved, beta, 1)
            norm2 = anorm**2 + alfa**2 + beta**2
            if damped:
                norm2 = norm2 + dampsq
            anorm = xp.where(moved, xp.sqrt(norm2), anorm)
            v_next = rmatvec(u) - beta * v
            alfa_next = _column_norms(v_next, xp)
            v_next = v_next / xp.where(alfa_next > 0, alfa_next, 1)
            v = xp.where(moved, v_next, v)
            alfa = xp.where(moved, alfa_next, alfa)

            psi = None
            if damped:  # SciPy's extra rotation, for columns with damp > 0
                positive = damp > 0
                rhobar1 = xp.sqrt(rhobar**2 + dampsq)
                safe = xp.where(positive, rhobar1, 1)
                psi = xp.where(positive, (damp / safe) * phibar, 0)
                phibar = xp.where(positive, (rhobar / safe) * phibar, phibar)
                rhobar = xp.where(positive, rhobar1, rhobar)
            cs, sn, rho = _sym_ortho(rhobar, beta, xp)
            theta = sn * alfa
            rhobar = -cs * alfa
            phi = cs * phibar
            phibar = sn * phibar
            tau = sn * phi

            x = xp.where(active, x + (phi / rho) * w, x)
            ddnorm = ddnorm + (_column_norms(w, xp) / rho) ** 2
            w = v - (theta / rho) * w

            delta = sn2 * rho
            gambar = -cs2 * rho
            rhs = phi - delta * z
            zbar = rhs / gambar
            xnorm = xp.sqrt(xxnorm + zbar**2)
            gamma = xp.sqrt(gambar**2 + theta**2)
            cs2 = gambar / gamma
            sn2 = theta / gamma
            z = rhs / gamma
            xxnorm = xxnorm + z**2

            acond = anorm * xp.sqrt(ddnorm)
            if damped:
                res2 = xp.where(active, res2 + psi**2, res2)
                rnorm = xp.sqrt(phibar**2 + res2)
            else:
                rnorm = xp.abs(phibar)
            arnorm = alfa * xp.abs(tau)
            test1 = rnorm / bnorm
            test2 = arnorm / (anorm * rnorm + _EPS)
            test3 = 1 / (acond + _EPS)
            t1 = test1 / (1 + anorm * xnorm / bnorm)
            rtol = btol + atol * anorm * xnorm / bnorm
            stop = (
                (1 + test3 <= 1)
                | (1 + test2 <= 1)
                | (1 + t1 <= 1)
                | (test3 <= ctol)
                | (test2 <= atol)
                | (test1 <= rtol)
            )
            n_iter += active
            active = active & ~stop
    return x, np.asarray(to_host(n_iter), dtype=np.int32)


def _resolve_solver(*, positive: bool, sparse: bool) -> str:
    """The one place where the solver is chosen (scikit-learn's choice)."""
    if positive:
        return "nnls"
    return "lsqr" if sparse else "lstsq"


# scikit-learn's check_non_negative (gpuml's check_sample_weight lacks the
# final full stop that scikit-learn 1.9 has).
_NEGATIVE_WEIGHTS = "Negative values in data passed to `sample_weight`."

# The validation of y after ``validate_data`` in scikit-learn's fit (its
# _preprocess_data checks y again, without accepting sparse data).
_SPARSE_Y = (
    "Sparse data was passed, but dense data is required. Use '.toarray()' to "
    "convert to a dense numpy array."
)


class LinearRegression(
    LinearRegressorMixin,
    MultiOutputMixin,
    RegressorMixin,
    DeviceCacheMixin,
    BaseEstimator,
):
    """Ordinary least squares linear regression, on the GPU or the CPU.

    A drop-in replacement for :class:`sklearn.linear_model.LinearRegression`
    (same parameters, attributes and results). It minimises the (weighted)
    residual sum of squares ``||y - Xw - b||²`` and computes with CuPy when a
    GPU is usable (see :func:`gpuml.set_config`), else with NumPy/SciPy.
    Predictions come back in the family of their input (NumPy in, NumPy out;
    CuPy in, CuPy out); fitted attributes live in the family of the training
    input.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Whether to fit the intercept (the data are centred, with sample
        weights when given).
    copy_X : bool, default=True
        If False, dense X may be overwritten (centred and weighted in place)
        when it is already in the compute namespace and dtype. A host array
        fitted on the GPU is copied to the device anyway, and that copy is
        reused. Sparse X is never modified.
    tol : float, default=1e-6
        Dense X: singular values at or below ``tol`` times the largest are
        treated as zero (``cond`` of :func:`scipy.linalg.lstsq`), which
        gives the minimum-norm solution for rank-deficient X. Sparse X:
        ``atol`` and ``btol`` of LSQR.
    n_jobs : int, default=None
        Jobs for the host's non-negative least-squares solves of several
        targets (``positive=True``). The other solvers fit every target at
        once and ignore it.
    positive : bool, default=False
        When True, forces the coefficients to be non-negative (dense X only).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Estimated coefficients, NumPy or CuPy like the training X.
    rank_ : int
        Rank of the (centred, weighted) X. Only for dense X and
        ``positive=False``.
    singular_ : ndarray of shape (min(n_samples, n_features),)
        Singular values of the (centred, weighted) X. Only for dense X and
        ``positive=False``.
    intercept_ : float or ndarray of shape (n_targets,)
        Independent term; 0.0 when ``fit_intercept=False``.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Feature names seen during fit, when X had string column names.

    See Also
    --------
    Ridge : Least squares with an l2 penalty.

    Notes
    -----
    Dense X is solved through a QR factorisation and the SVD of its small
    triangular factor; sparse X by LSQR on the implicitly centred data (never
    densified), all targets together; ``positive=True`` by SciPy's
    non-negative least squares on the triangular factor of X, on the host.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.linear_model import LinearRegression
    >>> X = np.array([[1, 1], [1, 2], [2, 2], [2, 3]])
    >>> # y = 1 * x_0 + 2 * x_1 + 3
    >>> y = np.dot(X, np.array([1, 2])) + 3
    >>> reg = LinearRegression().fit(X, y)
    >>> round(reg.score(X, y), 6)
    1.0
    >>> np.round(reg.coef_, 6)
    array([1., 2.])
    >>> round(float(reg.intercept_), 6)
    3.0
    >>> np.round(reg.predict(np.array([[3, 5]])), 6)
    array([16.])
    """

    _parameter_constraints: dict = {
        "fit_intercept": ["boolean"],
        "copy_X": ["boolean"],
        "n_jobs": [None, Integral],
        "positive": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        *,
        fit_intercept=True,
        copy_X=True,
        tol=1e-6,
        n_jobs=None,
        positive=False,
    ):
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.tol = tol
        self.n_jobs = n_jobs
        self.positive = positive

    def fit(self, X, y, sample_weight=None):
        """Fit the linear model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data: NumPy, pandas, SciPy sparse, CuPy, cupyx sparse,
            or any ``__cuda_array_interface__`` / ``__dlpack__`` producer.
            Sparse X only with ``positive=False``.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            Target values, cast to X's dtype.
        sample_weight : float or array-like of shape (n_samples,), default=None
            Individual, non-negative weights for each sample.

        Returns
        -------
        self : object
            Fitted estimator.
        """
        validate_estimator_params(self)
        self._reset_device_cache()
        xp = compute_namespace()
        family = input_family(X)
        X, y = validate_data(
            self,
            X,
            y,
            xp=xp,
            accept_sparse=False if self.positive else _ACCEPT_SPARSE,
            dtype=NUMERIC_FLOAT,
            multi_output=True,
            y_numeric=True,
        )
        if sample_weight is not None:
            sample_weight = check_sample_weight(
                sample_weight, X.shape[0], xp=xp, dtype=X.dtype
            )
            if has_negative(sample_weight, xp):
                raise ValueError(_NEGATIVE_WEIGHTS)
        if is_sparse(y):  # after the weights, as in scikit-learn
            raise TypeError(_SPARSE_Y)
        solver = _resolve_solver(positive=self.positive, sparse=is_sparse(X))
        # Data copied across the bus is a fresh buffer and may be centred in
        # place; so may a copy made here.
        transferred = family != (DEVICE if xp is not np else HOST)
        may_overwrite = transferred or not self.copy_X
        # LSQR and NNLS compute in float64 whatever X's dtype, as SciPy's do.
        out_dtype = X.dtype
        if solver != "lstsq" and X.dtype != np.float64:
            X, y = X.astype(np.float64), y.astype(np.float64)
            if sample_weight is not None:
                sample_weight = sample_weight.astype(np.float64)
            may_overwrite = True
        fitted = None
        if solver == "lstsq":
            fitted = _lstsq_device(
                X, y, sample_weight, fit_intercept=self.fit_intercept,
                tol=self.tol, xp=xp,
            )  # fmt: skip
        if fitted is not None:
            coef, intercept, extra = fitted
            self._set_fitted(coef, intercept, y.ndim, family)
            self.rank_, self.singular_ = extra[0], to_family(extra[1], family)
            return self
        with np.errstate(over="ignore", invalid="ignore"):
            problem = _make_problem(
                X,
                y,
                sample_weight,
                fit_intercept=self.fit_intercept,
                overwrite_X=may_overwrite,
                xp=xp,
            )
            coef, extra = _SOLVERS[solver](
                problem, tol=self.tol, n_jobs=self.n_jobs, xp=xp
            )
        intercept = problem.y_offset - coef @ problem.X_offset
        # scikit-learn's dtypes: coef_ in X's dtype when it fits an
        # intercept (and from lstsq always), the solver's float64 otherwise.
        if self.fit_intercept or solver == "lstsq":
            coef = coef.astype(out_dtype, copy=False)
        self._set_fitted(coef, intercept.astype(out_dtype), y.ndim, family)
        if extra is None:
            for name in ("rank_", "singular_"):
                self.__dict__.pop(name, None)
        else:
            rank, singular = extra
            self.rank_ = rank
            self.singular_ = to_family(singular.astype(out_dtype, copy=False), family)
        return self

    def _set_fitted(self, coef, intercept, y_ndim, family):
        # scikit-learn's shapes: one target of a 1-d y gives coef_ of shape
        # (n_features,) and a scalar intercept_ (a NumPy scalar of X's dtype,
        # a 0-d CuPy array for device input); a column vector keeps (1, p)
        # and (1,); no intercept gives the float 0.0.
        if y_ndim == 1:
            coef, intercept = coef[0], intercept[0]
        self.coef_ = to_family(coef, family)
        if not self.fit_intercept:
            self.intercept_ = 0.0
        else:
            intercept = to_family(intercept, family)
            if family == HOST and intercept.ndim == 0:
                intercept = intercept[()]
            self.intercept_ = intercept

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = not self.positive
        return tags
