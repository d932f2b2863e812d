"""gmlab.Error and its subclasses: one per status code of gmlab.h.

Every failing call raises one of them with the library's status and message
("strides must be in 1..32, got 0"). The wrapper's one %exception block calls
from_status() to make them (gmlab_lang.i).
"""

import json
import operator

from ._enums import Status

# The exceptions are gmlab's own: tracebacks and reprs name them gmlab.NoDeviceError,
# as they are imported, not by this private module (set at the end of this file).
_PUBLIC_MODULE = "gmlab"


class Error(Exception):
    """A failed gmlab call: ``status`` (a :class:`Status`) and ``message``, the
    library's text naming the argument and its allowed range."""

    #: the status of this class (each subclass has its own)
    default_status = Status.INTERNAL

    def __init__(self, message: str, status: "int | None" = None) -> None:
        super().__init__(message)
        code = self.default_status if status is None else status
        try:
            code = Status(code)
        except ValueError:
            pass  # a status newer than this package: keep the number
        self.status = code
        self.message = message

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return "%s(%r, status=%s)" % (type(self).__name__, self.message, int(self.status))


class InvalidArgumentError(Error, ValueError):
    """A handle that is closed, a value out of range, malformed JSON (GM_ERROR_INVALID_ARGUMENT)."""

    default_status = Status.INVALID_ARGUMENT


class NoDeviceError(Error):
    """No CUDA device or no usable driver (GM_ERROR_NO_DEVICE)."""

    default_status = Status.NO_DEVICE


class NotSupportedError(Error):
    """The device lacks the feature, e.g. the L2 window below compute capability 8.0 (GM_ERROR_NOT_SUPPORTED)."""

    default_status = Status.NOT_SUPPORTED


class OutOfMemoryError(Error):
    """Device or host memory exhausted, or a request beyond the memory budget (GM_ERROR_OUT_OF_MEMORY)."""

    default_status = Status.OUT_OF_MEMORY


class CudaError(Error):
    """A CUDA call failed; the message names the call, file and CUDA's error (GM_ERROR_CUDA)."""

    default_status = Status.CUDA


class VerificationError(Error):
    """A kernel's output differed from the host reference: no number is reported (GM_ERROR_VERIFICATION_FAILED)."""

    default_status = Status.VERIFICATION_FAILED


class UnknownExperimentError(Error, LookupError):
    """No experiment of that name (GM_ERROR_UNKNOWN_EXPERIMENT)."""

    default_status = Status.UNKNOWN_EXPERIMENT


class InternalError(Error):
    """A bug in gmlab (GM_ERROR_INTERNAL)."""

    default_status = Status.INTERNAL


_BY_STATUS = {cls.default_status: cls for cls in (InvalidArgumentError, NoDeviceError, NotSupportedError,
                                                  OutOfMemoryError, CudaError, VerificationError,
                                                  UnknownExperimentError, InternalError)}


def from_status(status: int, message: str) -> Error:
    """The error for a status code of gmlab.h (Error itself for an unknown one)."""
    return _BY_STATUS.get(status, Error)(message, status)


def closed(what: str) -> InvalidArgumentError:
    """The error of a call on a closed handle: the same text as the other languages'."""
    return InvalidArgumentError("this %s is closed" % what)


for _cls in (Error, InvalidArgumentError, NoDeviceError, NotSupportedError, OutOfMemoryError, CudaError,
             VerificationError, UnknownExperimentError, InternalError):
    _cls.__module__ = _PUBLIC_MODULE


# ---- Argument checks shared by the handles and the results --------------------
# Python arguments are checked here, before the library sees them, so that
# errors name the Python argument: TypeError for a wrong type, InvalidArgumentError
# (a ValueError) for a value out of range.

_INT64_MAX = 2**63 - 1


def _int(value, name):
    """value as a Python int; TypeError naming the argument otherwise."""
    if isinstance(value, bool) or value is None:
        raise TypeError("%s must be an int, got %s" % (name, type(value).__name__))
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("%s must be an int, got %s" % (name, type(value).__name__)) from None
    if v > _INT64_MAX:
        raise InvalidArgumentError("%s must be at most %d, got %d" % (name, _INT64_MAX, v))
    return v


def _size(value, name):
    """A size, offset or stride: an int >= 0 (refused with the library's wording,
    under the Python argument's name)."""
    v = _int(value, name)
    if v < 0:
        raise InvalidArgumentError("%s must be >= 0, got %d" % (name, v))
    return v


def _float(value, name):
    if isinstance(value, bool) or value is None or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise TypeError("%s must be a number, got %s" % (name, type(value).__name__))
    return float(value)


def _text(value, name):
    if not isinstance(value, str):
        raise TypeError("%s must be a str, got %s" % (name, type(value).__name__))
    return value


def _params_json(params, kwargs):
    """A JSON object text from a dict, a JSON text or None, plus keyword parameters."""
    if params is None:
        merged = {}
    elif isinstance(params, str):
        if not kwargs:
            return params
        try:
            merged = json.loads(params)
        except ValueError as e:
            raise InvalidArgumentError("params is not valid JSON: %s" % e) from None
        if not isinstance(merged, dict):
            raise InvalidArgumentError("params must be a JSON object")
    elif isinstance(params, dict):
        merged = dict(params)
    else:
        raise TypeError("params must be a dict, a JSON str or None, got %s" % type(params).__name__)
    merged.update(kwargs)
    try:
        return json.dumps(merged)
    except (TypeError, ValueError) as e:
        raise TypeError("params must hold only JSON values (numbers, strings, lists, bools): %s" % e) from None
