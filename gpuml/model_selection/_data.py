"""The search's data layer: each input moved to where it is used, once.

A search reads its data through two *views* of the same inputs (``X``, ``y``,
the fit parameters and the scorers' metadata):

- the **host view**: the objects exactly as the user passed them when they
  are host data (a pandas DataFrame stays one, so column-based steps keep
  working), downloaded once when they were device arrays. Estimators that
  are not gpuml's read this view, as they would in scikit-learn.
- the **compute view**: the inputs held by the compute namespace ``xp``.
  With CuPy, host inputs are uploaded *once per search* here, and device
  inputs are used as they are (no copy); gpuml estimators and batched fits
  read this view, and every fold is a device index into it.

Each view is built on first use and kept, so data crosses the bus at most
once in each direction whatever the number of candidates and folds.

Inputs that are not numeric arrays (text documents, object columns) are not
uploaded: :func:`upload` leaves them on the host, and :func:`take` indexes
them there, so an estimator that reads documents (a vectorizer) still gets
each fold's documents. A cuDF string Series stays a Series on the device
(gpuml's vectorizers read it there; folds are its rows, taken by cuDF) and
is a pandas Series in the host view. An uploader for such inputs (for instance documents
encoded as one device byte buffer and offsets) plugs in at :func:`upload`.
"""

from __future__ import annotations

import threading
from types import ModuleType

import numpy as np
import scipy.sparse as sp
from sklearn.utils import _safe_indexing

from gpuml._array import (
    DEVICE,
    as_device_native,
    input_family,
    is_sparse,
    namespace_of,
    to_host,
    to_namespace,
)
from gpuml._backend import is_cudf_strings
from gpuml._sklearn_compat import num_samples


def _is_sample_aligned(value, n_samples: int) -> bool:
    """Whether a fit parameter is split with the samples (scikit-learn's rule)."""
    if value is None or isinstance(value, (str, bytes)) or np.isscalar(value):
        return False
    if not (hasattr(value, "__len__") or hasattr(value, "shape")):
        return False
    try:
        return num_samples(value) == n_samples
    except TypeError:
        return False


def indexable(value):
    """``value`` as a search can take rows of it, as scikit-learn's
    ``indexable`` makes it: sparse matrices (host or device) in CSR (COO, DIA
    and BSR cannot be indexed by rows), objects that cannot be indexed at all
    as NumPy arrays, anything else unchanged."""
    if is_sparse(value):
        return value if value.format == "csr" else value.tocsr()
    if value is None or hasattr(value, "__getitem__") or hasattr(value, "iloc"):
        return value
    return np.array(value)


def upload(value, xp: ModuleType):
    """``value`` held by ``xp`` when it is numeric data, else ``value`` itself.

    Device inputs (CuPy, cupyx sparse, cuDF, CUDA tensors) are wrapped
    without a copy; NumPy, pandas and SciPy sparse numeric data are copied
    once (integer or boolean sparse matrices become float64, the only dtypes
    cupyx sparse holds beside float32). Text and object data stay where they
    are.
    """
    if value is None:
        return None
    if is_cudf_strings(value):  # documents, read by the vectorizers
        return value
    if input_family(value) == DEVICE:
        value = as_device_native(value)
        return value if xp is namespace_of(value) else to_host(value)
    if xp is np:
        if sp.issparse(value) or isinstance(value, np.ndarray):
            return value
        array = np.asarray(value)
        return array if array.dtype.kind in "biuf" else value
    if sp.issparse(value):
        if value.dtype.kind not in "fc":
            value = value.astype(np.float64)
        return to_namespace(value, xp)
    array = value if isinstance(value, np.ndarray) else np.asarray(value)
    if array.dtype.kind not in "biuf":
        return value
    return to_namespace(array, xp)


def download(value):
    """``value`` as host data: the object itself unless it is device data."""
    if value is None or input_family(value) != DEVICE:
        return value
    if is_cudf_strings(value):
        return value.to_pandas()
    return to_host(as_device_native(value))


def host_split_params(split_params) -> dict:
    """The splitter's metadata as host data, those given (only ``y`` and
    these reach the host to draw the folds)."""
    return {k: download(v) for k, v in split_params.items() if v is not None}


def take(value, indices):
    """Rows ``indices`` of ``value``, indexed where ``value`` lives.

    Device arrays are indexed on the device (host ``indices`` are copied
    there; :meth:`DataView.indices` keeps such copies for indices used
    again); host objects of any kind go through
    :func:`sklearn.utils._safe_indexing`, as in scikit-learn's search, with
    host ``indices``.
    """
    if value is None:
        return None
    if hasattr(value, "shape") and namespace_of(value) is not np:
        from gpuml import _cuda

        xp = namespace_of(value)
        index = indices if is_sparse(value) else xp.asarray(indices)
        taken = _cuda.take_rows(value, index)  # no per-dtype compile
        return value[xp.asarray(indices)] if taken is None else taken
    return _safe_indexing(value, indices)


