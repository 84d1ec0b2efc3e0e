"""Pure SVD kernels shared by :class:`PCA` and :class:`TruncatedSVD`.

Every function takes the array namespace ``xp`` (NumPy or CuPy) and arrays
held by it, dense or sparse (SciPy or cupyx CSR/CSC). On the host the
factorisations are SciPy's LAPACK calls that scikit-learn makes, so results
agree with scikit-learn's to rounding; on the device they are cuSOLVER's
(``xp.linalg.svd``, ``xp.linalg.eigh``, ``xp.linalg.qr``).

- :func:`svd_flip_v`: scikit-learn's sign convention (``svd_flip`` with
  ``u_based_decision=False``): in each row of ``Vt`` the entry largest in
  absolute value is positive. scikit-learn 1.9's PCA (every solver) and
  TruncatedSVD (both algorithms) use this one.
- :func:`randomized_svd`: Halko et al.'s randomized range finder, step for
  step scikit-learn's ``_randomized_svd``. The Gaussian test matrix is drawn
  on the host by NumPy's ``RandomState`` (scikit-learn's
  ``check_random_state``) and copied to the device, so the same
  ``random_state`` gives the same draws as scikit-learn on either backend.
  The LU normalizer of the power iterations is SciPy's on the host; on the
  device it is a QR factorisation, which spans the same subspace (the
  result differs from the host's by rounding only).
- :func:`exact_svd` and :func:`sparse_gram_svd`: the exact truncated SVD
  that serves the ``'arpack'`` solver name (ARPACK itself is a host-only
  Fortran library). Dense data: a thin SVD. Sparse data: an eigendecomposition
  of the float64 Gram matrix of the smaller side, formed by sparse products
  (the data are never densified; the Gram matrix is
  ``min(n_samples, n_features)`` squared).
"""

from __future__ import annotations

from math import lgamma, log
from types import ModuleType

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import ArpackError

from gpuml._array import is_sparse, to_host
from gpuml._linalg import sparse_gram, thin_svd


def svd_full(A, xp: ModuleType):
    """Thin SVD ``(U, s, Vt)`` of a dense matrix: SciPy's ``gesdd`` on the
    host (scikit-learn's call), cuSOLVER on the device (a QR first for a
    tall matrix)."""
    if xp is np:
        return scipy.linalg.svd(A, full_matrices=False)
    return thin_svd(A, xp)


def svd_flip_v(U, Vt, xp: ModuleType):
    """Flip signs so that each row of ``Vt``'s largest absolute entry is
    positive (``U``'s columns alike; ``U`` may be None). New arrays."""
    rows = xp.arange(Vt.shape[0])
    signs = xp.sign(Vt[rows, xp.argmax(xp.abs(Vt), axis=1)])
    if U is not None:
        U = U * signs[None, :]
    return U, Vt * signs[:, None]


def _qr(A, xp: ModuleType):
    if xp is np:
        return scipy.linalg.qr(A, mode="economic", check_finite=False)[0]
    return xp.linalg.qr(A, mode="reduced")[0]


def _lu(A, xp: ModuleType):
    if xp is np:
        return scipy.linalg.lu(A, permute_l=True, check_finite=False)[0]
    return _qr(A, xp)  # the same subspace (see the module docstring)


def _product(M, Q):
    """``M @ Q`` as a dense array, ``M`` dense or sparse."""
    out = M @ Q
    return out.toarray() if is_sparse(out) else out


def randomized_range_finder(M, size, n_iter, normalizer, random_state, xp):
    """An orthonormal basis of (approximately) ``M``'s dominant range."""
    Q = random_state.normal(size=(M.shape[1], size))
    if M.dtype == np.float32:
        Q = Q.astype(np.float32)
    Q = xp.asarray(Q)
    if normalizer == "auto":
        normalizer = "none" if n_iter <= 2 else "LU"
    normalize = {"QR": _qr, "LU": _lu, "none": lambda A, xp: A}[normalizer]
    Mt = M.T
    for _ in range(n_iter):
        Q = normalize(_product(M, Q), xp)
        Q = normalize(_product(Mt, Q), xp)
    return _qr(_product(M, Q), xp)


