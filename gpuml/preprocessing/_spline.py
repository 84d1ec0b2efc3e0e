""":class:`SplineTransformer`: univariate B-spline bases of each feature.

It subclasses scikit-learn's class, so that parameter validation, ``fit``
(the knots: uniform or weighted quantiles, or given; the extension of the
knots beyond the base interval; the periodic coefficients),
``get_feature_names_out`` and their errors are scikit-learn's own. ``fit``
runs on the host (device data are copied there once): it finds a handful
of knots per feature, and ``bsplines_`` holds SciPy ``BSpline`` objects
whatever the family of the training data.

``transform`` computes the design matrix in the compute namespace ``xp``
(see :func:`gpuml.set_config`), as SciPy does for one value at a time
(``BSpline.__call__`` and ``BSpline.design_matrix``), vectorised over
samples and features at once:

- each value's knot interval ``ell`` (``t[ell] <= x < t[ell + 1]``,
  clamped to the base interval as SciPy's ``find_interval`` does) is one
  ``searchsorted`` per feature;
- the ``degree + 1`` B-splines that do not vanish there,
  ``B[ell - degree] .. B[ell]``, follow from Cox-de Boor's recursion in
  SciPy's form (``_deBoor_D``: the same operations in the same order, so
  float64 results agree to the last bit), a few array operations per step
  of a ``degree x degree`` loop;
- every extrapolation mode then says, per value, which ``degree + 1``
  columns of its feature's block receive which values ("slots"):
  ``'constant'`` and ``'linear'`` put the splines' values (and slopes),
  found by SciPy at the two ends of the base interval on the host, on the
  first or last ``degree`` columns; ``'periodic'`` maps the values into
  the base interval and wraps the last ``degree`` columns onto the first;
- the slots are scattered into a dense block (float64, cast to the output
  dtype once, as scikit-learn assigns SciPy's float64 values) or gathered
  into a CSR matrix (float64, as scikit-learn's).

scikit-learn's own ``transform`` runs on the host, the result moved to
the input's family, in two rare configurations: ``degree=0`` with
``extrapolation='constant'``, and ``degree=0`` with
``extrapolation='periodic'`` and ``sparse_output=True`` (scikit-learn's
code fails or fills odd columns there: its result or error is kept), and
any input for which scikit-learn raises (values beyond the knots with
``extrapolation='error'``, ...), so that its error is raised.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
import scipy.sparse as sp
from sklearn.preprocessing import SplineTransformer as _SkSplineTransformer
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    compute_namespace,
    input_family,
    to_family,
    to_namespace,
    to_output,
)
from gpuml._backend import import_cupyx
from gpuml._sklearn_compat import align_sparse_output
from gpuml._validation import validate_data
from gpuml.base import DeviceCacheMixin
from gpuml.preprocessing._encoders import _host_input, _in_family

_OUTPUT_FLOATS = ("float16", "float32", "float64")

# --------------------------------------------------------------------------
# Kernels: pure functions of ``xp`` arrays
# --------------------------------------------------------------------------


def knot_intervals(x, knots, degree: int, xp: ModuleType):
    """``ell`` (int64, the shape of ``x``) with ``knots[j, ell] <= x[:, j] <
    knots[j, ell + 1]``, clamped to ``[degree, n_knots - degree - 2]``
    (SciPy's ``find_interval``: values beyond the base interval take its
    first or last piece; NaN the last)."""
    n_t = knots.shape[1]
    ell = xp.empty(x.shape, dtype=xp.int64)
    for j in range(x.shape[1]):
        ell[:, j] = xp.searchsorted(knots[j], x[:, j], side="right")
    return xp.clip(ell - 1, degree, n_t - degree - 2)


def nonzero_basis(x, knots, ell, degree: int, xp: ModuleType, *, empty_spans=True):
    """The ``degree + 1`` B-splines of ``knots`` that do not vanish at
    ``x``: ``out[a]`` is ``B[ell - degree + a](x)`` (shape
    ``(degree + 1,) + x.shape``, float64).

    SciPy's ``_deBoor_D`` (with no derivative), elementwise: each step
    divides the last level's value by a knot span and splits it between
    two neighbours; a span of zero length gives zero (as SciPy's), looked
    for only where ``empty_spans`` (the knots of a constant feature).
    """
    n_t = knots.shape[1]
    flat = knots.ravel()
    base = ell + (xp.arange(x.shape[1], dtype=xp.int64) * n_t)[None, :]
    # t[ell + d] for d in 1 - degree .. degree, gathered once each
    near = {d: flat[base + d] for d in range(1 - degree, degree + 1)}
    # h[a] is one array per slot: each step reads the last step's values
    # (hh) and replaces the slots it writes, so nothing is copied
    h = [xp.ones(x.shape, dtype=xp.float64)]
    for j in range(1, degree + 1):
        hh = h
        h = [xp.zeros(x.shape, dtype=xp.float64), *hh[1:], None]
        for m in range(1, j + 1):
            xb, xa = near[m], near[m - j]
            if not empty_spans:
                w = hh[m - 1] / (xb - xa)
                h[m - 1] = h[m - 1] + w * (xb - x)
                h[m] = w * (x - xa)
                continue
            span = xb - xa
            empty = span == 0
            w = hh[m - 1] / xp.where(empty, 1.0, span)
            h[m - 1] = xp.where(empty, h[m - 1], h[m - 1] + w * (xb - x))
            h[m] = xp.where(empty, 0.0, w * (x - xa))
    return xp.stack(h)


def periodic_values(x, knots, degree: int, xp: ModuleType):
    """``x`` mapped into the base interval ``[t[k], t[n]]`` as
    scikit-learn maps it: ``t[k] + (x - t[k]) % (t[n] - t[k])`` with
    NumPy's floating remainder (``fmod``, plus the divisor where the signs
    differ); zero for a feature of period zero."""
    low = knots[:, degree][None, :]
    period = (knots[:, knots.shape[1] - degree - 1] - knots[:, degree])[None, :]
    positive = period > 0
    safe = xp.where(positive, period, 1.0)
    mod = xp.fmod(x - low, safe)
    mod = xp.where(mod < 0, mod + safe, mod)
    return xp.where(positive, low + mod, 0.0)


def spline_slots(x, missing, knots, tables, *, degree, n_splines, extrapolation, xp):
    """``(columns, values, keep, undefined)`` of the design matrix of ``x``
    (float64, ``n_samples x n_features``): value ``(i, j)`` puts
    ``values[a, i, j]`` in column ``columns[a, i, j]`` of feature ``j``'s
    block, for the slots ``a`` where ``keep`` holds (others are zero);
    ``undefined`` marks the values whose whole block scikit-learn fills
    with NaN (SciPy's result for a non-finite basis), or is None.

    ``missing`` marks the NaN values (their blocks are zero); ``tables``
    are the boundary values and slopes of ``'constant'`` and ``'linear'``
    (:meth:`SplineTransformer._tables`).
    """
    slot = xp.arange(degree + 1, dtype=xp.int64)[:, None, None]
    n_t = knots.shape[1]
    empty = tables["empty_spans"]
    if extrapolation in ("constant", "linear"):
        xmin = knots[:, degree][None, :]
        xmax = knots[:, n_t - degree - 1][None, :]
        inside = (xmin <= x) & (x <= xmax)
        below, above = x < xmin, x > xmax
        x_eval = xp.where(inside, x, xmin)
        ell = knot_intervals(x_eval, knots, degree, xp)
        basis = nonzero_basis(x_eval, knots, ell, degree, xp, empty_spans=empty)
        values = xp.where(inside, basis, 0.0)
        columns = ell[None] - degree + slot
        count = tables["count"]
        low, high = tables["low"][:, None, :], tables["high"][:, None, :]
        if extrapolation == "linear":
            low = low + (x - xmin)[None] * tables["low_slope"][:, None, :]
            high = high + (x - xmax)[None] * tables["high_slope"][:, None, :]
        used = slot < count
        values = xp.where(below[None], xp.where(used, low, 0.0), values)
        values = xp.where(above[None], xp.where(used, high, 0.0), values)
        columns = xp.where(below[None], slot, columns)
        columns = xp.where(above[None], n_splines - 1 - slot, columns)
        keep = inside[None] | ((below | above)[None] & used)
        return columns, values, keep, None
    periodic = extrapolation == "periodic"
    x_eval = periodic_values(x, knots, degree, xp) if periodic else x
    ell = knot_intervals(x_eval, knots, degree, xp)
    values = nonzero_basis(x_eval, knots, ell, degree, xp, empty_spans=empty)
    columns = ell[None] - degree + slot
    if periodic:
        columns = columns % n_splines
    present = ~missing
    undefined = present & ~xp.all(xp.isfinite(values), axis=0)
    values = xp.where(present[None], values, 0.0)
    keep = xp.broadcast_to(present[None], values.shape)
    return columns, values, keep, undefined


def dense_design(columns, values, undefined, *, n_splines, include_bias, xp):
    """The float64 ``n_samples x (n_features * width)`` design matrix of
    the slots (:func:`spline_slots`); ``width`` drops each block's last
    column without ``include_bias``."""
    n_slots, n_samples, n_features = values.shape
    out = xp.zeros((n_samples, n_features, n_splines), dtype=xp.float64)
    cell = xp.arange(n_samples * n_features, dtype=xp.int64).reshape(
        n_samples, n_features
    )
    index = cell * n_splines + columns  # into out.ravel(), slot by slot
    flat = out.reshape(-1)
    if n_splines > n_slots - 1:
        # a value's columns are distinct (periodic ones wrap onto distinct
        # columns too): one scatter
        flat[index.ravel()] = values.ravel()
    else:  # periodic with n_splines == degree: a column taken twice, summed
        for a in range(n_slots):
            flat[index[a]] += values[a]
    if undefined is not None:
        out[undefined] = np.nan
    if not include_bias:
        out = out[:, :, :-1]
    return out.reshape(n_samples, -1)


def csr_design(columns, values, keep, *, n_splines, include_bias, xp):
    """The CSR design matrix of the slots (:func:`spline_slots`): a SciPy
    or cupyx ``csr_matrix`` of float64 values, indices sorted, duplicates
    (periodic columns taken twice) summed."""
    n_slots, n_samples, n_features = values.shape
    width = n_splines if include_bias else n_splines - 1
    if not include_bias:
        keep = keep & (columns != n_splines - 1)
    order = (1, 2, 0)  # row, feature, slot: entries come out row by row
    keep = xp.transpose(keep, order).ravel()
    offset = (xp.arange(n_features, dtype=xp.int64) * width)[None, :, None]
    cols = (xp.transpose(columns, order) + offset).ravel()[keep]
    rows = xp.broadcast_to(
        xp.arange(n_samples, dtype=xp.int64)[:, None, None],
        (n_samples, n_features, n_slots),
    ).ravel()[keep]
    data = xp.transpose(values, order).ravel()[keep]
    sparse = sp if xp is np else import_cupyx("scipy.sparse")
    shape = (n_samples, n_features * width)
    index = xp.int32 if max(*shape, data.shape[0]) < 2**31 else xp.int64
    rows, cols = rows.astype(index), cols.astype(index)
    matrix = sparse.coo_matrix((data, (rows, cols)), shape=shape).tocsr()
    matrix.sum_duplicates()
    return matrix


# --------------------------------------------------------------------------
# Estimator
# --------------------------------------------------------------------------


class SplineTransformer(DeviceCacheMixin, _SkSplineTransformer):
    """Generate univariate B-spline bases for features.

    scikit-learn's :class:`sklearn.preprocessing.SplineTransformer` (same
    parameters, attributes, results and errors; it is its subclass), whose
    :meth:`transform` runs on the GPU when one is used (see
    :func:`gpuml.set_config`) and returns data in the family of the input:
    NumPy (or a SciPy CSR matrix) for host data, CuPy (or a cupyx CSR
    matrix) for device data. ``fit`` runs scikit-learn's code on the host
    (device data are copied there once): ``bsplines_`` are SciPy objects.

    Each feature gives ``n_splines = n_knots + degree - 1`` columns
    (``n_knots - 1`` with ``extrapolation='periodic'``), one less without
    ``include_bias``.

    Parameters
    ----------
    n_knots : int, default=5
        Number of knots of the splines if `knots` is 'uniform' or
        'quantile' (at least 2). Ignored if `knots` is array-like.

    degree : int, default=3
        The polynomial degree of the spline basis (non-negative).

    knots : {'uniform', 'quantile'} or array-like of shape \
