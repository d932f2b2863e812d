"""gmlab.Error and its subclasses: one per status code of gmlab.h.

Every failing call raises one of them with the library's status and message
("strides must be in 1..32, got 0"). The wrapper's one %exception block calls
from_status() to make them (gmlab_lang.i).
"""

from ._enums import Status


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
