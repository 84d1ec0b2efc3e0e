"""Regression metrics against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from gpuml.metrics import r2_score


@pytest.mark.parametrize(
    "multioutput", ["raw_values", "uniform_average", "variance_weighted", "array"]
)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("force_finite", [True, False])
def test_r2_score_matches_sklearn(backend, rng, multioutput, weighted, force_finite):
    y_true = rng.normal(size=(40, 3))
    y_pred = y_true + rng.normal(size=(40, 3))
    # A constant output exercises force_finite; zeros keep its variance exactly
    # zero whatever the summation order (the GPU's differs from NumPy's).
    y_true[:, 2] = 0.0
    sw = rng.uniform(0.5, 2, 40) if weighted else None
    mo = rng.uniform(0.1, 1, 3) if multioutput == "array" else multioutput
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = skm.r2_score(
            y_true, y_pred, sample_weight=sw, multioutput=mo, force_finite=force_finite
        )
        got = r2_score(
            backend.asarray(y_true),
            backend.asarray(y_pred),
            sample_weight=None if sw is None else backend.asarray(sw),
            multioutput=mo if isinstance(mo, str) else backend.asarray(mo),
            force_finite=force_finite,
        )
    if multioutput == "raw_values":
        backend.assert_family(got, shape=(3,))
        got = backend.to_numpy(got)
    else:
        assert isinstance(got, float)
    np.testing.assert_allclose(got, expected, rtol=1e-10)


def test_r2_score_errors():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        r2_score([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="different number of output \\(1!=2\\)"):
        r2_score([1.0, 2.0], [[1.0, 2.0], [1.0, 2.0]])
    with pytest.raises(ValueError, match="Allowed 'multioutput' string values"):
        r2_score([1.0, 2.0], [1.0, 2.0], multioutput="mean")
    with pytest.raises(ValueError, match="Input y_true contains NaN"):
        r2_score([1.0, np.nan], [1.0, 2.0])
    from sklearn.exceptions import UndefinedMetricWarning

    with pytest.warns(UndefinedMetricWarning, match="less than two samples"):
        assert np.isnan(r2_score([1.0], [2.0]))