(n_knots, n_features), default='uniform'
        Knot positions: equidistant between the minimum and maximum of
        each feature, at its quantiles (weighted by ``sample_weight``), or
        the sorted rows of the given array.

    extrapolation : {'error', 'constant', 'linear', 'continue', \
'periodic'}, default='constant'
        Beyond the training range: raise, continue the boundary values
        (constant) or tangents (linear), continue the polynomials of the
        boundary pieces, or repeat periodically (period ``knots[-1] -
        knots[0]``).

    include_bias : bool, default=True
        If False, the last spline of each feature is dropped (the splines
        of a feature sum to one, like an intercept).

    order : {'C', 'F'}, default='C'
        Order of the output array in the dense case.

    handle_missing : {'error', 'zeros'}, default='error'
        With 'zeros', NaN values are encoded as all-zero splines.

    sparse_output : bool, default=False
        If True, return a CSR matrix (float64, as scikit-learn's).

    Attributes
    ----------
    bsplines_ : list of shape (n_features,)
        The SciPy ``BSpline`` of each feature (knots and the identity
        coefficients).

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    n_features_out_ : int
        The number of output features.

    See Also
    --------
    sklearn.preprocessing.SplineTransformer : The scikit-learn estimator.
    PolynomialFeatures : Polynomial and interaction features.

    Notes
    -----
    The design matrix is computed by SciPy's recursion vectorised over
    samples and features (see the module's docstring), so float64 values
    agree with scikit-learn's to the last bit or so. scikit-learn's own
    ``transform`` runs on the host for ``degree=0`` with
    ``extrapolation='constant'``, and for ``degree=0`` with
    ``extrapolation='periodic'`` and ``sparse_output=True``, and to raise
    its errors. With ``sparse_output=True`` and ``handle_missing='zeros'``,
    a missing value of any feature but the first is encoded as zeros, as
    in the dense output (scikit-learn 1.9's sparse output encodes it as
    the splines at another value of the feature). The dense output's
    memory order is ``order`` (scikit-learn's is Fortran-ordered whenever
    ``include_bias=False``).

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.preprocessing import SplineTransformer
    >>> X = np.arange(6).reshape(6, 1)
    >>> spline = SplineTransformer(degree=2, n_knots=3)
    >>> spline.fit_transform(X)
    array([[0.5 , 0.5 , 0.  , 0.  ],
           [0.18, 0.74, 0.08, 0.  ],
           [0.02, 0.66, 0.32, 0.  ],
           [0.  , 0.32, 0.66, 0.02],
           [0.  , 0.08, 0.74, 0.18],
           [0.  , 0.  , 0.5 , 0.5 ]])
    >>> spline.get_feature_names_out()
    array(['x0_sp_0', 'x0_sp_1', 'x0_sp_2', 'x0_sp_3'], dtype=object)
    """

    # Small host structures read by scikit-learn's methods: left on the host
    # when a search moves a fitted model to the device family.
    _host_attributes = ("bsplines_", "feature_names_in_")

    def fit(self, X, y=None, sample_weight=None):
        """Compute knot positions of splines: scikit-learn's ``fit`` on
        the host.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data (NumPy, pandas, CuPy: device data are copied to the
            host once).

        y : None
            Ignored.

        sample_weight : array-like of shape (n_samples,), default=None
            Individual weights for each sample. Used to calculate quantiles
            if `knots="quantile"`. For `knots="uniform"`, zero weighted
            observations are ignored for finding the min and max of `X`.

        Returns
        -------
        self : object
            Fitted transformer.
        """
        self._reset_device_cache()
        if sample_weight is not None:
            sample_weight = _host_input(sample_weight)
        return super().fit(_host_input(X), y, sample_weight=sample_weight)

    def _on_host(self) -> bool:
        """Whether scikit-learn's ``transform`` computes (see the module's
        docstring): the cases where its code fails or fills odd columns."""
        if self.degree != 0:
            return False
        return self.extrapolation == "constant" or (
            self.extrapolation == "periodic" and self.sparse_output
        )

    def _tables(self, xp: ModuleType) -> dict:
        """The knots (``n_features x n_knots``) and, for 'constant' and
        'linear', the splines' values and slopes at the ends of the base
        interval, slot by slot (``degree + 1 x n_features``; found by
        SciPy), as ``xp`` float64 arrays cached per namespace."""
        cache = self.__dict__.setdefault("_gpuml_cache", {})
        key = ("spline_tables", xp.__name__, self.extrapolation)
        hit = cache.get(key)
        if hit is not None and hit[0] is self.bsplines_:
            return hit[1]
        degree = self.degree
        knots = np.stack([np.asarray(s.t, dtype=np.float64) for s in self.bsplines_])
        tables = {"knots": knots, "empty_spans": bool(np.any(np.diff(knots) == 0))}
        if self.extrapolation in ("constant", "linear"):
            n_splines = self.bsplines_[0].c.shape[1]
            count = degree
            if self.extrapolation == "linear" and degree <= 1:
                count = degree + 1
            shape = (degree + 1, len(self.bsplines_))
            parts = {k: np.zeros(shape) for k in ("low", "high")}
            parts |= {k: np.zeros(shape) for k in ("low_slope", "high_slope")}
            last = n_splines - 1 - np.arange(count)
            for j, spline in enumerate(self.bsplines_):
                xmin, xmax = spline.t[degree], spline.t[-degree - 1]
                parts["low"][:count, j] = spline(xmin)[:count]
                parts["high"][:count, j] = spline(xmax)[last]
                parts["low_slope"][:count, j] = spline(xmin, nu=1)[:count]
                parts["high_slope"][:count, j] = spline(xmax, nu=1)[last]
            tables |= parts
            tables["count"] = count
        tables = {
            k: to_namespace(v, xp) if isinstance(v, np.ndarray) else v
            for k, v in tables.items()
        }
        cache[key] = (self.bsplines_, tables)
        return tables

    def _host_transform(self, X, family: str):
        """scikit-learn's ``transform`` of ``X`` on the host, the result in
        ``family``."""
        method = _SkSplineTransformer.transform
        method = getattr(method, "__wrapped__", method)
        result = method(self, _host_input(X))
        return to_output(_in_family(result, family), X, self.get_feature_names_out)

    def _sklearn_raises(self, X, x, missing, knots, xp: ModuleType) -> bool:
        """Whether scikit-learn's ``transform`` raises on ``X`` (float64
        values ``x``): values beyond the knots with 'error'; with sparse
        output, values that SciPy's ``design_matrix`` finds beyond them
        after scikit-learn's substitutions."""
        degree = self.degree
        n_t = knots.shape[1]
        xmin = knots[:, degree][None, :]
        xmax = knots[:, n_t - degree - 1][None, :]
        if self.extrapolation == "error":
            outside = (x < xmin) | (x > xmax)
            beyond = outside & ~missing
            if self.sparse_output:  # an all-NaN column is evaluated at 0
                zero_out = (xmin > 0) | (xmax < 0)
                beyond = beyond | (xp.all(missing, axis=0) & zero_out)
            return bool(xp.any(beyond))
        if self.sparse_output and self.extrapolation in ("constant", "linear"):
            # scikit-learn sets the values beyond the range (and NaN) to
            # xmin in X's dtype, which may round out of the range
            host_knots = np.stack([s.t for s in self.bsplines_])
            low = host_knots[:, degree]
            cast = low.astype(X.dtype).astype(np.float64)
            bad = (cast < low) | (cast > host_knots[:, n_t - degree - 1])
            if bad.any():
                columns = to_namespace(np.flatnonzero(bad), xp)
                x, missing = x[:, columns], missing[:, columns]
                low, high = xmin[:, columns], xmax[:, columns]
                return bool(xp.any((x < low) | (x > high) | missing))
        return False

    def transform(self, X):
        """Transform each feature data to B-splines.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to transform.

        Returns
        -------
        XBS : {ndarray, sparse matrix} of shape (n_samples, `n_features_out_`)
            The B-spline bases of each feature, in the family of ``X``: a
            dense array of X's float dtype (float64 for other dtypes), or a
            float64 CSR matrix with ``sparse_output=True``.
        """
        check_is_fitted(self)
        family = input_family(X)
        if self._on_host():
            return self._host_transform(X, family)
        xp = compute_namespace()
        X_in = X
        X = validate_data(
            self,
            X,
            xp=xp,
            reset=False,
            accept_sparse=False,
            ensure_2d=True,
            ensure_all_finite=(self.handle_missing != "zeros"),
        )
        tables = self._tables(xp)
        knots = tables["knots"]
        x = X.astype(xp.float64, copy=False)
        missing = xp.isnan(x)
        if self._sklearn_raises(X, x, missing, knots, xp):
            return self._host_transform(X_in, family)
        n_splines = self.bsplines_[0].c.shape[1]
        options = dict(n_splines=n_splines, include_bias=self.include_bias, xp=xp)
        # infinities (allowed with handle_missing='zeros') give NaN, as in
        # SciPy's code, without NumPy's warnings
        with np.errstate(invalid="ignore", over="ignore"):
            columns, values, keep, undefined = spline_slots(
                x,
                missing,
                knots,
                tables,
                degree=self.degree,
                n_splines=n_splines,
                extrapolation=self.extrapolation,
                xp=xp,
            )
            if self.sparse_output:
                XBS = csr_design(columns, values, keep, **options)
                return align_sparse_output(to_family(XBS, family))
            design = dense_design(columns, values, undefined, **options)
        dtype = X.dtype if X.dtype.name in _OUTPUT_FLOATS else np.float64
        if dtype == np.float64 and self.order == "C":
            XBS = design  # a fresh C-ordered float64 array
        else:
            XBS = xp.empty(design.shape, dtype=dtype, order=self.order)
            XBS[...] = design
        return to_output(to_family(XBS, family), X_in, self.get_feature_names_out)
