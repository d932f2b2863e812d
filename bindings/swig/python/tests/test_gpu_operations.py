"""The operations on a device, against NumPy models: transpose, matmul, the
stencils, the strided copy, the L2 window; with arrays and with Buffers."""

import numpy as np
import pytest

import gmlab

pytestmark = pytest.mark.gpu


def stencil_model(x, c):
    n = x.size
    p = np.concatenate([np.zeros(4, np.float64), x.astype(np.float64), np.zeros(4, np.float64)])
    out = np.zeros(n, np.float64)
    for r in range(1, 5):
        out += c[r - 1] * (p[4 + r:4 + r + n] - p[4 - r:4 - r + n])
    return out


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("variant", [gmlab.Transpose.NAIVE, gmlab.Transpose.SHARED, gmlab.Transpose.SHARED_PADDED,
                                     gmlab.Transpose.AUTO])
def test_transpose_arrays(ctx, dtype, variant):
    a = (np.random.default_rng(3).standard_normal((37, 50)) * 100).astype(dtype)
    t = ctx.transpose(a, variant=variant)
    assert t.shape == (50, 37) and t.dtype == a.dtype
    assert np.array_equal(t, a.T)


def test_transpose_wide_and_out(ctx):
    a = np.arange(64 * 128, dtype=np.float32).reshape(64, 128)
    out = np.empty((128, 64), np.float32)
    assert ctx.transpose(a, variant=gmlab.Transpose.WIDE, out=out) is out
    assert np.array_equal(out, a.T)
    flat = np.arange(12, dtype=np.int32)  # any shape with rows and cols given
    assert np.array_equal(ctx.transpose(flat, 3, 4), flat.reshape(3, 4).T)
    with pytest.raises(gmlab.InvalidArgumentError, match="GM_TRANSPOSE_WIDE"):
        ctx.transpose(np.zeros((3, 5), np.float32), variant=gmlab.Transpose.WIDE)


def test_transpose_buffers(ctx):
    a = np.arange(30, dtype=np.float64).reshape(5, 6)
    with gmlab.Buffer.from_array(ctx, a) as din:
        with ctx.transpose(din, 5, 6, element_size=8) as dout:
            assert isinstance(dout, gmlab.Buffer)
            assert np.array_equal(dout.download(dtype=np.float64, shape=(6, 5)), a.T)
            assert ctx.transpose(din, 5, 6, element_size=8, out=dout, variant=gmlab.Transpose.NAIVE) is dout
        with pytest.raises(gmlab.InvalidArgumentError, match="rows and cols must be at least 1"):
            ctx.transpose(din, 0, 6, element_size=8)
        with pytest.raises(gmlab.InvalidArgumentError, match="rows must be >= 0, got -1"):
            ctx.transpose(din, -1, 6, element_size=8)
        with pytest.raises(gmlab.InvalidArgumentError, match="in .* needs 480 bytes, the buffer holds 240"):
            ctx.transpose(din, 10, 6, element_size=8, out=gmlab.Buffer(ctx, 480))
        with pytest.raises(TypeError, match="rows and cols must be given"):
            ctx.transpose(din)
        with pytest.raises(TypeError, match="out must be a gmlab.Buffer"):
            ctx.transpose(din, 5, 6, element_size=8, out=np.empty((6, 5)))


