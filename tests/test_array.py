"""Input families, conversions, transfers and validation messages."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from gpuml import _array
from gpuml._array import (
    DEVICE,
    HOST,
    input_family,
    into_input,
    to_family,
    to_namespace,
)
from gpuml._validation import check_array, check_sample_weight, check_y
from gpuml.linear_model import Ridge


def test_host_inputs_are_host_family():
    pd = pytest.importorskip("pandas")
    for obj in [np.ones(3), [[1.0]], pd.DataFrame({"a": [1.0]}), sp.eye(3).tocsr()]:
        assert input_family(obj) == HOST


def test_numpy_round_trip_is_free():
    a = np.ones((4, 2))
    assert to_namespace(a, np) is a
    assert to_family(a, HOST) is a


class _FakeDLPack:
    """A producer whose DLPack device says CPU: host family."""

    def __dlpack__(self, stream=None):
        raise AssertionError("not called")

    def __dlpack_device__(self):
        return (1, 0)


def test_dlpack_device_decides_the_family():
    assert input_family(_FakeDLPack()) == HOST


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_check_array_converts_and_validates(rng, dtype):
    X = (rng.normal(size=(5, 3)) * 10).astype(dtype)
    out = check_array(X, xp=np, dtype=(np.float64, np.float32), estimator="E")
    expected = dtype if dtype != np.int32 else np.float64
    assert out.dtype == expected


def test_check_y_column_vector_warns(backend, rng):
    from sklearn.exceptions import DataConversionWarning

    y = backend.asarray(rng.normal(size=(6, 1)))
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed"):
        out = check_y(y, xp=np if backend.device == "cpu" else _cupy(), estimator="E")
    assert out.shape == (6,)
    with pytest.raises(
        ValueError, match="y should be a 1d array, got an array of shape"
    ):
        check_y(
            backend.asarray(rng.normal(size=(6, 2))),
            xp=np if backend.device == "cpu" else _cupy(),
            estimator="E",
        )


def _cupy():
    import cupy

    return cupy


def test_sample_weight_rules(rng):
    w = check_sample_weight(None, 4, xp=np, dtype=np.float32)
    assert w.dtype == np.float32 and w.tolist() == [1, 1, 1, 1]
    assert check_sample_weight(2.0, 3, xp=np, dtype=np.float64).tolist() == [2, 2, 2]
    with pytest.raises(ValueError, match="Sample weights must be 1D array or scalar"):
        check_sample_weight(np.ones((4, 1)), 4, xp=np, dtype=np.float64)
    with pytest.raises(ValueError, match="at least one non-zero"):
        check_sample_weight(np.zeros(4), 4, xp=np, dtype=np.float64)
    with pytest.raises(ValueError, match="Input sample_weight contains NaN"):
        check_sample_weight(np.array([1.0, np.nan]), 2, xp=np, dtype=np.float64)


def test_sparse_rejected_when_dense_required(backend):
    X = backend.asarray(sp.eye(4, format="csr"))
    xp = np if backend.device == "cpu" else _cupy()
    with pytest.raises(TypeError, match="Sparse data was passed for X, but dense data"):
        check_array(X, xp=xp, input_name="X")


def test_read_only_input(rng):
    X = rng.normal(size=(10, 2))
    X.flags.writeable = False
    y = rng.normal(size=10)
    Ridge().fit(X, y)
    X2 = X.copy()
    X2[0, 0] = np.inf
    X2.flags.writeable = False
    with pytest.raises(ValueError, match="Input X contains infinity"):
        Ridge().fit(X2, y)


# ---------------------------------------------------------------------------
# GPU-only: device families, zero-copy wrapping and the pinned transfer.
# ---------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8])
@pytest.mark.parametrize("shape", [(1000, 37), (7,), (3, 5, 11)])
def test_chunked_pinned_transfers_are_exact(monkeypatch, rng, order, dtype, shape):
    import cupy

    monkeypatch.setattr(_array, "_PINNED_MIN_BYTES", 0)
    monkeypatch.setattr(_array, "_CHUNK_BYTES", 1000)  # many odd-sized chunks
    host = np.asarray(rng.normal(size=shape) * 100, dtype=dtype, order=order)
    device = _array.host_to_device(host)
    assert isinstance(device, cupy.ndarray)
    assert device.dtype == host.dtype and device.shape == host.shape
    assert device.flags.c_contiguous == host.flags.c_contiguous
    np.testing.assert_array_equal(device.get(), host)
    strided = host[..., ::2] if host.ndim > 1 else host[::2]
    np.testing.assert_array_equal(_array.host_to_device(strided).get(), strided)
    back = _array.device_to_host(device)
    assert (
        type(back) is np.ndarray and back.flags.c_contiguous == host.flags.c_contiguous
    )
    np.testing.assert_array_equal(back, host)
    device_strided = device[..., ::2] if device.ndim > 1 else device[::2]
    np.testing.assert_array_equal(_array.device_to_host(device_strided), strided)


@pytest.mark.gpu
def test_device_inputs_are_wrapped_without_copy(rng):
    import cupy

    X = cupy.asarray(rng.normal(size=(8, 3)))

    class CudaArrayInterface:
        __cuda_array_interface__ = X.__cuda_array_interface__

    assert input_family(CudaArrayInterface()) == DEVICE
    wrapped = check_array(CudaArrayInterface(), xp=cupy, dtype=(np.float64,))
    assert wrapped.data.ptr == X.data.ptr  # no copy

    class FakeCuDFFrame:  # duck-typed: module name and to_cupy, like cuDF
        columns = ["a", "b", "c"]

        def to_cupy(self):
            return X

    FakeCuDFFrame.__module__ = "cudf.core.dataframe"
    assert input_family(FakeCuDFFrame()) == DEVICE
    y = cupy.asarray(rng.normal(size=8))
    before = X.copy()
    model = Ridge().fit(FakeCuDFFrame(), y)
    assert isinstance(model.coef_, cupy.ndarray)
    cupy.testing.assert_array_equal(X, before)  # wrapped, not centred in place


@pytest.mark.gpu
def test_torch_cuda_tensor_input(rng):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch without CUDA")
    import cupy

    X = torch.randn(50, 4, device="cuda", dtype=torch.float64)
    y = torch.randn(50, device="cuda", dtype=torch.float64)
    before = X.clone()
    model = Ridge().fit(X, y, sample_weight=torch.rand(50, device="cuda") + 0.5)
    assert torch.equal(X, before)  # the caller's tensor is not centred in place
    model = Ridge().fit(X, y)
    assert isinstance(model.coef_, cupy.ndarray)
    pred = model.predict(X)
    assert isinstance(pred, cupy.ndarray)
    expected = Ridge().fit(X.cpu().numpy(), y.cpu().numpy())
    np.testing.assert_allclose(model.coef_.get(), expected.coef_, rtol=1e-8)


def test_into_input_writes_where_copy_false_transforms_in_place():
    X = np.arange(6.0).reshape(3, 2)
    result = X * 2.0
    assert into_input(result, X, copy=True) is result
    assert into_input(result, X, copy=False) is X
    np.testing.assert_array_equal(X, result)
    # a dtype, shape or writeability that scikit-learn's validation would
    # have copied: the result, the input untouched
    for other in (X.astype(np.float32), X[:2].copy()):
        assert into_input(result, other, copy=False) is result
    frozen = np.zeros((3, 2))
    frozen.flags.writeable = False
    assert into_input(result, frozen, copy=False) is result
    assert not frozen.any()
    # sparse: the same format and stored entries (a csr_array's result may
    # come back as a csr_matrix), else the result
    S = sp.csr_array(np.eye(3))
    doubled = sp.csr_matrix(np.eye(3) * 2.0)
    assert into_input(doubled, S, copy=False) is S
    np.testing.assert_array_equal(S.toarray(), np.eye(3) * 2.0)
    for other in (sp.csc_matrix(np.eye(3)), sp.csr_matrix(np.ones((3, 3)))):
        assert into_input(doubled, other, copy=False) is doubled
