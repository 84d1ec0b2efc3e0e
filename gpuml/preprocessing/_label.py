"""Target transformers: :class:`LabelEncoder` and :class:`LabelBinarizer`.

Both are scikit-learn's classes with their numeric paths for device
targets replaced. A numeric CuPy (or other device-family) target is
encoded where it lives, on the device: the classes by ``unique`` (gpuml's
histogram kernels for integer labels, :mod:`gpuml._labels`), each label's
code by ``searchsorted`` against them, the one-vs-all matrix by one scatter
into a matrix of ``neg_label``, the inverse by ``take``/``argmax``. Fitted
``classes_`` live in the family of the target they were fitted on.

Everything else goes through scikit-learn's own code on the host: host
targets (strings, objects, lists, SciPy sparse matrices), device targets
that are not plain numeric labels (multilabel indicator matrices, targets
with NaN, a cuDF column of strings), and every error, so that messages are
scikit-learn's word for word. A device target that takes the host path
gets its numeric results back on the device. Targets are 1-D and small
next to ``X``: the device path is there to keep a device pipeline's labels
from crossing the bus, not for speed.

The kernels (:func:`encode_labels`, :func:`binarize_labels`,
:func:`inverse_binarize`) are pure functions of an array namespace ``xp``
and are tested on NumPy against scikit-learn.
"""

from __future__ import annotations

import warnings
from types import ModuleType

import numpy as np
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.validation import check_is_fitted

from gpuml import _labels
from gpuml._array import (
    DEVICE,
    as_device_native,
    input_family,
    is_sparse,
    namespace_of,
    to_family,
    to_host,
)
from gpuml._backend import is_cudf_object, is_cudf_strings
from gpuml._sklearn_compat import sklearn_own
from gpuml.base import DeviceCacheMixin, host_view

# scikit-learn's classes, also while gpuml.install() has swapped their names
_SkLabelEncoder = sklearn_own("sklearn.preprocessing", "LabelEncoder")
_SkLabelBinarizer = sklearn_own("sklearn.preprocessing", "LabelBinarizer")

_SPARSE_DEVICE = (
    "`sparse_output=True` is not supported for array API "
    "namespace cupy. Use `sparse_output=False` to return a dense array instead."
)

# --------------------------------------------------------------------------
# Kernels: pure functions of ``xp`` arrays
# --------------------------------------------------------------------------


def unique_labels(y, xp: ModuleType, *, return_inverse: bool = False):
    """Sorted distinct values of 1-D numeric ``y`` (and each label's index
    among them, int64): gpuml's histogram kernels for integer device
    labels, else ``xp.unique``."""
    if xp is not np:
        encoded = _labels.encode_integer_labels(y, xp)
        if encoded is not None:
            return encoded if return_inverse else encoded[0]
    if not return_inverse:
        return xp.unique(y)
    classes, inverse = xp.unique(y, return_inverse=True)
    return classes, inverse.reshape(-1).astype(xp.int64, copy=False)


def encode_labels(y, classes, xp: ModuleType):
    """``(codes, known)``: the index of each label of ``y`` among the sorted
    ``classes`` (int64), and whether every label is one of them."""
    if classes.shape[0] == 0:
        return xp.zeros(y.shape[0], dtype=xp.int64), y.shape[0] == 0
    codes = xp.searchsorted(classes, y)
    found = classes[xp.minimum(codes, classes.shape[0] - 1)] == y
    return codes.astype(xp.int64, copy=False), bool(found.all())


def binarize_labels(y, classes, neg_label: int, pos_label: int, xp: ModuleType):
    """scikit-learn's dense ``label_binarize`` of binary or multiclass
    ``y``, all of whose labels are in the sorted ``classes``: ``neg_label``
    everywhere, ``pos_label`` at each label's class (one column, the last
    class's, for two classes; ``neg_label`` for one class), in ``y``'s dtype
    when it is signed integer, else int64."""
    dtype = y.dtype if y.dtype.kind == "i" else np.int64
    n_samples, n_classes = y.shape[0], classes.shape[0]
    if n_classes == 1:
        return xp.full((n_samples, 1), neg_label, dtype=dtype)
    Y = xp.full((n_samples, n_classes), neg_label, dtype=dtype)
    codes, _ = encode_labels(y, classes, xp)
    Y[xp.arange(n_samples), codes] = pos_label
    if n_classes == 2:
        Y = Y[:, -1:].copy()
    return Y