def test_transpose_bad_arrays(ctx):
    with pytest.raises(TypeError, match="a must be a numpy array or a gmlab.Buffer, got None"):
        ctx.transpose(None)
    with pytest.raises(TypeError, match="a must be a numpy array.*list"):
        ctx.transpose([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="a must be C-contiguous"):
        ctx.transpose(np.zeros((8, 8), np.float32)[:, ::2])
    with pytest.raises(ValueError, match="a must be 2-D"):
        ctx.transpose(np.zeros(8, np.float32))
    with pytest.raises(ValueError, match="a holds 8 elements, not rows x cols = 3 x 3"):
        ctx.transpose(np.zeros(8, np.float32), 3, 3)
    with pytest.raises(gmlab.InvalidArgumentError, match="a must not be empty"):
        ctx.transpose(np.zeros((0, 4), np.float32))
    with pytest.raises(gmlab.InvalidArgumentError, match="element_size must be one of 1, 2, 4, 8, 16, got 3"):
        ctx.transpose(np.zeros((4, 4), dtype="V3"))
    with pytest.raises(TypeError, match="out must have dtype float32, got float64"):
        ctx.transpose(np.zeros((4, 4), np.float32), out=np.zeros((4, 4)))
    with pytest.raises(ValueError, match="out must hold 4 x 2 = 8 elements, got 9"):
        ctx.transpose(np.zeros((2, 4), np.float32), out=np.zeros(9, np.float32))
    with pytest.raises(gmlab.InvalidArgumentError, match="variant must be 0..4"):
        ctx.transpose(np.zeros((4, 4), np.float32), variant=9)
    with pytest.raises(TypeError, match="variant must be an int"):
        ctx.transpose(np.zeros((4, 4), np.float32), variant="auto")


@pytest.mark.parametrize("variant", list(gmlab.Matmul))
def test_matmul_arrays(ctx, variant):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((70, 45)).astype(np.float32)
    b = rng.standard_normal((45, 33)).astype(np.float32)
    c = ctx.matmul(a, b, variant=variant)
    assert c.shape == (70, 33) and c.dtype == np.float32
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


def test_matmul_buffers_and_errors(ctx):
    rng = np.random.default_rng(6)
    a = rng.standard_normal((8, 4)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    with gmlab.Buffer.from_array(ctx, a) as da, gmlab.Buffer.from_array(ctx, b) as db:
        with ctx.matmul(da, db, 8, 5, 4) as dc:
            np.testing.assert_allclose(dc.download(dtype=np.float32, shape=(8, 5)), a @ b, rtol=1e-5, atol=1e-5)
        with pytest.raises(gmlab.InvalidArgumentError, match="A \\(9 x 4 floats\\) needs 144 bytes, the buffer holds 128"):
            ctx.matmul(da, db, 9, 5, 4)
        with pytest.raises(gmlab.InvalidArgumentError, match="c must differ from a and b"):
            ctx.matmul(da, db, 8, 5, 4, out=da)
        with pytest.raises(TypeError, match="m, n and k must be given"):
            ctx.matmul(da, db)
        with pytest.raises(TypeError, match="a and b must all be gmlab.Buffers or all be arrays"):
            ctx.matmul(da, b)
    with pytest.raises(TypeError, match="a must have dtype float32, got float64"):
        ctx.matmul(a.astype(np.float64), b)
    with pytest.raises(TypeError, match="b must have dtype float32, got int32"):
        ctx.matmul(a, b.astype(np.int32))
    with pytest.raises(ValueError, match="a is 8 x 4 and b is 5 x 4"):
        ctx.matmul(a, b.T.copy())
    with pytest.raises(ValueError, match="b must be C-contiguous"):
        ctx.matmul(a, np.zeros((5, 4), np.float32).T)
    with pytest.raises(TypeError, match="b must be a numpy array or a gmlab.Buffer, got None"):
        ctx.matmul(a, None)
    with pytest.raises(ValueError, match="a holds 32 elements, not m x k = 4 x 4"):
        ctx.matmul(a, b, 4, 5, 4)
    out = np.empty((8, 5), np.float32)
    assert ctx.matmul(a.reshape(-1), b.reshape(-1), 8, 5, 4, out=out) is out
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("constant", [True, False])
def test_stencils(ctx, constant):
    x = np.random.default_rng(7).standard_normal(10007).astype(np.float32)
    c = [0.8, -0.2, 0.038, -0.0036]
    op = ctx.stencil_constant if constant else ctx.stencil_readonly
    y = op(x, c)
    assert y.shape == x.shape and y.dtype == np.float32
    np.testing.assert_allclose(y, stencil_model(x, c), rtol=1e-4, atol=1e-5)
    with gmlab.Buffer.from_array(ctx, x) as dx:
        with op(dx, np.array(c, np.float32)) as dy:
            np.testing.assert_allclose(dy.download(dtype=np.float32), y, rtol=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="coefficients must hold 4 values, got 3"):
        op(x, [1, 2, 3])
    with pytest.raises(TypeError, match="coefficients must be 4 numbers, got None"):
        op(x, None)
    with pytest.raises(TypeError, match="coefficients must be 4 numbers"):
        op(x, ["a", "b", "c", "d"])
    with pytest.raises(TypeError, match="x must have dtype float32, got float64"):
        op(x.astype(np.float64), c)
    with pytest.raises(ValueError, match="x must be C-contiguous"):
        op(np.zeros(20, np.float32)[::2], c)
    with pytest.raises(ValueError, match="n must be x's size 10007, got 5"):
        op(x, c, 5)
    with pytest.raises(TypeError, match="x must be a numpy array or a gmlab.Buffer, got None"):
        op(None, c)


def test_copy_strided(ctx):
    src = np.arange(100, dtype=np.int32)
    with gmlab.Buffer.from_array(ctx, src) as s, gmlab.Buffer(ctx, 400) as d:
        d.fill(0)
        ctx.copy_strided(d, s, 10, 4, dst_offset=1, dst_stride=3, src_offset=2, src_stride=7)
        got = d.download(dtype=np.int32)
        want = np.zeros(100, np.int32)
        want[1:1 + 3 * 10:3] = src[2:2 + 7 * 10:7]
        assert np.array_equal(got, want)
        with pytest.raises(gmlab.InvalidArgumentError, match="word_size must be one of 1, 2, 4, 8, 16, got 3"):
            ctx.copy_strided(d, s, 1, 3)
        with pytest.raises(gmlab.InvalidArgumentError, match="dst: offset 0 \\+ \\(count 101 - 1\\) x stride 1 must be below the buffer's 100 words"):
            ctx.copy_strided(d, s, 101, 4)
        with pytest.raises(gmlab.InvalidArgumentError, match="dst and src must be different buffers"):
            ctx.copy_strided(s, s, 1, 4)
        with pytest.raises(TypeError, match="dst must be a gmlab.Buffer, got ndarray"):
            ctx.copy_strided(src, s, 1, 4)
        with pytest.raises(gmlab.InvalidArgumentError, match="dst_stride must be >= 0, got -2"):
            ctx.copy_strided(d, s, 1, 4, dst_stride=-2)


def test_settings(ctx):
    assert set(ctx.settings) == set(gmlab.SETTINGS)
    ctx.set("min_repetitions", 2)
    assert ctx.get("min_repetitions") == 2
    with pytest.raises(gmlab.InvalidArgumentError, match="must not exceed max_repetitions"):
        ctx.set("min_repetitions", ctx.get("max_repetitions") + 1)
    with pytest.raises(gmlab.InvalidArgumentError):
        ctx.set("no_such_setting", 1)
    with pytest.raises(gmlab.InvalidArgumentError):
        ctx.set("memory_fraction", 2.0)
    with pytest.raises(TypeError, match="setting must be a str"):
        ctx.get(None)
    with pytest.raises(TypeError, match="value must be a number"):
        ctx.set("warmup", "2")


def test_device_info_and_kernels(ctx):
    assert ctx.device == 0
    info = ctx.device_info()
    assert info["global_memory_bytes"] > 0 and info["l2_cache_bytes"] > 0
    assert info["compute_capability"]
    kernels = ctx.kernel_resources("transpose")
    assert kernels["experiment"] == "transpose" and kernels["kernels"]
    assert all(k["registers"] >= 0 and k["max_threads_per_block"] > 0 for k in kernels["kernels"])
    assert [k["name"] for k in kernels["kernels"]] == gmlab.describe("transpose")["kernels"]
    assert len(ctx.kernel_resources()["kernels"]) >= len(kernels["kernels"])
    with pytest.raises(gmlab.UnknownExperimentError):
        ctx.kernel_resources("no_such_experiment")
    ctx.synchronize()
    assert "Context(device=0)" == repr(ctx)


def test_l2_window(ctx):
    major = int(str(ctx.device_info()["compute_capability"]).split(".")[0])
    with gmlab.Buffer(ctx, 1 << 20) as buf:
        if major < 8:
            with pytest.raises(gmlab.NotSupportedError):
                ctx.set_l2_window(buf)
            return
        granted = ctx.set_l2_persisting_size(1 << 20)  # what CUDA grants (clamped, perhaps rounded)
        assert 0 < granted <= max(1 << 21, ctx.device_info()["persisting_l2_max_bytes"])
        assert ctx.l2_state()["persisting_set_aside_bytes"] == granted
        ctx.set_l2_window(buf, 0, 1 << 19, 0.5)
        state = ctx.l2_state()
        assert state  # what CUDA reports in force
        x = np.arange(1024, dtype=np.float32)
        assert np.array_equal(ctx.transpose(x, 32, 32), x.reshape(32, 32).T)  # operations run under it
        ctx.reset_l2_window()
        with pytest.raises(gmlab.InvalidArgumentError, match="hit_ratio must be in 0..1"):
            ctx.set_l2_window(buf, 0, 1024, 1.5)
        with pytest.raises(gmlab.InvalidArgumentError, match="miss_property must be 0"):
            ctx.set_l2_window(buf, 0, 1024, 1.0, miss_property=gmlab.AccessProperty.PERSISTING)
        with pytest.raises(TypeError, match="buffer must be a gmlab.Buffer, got NoneType"):
            ctx.set_l2_window(None)
        with pytest.raises(gmlab.InvalidArgumentError, match="nbytes must be >= 0, got -1"):
            ctx.set_l2_persisting_size(-1)