def randomized_svd(
    M, n_components, *, n_oversamples, n_iter, normalizer, random_state, xp
):
    """scikit-learn's ``_randomized_svd(..., flip_sign=False)``: the truncated
    ``(U, s, Vt)`` of dense or sparse ``M``; ``random_state`` a NumPy
    ``RandomState``."""
    n_random = n_components + n_oversamples
    n_samples, n_features = M.shape
    if n_iter == "auto":
        n_iter = 7 if n_components < 0.1 * min(M.shape) else 4
    transpose = n_samples < n_features
    if transpose:
        M = M.T
    Q = randomized_range_finder(M, n_random, n_iter, normalizer, random_state, xp)
    B = _product(M.T, Q).T  # Q.T @ M, with the sparse operand on the left
    if xp is np:
        Uhat, s, Vt = scipy.linalg.svd(B, full_matrices=False, lapack_driver="gesdd")
    else:
        Uhat, s, Vt = xp.linalg.svd(B, full_matrices=False)
    U = Q @ Uhat
    k = n_components
    if transpose:
        return Vt[:k, :].T, s[:k], U[:, :k].T
    return U[:, :k], s[:k], Vt[:k, :]


def check_arpack_start(S, dtype) -> None:
    """scikit-learn's ``"arpack"`` error where the largest singular value's
    square is 0 in ``dtype`` (data without variance, or so small that the
    squares underflow): ARPACK's first product of the Gram operator with
    its starting vector is then zero, and scipy's ``svds`` raises
    ``ArpackError`` -9 ("Starting vector is zero.") rather than returning
    components that describe nothing of the data."""
    top = float(to_host(S.max())) if S.shape[0] else 0.0
    if np.asarray(top, dtype=dtype) ** 2 == 0:
        raise ArpackError(-9, {-9: "Starting vector is zero."})


def exact_svd(X, n_components, xp: ModuleType):
    """The ``n_components`` leading singular triplets of dense ``X``, exactly
    (a thin SVD, truncated)."""
    U, s, Vt = svd_full(X, xp)
    k = n_components
    return U[:, :k], s[:k], Vt[:k]


def _eigh(M, xp: ModuleType):
    """``xp.linalg.eigh(M)``, raising NumPy's ``LinAlgError`` where its
    eigenvalues are not finite (a matrix with NaN): LAPACK's driver raises it
    on the host, cuSOLVER returns the NaNs (scikit-learn's covariance_eigh
    raises, so gpuml's does on either device)."""
    evals, evecs = xp.linalg.eigh(M)
    if not bool(xp.isfinite(evals).all()):
        raise np.linalg.LinAlgError("Eigenvalues did not converge")
    return evals, evecs


def sparse_gram_svd(X, n_components, xp: ModuleType):
    """The ``n_components`` leading singular triplets of sparse ``X``, exactly,
    from the float64 eigendecomposition of the Gram matrix of its smaller
    side; in ``X``'s dtype. ``U`` is None (callers project ``X`` on ``Vt``).

    A singular value below ``n * eps * s_max`` of a wide matrix has no
    well-defined right singular vector from the left Gram matrix: its row
    of ``Vt`` is zero (exact rank deficiency; the data span fewer
    directions than asked for).
    """
    n_samples, n_features = X.shape
    X64 = X.astype(xp.float64)
    wide = n_features > n_samples
    gram = sparse_gram(X64.T if wide else X64, None, xp)
    evals, evecs = _eigh(gram, xp)
    k = n_components
    evals = xp.flip(evals, axis=0)[:k]
    evecs = xp.flip(evecs, axis=1)[:, :k]
    s = xp.sqrt(xp.maximum(evals, 0.0))
    if wide:  # evecs are left singular vectors: V = Xᵀ U / s
        floor = max(X.shape) * np.finfo(np.float64).eps * s[0]
        scale = xp.where(s > floor, s, xp.inf)
        Vt = _product(X64.T, evecs).T / scale[:, None]
    else:
        Vt = evecs.T
    return None, s.astype(X.dtype), xp.ascontiguousarray(Vt).astype(X.dtype)


