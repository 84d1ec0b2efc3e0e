"""A pandas table searched as one numeric matrix (issue 39, item 2).

A search over ``Pipeline(ColumnTransformer(...), ...)`` fed a pandas
DataFrame would otherwise run scikit-learn's column selection on the host at
every fold, and every encoder would meet the table's strings there. When the
result cannot differ, the search instead reads the table as one matrix made
once, before the folds:

- numeric columns as they are (float32 when every numeric column is
  float32, else float64);
- each string column as the positions of its values among the column's
  sorted distinct strings (``pandas.factorize(sort=True)``: Python's order of
  ``str``, the order in which scikit-learn's encoders sort categories),
  ``None`` as one more position after them and NaN kept as NaN (scikit-learn
  sorts ``None`` and then NaN after the strings, and only NaN is "missing"
  to its encoders);

and the ColumnTransformer picks the same columns by position, so that it,
its transformers and the rest of the Pipeline run on the device (gpuml's
ColumnTransformer accepts device input when its columns are positions). A
DataFrame of numbers only is read the same way: its columns, picked by
name, become positions.

Why the scores cannot differ: a string column may only reach gpuml's
OneHotEncoder, OrdinalEncoder or TargetEncoder with ``categories='auto'``,
which see sorted categories, their counts (``min_frequency``,
``max_categories``, whose ties scikit-learn breaks by category order) and
membership (``handle_unknown``) only, all of which the positions keep; the
numeric columns that reach other transformers must be in the matrix's own
dtype (scikit-learn keeps float32 columns float32, and an imputer keeps
integers integers). Anything else (a string column sent to another
transformer or passed through, strings mixed with other objects, ``pd.NA``,
a column selection by a callable other than ``make_column_selector``,
pandas output, a scoring callable of the user's, which may read the
DataFrame) keeps the search on the DataFrame as given.

The refit reads the matrix too (:meth:`TablePlan.refit_plan`), and the
fitted Pipeline is then made what fitting it on the DataFrame gives
(:meth:`TablePlan.as_fitted_on_frame`: the ColumnTransformer's column specs
and input names, its transformers' input names, the encoders' categories as
the user's strings, ``None`` and NaN, or in their columns' own dtypes; the
numbers every step fitted are the same either way). Where a 'passthrough'
is involved (scikit-learn's fit puts its own FunctionTransformer there) it
reads the DataFrame as given.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.compose import make_column_selector
from sklearn.compose._column_transformer import _get_column_indices

from gpuml._array import to_namespace
from gpuml.base import _selects_by_position, accepts_device_input

# Categories a float32 position holds exactly.
_FLOAT32_EXACT = 2**24


def _is_dataframe(X) -> bool:
    return type(X).__module__.startswith("pandas") and hasattr(X, "columns")


def _column_transformer(estimator):
    """The gpuml ColumnTransformer that is ``estimator``'s first step (of a
    Pipeline), else None."""
    from gpuml.compose import ColumnTransformer

    steps = getattr(estimator, "steps", None)
    if not isinstance(steps, list) or not steps:
        return None
    first = steps[0][1]
    return first if isinstance(first, ColumnTransformer) else None


def _takes_strings(transformer) -> bool:
    """Whether ``transformer`` gives the same result on a string column and
    on its sorted positions (see the module's docstring)."""
    from gpuml.preprocessing import OneHotEncoder, OrdinalEncoder, TargetEncoder

    if type(transformer) not in (OneHotEncoder, OrdinalEncoder, TargetEncoder):
        return False
    if not _is_one_of(transformer.categories, ("auto",)):
        return False
    if isinstance(transformer, OneHotEncoder):
        drop = transformer.drop
        return drop is None or _is_one_of(drop, ("first", "if_binary"))
    return True


def _is_one_of(value, names) -> bool:
    return isinstance(value, str) and value in names


def _reads_X(scoring) -> bool:
    """Whether ``scoring`` may read the test rows themselves (a callable of
    the user's, which may read the DataFrame's columns), rather than only an
    estimator's predictions or ``score`` on them (names, scikit-learn's and
    gpuml's scorer objects)."""
    from sklearn.metrics._scorer import _BaseScorer, _MultimetricScorer
    from sklearn.metrics._scorer import _PassthroughScorer as _SkPassthrough

    from gpuml.metrics import _scorer as ours

    if scoring is None or isinstance(scoring, str):
        return False
    if isinstance(scoring, dict):
        return any(_reads_X(s) for s in scoring.values())
    if isinstance(scoring, (list, tuple, set)):
        return any(_reads_X(s) for s in scoring)
    if isinstance(scoring, (_MultimetricScorer, ours.MultimetricScorer)):
        return any(_reads_X(s) for s in scoring._scorers.values())
    if isinstance(scoring, ours._HostScorer):
        return _reads_X(scoring._scorer)
    known = (_BaseScorer, _SkPassthrough, ours.Scorer, ours._PassthroughScorer)
    return not isinstance(scoring, known)


def _output_configured(estimator) -> bool:
    """Whether ``set_output`` asked a step for pandas (or other) output."""
    steps = getattr(estimator, "steps", [])
    for part in [estimator, *(s for _, s in steps)]:
        config = getattr(part, "_sklearn_output_config", {})
        if config.get("transform", "default") != "default":
            return True
    return False


def _string_codes(column, out: np.ndarray, strings=None, key=None):
    """A string column's positions among its sorted distinct strings, written
    into ``out`` (NaN for NaN, ``None`` after the strings); the number of
    positions, or None when the column holds anything but ``str``, ``None``
    and float NaN. ``strings[key]`` receives the category of each position
    (an object array: the strings, then ``None`` if any).

    ``column`` is a pandas Series or an object array. A pandas string
    column (pandas' default for text: ``str``, Arrow-backed) is factorised
    as it is, without a Python object per row; an object column is first
    grouped by its objects (most columns repeat a few objects: those of the
    labels they were made or read from), so that the strings themselves are
    hashed, compared and sorted once per distinct object."""
    import pandas as pd

    dtype = getattr(column, "dtype", None)
    if isinstance(dtype, pd.StringDtype):
        return _string_dtype_codes(column, out, strings, key)
    if isinstance(dtype, pd.CategoricalDtype):
        return _categorical_codes(column, out, strings, key)
    values = np.ascontiguousarray(
        column.to_numpy(dtype=object) if isinstance(column, pd.Series) else column,
        dtype=object,
    )
    rows = None  # row -> distinct object, where grouping pays
    if values.size:
        rows, objects = pd.factorize(_references(values))
        if 2 * len(objects) <= values.size:
            first = np.empty(len(objects), dtype=np.intp)
            first[rows] = np.arange(values.size)  # a row of each object
            values = values[first]
        else:
            rows = None
    if pd.api.types.infer_dtype(values, skipna=True) not in ("string", "empty"):
        return None
    codes, uniques = pd.factorize(values, sort=True, use_na_sentinel=True)
    codes = codes.astype(np.float64)
    n_codes = len(uniques)
    missing = np.flatnonzero(codes < 0)
    if missing.size:
        absent = values[missing]
        # scikit-learn's missing values: None and float NaN (anything else,
        # pd.NA or NaT, is left to scikit-learn's own way)
        for value in pd.unique(absent):
            if not (value is None or (isinstance(value, float) and value != value)):
                return None
        is_none = ~absent.astype(bool)  # (NaN is true, None false)
        codes[missing] = np.where(is_none, n_codes, np.nan)
        if is_none.any():
            uniques = np.append(np.asarray(uniques, dtype=object), None)
            n_codes += 1
    out[...] = codes if rows is None else codes[rows]
    if strings is not None:
        strings[key] = np.asarray(uniques, dtype=object)
    return n_codes


def _string_dtype_codes(column, out: np.ndarray, strings, key):
    """:func:`_string_codes` of a pandas ``StringDtype`` column: its missing
    values are NaN to scikit-learn where the dtype's ``na_value`` is NaN
    (pandas' default ``str``); ``pd.NA`` is left to scikit-learn's own way.
    pandas sorts the distinct strings by code point (Arrow's UTF-8 bytes
    sort so), Python's order of ``str``."""
    if column.dtype.na_value is not np.nan and column.isna().any():
        return None
    codes, uniques = column.factorize(sort=True, use_na_sentinel=True)
    out[...] = codes
    out[codes < 0] = np.nan
    if strings is not None:
        strings[key] = np.asarray(uniques, dtype=object)
    return len(uniques)


def _categorical_codes(column, out: np.ndarray, strings, key):
    """:func:`_string_codes` of a pandas categorical: from its codes, the
    categories that occur (scikit-learn sees the values, not the dtype's
    list) ranked in Python's order of ``str``; missing values are NaN."""
    import pandas as pd

    codes = column.cat.codes.to_numpy()
    categories = np.asarray(column.cat.categories, dtype=object)
    used = np.flatnonzero(np.bincount(codes[codes >= 0], minlength=len(categories)))
    present = categories[used]
    if pd.api.types.infer_dtype(present, skipna=False) not in ("string", "empty"):
        return None
    order = np.argsort(present, kind="stable")
    rank = np.full(len(categories) + 1, np.nan)  # the last: code -1, missing
    rank[used[order]] = np.arange(len(used))
    out[...] = rank[codes]
    if strings is not None:
        strings[key] = present[order]
    return len(used)


def _references(values: np.ndarray) -> np.ndarray:
    """The object references of a C-contiguous object array as integers (the
    same integer for the same object), a view of its buffer for the caller
    to use while it holds ``values``: NumPy refuses to view an array of
    references as integers, so ctypes reads the same memory."""
    import ctypes

    buffer = (ctypes.c_size_t * values.size).from_address(values.ctypes.data)
    return np.frombuffer(buffer, dtype=np.uintp)


class TablePlan:
    """How a search reads the DataFrame ``X`` as one matrix (see the module's
    docstring). Built by :meth:`of`, which says None when it does not apply;
    the matrix is made by :meth:`matrix` when a search first uses it."""

    def __init__(self, X, string_positions: frozenset, dtype):
        self.string_positions = string_positions
        self.dtype = dtype
        self._X = X
        self._matrices: dict = {}
        self._failed = False
        # per string column: its sorted distinct strings, and whether None
        # has the position after them (for the refit's categories)
        self._strings: dict = {}

    @classmethod
    def of(cls, X, estimator, scoring):
        """The plan for ``X`` searched with ``estimator``, or None: ``X`` is
        not a pandas DataFrame (of string and numeric columns, with string
        names), the estimator is not a Pipeline led by gpuml's
        ColumnTransformer, or a scorer is a callable of the user's that may
        read the rows (:func:`_reads_X`). A DataFrame
        without string columns has a plan too: its columns picked by name
        become positions."""
        if not _is_dataframe(X) or _output_configured(estimator):
            return None
        if _reads_X(scoring) or _column_transformer(estimator) is None:
            return None
        if not all(isinstance(c, str) for c in X.columns) or X.columns.has_duplicates:
            return None
        strings, numeric_dtypes = [], set()
        for position, (_, column) in enumerate(X.items()):
            kind = column.dtype.kind
            if kind in "biuf" and isinstance(column.dtype, np.dtype):
                numeric_dtypes.add(column.dtype)
            elif kind == "O" or str(column.dtype) == "category":
                strings.append(position)
            else:  # nullable extension dtypes, datetimes...
                return None
        dtype = np.float32 if numeric_dtypes <= {np.dtype(np.float32)} else np.float64
        return cls(X, frozenset(strings), dtype)

    def matrix(self, xp=np):
        """The table as one C-ordered matrix held by ``xp`` (made once per
        namespace), or None where a column cannot be read as numbers
        exactly."""
        if self._failed:
            return None
        if xp not in self._matrices:
            columns = self._columns()
            if columns is None:
                self._failed = True
                return None
            if xp is np:
                self._matrices[xp] = np.ascontiguousarray(columns.T)
            else:  # one copy of the column rows, transposed on the device
                self._matrices[xp] = xp.ascontiguousarray(to_namespace(columns, xp).T)
        return self._matrices[xp]

    def _columns(self):
        """The matrix's columns as the rows of a ``(n_features, n_samples)``
        host array (writing the columns of a C-ordered matrix would pass
        over all of it once per column), or None."""
        X = self._X
        columns = np.empty((X.shape[1], X.shape[0]), dtype=self.dtype)
        exact = _FLOAT32_EXACT if self.dtype is np.float32 else 2**53
        for position, (_, column) in enumerate(X.items()):
            if position in self.string_positions:
                found = _string_codes(
                    column, columns[position], self._strings, position
                )
                if found is None or found >= exact:
                    return None
                continue
            values = column.to_numpy()
            if (
                values.dtype.kind in "iu"
                and values.size
                and (np.abs(values.min()) >= exact or np.abs(values.max()) >= exact)
            ):
                return None  # integers a float would round
            columns[position] = values
        return columns

    def rewrite(self, estimator, candidate_params):
        """``estimator`` with its ColumnTransformer's columns as positions,
        when every candidate of ``candidate_params`` configured on it reads
        the matrix as it would read the DataFrame (and on the device); else
        None."""
        transformer = _column_transformer(estimator)
        if transformer is None:
            return None
        transformers = []
        for name, part, columns in transformer.transformers:
            positions = self._positions(columns)
            if positions is None:
                return None
            transformers.append((name, part, positions))
        rewritten = clone(estimator)
        _column_transformer(rewritten).set_params(transformers=transformers)
        for params in candidate_params:
            configured = clone(rewritten).set_params(**clone(params, safe=False))
            if not self._reads_alike(configured):
                return None
        return rewritten

    def _positions(self, columns):
        """The integer positions of a column selection, or None for a
        callable other than ``make_column_selector`` (which reads only the
        names and dtypes, the same in every fold)."""
        if callable(columns):
            if not isinstance(columns, make_column_selector):
                return None
            columns = columns(self._X)
        try:
            return [int(i) for i in _get_column_indices(self._X, columns)]
        except (ValueError, KeyError, TypeError, IndexError):
            return None  # scikit-learn's own error, at its own time

    def _reads_alike(self, configured) -> bool:
        transformer = _column_transformer(configured)
        if (
            transformer is None
            or not _selects_by_position(transformer)
            or _output_configured(configured)
            or not accepts_device_input(configured)
        ):
            return False
        n_columns = self._X.shape[1]
        shape = np.empty((0, n_columns))
        used = set()
        parts = []
        for _, part, columns in transformer.transformers:
            positions = set(_get_column_indices(shape, columns))
            used |= positions
            parts.append((part, positions))
        parts.append((transformer.remainder, set(range(n_columns)) - used))
        return all(self._part_reads_alike(part, positions) for part, positions in parts)

    def refit_plan(self, estimator, params):
        """``(to_fit, configured)``: ``estimator`` configured with ``params``
        to be fitted on the matrix (then made as if fitted on the DataFrame
        by :meth:`as_fitted_on_frame`), and as the user configured it; or
        None where the refit must read the DataFrame as given (the plan does
        not apply to these parameters, or a 'passthrough' would be gpuml's
        FunctionTransformer where scikit-learn's fit puts its own)."""
        rewritten = self.rewrite(estimator, [params])
        if rewritten is None:
            return None
        to_fit = clone(rewritten).set_params(**clone(params, safe=False))
        transformer = _column_transformer(to_fit)
        parts = [part for _, part, _ in transformer.transformers]
        if any(
            _is_one_of(p, ("passthrough",)) for p in [*parts, transformer.remainder]
        ):
            return None
        configured = clone(estimator).set_params(**clone(params, safe=False))
        return to_fit, configured

    def as_fitted_on_frame(self, fitted, configured) -> None:
        """Make ``fitted`` (a Pipeline fitted on the matrix, its arrays on the
        host) what fitting ``configured`` on the DataFrame gives: the
        ColumnTransformer's column specs and ``feature_names_in_``, its
        transformers' input names, and the encoders' categories as the
        user's strings (``None`` and NaN) or as the columns' own dtypes. The
        rest of the fit reads the same numbers either way."""
        X = self._X
        names = np.asarray(X.columns, dtype=object)
        mine = _column_transformer(fitted)
        theirs = _column_transformer(configured)
        specs = {name: columns for name, _, columns in theirs.transformers}
        resolved = {
            name: columns(X) if callable(columns) else columns
            for name, columns in specs.items()
        }
        mine.transformers = [
            (name, part, specs[name]) for name, part, _ in mine.transformers
        ]
        mine._columns = [resolved[name] for name, _, _ in mine.transformers]
        mine.feature_names_in_ = names
        fitted_parts = []
        for name, part, columns in mine.transformers_:
            positions = mine._transformer_to_input_indices.get(name, columns)
            if name in resolved:
                columns = resolved[name]
            if not _is_one_of(part, ("drop", "passthrough")):
                self._as_fitted_on_columns(part, list(positions), names)
            fitted_parts.append((name, part, columns))
        mine.transformers_ = fitted_parts

    def _as_fitted_on_columns(self, part, positions: list, names) -> None:
        steps = getattr(part, "steps", None)
        if isinstance(steps, list):  # a Pipeline: its first step saw the names
            first = next(s for _, s in steps if not _is_one_of(s, ("passthrough",)))
            self._as_fitted_on_columns(first, positions, names)
            return
        if hasattr(part, "n_features_in_"):
            part.feature_names_in_ = names[positions]
        categories = getattr(part, "categories_", None)
        if _takes_strings(part) and categories is not None:
            part.categories_ = [
                self._categories(position, values)
                for position, values in zip(positions, categories, strict=True)
            ]
            part._reset_device_cache()

    def _categories(self, position: int, values: np.ndarray) -> np.ndarray:
        """A column's fitted categories (positions, or numbers in the
        matrix's dtype) as fitting on the DataFrame gives them."""
        if position not in self.string_positions:
            return values.astype(self._X.dtypes.iloc[position])
        strings = self._strings[position]
        out = np.empty(values.shape[0], dtype=object)
        for i, code in enumerate(values):
            out[i] = np.nan if code != code else strings[int(code)]
        return out

    def _part_reads_alike(self, part, positions: set) -> bool:
        if _is_one_of(part, ("drop",)) or not positions:
            return True
        if _takes_strings(part):
            return True
        if positions & self.string_positions:
            return False  # strings to a transformer that needs them as strings
        # numbers in the matrix's own dtype only (scikit-learn's check_array
        # keeps float32 columns in float32; imputers keep integer columns
        # integers)
        return all(self._X.dtypes.iloc[i] == self.dtype for i in positions)
