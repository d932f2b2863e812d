"""Buffers on a device: NumPy and buffer-protocol transfers, and every bad input."""

import array

import numpy as np
import pytest

import gmlab

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.float32, np.float64, np.complex128])
def test_round_trip(ctx, dtype):
    rng = np.random.default_rng(1)
    data = (rng.standard_normal(1001) * 100).astype(dtype)
    with gmlab.Buffer(ctx, data.nbytes) as buf:
        assert buf.size == buf.nbytes == data.nbytes
        buf.upload(data)
        got = buf.download(dtype=dtype)
        assert got.dtype == dtype and np.array_equal(got, data)
        out = np.zeros_like(data)
        assert buf.download(out) is out
        assert np.array_equal(out, data)


def test_shapes_and_offsets(ctx):
    data = np.arange(24, dtype=np.float32).reshape(4, 6)
    with gmlab.Buffer.from_array(ctx, data) as buf:
        assert buf.size == 96
        assert np.array_equal(buf.download(dtype=np.float32, shape=(4, 6)), data)
        assert np.array_equal(buf.download(dtype=np.float32, shape=5), data.reshape(-1)[:5])
        assert np.array_equal(buf.download(dtype=np.float32, offset=8), data.reshape(-1)[2:])
        buf.upload(np.array([-1, -2], dtype=np.float32), offset=4)
        assert list(buf.download(dtype=np.float32, shape=4)) == [0, -1, -2, 3]
        assert buf.download(dtype=np.float32, offset=96).size == 0


def test_other_buffer_objects(ctx):
    with gmlab.Buffer(ctx, 16) as buf:
        buf.upload(b"0123456789abcdef")
        assert bytes(buf.download()) == b"0123456789abcdef"
        buf.upload(bytearray(b"xy"), offset=2)
        buf.upload(memoryview(b"zz"), offset=14)
        out = bytearray(16)
        buf.download(out)
        assert out == bytearray(b"01xy456789abcdzz")
        buf.upload(array.array("i", [7, 8, 9, 10]))
        a = array.array("i", [0, 0, 0, 0])
        buf.download(a)
        assert list(a) == [7, 8, 9, 10]


def test_fill(ctx):
    with gmlab.Buffer(ctx, 100) as buf:
        buf.fill(0xAB)
        assert set(buf.download().tolist()) == {0xAB}
        with pytest.raises(gmlab.InvalidArgumentError, match="value must be in 0..255, got 256"):
            buf.fill(256)
        with pytest.raises(TypeError, match="value must be an int"):
            buf.fill("1")


def test_bad_uploads(ctx):
    with gmlab.Buffer(ctx, 64) as buf:
        with pytest.raises(TypeError, match="data must not be None"):
            buf.upload(None)
        with pytest.raises(TypeError, match="data must support the buffer protocol.*list"):
            buf.upload([1, 2, 3])
        with pytest.raises(TypeError, match="data must support the buffer protocol.*str"):
            buf.upload("text")
        strided = np.arange(32, dtype=np.float32)[::2]
        with pytest.raises(ValueError, match="data must be C-contiguous"):
            buf.upload(strided)
        with pytest.raises(ValueError, match="data must be C-contiguous"):
            buf.upload(np.zeros((4, 4), dtype=np.float32).T)
        with pytest.raises(ValueError, match="data is 68 bytes.*64 bytes from offset 0"):
            buf.upload(np.zeros(17, dtype=np.float32))
        with pytest.raises(ValueError, match="from offset 60"):
            buf.upload(np.zeros(2, dtype=np.float32), offset=60)
        with pytest.raises(gmlab.InvalidArgumentError, match="offset must be >= 0, got -1"):
            buf.upload(b"1", offset=-1)
        with pytest.raises(TypeError, match="offset must be an int"):
            buf.upload(b"1", offset=1.5)


def test_bad_downloads(ctx):
    with gmlab.Buffer(ctx, 64) as buf:
        with pytest.raises(TypeError, match="out must be writable"):
            buf.download(b"x" * 8)
        ro = np.zeros(4, dtype=np.float32)
        ro.flags.writeable = False
        with pytest.raises(TypeError, match="out must be writable"):
            buf.download(ro)
        with pytest.raises(ValueError, match="out must be C-contiguous"):
            buf.download(np.zeros(32, dtype=np.float32)[::2])
        with pytest.raises(ValueError, match="out is 68 bytes"):
            buf.download(np.zeros(17, dtype=np.float32))
        with pytest.raises(TypeError, match="out must support the buffer protocol"):
            buf.download([0] * 4)
        with pytest.raises(TypeError, match="either out or dtype"):
            buf.download(np.zeros(4, dtype=np.float32), dtype=np.float32)
        with pytest.raises(ValueError, match="needs 72 bytes"):
            buf.download(dtype=np.float64, shape=9)
        with pytest.raises(ValueError, match="not a whole number of float64"):
            buf.download(dtype=np.float64, offset=4)
        with pytest.raises(gmlab.InvalidArgumentError, match="offset must be in 0..64, got 65"):
            buf.download(offset=65)
        with pytest.raises(TypeError, match="dtype must be"):
            buf.download(dtype="no such type")
        with pytest.raises(TypeError, match="dtype must be a numeric"):
            buf.download(dtype=object)
        with pytest.raises(ValueError, match="shape must not be negative"):
            buf.download(dtype=np.float32, shape=(-1,))
        with pytest.raises(TypeError, match="shape must be"):
            buf.download(dtype=np.float32, shape="4")


def test_bad_sizes(ctx):
    with pytest.raises(gmlab.InvalidArgumentError, match="^nbytes must be >= 0, got -1$"):
        gmlab.Buffer(ctx, -1)
    with pytest.raises(gmlab.InvalidArgumentError, match="bytes must be at least 1, got 0"):
        gmlab.Buffer(ctx, 0)
    with pytest.raises(TypeError, match="nbytes must be an int"):
        gmlab.Buffer(ctx, "16")
    with pytest.raises(gmlab.InvalidArgumentError, match="nbytes must be at most"):
        gmlab.Buffer(ctx, 2**64)
    with pytest.raises(gmlab.OutOfMemoryError) as e:
        gmlab.Buffer(ctx, 2**62)
    assert e.value.status == gmlab.Status.OUT_OF_MEMORY


def test_close_in_any_order():
    from conftest import _need_device

    _need_device()
    ctx = gmlab.Context()
    buf = gmlab.Buffer(ctx, 16)
    ctx.close()
    buf.upload(b"a" * 16)  # the buffer keeps its device context alive
    assert bytes(buf.download()) == b"a" * 16
    buf.close()
    buf.close()
    with pytest.raises(gmlab.InvalidArgumentError, match="this Buffer is closed"):
        buf.download()
    with pytest.raises(gmlab.InvalidArgumentError, match="this Context is closed"):
        gmlab.Buffer(ctx, 16)


def test_garbage_collected_handles_are_released(ctx):
    # Buffers never closed are released by the collector; a loop of them must not run out of memory.
    free_before = ctx.device_info()["free_memory_bytes"]
    for _ in range(64):
        gmlab.Buffer(ctx, 64 << 20)
    import gc

    gc.collect()
    assert ctx.device_info()["free_memory_bytes"] >= free_before - (128 << 20)
