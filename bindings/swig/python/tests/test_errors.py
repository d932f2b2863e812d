"""Errors: the class hierarchy, the no-device path and closed handles."""

import pytest

import gmlab
from conftest import closed_buffer, closed_context


def test_every_status_has_its_class():
    from gmlab import _errors

    for status in gmlab.Status:
        if status == gmlab.Status.OK:
            continue
        e = _errors.from_status(int(status), "m")
        assert isinstance(e, gmlab.Error)
        assert type(e) is not gmlab.Error
        assert e.status == status and e.message == "m" and str(e) == "m"
        assert type(e).default_status == status
    unknown = _errors.from_status(-1000, "newer")
    assert type(unknown) is gmlab.Error and unknown.status == -1000


def test_invalid_argument_is_a_value_error():
    assert issubclass(gmlab.InvalidArgumentError, ValueError)
    assert issubclass(gmlab.InvalidArgumentError, gmlab.Error)
    with pytest.raises(ValueError, match="strides must be in 1..32, got 0"):
        gmlab.resolve_params("stride_copy", {"strides": [0]})


def test_no_device_path():
    if gmlab.device_count() > 0:
        pytest.skip("a CUDA device is present")
    with pytest.raises(gmlab.NoDeviceError) as e:
        gmlab.Context()
    assert e.value.status == gmlab.Status.NO_DEVICE
    assert e.value.message


def test_context_arguments():
    with pytest.raises(TypeError, match="device must be an int"):
        gmlab.Context("0")
    with pytest.raises(TypeError, match="device must be an int"):
        gmlab.Context(None)
    with pytest.raises(TypeError, match="device must be an int"):
        gmlab.Context(0.5)


CLOSED_CONTEXT_CALLS = {
    "device": lambda c: c.device,
    "device_info": lambda c: c.device_info(),
    "kernel_resources": lambda c: c.kernel_resources(),
    "counters_unavailable_reason": lambda c: c.counters_unavailable_reason(),
    "set": lambda c: c.set("warmup", 1),
    "get": lambda c: c.get("warmup"),
    "settings": lambda c: c.settings,
    "synchronize": lambda c: c.synchronize(),
    "run": lambda c: c.run("stream"),
    "transpose": lambda c: c.transpose(None, 4, 4),
    "matmul": lambda c: c.matmul(None, None, 1, 1, 1),
    "stencil_constant": lambda c: c.stencil_constant(None, [1, 2, 3, 4]),
    "stencil_readonly": lambda c: c.stencil_readonly(None, [1, 2, 3, 4]),
    "copy_strided": lambda c: c.copy_strided(None, None, 1),
    "set_l2_persisting_size": lambda c: c.set_l2_persisting_size(1 << 20),
    "set_l2_window": lambda c: c.set_l2_window(None),
    "reset_l2_window": lambda c: c.reset_l2_window(),
    "l2_state": lambda c: c.l2_state(),
    "enter": lambda c: c.__enter__(),
    "buffer": lambda c: gmlab.Buffer(c, 16),
}


@pytest.mark.parametrize("call", sorted(CLOSED_CONTEXT_CALLS))
def test_closed_context_refuses_everything(call):
    ctx = closed_context()
    with pytest.raises(gmlab.InvalidArgumentError, match="^this Context is closed$") as e:
        CLOSED_CONTEXT_CALLS[call](ctx)
    assert e.value.status == gmlab.Status.INVALID_ARGUMENT
    ctx.close()  # closing again is fine
    ctx.close()
    assert ctx.closed and repr(ctx) == "Context(closed)"


CLOSED_BUFFER_CALLS = {
    "size": lambda b: b.size,
    "nbytes": lambda b: b.nbytes,
    "fill": lambda b: b.fill(0),
    "upload": lambda b: b.upload(b"1234"),
    "download": lambda b: b.download(),
    "download_out": lambda b: b.download(bytearray(4)),
    "enter": lambda b: b.__enter__(),
}


@pytest.mark.parametrize("call", sorted(CLOSED_BUFFER_CALLS))
def test_closed_buffer_refuses_everything(call):
    buf = closed_buffer()
    with pytest.raises(gmlab.InvalidArgumentError, match="^this Buffer is closed$"):
        CLOSED_BUFFER_CALLS[call](buf)
    buf.close()
    assert buf.closed and repr(buf) == "Buffer(closed)"


def test_buffer_needs_a_context():
    with pytest.raises(TypeError, match="ctx must be a gmlab.Context, got NoneType"):
        gmlab.Buffer(None, 16)
    with pytest.raises(TypeError, match="ctx must be a gmlab.Context, got str"):
        gmlab.Buffer("ctx", 16)
    with pytest.raises(TypeError, match="ctx must be a gmlab.Context"):
        gmlab.Buffer.from_array(None, b"1234")


def test_results_are_not_made_directly():
    with pytest.raises(TypeError, match="Results come from"):
        gmlab.Result()
