"""Dense and sparse linear algebra that differs between NumPy and CuPy.

Everything else is written once against ``xp``; the few operations whose
best implementation lives in different places (SciPy's LAPACK wrappers on
the host, cuSOLVER through CuPy on the device) are dispatched here.
"""

from __future__ import annotations

import contextlib
from types import ModuleType

import numpy as np
import scipy.linalg
import scipy.sparse as sp

from gpuml import _cuda
from gpuml._backend import get_cupy, import_cupyx


def cho_solve(A, B, xp: ModuleType, *, check_pivots: bool = True):
    """Solve ``A X = B`` for symmetric positive definite ``A`` by Cholesky.

    Raises ``numpy.linalg.LinAlgError`` when ``A`` is not numerically
    positive definite (on both backends, by the same test), so that callers
    can fall back to a solver that handles singular systems: either the
    factorisation fails or gives a non-finite pivot, or (with
    ``check_pivots``) a pivot is so small relative to the largest that the
    solution would be dominated by rounding. A caller whose ``A`` is
    positive definite by construction (a ridge system with a positive
    penalty) passes ``check_pivots=False``: the test is then made on the
    pivots of the diagonally scaled matrix, so that an ill-conditioned but
    graded system is solved as LAPACK's Cholesky solves it.
    """
    if xp is np:
        L = scipy.linalg.cholesky(A, lower=True, check_finite=False)
        solve_triangular = scipy.linalg.solve_triangular
    else:
        solve_triangular = import_cupyx("scipy.linalg").solve_triangular
        with import_cupyx().errstate(linalg="raise"):
            L = xp.linalg.cholesky(A)
    pivots = xp.abs(xp.diagonal(L))
    tiny = A.shape[0] * np.finfo(A.dtype).eps
    usable = xp.isfinite(pivots).all() & (pivots.min() > 0)
    if check_pivots:
        usable &= pivots.min() ** 2 > tiny * pivots.max() ** 2
    else:
        # Scale-free: the pivots of D^-1/2 A D^-1/2 (D = diag(A)). A graded
        # system (one huge feature) passes; one whose rows other than a
        # dominant one were lost to rounding (an extreme weight) does not.
        # (rounding leaves scaled pivots of a few eps: a margin of 1e3)
        usable &= (pivots**2 / xp.abs(xp.diagonal(A))).min() > 1e3 * tiny
    if not bool(usable):
        raise np.linalg.LinAlgError("matrix is singular to working precision")
    Z = solve_triangular(L, B, lower=True)
    return solve_triangular(L.T, Z, lower=False)


def thin_svd(A, xp: ModuleType, *, host_max: int = 0):
    """Thin SVD ``A = U diag(s) Vt``; tall matrices go through a QR first.

    For ``n_rows >> n_cols`` the QR reduces the SVD to a small square problem,
    which is much faster on the GPU than a direct SVD of the tall matrix.

    On CuPy, that small problem (or ``A`` itself, when it is not tall) is
    decomposed on the host by LAPACK, as on NumPy, when it has at most
    ``host_max`` columns. LAPACK finds the small singular values of a graded
    matrix (a row scaled by an extreme weight) to their own precision, as
    scikit-learn's SVD solver relies on; an SVD accurate only relative to
    the largest singular value (``gesvd`` on the GPU need be no better)
    keeps the dominant row's direction and loses the others' (issue 33).
    """
    n_rows, n_cols = A.shape
    on = np if xp is not np and n_cols <= host_max else xp
    if n_rows > 2 * n_cols:
        Q, R = xp.linalg.qr(A, mode="reduced")
        U_r, s, Vt = _svd(R, xp, on)
        return Q @ U_r, s, Vt
    return _svd(A, xp, on)


def _svd(A, xp: ModuleType, on: ModuleType):
    """``xp.linalg.svd(A)``, computed in ``on`` (NumPy: SciPy's LAPACK)."""
    if on is not np:
        return xp.linalg.svd(A, full_matrices=False)
    if xp is not np:
        A = xp.asnumpy(A)
    # A NaN or an infinity (an overflow in the QR before) raises SciPy's
    # "array must not contain infs or NaNs", scikit-learn's error for a
    # non-finite system, rather than LAPACK's answer to a non-finite input.
    U, s, Vt = scipy.linalg.svd(A, full_matrices=False, check_finite=True)
    return xp.asarray(U), xp.asarray(s), xp.asarray(Vt)


def sparse_module(xp: ModuleType) -> ModuleType:
    """``scipy.sparse`` for NumPy, ``cupyx.scipy.sparse`` for CuPy."""
    return sp if xp is np else import_cupyx("scipy.sparse")


