"""Transformers applied to column subsets: :class:`ColumnTransformer`.

scikit-learn's class, as a gpuml estimator. Host input (NumPy, SciPy,
pandas, lists) takes scikit-learn's code unchanged. Device input (2-D CuPy
arrays and cupyx sparse matrices) stays on the device: the columns are
selected there (integer positions, slices, boolean masks, callables: the
selection itself, a few integers, is worked out on the host), each
transformer is fitted on and transforms its device columns, ``'passthrough'``
columns go through gpuml's :class:`~gpuml.preprocessing.FunctionTransformer`
(scikit-learn's would copy them to the host), and the results are stacked
with ``cupy.hstack`` or ``cupyx.scipy.sparse.hstack`` under scikit-learn's
``sparse_threshold`` rule, the density counted on the device.

:func:`gpuml.base.accepts_device_input` is True for a ColumnTransformer whose
transformers (and remainder) are all gpuml's, Pipelines of them, ``'drop'`` or
``'passthrough'``: gpuml's searches then feed it device data.
"""

from __future__ import annotations

import numpy as np
import sklearn.compose as skc

# scikit-learn's module, whose helpers (the same objects its class uses) the
# device path below calls.
from sklearn.compose import _column_transformer as _sk

from gpuml._array import (
    DEVICE,
    as_device_native,
    input_family,
    is_sparse,
    namespace_of,
    to_family,
    to_output,
)
from gpuml._linalg import sparse_module
from gpuml.base import DeviceCacheMixin


def _host_key(key):
    """A column selection computed on device data (a callable's CuPy mask)
    as a host value; anything else as given."""
    if hasattr(key, "shape") and input_family(key) == DEVICE:
        return to_family(key, "host")
    return key


def _select_columns(X, key):
    """``X``'s columns ``key`` on the device: scikit-learn's ``_safe_indexing``
    along axis 1, for CuPy arrays and cupyx sparse matrices. A scalar key
    gives one dimension, as scikit-learn's does (its 1-D column error)."""
    ints = (int, np.integer)
    if isinstance(key, slice) and all(
        k is None or isinstance(k, ints) for k in (key.start, key.stop, key.step)
    ):
        return X[:, key]  # a view, no copy
    if isinstance(key, ints) and not isinstance(key, bool):
        return X[:, [int(key)]] if is_sparse(X) else X[:, int(key)]
    indices = _sk._get_column_indices(X, key)  # host integers (strings refused)
    if is_sparse(X):
        return X[:, indices]
    return X[:, namespace_of(X).asarray(indices, dtype=np.intp)]


def _check_X(X):
    """scikit-learn's ``_check_X``, letting cupyx sparse matrices through as
    it lets SciPy's (they have no ``__array__``: its ``check_array`` would
    make a 0-d object array of one and fail with "Expected 2D array")."""
    if is_sparse(X) and input_family(X) == DEVICE:
        return X
    return _sk_check_X(X)


# scikit-learn's fit_transform and transform call the module's _check_X by
# name; this one differs from it for cupyx sparse input only (which no
# scikit-learn code path accepts), so scikit-learn's own class is unchanged.
_sk_check_X = getattr(_sk._check_X, "sklearn_original", _sk._check_X)
_check_X.sklearn_original = _sk_check_X  # (a reload of this module keeps it)
_sk._check_X = _check_X


def _is_device(X) -> bool:
    return input_family(X) == DEVICE and not hasattr(X, "columns")


