""":class:`TargetEncoder`: encode categories by shrunk means of the target.

It subclasses scikit-learn's class, so that parameter validation, category
discovery, the target type's inference, the label encoding of binary and
multiclass targets, the per-category means (with ``smooth='auto'``'s
empirical-Bayes shrinkage, scikit-learn's compiled kernels) and
``fit_transform``'s cross fitting over scikit-learn's own folds are
scikit-learn's code: ``fit_transform``'s results are scikit-learn's exactly.

``fit`` and ``fit_transform`` run on the host: device ``X`` and ``y`` are
copied there once, and ``fit_transform``'s result is returned in the family
of ``X``. The fitted attributes (``categories_``, ``encodings_``,
``target_mean_``, ``classes_``) are NumPy arrays (and a float) whatever the
training data's family: they hold one number per category (and class).

``transform`` of numeric data (a NumPy or CuPy array of integers or floats,
with numeric categories) runs in the compute namespace ``xp`` (see
:func:`gpuml.set_config`): each value's code is a ``searchsorted``
against its column's sorted categories (the encoders' kernel, NaN a
category where it was seen), then one gather from the concatenated
encodings, with the target mean where the category is unknown. Device data
stay on the device. Object and string data, pandas frames and other
array-likes take scikit-learn's host code.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np
from sklearn.preprocessing import TargetEncoder as _SkTargetEncoder
from sklearn.utils.validation import check_is_fitted

from gpuml._array import (
    compute_namespace,
    input_family,
    is_sparse,
    to_family,
    to_namespace,
    to_output,
)
from gpuml._backend import is_cupy_object
from gpuml._sklearn_compat import check_feature_names, check_n_features
from gpuml._validation import check_array
from gpuml.base import DeviceCacheMixin
from gpuml.preprocessing._encoders import (
    _host_input,
    _in_family,
    category_tables,
    encode_columns,
)


def gather_encodings(codes, known, flat, offsets, means, n_classes: int, xp):
    """The target encoding of ``codes`` (``xp`` int64, one column a feature).

    ``flat`` is every encoding concatenated (feature by feature, and class by
    class within a feature for multiclass targets), ``offsets`` (an ``xp``
    int64 array) the start of each output column's encoding in ``flat`` and
    ``means`` (``xp`` float64) each output column's value for unknown
    categories. Returns the float64 ``(n_samples, n_features * n_classes)``
    array.
    """
    if n_classes > 1:
        codes = xp.repeat(codes, n_classes, axis=1)
        known = xp.repeat(known, n_classes, axis=1)
    values = flat[codes + offsets[None, :]]
    return xp.where(known, values, means[None, :])


class TargetEncoder(DeviceCacheMixin, _SkTargetEncoder):
    """Target Encoder for regression and classification targets.

    scikit-learn's :class:`sklearn.preprocessing.TargetEncoder` (same
    parameters, attributes, results and errors; it is its subclass), whose
    :meth:`transform` of numeric data runs on the GPU when one is used (see
    :func:`gpuml.set_config`) and returns data in the family of the input.
    ``fit`` and ``fit_transform`` run scikit-learn's code on the host
    (device data are copied there once; ``fit_transform`` returns its
    result in the family of `X`), and the fitted attributes are NumPy
    arrays.

    Parameters
    ----------
    categories : "auto" or list of shape (n_features,) of array-like, \
default="auto"
        Categories of each feature: found in the training data (``'auto'``)
        or given (``categories[i]`` for feature ``i``).

    target_type : {"auto", "continuous", "binary", "multiclass"}, \
default="auto"
        The type of the target (``'auto'``: inferred by
        :func:`~sklearn.utils.multiclass.type_of_target`).

    smooth : "auto" or float, default="auto"
        The shrinkage of each category's mean towards the target's mean: an
        empirical-Bayes estimate (``'auto'``) or a fixed weight.

    cv : int, cross-validation generator or iterable, default=5
        The folds of :meth:`fit_transform`'s cross fitting (an integer:
        scikit-learn's ``KFold``, or ``StratifiedKFold`` for binary and
        multiclass targets).

    shuffle : bool, default="deprecated"
        Deprecated (scikit-learn 1.9): pass a splitter as `cv`.

    random_state : int, RandomState instance or None, default="deprecated"
        Deprecated (scikit-learn 1.9): pass a splitter as `cv`.

    Attributes
    ----------
    encodings_ : list of shape (n_features,) or (n_features * n_classes) of \