def dense_to_csr(X, xp: ModuleType):
    """Dense 2-d ``X`` as a CSR matrix of its nonzero values, with the
    column indices of each row in increasing order, as SciPy builds it
    (cupyx's own conversion, through cuSPARSE, leaves them unsorted)."""
    if xp is np:
        return sp.csr_matrix(X)
    rows, cols = xp.nonzero(X)  # row-major order
    index = xp.int32 if rows.shape[0] < 2**31 else xp.int64
    indptr = xp.zeros(X.shape[0] + 1, dtype=index)
    if rows.shape[0]:  # cupy.bincount cannot take an empty array
        indptr[1:] = xp.cumsum(xp.bincount(rows, minlength=X.shape[0]))
    return sparse_module(xp).csr_matrix(
        (X[rows, cols], cols.astype(index), indptr), shape=X.shape
    )


def sparse_t_dot(X, V, xp: ModuleType):
    """``X.T @ V`` for sparse ``X``, the same bits at every call: on the
    device through the transpose made CSR (cuSPARSE multiplies by a
    transposed matrix adding with atomics, in an order that varies from run
    to run)."""
    if xp is np:
        return X.T @ V
    return X.T.tocsr() @ V


def sparse_coords(X, xp: ModuleType):
    """Row and column index of every stored value of a CSR or CSC matrix."""
    n_stored = X.indices.shape[0]
    major = xp.searchsorted(X.indptr[1:], xp.arange(n_stored), side="right")
    if X.format == "csr":
        return major, X.indices
    return X.indices, major


def sparse_gram(X, weights, xp: ModuleType):
    """Dense ``X.T @ diag(weights) @ X`` for a sparse ``X`` (weights may be None)."""
    if weights is not None:
        X = sparse_module(xp).diags(xp.sqrt(weights)) @ X
    gram = X.T @ X
    return gram.toarray() if hasattr(gram, "toarray") else xp.asarray(gram)


def eigh(A, xp: ModuleType):
    """Eigendecomposition of a symmetric matrix: ``(eigenvalues, eigenvectors)``."""
    if xp is np:
        return scipy.linalg.eigh(A, check_finite=False)
    return xp.linalg.eigh(A)


def device_eigh(A):
    """``(eigenvalues, V)`` of a symmetric float32/float64 CuPy matrix by one
    cuSOLVER ``syevd`` call, eigenvalues ascending and the eigenvectors the
    *rows* of ``V`` (C order).

    A C-ordered symmetric matrix is its own column-major layout, so the
    input is copied with a memcpy and handed to cuSOLVER as it is, and the
    column-major eigenvectors it returns are the rows of ``V``: no CuPy
    kernel runs (``cupy.linalg.eigh`` compiles a layout copy on first use).
    Raises ``numpy.linalg.LinAlgError`` when cuSOLVER does not converge.
    """
    from cupy_backends.cuda.libs import cublas, cusolver

    cupy = get_cupy()
    n = A.shape[0]
    V = _cuda.copy(cupy.ascontiguousarray(A))
    w = cupy.empty(n, dtype=A.dtype)
    info = cupy.zeros(1, dtype=cupy.int32)
    single = A.dtype == np.float32
    size = cusolver.ssyevd_bufferSize if single else cusolver.dsyevd_bufferSize
    solve = cusolver.ssyevd if single else cusolver.dsyevd
    handle = cupy.cuda.device.get_cusolver_handle()
    jobz = cusolver.CUSOLVER_EIG_MODE_VECTOR
    lower = cublas.CUBLAS_FILL_MODE_LOWER
    lwork = size(handle, jobz, lower, n, V.data.ptr, n, w.data.ptr)
    work = cupy.empty(max(lwork, 1), dtype=A.dtype)
    solve(
        handle,
        jobz,
        lower,
        n,
        V.data.ptr,
        n,
        w.data.ptr,
        work.data.ptr,
        lwork,
        info.data.ptr,
    )
    if int(info.get()[0]) != 0:
        raise np.linalg.LinAlgError("cuSOLVER syevd did not converge")
    return w, V


def warm_libraries(device: int) -> None:
    """Load and set up cuBLAS and cuSOLVER for ``device`` (in any thread).

    A process's first GEMM and first eigendecomposition pay for the
    libraries' start-up (0.15-0.34 s and 0.07-0.17 s on an H100, once per
    process), which is process-wide state: done by a background thread
    (:func:`gpuml._array.compute_namespace`), it overlaps the first fit's
    data copy instead of following it.
    """
    cupy = get_cupy()
    with cupy.cuda.Device(device):
        for dtype in (np.float32, np.float64):
            a = cupy.zeros((2, 2), dtype=dtype)  # a memset, no kernel
            device_eigh(a @ a)
        cupy.cuda.get_current_stream().synchronize()