def inverse_binarize(Y, classes, y_type: str, threshold, xp: ModuleType):
    """scikit-learn's inverse of dense ``Y`` for a binary or multiclass
    fit: the class of the largest value of each row (multiclass), or of
    ``Y > threshold`` (binary)."""
    if y_type == "multiclass":
        return classes[xp.minimum(xp.argmax(Y, axis=1), classes.shape[0] - 1)]
    if Y.ndim == 2 and Y.shape[1] > 2:
        raise ValueError(f"output_type='binary', but y.shape = {Y.shape}")
    dtype = Y.dtype if Y.dtype.kind == "f" else np.float64
    above = (Y.astype(dtype, copy=False) > threshold).astype(xp.int64)
    if Y.ndim == 2 and Y.shape[1] == 2:
        return classes[above[:, 1]]
    if classes.shape[0] == 1:
        return xp.repeat(classes[:1], above.shape[0])
    return classes[above.reshape(-1)]


# --------------------------------------------------------------------------
# Targets: which take the device path
# --------------------------------------------------------------------------


def _device_labels(y, *, warn: bool = True):
    """1-D numeric device ``y`` as a CuPy array (a column vector raveled,
    with scikit-learn's warning), or None when ``y`` takes the host path
    (host data, strings, 2-D, NaN)."""
    if input_family(y) != DEVICE or is_cudf_strings(y) or is_sparse(y):
        return None
    y = as_device_native(y)
    if y.dtype.kind not in "biuf" or y.ndim not in (1, 2):
        return None
    if y.ndim == 2:
        if y.shape[1] != 1:
            return None
        if warn:
            warnings.warn(
                "A column-vector y was passed when a 1d array was expected. "
                "Please change the shape of y to (n_samples, ), for example "
                "using ravel().",
                DataConversionWarning,
                stacklevel=3,
            )
        y = y.ravel()
    xp = namespace_of(y)
    if y.dtype.kind == "f" and bool(xp.isnan(y).any()):
        return None
    return y


def _host_target(y):
    """``y`` for scikit-learn's host code (cuDF through pandas)."""
    if is_cudf_object(y):
        return y.to_pandas()
    if input_family(y) == DEVICE:
        return to_host(as_device_native(y))
    return y


def _in_family(result, y):
    """A host result for target ``y``: moved to the device when ``y`` is
    device data and ``result`` is numeric (strings stay on the host)."""
    if input_family(y) != DEVICE or not hasattr(result, "dtype"):
        return result
    if result.dtype.kind not in "biuf":
        return result
    if is_sparse(result) and result.dtype.kind != "f":
        return result  # cupyx sparse matrices hold floats
    return to_family(result, DEVICE)


def _is_integral(y, xp: ModuleType) -> bool:
    return y.dtype.kind != "f" or bool((y == xp.floor(y)).all())


# --------------------------------------------------------------------------
# Estimators
# --------------------------------------------------------------------------