def sparse_covariance(X, mean, xp: ModuleType):
    """Dense covariance (ddof=1) of sparse ``X`` around ``mean``, in X's
    dtype, without densifying ``X``."""
    n_samples = X.shape[0]
    C = sparse_gram(X, None, xp).astype(X.dtype)
    C -= n_samples * mean[:, None] * mean[None, :]
    C /= n_samples - 1
    return C


def covariance_eigh(X, mean, xp: ModuleType):
    """scikit-learn's ``covariance_eigh`` solver: the eigenvalues (descending,
    clipped at 0) and eigenvectors (rows of ``Vt``) of the covariance of
    ``X`` (dense or sparse)."""
    n_samples = X.shape[0]
    if is_sparse(X):
        C = sparse_covariance(X, mean, xp)
    else:
        C = X.T @ X
        C -= n_samples * mean[:, None] * mean[None, :]
        C /= n_samples - 1
    evals, evecs = _eigh(C, xp)
    evals = xp.flip(evals, axis=0)
    evecs = xp.flip(evecs, axis=1)
    evals = xp.where(evals < 0.0, xp.zeros_like(evals), evals)
    return evals, xp.ascontiguousarray(evecs.T)


# --------------------------------------------------------------------------
# Minka's MLE of the dimension (on the host: a spectrum of n_features values)
# --------------------------------------------------------------------------


def assess_dimension(spectrum: np.ndarray, rank: int, n_samples: int) -> float:
    """Log-likelihood of a rank ``rank`` model of the spectrum (Minka, 2000);
    scikit-learn's ``_assess_dimension``, its pairwise sum vectorised."""
    n_features = spectrum.shape[0]
    if not 1 <= rank < n_features:
        raise ValueError("the tested rank should be in [1, n_features - 1]")
    eps = 1e-15
    if spectrum[rank - 1] < eps:
        return -np.inf
    pu = -rank * log(2.0)
    for i in range(1, rank + 1):
        pu += (
            lgamma((n_features - i + 1) / 2.0) - log(np.pi) * (n_features - i + 1) / 2.0
        )
    pl = -float(np.sum(np.log(spectrum[:rank]))) * n_samples / 2.0
    v = max(eps, float(np.sum(spectrum[rank:])) / (n_features - rank))
    pv = -log(v) * n_samples * (n_features - rank) / 2.0
    m = n_features * rank - rank * (rank + 1.0) / 2.0
    pp = log(2.0 * np.pi) * (m + rank) / 2.0
    spectrum_ = spectrum.copy()
    spectrum_[rank:] = v
    i, j = np.triu_indices(n_features, k=1)
    keep = i < rank
    i, j = i[keep], j[keep]
    terms = (spectrum[i] - spectrum[j]) * (1.0 / spectrum_[j] - 1.0 / spectrum_[i])
    if terms.size and not bool(np.all(terms > 0)):
        raise ValueError("math domain error")  # scikit-learn's math.log's error
    pa = float(np.sum(np.log(terms))) + terms.size * log(n_samples)
    return pu + pl + pv + pp - pa / 2.0 - rank * log(n_samples) / 2.0


def infer_dimension(spectrum, n_samples: int) -> int:
    """The rank in ``[1, n_features - 1]`` of highest likelihood."""
    spectrum = np.asarray(to_host(spectrum), dtype=np.float64)
    ll = np.empty_like(spectrum)
    ll[0] = -np.inf  # n_components = 0 is never chosen
    for rank in range(1, spectrum.shape[0]):
        ll[rank] = assess_dimension(spectrum, rank, n_samples)
    return int(np.argmax(ll))