class ColumnTransformer(DeviceCacheMixin, skc.ColumnTransformer):
    """Applies transformers to columns of an array or pandas DataFrame.

    scikit-learn's :class:`sklearn.compose.ColumnTransformer`, as a gpuml
    estimator: on device input (CuPy arrays, cupyx sparse matrices) the
    columns are selected, transformed and stacked on the device (dense by
    ``cupy.hstack``, sparse by ``cupyx.scipy.sparse.hstack`` where the
    output's density is below ``sparse_threshold``), so that a ColumnTransformer
    of gpuml's transformers keeps device data on the device. Host input takes
    scikit-learn's code. Parameters, attributes, feature names
    (``get_feature_names_out``, ``verbose_feature_names_out``), ``set_output``
    and errors are scikit-learn's.

    Parameters
    ----------
    transformers : list of tuples
        ``(name, transformer, columns)`` triples: ``transformer`` an
        estimator, ``'drop'`` or ``'passthrough'``; ``columns`` integer
        positions, a slice, a boolean mask, a callable of ``X`` or (for
        DataFrames) column names.
    remainder : {'drop', 'passthrough'} or estimator, default='drop'
        What becomes of the columns no transformer selects.
    sparse_threshold : float, default=0.3
        The output is sparse where some transformer's output is and the
        overall density is below this.
    n_jobs : int, default=None
        Transformers fitted in parallel (joblib).
    transformer_weights : dict, default=None
        Multiplicative weights of the transformers' outputs, by name.
    verbose : bool, default=False
        Print the time each transformer takes to fit.
    verbose_feature_names_out : bool, str or callable, default=True
        Prefix the output feature names with the transformer's name (as
        scikit-learn: a format string or a callable are also accepted).

    Attributes
    ----------
    transformers_ : list
        The fitted transformers, ``'drop'`` and the remainder included.
    named_transformers_ : Bunch
        The fitted transformers by name.
    sparse_output_ : bool
        Whether the output of ``transform`` is sparse.
    output_indices_ : dict
        The slice of the output each transformer fills, by name.
    n_features_in_ : int
        The number of input features.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        The input's column names, where they are all strings.

    See Also
    --------
    make_column_transformer : The same, with the transformers named after
        their types.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.compose import ColumnTransformer
    >>> from gpuml.preprocessing import OneHotEncoder, StandardScaler
    >>> X = np.array([[0.0, 1.0, 0], [1.0, 3.0, 1], [2.0, 5.0, 1]])
    >>> ct = ColumnTransformer(
    ...     [("num", StandardScaler(), [0, 1]), ("cat", OneHotEncoder(), [2])],
    ...     sparse_threshold=0,
    ... )
    >>> ct.fit_transform(X).shape
    (3, 4)
    >>> ct.get_feature_names_out().tolist()
    ['num__x0', 'num__x1', 'cat__x2_0.0', 'cat__x2_1.0']
    """

    def fit_transform(self, X, y=None, **params):
        self._reset_device_cache()
        result = super().fit_transform(X, y, **params)
        return self._device_output(result, X)

    fit_transform.__doc__ = skc.ColumnTransformer.fit_transform.__doc__

    def transform(self, X, **params):
        return self._device_output(super().transform(X, **params), X)

    transform.__doc__ = skc.ColumnTransformer.transform.__doc__

    def _device_output(self, result, X):
        """The output for device input ``X``: scikit-learn's
        ``np.zeros((n_samples, 0))`` (every transformer dropped) moved to the
        device; for a cuDF DataFrame, a dense result as a cuDF DataFrame with
        the output feature names (:func:`gpuml._array.to_output`)."""
        if input_family(X) != DEVICE:
            return result
        if isinstance(result, np.ndarray) and result.shape[1] == 0:
            result = to_family(result, DEVICE)
        return to_output(result, X, columns=self._names_or_none)

    def _names_or_none(self):
        try:
            return self.get_feature_names_out()
        except (AttributeError, ValueError):  # a transformer without names
            return None

    def _validate_column_callables(self, X):
        if not _is_device(X):
            return super()._validate_column_callables(X)
        # scikit-learn's, with a device selection (a callable's CuPy mask, a
        # CuPy array of positions) taken to the host: a few integers or
        # booleans; the data stay put.
        all_columns = []
        transformer_to_input_indices = {}
        for name, _, columns in self.transformers:
            columns = _host_key(columns(X) if callable(columns) else columns)
            all_columns.append(columns)
            transformer_to_input_indices[name] = _sk._get_column_indices(X, columns)
        self._columns = all_columns
        self._transformer_to_input_indices = transformer_to_input_indices

    def _call_func_on_transformers(self, X, y, func, column_as_labels, routed_params):
        if not _is_device(X):
            return super()._call_func_on_transformers(
                X, y, func, column_as_labels, routed_params
            )
        # scikit-learn's, with the columns selected on the device and
        # 'passthrough' as gpuml's FunctionTransformer (scikit-learn's
        # validates its input with NumPy).
        from gpuml.preprocessing import FunctionTransformer

        fitted = func is not _sk._fit_transform_one
        transformers = list(
            self._iter(
                fitted=fitted,
                column_as_labels=column_as_labels,
                skip_drop=True,
                skip_empty_columns=True,
            )
        )
        try:
            jobs = []
            for idx, (name, trans, columns, weight) in enumerate(transformers, start=1):
                if func is _sk._fit_transform_one:
                    if isinstance(trans, str) and trans == "passthrough":
                        output_config = _sk._get_output_config("transform", self)
                        trans = FunctionTransformer(
                            accept_sparse=True,
                            check_inverse=False,
                            feature_names_out="one-to-one",
                        ).set_output(transform=output_config["dense"])
                    extra_args = dict(
                        message_clsname="ColumnTransformer",
                        message=self._log_message(name, idx, len(transformers)),
                    )
                else:
                    extra_args = {}
                jobs.append(
                    _sk.delayed(func)(
                        transformer=trans if fitted else _sk.clone(trans),
                        X=_select_columns(X, columns),
                        y=y,
                        weight=weight,
                        **extra_args,
                        params=routed_params[name],
                    )
                )
            return _sk.Parallel(n_jobs=self.n_jobs)(jobs)
        except ValueError as e:
            if "Expected 2D array, got 1D array instead" in str(e):
                raise ValueError(_sk._ERR_MSG_1DCOLUMN) from e
            raise

    def _record_output_indices(self, Xs):
        # Called by scikit-learn's fit_transform once it has set
        # sparse_output_, which counts SciPy matrices only: a cupyx result's
        # density is counted here, on the device, by scikit-learn's rule.
        super()._record_output_indices(Xs)
        if any(is_sparse(X) and input_family(X) == DEVICE for X in Xs):
            nnz = sum(
                int(X.nnz) if is_sparse(X) else X.shape[0] * X.shape[1] for X in Xs
            )
            total = sum(X.shape[0] * X.shape[1] for X in Xs)
            self.sparse_output_ = nnz / total < self.sparse_threshold

    def _hstack(self, Xs, *, n_samples):
        if not any(input_family(X) == DEVICE for X in Xs):
            return super()._hstack(Xs, n_samples=n_samples)
        # cuDF outputs (of cuDF input) as CuPy, host ones moved to the device
        Xs = [
            as_device_native(X) if input_family(X) == DEVICE else to_family(X, DEVICE)
            for X in Xs
        ]
        cupy = namespace_of(Xs[0].data if is_sparse(Xs[0]) else Xs[0])
        if self.sparse_output_:
            cusp = sparse_module(cupy)
            if any(X.dtype.kind not in "biufc" for X in Xs):
                raise ValueError(
                    "For a sparse output, all columns should "
                    "be a numeric or convertible to a numeric."
                )
            # cupyx sparse holds floats, complex and bools: integers as float64
            parts = [
                X
                if is_sparse(X)
                else cusp.csr_matrix(X if X.dtype.kind in "fcb" else X.astype(float))
                for X in Xs
            ]
            return cusp.hstack(parts).tocsr()
        return cupy.hstack([X.toarray() if is_sparse(X) else X for X in Xs])