class LabelEncoder(DeviceCacheMixin, _SkLabelEncoder):
    """Encode target labels with value between 0 and n_classes-1.

    scikit-learn's :class:`sklearn.preprocessing.LabelEncoder`, whose
    numeric device targets (CuPy, cuDF numeric columns) are encoded on the
    device: ``classes_`` is then a CuPy array, and ``transform`` /
    ``inverse_transform`` return device arrays for device input. Host
    targets (and strings anywhere) take scikit-learn's own code.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Holds the label for each class, in the family of the target
        :meth:`fit` saw.

    See Also
    --------
    sklearn.preprocessing.LabelEncoder : The scikit-learn estimator.
    LabelBinarizer : Binarize labels in a one-vs-all fashion.

    Examples
    --------
    >>> from gpuml.preprocessing import LabelEncoder
    >>> le = LabelEncoder()
    >>> le.fit([1, 2, 2, 6])
    LabelEncoder()
    >>> le.classes_
    array([1, 2, 6])
    >>> le.transform([1, 1, 2, 6])
    array([0, 0, 1, 2]...)
    >>> le.inverse_transform([0, 0, 1, 2])
    array([1, 1, 2, 6])
    >>> list(LabelEncoder().fit_transform(["tokyo", "paris", "tokyo"]))
    [np.int64(1), np.int64(0), np.int64(1)]
    """

    def fit(self, y):
        """Fit label encoder.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            Target values (host or device).

        Returns
        -------
        self : object
            Fitted label encoder.
        """
        self._reset_device_cache()
        labels = _device_labels(y)
        if labels is None:
            fitted = super().fit(_host_target(y))
            self.classes_ = _in_family(self.classes_, y)
            return fitted
        self.classes_ = unique_labels(labels, namespace_of(labels))
        return self

    def fit_transform(self, y):
        """Fit label encoder and return encoded labels.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            Target values (host or device).

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Encoded labels, in the family of ``y``.
        """
        self._reset_device_cache()
        labels = _device_labels(y)
        if labels is None:
            codes = super().fit_transform(_host_target(y))
            self.classes_ = _in_family(self.classes_, y)
            return _in_family(codes, y)
        xp = namespace_of(labels)
        self.classes_, codes = unique_labels(labels, xp, return_inverse=True)
        return codes

    def transform(self, y):
        """Transform labels to normalized encoding.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            Target values.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            Labels as normalized encodings, in the family of ``y``.
        """
        check_is_fitted(self)
        labels = _device_labels(y)
        classes = self.classes_
        if labels is not None and classes.dtype.kind in "biuf":
            xp = namespace_of(labels)
            if labels.shape[0] == 0:
                return xp.asarray([])
            classes = self._fitted("classes_", xp)
            codes, known = encode_labels(labels.astype(classes.dtype), classes, xp)
            if known:
                return codes
        # scikit-learn's code, on host copies (and its errors)
        codes = _SkLabelEncoder.transform(host_view(self), _host_target(y))
        return _in_family(codes, y)

    def inverse_transform(self, y):
        """Transform labels back to original encoding.

        Parameters
        ----------
        y : array-like of shape (n_samples,)
            Encoded labels.

        Returns
        -------
        y_original : ndarray of shape (n_samples,)
            Original labels, in the family of ``y`` where they are numeric.
        """
        check_is_fitted(self)
        labels = _device_labels(y)
        if labels is not None and self.classes_.dtype.kind in "biuf":
            xp = namespace_of(labels)
            if labels.shape[0] == 0:
                return xp.asarray([])
            n_classes = self.classes_.shape[0]
            valid = (labels >= 0) & (labels < n_classes)
            if bool(valid.all()) and _is_integral(labels, xp):
                classes = self._fitted("classes_", xp)
                return classes[labels.astype(xp.int64)]
        labels = _SkLabelEncoder.inverse_transform(host_view(self), _host_target(y))
        return _in_family(labels, y)


