"""gmlab: a GPU memory laboratory, from Python.

The experiments of the CUDA C++ Best Practices Guide ("Device Memory Spaces")
run on your own GPU, measured and explained, and the same kernels as operations
on your own NumPy arrays::

    import gmlab
    with gmlab.Context() as ctx, ctx.run("stride_copy", strides="1..4", word_sizes=[4]) as r:
        print(r.series[0].values("bandwidth_gbs"))

Saved runs need no GPU: ``gmlab.load_run("run.json").to_pandas()``.

Every failure raises a :class:`gmlab.Error` subclass carrying the library's
status and message; bad Python arguments raise TypeError or ValueError naming
the argument.
"""

import json as _json

from ._enums import SETTINGS, AccessProperty, Matmul, Status, Transpose
from ._errors import (CudaError, Error, InternalError, InvalidArgumentError, NoDeviceError, NotSupportedError,
                      OutOfMemoryError, UnknownExperimentError, VerificationError)
from ._errors import _params_json, _text
from ._handles import Buffer, Context
from ._native import native as _s
from ._results import Point, Result, Run, Series, load_run, loads_run

# The SWIG module is the package's own business: importing it made it and its
# extension attributes of the package (gmlab.swiggmlab, gmlab._swiggmlab),
# which are taken away again (they stay loaded, in sys.modules).
for _name in ("swiggmlab", "_swiggmlab"):
    globals().pop(_name, None)
del _name

__all__ = [
    "AccessProperty", "Buffer", "Context", "CudaError", "Error", "InternalError", "InvalidArgumentError", "Matmul",
    "NoDeviceError", "NotSupportedError", "OutOfMemoryError", "Point", "Result", "Run", "SETTINGS", "Series",
    "Status", "Transpose", "UnknownExperimentError", "VerificationError", "abi_version", "describe", "device_count",
    "experiments", "load_run", "loads_run", "resolve_params", "status_string", "version", "__version__",
]


def version() -> str:
    """The release of the loaded library ("0.1.0")."""
    return _s.version()


__version__ = version()


def abi_version() -> int:
    """The ABI version of the loaded library (the SONAME's number)."""
    return _s.abiVersion()


def status_string(status: int) -> str:
    """A fixed text for a status code ("invalid argument", ...)."""
    if isinstance(status, bool) or not isinstance(status, int):
        raise TypeError("status must be an int, got %s" % type(status).__name__)
    return _s.statusString(int(status))


def device_count() -> int:
    """The number of CUDA devices: 0, not an error, where there is none."""
    return _s.deviceCount()


def experiments() -> list:
    """The names of every experiment in the registry, in registry order."""
    return [_s.experimentName(i) for i in range(_s.experimentCount())]


def describe(experiment: str) -> dict:
    """An experiment's guide section, summary, whether it is in the default suite, its
    typed parameters with defaults and bounds, and its kernels' names. Needs no device."""
    return _json.loads(_s.describeExperiment(_text(experiment, "experiment")))


def resolve_params(experiment: str, params=None, **kwargs) -> dict:
    """Checks parameters without a device and returns every parameter with its value.

    params is a dict, a JSON object text or None; keyword arguments are
    parameters too. Lists may be given as lists or as strings such as "1..32".
    """
    text = _params_json(params, kwargs)
    return _json.loads(_s.resolveParams(_text(experiment, "experiment"), text))