def block_grams(Zw, Z, block: int):
    """``parts[b] = Zw[rows b]ᵀ Z[rows b]`` for each block of ``block`` rows
    of two C-contiguous (n, m) float32/float64 CuPy matrices (``n`` a
    multiple of ``block``): a (n // block, m, m) array, by one cuBLAS
    strided-batched GEMM.

    ``Zwᵀ Z`` for a tall, narrow ``Z`` is one GEMM with a small output, which
    cuBLAS spreads over only a few thread blocks (a tenth of an H100 for
    m = 258); cut into row blocks, every block's product runs at once and
    the caller adds the blocks up (in float64, more accurately too).
    """
    from cupy_backends.cuda.libs import cublas

    cupy = get_cupy()
    n, m = Z.shape
    blocks = n // block
    parts = cupy.empty((blocks, m, m), dtype=Z.dtype)
    if blocks == 0 or m == 0:
        return parts
    single = Z.dtype == np.float32
    one, zero = (np.ones(1, Z.dtype), np.zeros(1, Z.dtype))
    gemm = cublas.sgemmStridedBatched if single else cublas.dgemmStridedBatched
    handle = cupy.cuda.device.get_cublas_handle()
    with _host_scalars(handle):
        # Column-major, a block of a C-ordered (rows, m) matrix is its (m,
        # rows) transpose A; the column-major A_z A_wᵀ is the C-ordered
        # Zw_bᵀ Z_b.
        gemm(
            handle,
            cublas.CUBLAS_OP_N,
            cublas.CUBLAS_OP_T,
            m,
            m,
            block,
            one.ctypes.data,
            Z.data.ptr,
            m,
            block * m,
            Zw.data.ptr,
            m,
            block * m,
            zero.ctypes.data,
            parts.data.ptr,
            m,
            m * m,
            blocks,
        )
    return parts


def add_products(C, A, B) -> None:
    """``C += Aᵀ B`` in place, for C-contiguous float64 CuPy matrices ``A``
    and ``B`` of shape (k, m) and ``C`` of shape (m, m): one cuBLAS GEMM
    (``k = 1`` gives a rank-one update)."""
    from cupy_backends.cuda.libs import cublas

    cupy = get_cupy()
    k, m = A.shape
    if k == 0 or m == 0:
        return
    one = np.ones(1)
    handle = cupy.cuda.device.get_cublas_handle()
    with _host_scalars(handle):
        # Column-major, the C-ordered (k, m) A and B are (m, k) matrices Aᶜ
        # and Bᶜ, and C's transpose Cᶜ += Bᶜ Aᶜᵀ is the C-ordered C += Aᵀ B.
        cublas.dgemm(
            handle,
            cublas.CUBLAS_OP_N,
            cublas.CUBLAS_OP_T,
            m,
            m,
            k,
            one.ctypes.data,
            B.data.ptr,
            m,
            A.data.ptr,
            m,
            one.ctypes.data,
            C.data.ptr,
            m,
        )


@contextlib.contextmanager
def _host_scalars(handle):
    """cuBLAS reads ``alpha`` and ``beta`` from host memory on ``handle``
    meanwhile (its pointer mode restored after)."""
    from cupy_backends.cuda.libs import cublas

    mode = cublas.getPointerMode(handle)
    cublas.setPointerMode(handle, cublas.CUBLAS_POINTER_MODE_HOST)
    try:
        yield
    finally:
        cublas.setPointerMode(handle, mode)


def block_cg(apply, B, *, tol: float, max_iter: int, xp: ModuleType):
    """Conjugate gradients for several right-hand sides at once.

    Solves ``apply(X) = B`` column by column, where ``apply`` maps a
    ``(n, k)`` array to ``(n, k)`` and is symmetric positive definite on each
    column (columns may have different operators, e.g. different ridge
    penalties). All columns advance together in one matrix product per
    iteration; a column stops moving once ``||r|| <= tol * ||b||``.

    Returns
    -------
    X : array of shape (n, k)
    n_iter : ndarray of shape (k,)
        Iterations each column took (host NumPy array).
    converged : bool
    """
    k = B.shape[1]
    X = xp.zeros_like(B)
    R = B.copy()
    P = R.copy()
    rs = (R * R).sum(axis=0)
    threshold = (tol * tol) * (B * B).sum(axis=0)
    active = rs > threshold
    n_iter = xp.zeros(k, dtype=xp.int64)
    for _ in range(max_iter):
        if not bool(active.any()):  # one scalar to the host per iteration
            break
        AP = apply(P)
        pAp = (P * AP).sum(axis=0)
        step = xp.where(active, rs / xp.where(active, pAp, 1), 0)
        X += step * P
        R -= step * AP
        rs_new = (R * R).sum(axis=0)
        beta = xp.where(active, rs_new / xp.where(active, rs, 1), 0)
        P = R + beta * P
        rs = xp.where(active, rs_new, rs)
        n_iter += active
        active = active & (rs > threshold)
    converged = not bool(active.any())
    return X, np.asarray(n_iter.tolist()), converged