ndarray
        The encodings of each feature's categories (per class for
        multiclass targets), learned on all the data.

    categories_ : list of shape (n_features,) of ndarray
        The categories of each feature.

    target_type_ : str
        The type of the target.

    target_mean_ : float or ndarray of shape (n_classes,)
        The target's mean (per class for multiclass targets).

    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    classes_ : ndarray or None
        The classes of a binary or multiclass target, else None.

    See Also
    --------
    sklearn.preprocessing.TargetEncoder : The scikit-learn estimator.
    OrdinalEncoder : Integer codes of categorical features.
    OneHotEncoder : One-hot encoding of categorical features.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.preprocessing import TargetEncoder
    >>> X = np.array([[0], [0], [1], [1], [1], [2]])
    >>> y = np.array([1.0, 3.0, 4.0, 5.0, 6.0, 8.0])
    >>> enc = TargetEncoder(target_type="continuous", smooth=0.0).fit(X, y)
    >>> enc.target_mean_
    np.float64(4.5)
    >>> enc.encodings_
    [array([2., 5., 8.])]
    >>> enc.transform(np.array([[1], [2], [7]]))
    array([[5. ],
           [8. ],
           [4.5]])
    """

    # Small host structures read by scikit-learn's methods: left on the host
    # when a search moves a fitted model to the device family.
    _host_attributes = (
        "categories_",
        "encodings_",
        "target_mean_",
        "classes_",
        "feature_names_in_",
    )

    def fit(self, X, y):
        """Fit the :class:`TargetEncoder` to X and y: scikit-learn's ``fit``
        on the host.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to determine the categories of each feature (device
            data are copied to the host once).

        y : array-like of shape (n_samples,)
            The target data used to encode the categories.

        Returns
        -------
        self : object
            Fitted encoder.
        """
        self._reset_device_cache()
        return super().fit(_host_input(X), _host_input(y))

    def fit_transform(self, X, y, **params):
        """Fit :class:`TargetEncoder` and transform `X` with the target
        encoding, by scikit-learn's cross fitting (on the host).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to determine the categories of each feature.

        y : array-like of shape (n_samples,)
            The target data used to encode the categories.

        **params : dict
            Parameters to route to the internal CV object (``groups``; with
            metadata routing enabled).

        Returns
        -------
        X_trans : ndarray of shape (n_samples, n_features) or \
(n_samples, (n_features * n_classes))
            Transformed input, in the family of `X`.
        """
        self._reset_device_cache()
        family = input_family(X)
        params = {k: _host_input(v) for k, v in params.items()}
        result = _SkTargetEncoder.fit_transform.__wrapped__(
            self, _host_input(X), _host_input(y), **params
        )
        return to_output(_in_family(result, family), X, self.get_feature_names_out)

    def _computes_on_device(self, X) -> bool:
        """Whether ``X`` takes the ``xp`` path: a 2-D NumPy or CuPy array of
        integers or floats, with numeric categories."""
        array = isinstance(X, np.ndarray) and not isinstance(X, np.matrix)
        if not (array or (is_cupy_object(X) and not is_sparse(X))):
            return False
        if X.ndim != 2 or X.dtype.kind not in "iuf":
            return False
        return all(c.dtype.kind in "iuf" for c in self.categories_)

    def _tables(self, dtype, xp: ModuleType):
        """The categories per column (sorted non-NaN values in ``xp``, has
        NaN) and the concatenated encodings, their offsets and the unknown
        values in ``xp``; cached per namespace and dtype."""
        cache = self.__dict__.setdefault("_gpuml_cache", {})
        key = ("target_tables", xp.__name__, np.dtype(dtype).str)
        hit = cache.get(key)
        if hit is not None and hit[0] is self.encodings_:
            return hit[1]
        tables = category_tables(self.categories_, dtype, xp)
        sizes = [len(e) for e in self.encodings_]
        offsets = np.cumsum([0, *sizes[:-1]]).astype(np.int64)
        flat = np.concatenate([np.asarray(e, np.float64) for e in self.encodings_])
        n_classes = len(self.classes_) if self.target_type_ == "multiclass" else 1
        means = np.resize(
            np.asarray(self.target_mean_, dtype=np.float64), len(self.encodings_)
        )
        parts = (
            tables,
            to_namespace(flat, xp),
            to_namespace(offsets, xp),
            to_namespace(means, xp),
            n_classes,
        )
        cache[key] = (self.encodings_, parts)
        return parts

    def transform(self, X):
        """Transform X with the target encoding.

        ``fit(X, y).transform(X)`` does not equal ``fit_transform(X, y)``:
        the latter's encodings are cross fitted.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data to determine the categories of each feature.

        Returns
        -------
        X_trans : ndarray of shape (n_samples, n_features) or \
(n_samples, (n_features * n_classes))
            Transformed input, in the family of `X`.
        """
        check_is_fitted(self)
        family = input_family(X)
        if not self._computes_on_device(X):
            result = _SkTargetEncoder.transform.__wrapped__(self, _host_input(X))
            return to_output(_in_family(result, family), X, self.get_feature_names_out)
        xp = compute_namespace()
        X_in = X
        X = check_array(
            X, xp=xp, dtype=None, allow_nan=True, estimator=self, input_name="X"
        )
        check_feature_names(self, X_in, reset=False)
        check_n_features(self, X, reset=False)
        tables, flat, offsets, means, n_classes = self._tables(X.dtype, xp)
        codes, known = encode_columns(X, tables, xp)
        result = gather_encodings(codes, known, flat, offsets, means, n_classes, xp)
        return to_output(to_family(result, family), X_in, self.get_feature_names_out)