def make_column_transformer(
    *transformers,
    remainder="drop",
    sparse_threshold=0.3,
    n_jobs=None,
    verbose=False,
    verbose_feature_names_out=True,
):
    """Construct a :class:`ColumnTransformer` from the given transformers.

    scikit-learn's :func:`sklearn.compose.make_column_transformer`, building
    gpuml's :class:`ColumnTransformer`: the transformers are named after
    their types.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.compose import make_column_transformer
    >>> from gpuml.preprocessing import MinMaxScaler, StandardScaler
    >>> X = np.array([[0.0, 1.0, 4.0], [1.0, 3.0, 2.0], [2.0, 5.0, 0.0]])
    >>> ct = make_column_transformer(
    ...     (StandardScaler(), [0]), (MinMaxScaler(), [2]), remainder="drop"
    ... )
    >>> ct.fit_transform(X)
    array([[-1.22474487,  1.        ],
           [ 0.        ,  0.5       ],
           [ 1.22474487,  0.        ]])
    >>> ct.get_feature_names_out().tolist()
    ['standardscaler__x0', 'minmaxscaler__x2']
    """
    transformer_list = _sk._get_transformer_list(transformers)
    return ColumnTransformer(
        transformer_list,
        n_jobs=n_jobs,
        remainder=remainder,
        sparse_threshold=sparse_threshold,
        verbose=verbose,
        verbose_feature_names_out=verbose_feature_names_out,
    )
