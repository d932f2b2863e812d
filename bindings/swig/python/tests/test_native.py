"""The SWIG layer itself (gmlab_lang.i and the shared gmlab.i), no device needed:
every wrapped call the package makes accepts the arguments it passes and
reports a closed (NULL) handle through the one %exception block; the string
and host-memory typemaps refuse bad objects with errors naming the argument."""

import array

import numpy as np
import pytest

import gmlab
from gmlab._native import native

ext = native._swiggmlab

# (wrapped function, arguments after the handle) as the package calls them.
CONTEXT_CALLS = [
    ("Context_device", ()), ("Context_deviceInfoJson", ()), ("Context_kernelResourcesJson", ("",)),
    ("Context_countersUnavailableReason", ()),
    ("Context_set", ("warmup", 1.0)), ("Context_get", ("warmup",)), ("Context_synchronize", ()),
    ("Context_run", ("stream", "{}")), ("Context_transpose", (None, None, 37, 50, 4, 4)),
    ("Context_matmul", (None, None, None, 1, 2, 3, 2)),
    ("Context_stencilConstant", (None, None, 8, np.zeros(4, np.float32))),
    ("Context_stencilReadonly", (None, None, 8, np.zeros(4, np.float32))),
    ("Context_copyStrided", (None, 0, 1, None, 0, 1, 4, 4)), ("Context_setL2PersistingSize", (1024,)),
    ("Context_setL2Window", (None, 0, 1024, 1.0, 2, 1)), ("Context_resetL2Window", ()),
    ("Context_l2StateJson", ()),
]
BUFFER_CALLS = [
    ("Buffer_size", ()), ("Buffer_fill", (0,)), ("Buffer_uploadBytes", (0, b"abcd")),
    ("Buffer_downloadBytes", (0, bytearray(4))), ("Buffer_downloadBytes", (0, np.zeros(3, np.float64))),
]
RESULT_CALLS = [
    ("Result_toJson", ()), ("Result_toJsonWithSamples", ()), ("Result_experiment", ()), ("Result_seriesCount", ()), ("Result_seriesName", (0,)),
    ("Result_pointCount", (0,)), ("Result_pointValue", (0, 0, "x")), ("Result_summaryValue", ("x",)),
]


@pytest.mark.parametrize("what, name, args", [("Context",) + c for c in CONTEXT_CALLS] +
                         [("Buffer",) + c for c in BUFFER_CALLS] + [("Result",) + c for c in RESULT_CALLS])
def test_closed_handles_through_the_wrapper(what, name, args):
    with pytest.raises(gmlab.InvalidArgumentError, match="^this %s is closed$" % what) as e:
        getattr(ext, name)(None, *args)
    assert e.value.status == gmlab.Status.INVALID_ARGUMENT


def test_string_typemap():
    with pytest.raises(TypeError, match="experiment must be a str, got int"):
        native.describeExperiment(5)
    with pytest.raises(gmlab.InvalidArgumentError, match="experiment must not be null"):
        native.describeExperiment(None)
    with pytest.raises(ValueError, match="experiment must not contain a NUL"):
        native.describeExperiment("stream\0")
    # UTF-8 both ways: the library's message quotes the name it was given
    with pytest.raises(gmlab.UnknownExperimentError, match="größe"):
        native.describeExperiment("größe")


def test_buffer_typemaps():
    up, down = ext.Buffer_uploadFloats, ext.Buffer_downloadFloats
    with pytest.raises(TypeError, match="values must not be None"):
        up(None, 0, None)
    with pytest.raises(TypeError, match="values must support the buffer protocol.*list"):
        up(None, 0, [1.0, 2.0])
    with pytest.raises(ValueError, match="values must be C-contiguous"):
        up(None, 0, np.zeros(8, np.float32)[::2])
    with pytest.raises(ValueError, match="values must hold a whole number of 4-byte elements, got 3 bytes"):
        up(None, 0, b"abc")
    with pytest.raises(TypeError, match="values must be writable"):
        down(None, 0, b"abcd")
    # accepted objects reach the handle check
    for ok in (np.zeros(4, np.float32), array.array("f", [1, 2]), bytearray(8), memoryview(bytearray(8))):
        with pytest.raises(gmlab.InvalidArgumentError, match="this Buffer is closed"):
            down(None, 0, ok)


def test_stencil_coefficients_typemap():
    with pytest.raises(gmlab.InvalidArgumentError, match="this Context is closed"):
        ext.Context_stencilConstant(None, None, None, 8, np.zeros(3, np.float32))


def test_no_error_is_left_behind():
    # A failed call followed by a good one: the good one succeeds (the pending
    # failure is cleared for every call).
    with pytest.raises(gmlab.UnknownExperimentError):
        gmlab.describe("nope")
    assert gmlab.describe("stream")["name"] == "stream"