class LabelBinarizer(DeviceCacheMixin, _SkLabelBinarizer):
    """Binarize labels in a one-vs-all fashion.

    scikit-learn's :class:`sklearn.preprocessing.LabelBinarizer`, whose
    binary and multiclass numeric device targets are binarized (and
    inverted) on the device: ``classes_`` is then a CuPy array and the
    outputs for device input are CuPy arrays. Host targets, multilabel
    indicator matrices and sparse input take scikit-learn's own code.

    Parameters
    ----------
    neg_label : int, default=0
        Value with which negative labels must be encoded.

    pos_label : int, default=1
        Value with which positive labels must be encoded.

    sparse_output : bool, default=False
        True if the returned array from transform is desired to be in
        sparse CSR format (host targets only, as scikit-learn's array API
        support: cupyx sparse matrices hold no integers).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Holds the label for each class, in the family of the fitted target.

    y_type_ : str
        The type of the target seen in fit, as
        :func:`~sklearn.utils.multiclass.type_of_target` says it.

    sparse_input_ : bool
        True if the input data to transform is given as a sparse matrix.

    See Also
    --------
    sklearn.preprocessing.LabelBinarizer : The scikit-learn estimator.
    LabelEncoder : Encode target labels with value between 0 and n_classes-1.

    Examples
    --------
    >>> from gpuml.preprocessing import LabelBinarizer
    >>> lb = LabelBinarizer()
    >>> lb.fit([1, 2, 6, 4, 2])
    LabelBinarizer()
    >>> lb.classes_
    array([1, 2, 4, 6])
    >>> lb.transform([1, 6])
    array([[1, 0, 0, 0],
           [0, 0, 0, 1]])
    >>> LabelBinarizer().fit_transform(["yes", "no", "no", "yes"])
    array([[1],
           [0],
           [0],
           [1]])
    """

    def _check_labels(self) -> None:
        """scikit-learn's checks of ``neg_label`` and ``pos_label``."""
        if self.neg_label >= self.pos_label:
            raise ValueError(
                f"neg_label={self.neg_label} must be strictly less than "
                f"pos_label={self.pos_label}."
            )
        if self.sparse_output and (self.pos_label == 0 or self.neg_label != 0):
            raise ValueError(
                "Sparse binarization is only supported with non "
                "zero pos_label and zero neg_label, got "
                f"pos_label={self.pos_label} and neg_label={self.neg_label}"
            )

    def fit(self, y):
        """Fit label binarizer.

        Parameters
        ----------
        y : {ndarray, sparse matrix} of shape (n_samples,) or \
                (n_samples, n_classes)
            Target values. The 2-d matrix should only contain 0 and 1,
            represents multilabel classification.

        Returns
        -------
        self : object
            Returns the instance itself.
        """
        self._reset_device_cache()
        if input_family(y) == DEVICE and self.sparse_output:
            self._validate_params()
            self._check_labels()
            raise ValueError(_SPARSE_DEVICE)
        labels = _device_labels(y, warn=False)
        classes = None
        if labels is not None and labels.shape[0] > 0:
            xp = namespace_of(labels)
            classes = unique_labels(labels, xp)
            if not _is_integral(classes, xp):  # continuous: scikit-learn's error
                classes = None
        if classes is None:
            fitted = super().fit(_host_target(y))
            self.classes_ = _in_family(self.classes_, y)
            return fitted
        self._validate_params()
        self._check_labels()
        self.y_type_ = "binary" if classes.shape[0] <= 2 else "multiclass"
        self.sparse_input_ = False
        self.classes_ = classes
        return self

    def fit_transform(self, y):
        """Fit label binarizer, then transform ``y`` (see :meth:`transform`)."""
        return self.fit(y).transform(y)

    def transform(self, y):
        """Transform multi-class labels to binary labels.

        Parameters
        ----------
        y : {array, sparse matrix} of shape (n_samples,) or \
                (n_samples, n_classes)
            Target values.

        Returns
        -------
        Y : {ndarray, sparse matrix} of shape (n_samples, n_classes)
            Shape will be (n_samples, 1) for binary problems; in the family
            of ``y``.
        """
        check_is_fitted(self)
        if input_family(y) == DEVICE and self.sparse_output:
            raise ValueError(_SPARSE_DEVICE)
        labels = _device_labels(y, warn=False)
        if (
            labels is not None
            and self.y_type_ in ("binary", "multiclass")
            and self.classes_.dtype.kind in "biuf"
            and labels.shape[0] > 0
        ):
            xp = namespace_of(labels)
            classes = self._fitted("classes_", xp)
            # The type of y decides the output's shape in scikit-learn: it
            # is the fit's when every label is a class.
            _, known = encode_labels(labels.astype(classes.dtype), classes, xp)
            same = bool((labels.astype(classes.dtype) == labels).all())
            if known and same:
                return binarize_labels(
                    labels, classes, self.neg_label, self.pos_label, xp
                )
        Y = _SkLabelBinarizer.transform(host_view(self), _host_target(y))
        return _in_family(Y, y)

    def inverse_transform(self, Y, threshold=None):
        """Transform binary labels back to multi-class labels.

        Parameters
        ----------
        Y : {ndarray, sparse matrix} of shape (n_samples, n_classes)
            Target values (scores, probabilities or binary labels).

        threshold : float, default=None
            Threshold used in the binary and multi-label cases; None means
            half way between ``neg_label`` and ``pos_label``.

        Returns
        -------
        y_original : {ndarray, sparse matrix} of shape (n_samples,)
            Target values, in the family of ``Y`` where they are numeric.
        """
        check_is_fitted(self)
        if input_family(Y) == DEVICE and not is_sparse(Y):
            if self.sparse_input_:
                raise ValueError(
                    "`LabelBinarizer` was fitted on a sparse matrix, and therefore "
                    "cannot inverse transform a cupy array back to a sparse matrix."
                )
            Y_dev = as_device_native(Y)
            if (
                self.y_type_ in ("binary", "multiclass")
                and self.classes_.dtype.kind in "biuf"
                and Y_dev.ndim == 2
                and Y_dev.dtype.kind in "biuf"
            ):
                xp = namespace_of(Y_dev)
                if threshold is None:
                    threshold = (self.pos_label + self.neg_label) / 2.0
                classes = self._fitted("classes_", xp)
                return inverse_binarize(Y_dev, classes, self.y_type_, threshold, xp)
        y = _SkLabelBinarizer.inverse_transform(
            host_view(self), _host_target(Y), threshold=threshold
        )
        return _in_family(y, Y)
