"""What gpuml's linear regressors share: predictions ``X @ coef_.T +
intercept_`` in the compute namespace, ``predict`` in the input's family and
``score`` (R²) where the predictions live."""

from __future__ import annotations

from types import ModuleType

from sklearn.utils.validation import check_is_fitted

from gpuml._array import compute_namespace, input_family, to_family, to_output
from gpuml._validation import NUMERIC_FLOAT, validate_data
from gpuml.linear_model._ridge_problem import _ACCEPT_SPARSE
from gpuml.metrics import r2_score


class LinearRegressorMixin:
    """``_predict_xp``, ``predict`` and ``score`` of a fitted linear
    regressor (``coef_``, ``intercept_`` read through ``self._fitted``, the
    :class:`gpuml.base.DeviceCacheMixin`). Listed before scikit-learn's
    ``RegressorMixin``, whose ``score`` it replaces."""

    def _predict_xp(self, X, xp: ModuleType):
        """Predictions in the compute namespace ``xp``."""
        check_is_fitted(self)
        X = validate_data(
            self,
            X,
            xp=xp,
            reset=False,
            accept_sparse=_ACCEPT_SPARSE,
            dtype=NUMERIC_FLOAT,  # scikit-learn's predict refuses strings
        )
        coef = self._fitted("coef_", xp)
        intercept = self._fitted("intercept_", xp)
        return X @ coef.T + intercept

    def predict(self, X):
        """Predict using the linear model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,) or (n_samples, n_targets)
            Predicted values, NumPy or CuPy like ``X``.
        """
        family = input_family(X)
        return to_output(to_family(self._predict_xp(X, compute_namespace()), family), X)

    def score(self, X, y, sample_weight=None):
        """Return the coefficient of determination R² of the prediction.

        Computed in the compute namespace (on the GPU when one is used); only
        the final float leaves the device.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Test samples.
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
            True values for X.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            R² of ``self.predict(X)`` with respect to ``y``.
        """
        # the predictions stay in the compute namespace: r2_score computes
        # where its inputs live
        y_pred = self._predict_xp(X, compute_namespace())
        return r2_score(y, y_pred, sample_weight=sample_weight)
