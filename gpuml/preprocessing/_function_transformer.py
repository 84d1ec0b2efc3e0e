"""A transformer from a function: :class:`FunctionTransformer`.

scikit-learn's class, as a gpuml estimator: gpuml's searches feed gpuml
estimators (and Pipelines made only of them) data on the device
(:func:`gpuml.base.accepts_device_input`), so a ``FunctionTransformer`` in a
device pipeline passes CuPy arrays to its ``func`` as they are. With
``validate=True`` the data are checked by gpuml's :func:`validate_data`
(scikit-learn's checks and messages) in their own namespace: NumPy stays
NumPy, CuPy stays CuPy. Nothing is fitted; the rest (feature names,
``set_output``, ``check_inverse``) is scikit-learn's code.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np

from gpuml._array import HOST, input_family, input_namespace, is_sparse, to_host
from gpuml._sklearn_compat import (
    check_feature_names,
    check_n_features,
    fit_context,
    sklearn_own,
)
from gpuml._validation import check_array, validate_data
from gpuml.base import DeviceCacheMixin

# scikit-learn's classes, also while gpuml.install() has swapped their names
_SkFunctionTransformer = sklearn_own("sklearn.preprocessing", "FunctionTransformer")

_NOT_INVERSE = (
    "The provided functions are not strictly inverse of each other. If you are "
    "sure you want to proceed regardless, set 'check_inverse=False'."
)


class FunctionTransformer(DeviceCacheMixin, _SkFunctionTransformer):
    """Constructs a transformer from an arbitrary callable.

    scikit-learn's :class:`sklearn.preprocessing.FunctionTransformer`, as a
    gpuml estimator: in gpuml's searches and device pipelines it receives
    device data, which ``func`` gets as they are (CuPy in, whatever ``func``
    returns out). With ``validate=True``, ``X`` is checked as scikit-learn
    checks it (2-D, numeric, finite, ``n_features_in_`` and feature names)
    and stays in its family (host or device).

    Parameters
    ----------
    func : callable, default=None
        The callable to use for the transformation; None is the identity.

    inverse_func : callable, default=None
        The callable to use for the inverse transformation; None is the
        identity.

    validate : bool, default=False
        Whether to check the input ``X`` (with gpuml's validation, in its
        own namespace) before calling ``func``.

    accept_sparse : bool, default=False
        Whether sparse matrices pass the validation (``validate=True``).

    check_inverse : bool, default=True
        Whether to check that ``func`` followed by ``inverse_func`` gives
        the input back (a warning if not), when both are given.

    feature_names_out : callable, 'one-to-one' or None, default=None
        Determines what :meth:`get_feature_names_out` returns, as in
        scikit-learn.

    kw_args : dict, default=None
        Dictionary of additional keyword arguments to pass to func.

    inv_kw_args : dict, default=None
        Dictionary of additional keyword arguments to pass to inverse_func.

    Attributes
    ----------
    n_features_in_ : int
        Number of features seen during :term:`fit`.

    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during :term:`fit`. Defined only when `X`
        has feature names that are all strings.

    See Also
    --------
    sklearn.preprocessing.FunctionTransformer : The scikit-learn estimator.

    Examples
    --------
    >>> import numpy as np
    >>> from gpuml.preprocessing import FunctionTransformer
    >>> transformer = FunctionTransformer(np.log1p)
    >>> X = np.array([[0, 1], [2, 3]])
    >>> print(transformer.transform(X).round(4))
    [[0.     0.6931]
     [1.0986 1.3863]]
    """

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Fit transformer by checking X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) \
                if `validate=True` else any object that `func` can handle
            Input array, host or device.

        y : Ignored
            Not used, present here for API consistency by convention.

        Returns
        -------
        self : object
            FunctionTransformer class instance.
        """
        self._reset_device_cache()
        if self.validate:
            X = validate_data(
                self, X, xp=input_namespace(X), accept_sparse=self.accept_sparse
            )
        else:
            check_feature_names(self, X, reset=True)
            check_n_features(self, X, reset=True)
        if self.check_inverse and not (self.func is None or self.inverse_func is None):
            self._check_inverse_transform(X)
        return self

    def transform(self, X):
        """Transform X using the forward function.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) \
                if `validate=True` else any object that `func` can handle
            Input array, host or device.

        Returns
        -------
        X_out : array-like, shape (n_samples, n_features)
            Transformed input: what ``func`` returns.
        """
        if not self.validate:
            return super().transform(X)
        X = validate_data(
            self,
            X,
            xp=input_namespace(X),
            reset=False,
            accept_sparse=self.accept_sparse,
        )
        # scikit-learn's transform (names, set_output) on the checked X
        validated = copy.copy(self)
        validated.validate = False
        return _SkFunctionTransformer.transform(validated, X)

    def inverse_transform(self, X):
        """Transform X using the inverse function.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features) \
                if `validate=True` else any object that `inverse_func` can handle
            Input array, host or device.

        Returns
        -------
        X_original : array-like, shape (n_samples, n_features)
            Transformed input: what ``inverse_func`` returns.
        """
        if self.validate:
            X = check_array(X, xp=input_namespace(X), accept_sparse=self.accept_sparse)
        return self._transform(X, func=self.inverse_func, kw_args=self.inv_kw_args)

    def _check_inverse_transform(self, X):
        """Warn when ``inverse_func(func(X))`` is not ``X`` (on a sample of
        rows); device data are compared on the host."""
        if input_family(X) == HOST:
            return super()._check_inverse_transform(X)
        rows = slice(None, None, max(1, X.shape[0] // 100))
        sample = X[rows]
        round_trip = self.inverse_transform(self.transform(sample))
        dtypes = [X.dtype] if hasattr(X, "dtype") else list(X.dtypes)
        if not all(
            isinstance(d, np.dtype) and np.issubdtype(d, np.number) for d in dtypes
        ):
            raise ValueError(
                "'check_inverse' is only supported when all the elements in `X` is"
                " numerical."
            )
        sample, round_trip = to_host(sample), to_host(round_trip)
        if is_sparse(sample):
            sample = sample.toarray()
        if is_sparse(round_trip):
            round_trip = round_trip.toarray()
        if not np.allclose(np.asarray(sample), np.asarray(round_trip)):
            warnings.warn(_NOT_INVERSE, UserWarning, stacklevel=2)