class DataView:
    """``X``, ``y``, fit parameters and score metadata as one view holds them
    (see above)."""

    def __init__(
        self, X, y, fit_params: dict, xp: ModuleType | None, score_params=None
    ):
        self.X = X
        self.y = y
        self.fit_params = fit_params
        self.score_params = {} if score_params is None else score_params
        self.xp = xp  # the namespace indices must be in (None: NumPy)
        self._indices: dict[int, object] = {}
        # Outputs of Pipelines' leading stateless steps on every row, by the
        # steps' parameters (model_selection._tasks): a refit reuses them.
        self.leads: dict = {}
        # Work on each fold's rows shared by the candidates whose first step
        # keeps it (UMAP's neighbours, the vectorizers' counts), by fold
        # (gpuml._fold_store).
        self.neighbours: dict = {}

    def indices(self, host_indices: np.ndarray):
        """``host_indices`` in this view's index namespace (kept per array)."""
        if self.xp is None or self.xp is np:
            return host_indices
        key = id(host_indices)
        cached = self._indices.get(key)
        if cached is None or cached[0] is not host_indices:
            index = np.asarray(host_indices)
            if index.dtype.kind in "iu":
                index = index.astype(np.int64, copy=False)  # gpuml's gather kernel
            cached = (host_indices, self.xp.asarray(index))
            self._indices[key] = cached
        return cached[1]

    def take(self, value, host_indices: np.ndarray):
        """Rows ``host_indices`` of ``value``, indexed where ``value`` lives:
        with this view's indices for device arrays, with the host indices for
        host data (string labels, metadata) that a device view keeps on the
        host."""
        if hasattr(value, "shape") and namespace_of(value) is not np:
            return take(value, self.indices(host_indices))
        return take(value, host_indices)

    def rows(self, host_indices: np.ndarray, *, pairwise_with=None):
        """``(X, y, fit_params)`` restricted to the given rows.

        For pairwise estimators (a precomputed kernel), ``pairwise_with``
        gives the training rows: the columns of ``X`` are restricted to
        them, as scikit-learn does (with its errors for an ``X`` that is not
        a square array).
        """
        if pairwise_with is not None:
            if not hasattr(self.X, "shape"):
                raise ValueError(
                    "Precomputed kernels or affinity matrices have "
                    "to be passed as arrays or sparse matrices."
                )
            if self.X.shape[0] != self.X.shape[1]:
                raise ValueError("X should be a square kernel matrix")
        X = self.take(self.X, host_indices)
        if pairwise_with is not None:
            X = X[:, self.indices(pairwise_with)]
        params = self.rows_of(self.fit_params, host_indices)
        return X, self.take(self.y, host_indices), params

    def score_rows(self, host_indices: np.ndarray) -> dict:
        """The scorers' metadata for the given rows (those with one entry per
        sample restricted to them, as scikit-learn's search does)."""
        return self.rows_of(self.score_params, host_indices)

    def rows_of(self, params: dict, host_indices: np.ndarray) -> dict:
        """``params`` for the given rows: the values with one entry per
        sample restricted to them, the others as they are."""
        return {
            k: self.take(v, host_indices)
            if _is_sample_aligned(v, self.n_samples)
            else v
            for k, v in params.items()
        }

    @property
    def n_samples(self) -> int:
        return num_samples(self.X)


class SearchData:
    """A search's inputs, with each view built once, on first use.

    Parameters
    ----------
    X, y, fit_params
        As passed to the search's ``fit`` (``fit_params``: those routed to
        the estimator's ``fit``); sparse matrices are held in CSR
        (:func:`indexable`).
    xp : module
        The compute namespace of the search.
    score_params : dict, default=None
        The metadata routed to the scorer (scikit-learn's ``score_params``).
        A value that is also a fit parameter (``sample_weight``, typically)
        is moved once for both.
    """

    def __init__(self, X, y, fit_params: dict, xp: ModuleType, score_params=None):
        self.X, self.y, self.xp = indexable(X), indexable(y), xp
        self.n_samples = num_samples(X)
        done: dict = {}
        self.fit_params = self._params_with(indexable, fit_params, done)
        self.score_params = self._params_with(indexable, score_params or {}, done)
        self.family = input_family(X)
        self._host: DataView | None = None
        self._compute: DataView | None = None
        # A Dask worker with several threads shares one SearchData between
        # its tasks: a view is built (uploaded) by one of them only.
        self._lock = threading.Lock()

    def _params_with(self, convert, params: dict, done=None) -> dict:
        """``params`` with ``convert`` applied to the per-sample values; one
        conversion per object across calls sharing ``done``."""
        done = {} if done is None else done

        def converted(value):
            if id(value) not in done:
                done[id(value)] = (value, convert(value))
            return done[id(value)][1]

        return {
            k: converted(v) if _is_sample_aligned(v, self.n_samples) else v
            for k, v in params.items()
        }

    def _view(self, convert, xp) -> DataView:
        done: dict = {}
        return DataView(
            convert(self.X),
            convert(self.y),
            self._params_with(convert, self.fit_params, done),
            xp,
            self._params_with(convert, self.score_params, done),
        )

    def host_view(self) -> DataView:
        """The inputs as host data (the user's own objects when host data)."""
        if self._host is None:
            self._host = self._view(download, np)
        return self._host

    def compute_view(self) -> DataView:
        """The inputs held by the compute namespace (uploaded once)."""
        if self._compute is None:
            xp = self.xp
            self._compute = self._view(lambda value: upload(value, xp), xp)
        return self._compute

    def view(self, on_compute: bool) -> DataView:
        with self._lock:
            return self.compute_view() if on_compute else self.host_view()
