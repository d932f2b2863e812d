"""Context and Buffer: the handles of gmlab.h as classes that own them.

Both are context managers (``with gmlab.Context() as ctx:``); ``close()``
releases the handle at once and may be called again. A handle that is never
closed is released when it is garbage collected. They may be closed in any
order: a Buffer stays usable after its Context is closed.
"""

import json

from . import _errors
from ._enums import SETTINGS, AccessProperty, Matmul, Transpose
from ._errors import _float, _int, _params_json, _size, _text
from ._native import native as _s
from ._results import Result

def _numpy():
    """numpy, which arrays need; an optional dependency (gmlab[numpy])."""
    try:
        import numpy
    except ImportError:
        raise ImportError("gmlab: arrays need numpy, which is not installed: pip install 'gmlab[numpy]' "
                          "(or pip install numpy); saved runs (gmlab.load_run) need nothing more") from None
    return numpy


def _view(obj, name, writable=False):
    """A memoryview of a C-contiguous object with the buffer protocol."""
    if obj is None:
        raise TypeError("%s must not be None" % name)
    try:
        view = memoryview(obj)
    except TypeError:
        raise TypeError("%s must support the buffer protocol (bytes, bytearray, array.array, numpy.ndarray), got %s"
                        % (name, type(obj).__name__)) from None
    if not view.c_contiguous:
        raise ValueError("%s must be C-contiguous (numpy.ascontiguousarray makes a copy that is)" % name)
    if writable and view.readonly:
        raise TypeError("%s must be writable" % name)
    return view


def _array(obj, name, dtype=None, writable=False):
    """obj as a C-contiguous numpy array without a copy; errors name the argument."""
    np = _numpy()
    if obj is None:
        raise TypeError("%s must be a numpy array or a gmlab.Buffer, got None" % name)
    if isinstance(obj, np.ndarray):
        arr = obj
    else:
        try:
            memoryview(obj)
        except TypeError:
            raise TypeError("%s must be a numpy array (or support the buffer protocol) or a gmlab.Buffer, got %s"
                            % (name, type(obj).__name__)) from None
        arr = np.asarray(obj)
    if not arr.flags.c_contiguous:
        raise ValueError("%s must be C-contiguous (numpy.ascontiguousarray makes a copy that is)" % name)
    if writable and not arr.flags.writeable:
        raise TypeError("%s must be writable" % name)
    if dtype is not None and arr.dtype != np.dtype(dtype):
        raise TypeError("%s must have dtype %s, got %s" % (name, np.dtype(dtype), arr.dtype))
    if arr.dtype.hasobject:
        raise TypeError("%s must hold numbers, not Python objects" % name)
    if arr.size == 0:
        raise _errors.InvalidArgumentError("%s must not be empty" % name)
    return arr


def _out_array(out, name, shape, dtype):
    """out checked (or made): a writable C-contiguous array of dtype with shape's element count."""
    np = _numpy()
    count = 1
    for s in shape:
        count *= s
    if out is None:
        return np.empty(shape, dtype=dtype)
    arr = _array(out, name, dtype=dtype, writable=True)
    if arr.size != count:
        raise ValueError("%s must hold %s = %d elements, got %d" % (name, " x ".join(map(str, shape)), count, arr.size))
    return arr


class Context:
    """One CUDA device with its own stream and measurement settings (gm_context).

    ``Context(device=0)`` raises :class:`gmlab.NoDeviceError` where there is no
    CUDA device. Use it from one thread at a time.
    """

    def __init__(self, device: int = 0) -> None:
        self._h = None
        # A negative ordinal is the caller's mistake wherever it runs: refused
        # here, before the library looks for devices (it would say there are none).
        self._h = _s.Context(_size(device, "device"))

    # ---- ownership -------------------------------------------------------
    def close(self) -> None:
        """Releases the context now; calling it again does nothing."""
        h, self._h = self._h, None
        if h is not None:
            _s._swiggmlab.delete_Context(h)

    @property
    def closed(self) -> bool:
        """True once close() has been called."""
        return self._h is None

    def __enter__(self) -> "Context":
        self._live()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return "Context(closed)" if self._h is None else "Context(device=%d)" % self.device

    def _live(self):
        if self._h is None:
            raise _errors.closed("Context")
        return self._h

    # ---- device and settings ----------------------------------------------
    @property
    def device(self) -> int:
        """The device ordinal the context was opened on."""
        return self._live().device()

    def device_info(self) -> dict:
        """The device's memory spaces (sizes, caches, persisting-L2 limits, bus, clocks, bandwidth) as a dict."""
        return json.loads(self._live().deviceInfoJson())

    def counters_unavailable_reason(self) -> str:
        """Why hardware counters (CUPTI range profiler) cannot be read on this device and how to
        enable them; "" when they can."""
        return self._live().countersUnavailableReason()

    def kernel_resources(self, experiment: "str | None" = None) -> dict:
        """The resources the compiler gave each kernel of an experiment on this device (registers,
        static shared, local and constant bytes, largest block); None for every kernel of the
        library, "support" for the kernels the experiments share."""
        if experiment is not None:
            _text(experiment, "experiment")
        return json.loads(self._live().kernelResourcesJson(experiment or ""))

    def set(self, setting: str, value: float) -> None:
        """Sets a measurement setting: warmup, min_repetitions, max_repetitions, min_time_ms,
        flush_l2 (0 or 1), memory_fraction."""
        self._live().set(_text(setting, "setting"), _float(value, "value"))

    def get(self, setting: str) -> float:
        """A measurement setting by name (see set)."""
        return self._live().get(_text(setting, "setting"))

    @property
    def settings(self) -> dict:
        """Every measurement setting by name."""
        h = self._live()
        return {name: h.get(name) for name in SETTINGS}

    def synchronize(self) -> None:
        """Waits for all work queued on the context's stream."""
        self._live().synchronize()

    # ---- experiments --------------------------------------------------------
    def run(self, experiment: str, params=None, **kwargs) -> "Result":
        """Runs an experiment through the measurement harness and returns its Result.

        params is a dict, a JSON object text or None (the defaults); keyword
        arguments are parameters too: ``ctx.run("stride_copy", strides="1..4", word_sizes=[4])``.
        """
        text = _params_json(params, kwargs)
        return Result._own(self._live().run(_text(experiment, "experiment"), text))

    # ---- operations ----------------------------------------------------------
    def _buffers_or_arrays(self, names, values):
        """'buffers' when every value is a Buffer, 'arrays' when none is; TypeError otherwise."""
        kinds = [isinstance(v, Buffer) for v in values]
        if all(kinds):
            return "buffers"
        if not any(kinds):
            return "arrays"
        raise TypeError("%s must all be gmlab.Buffers or all be arrays" % " and ".join(names))

    def transpose(self, a, rows=None, cols=None, *, out=None, element_size=None, variant=Transpose.AUTO):
        """out (cols x rows) = the transpose of a (rows x cols), both row-major.

        a is a numpy array (2-D, or any shape with rows and cols given; elements
        of 1, 2, 4, 8 or 16 bytes) and the result is a new array, or ``out``; or
        a is a :class:`Buffer` with rows, cols and element_size (default 4)
        given, and the result is a new Buffer, or ``out``.
        """
        variant = _int(variant, "variant")
        h = self._live()
        if isinstance(a, Buffer):
            if out is not None and not isinstance(out, Buffer):
                raise TypeError("out must be a gmlab.Buffer when a is one, got %s" % type(out).__name__)
            if rows is None or cols is None:
                raise TypeError("rows and cols must be given when a is a gmlab.Buffer")
            rows, cols = _int(rows, "rows"), _int(cols, "cols")
            size = 4 if element_size is None else _size(element_size, "element_size")
            result = out if out is not None else Buffer(self, max(rows * cols * size, 1))
            h.transpose(a._live(), result._live(), rows, cols, size, variant)
            return result
        arr = _array(a, "a")
        if rows is None and cols is None:
            if arr.ndim != 2:
                raise ValueError("a must be 2-D when rows and cols are not given, got %d-D" % arr.ndim)
            rows, cols = arr.shape
        elif rows is None or cols is None:
            raise TypeError("rows and cols must be given together")
        rows, cols = _int(rows, "rows"), _int(cols, "cols")
        if rows * cols != arr.size:
            raise ValueError("a holds %d elements, not rows x cols = %d x %d" % (arr.size, rows, cols))
        if element_size is not None and _int(element_size, "element_size") != arr.itemsize:
            raise ValueError("element_size must be a's item size %d, got %d" % (arr.itemsize, element_size))
        result = _out_array(out, "out", (cols, rows), arr.dtype)
        with Buffer(self, arr.nbytes) as din, Buffer(self, arr.nbytes) as dout:
            din.upload(arr)
            h.transpose(din._live(), dout._live(), rows, cols, arr.itemsize, variant)
            dout.download(result)
        return result

    def matmul(self, a, b, m=None, n=None, k=None, *, out=None, variant=Matmul.SHARED_AB):
        """C (m x n) = A (m x k) B (k x n) on float32, row-major, with the guide's kernels.

        a and b are float32 numpy arrays (2-D, or any shape with m, n, k given)
        and the result is a new (m, n) array, or ``out``; or both are Buffers
        with m, n and k given, and the result is a new Buffer, or ``out``.
        """
        variant = _int(variant, "variant")
        h = self._live()
        if self._buffers_or_arrays(("a", "b"), (a, b)) == "buffers":
            if out is not None and not isinstance(out, Buffer):
                raise TypeError("out must be a gmlab.Buffer when a and b are, got %s" % type(out).__name__)
            if m is None or n is None or k is None:
                raise TypeError("m, n and k must be given when a and b are gmlab.Buffers")
            m, n, k = _int(m, "m"), _int(n, "n"), _int(k, "k")
            result = out if out is not None else Buffer(self, max(m * n * 4, 1))
            h.matmul(a._live(), b._live(), result._live(), m, n, k, variant)
            return result
        np = _numpy()
        A = _array(a, "a", dtype=np.float32)
        B = _array(b, "b", dtype=np.float32)
        if m is None and n is None and k is None:
            if A.ndim != 2 or B.ndim != 2:
                raise ValueError("a and b must be 2-D when m, n and k are not given, got %d-D and %d-D" % (A.ndim, B.ndim))
            (m, k), (k2, n) = A.shape, B.shape
            if k != k2:
                raise ValueError("a is %d x %d and b is %d x %d: a's columns must equal b's rows" % (m, k, k2, n))
        elif m is None or n is None or k is None:
            raise TypeError("m, n and k must be given together")
        m, n, k = _int(m, "m"), _int(n, "n"), _int(k, "k")
        if A.size != m * k:
            raise ValueError("a holds %d elements, not m x k = %d x %d" % (A.size, m, k))
        if B.size != k * n:
            raise ValueError("b holds %d elements, not k x n = %d x %d" % (B.size, k, n))
        result = _out_array(out, "out", (m, n), np.float32)
        with Buffer(self, A.nbytes) as da, Buffer(self, B.nbytes) as db, Buffer(self, result.nbytes) as dc:
            da.upload(A)
            db.upload(B)
            h.matmul(da._live(), db._live(), dc._live(), m, n, k, variant)
            dc.download(result)
        return result

    def _stencil(self, constant, x, coefficients, n, out):
        np = _numpy()
        h = self._live()
        if coefficients is None:
            raise TypeError("coefficients must be 4 numbers, got None")
        try:
            c = np.ascontiguousarray(np.asarray(coefficients, dtype=np.float32).reshape(-1))
        except (TypeError, ValueError):
            raise TypeError("coefficients must be 4 numbers, got %s" % type(coefficients).__name__) from None
        if c.size != 4:
            raise ValueError("coefficients must hold 4 values, got %d" % c.size)
        call = h.stencilConstant if constant else h.stencilReadonly
        if isinstance(x, Buffer):
            if out is not None and not isinstance(out, Buffer):
                raise TypeError("out must be a gmlab.Buffer when x is one, got %s" % type(out).__name__)
            count = x.size // 4 if n is None else _int(n, "n")
            result = out if out is not None else Buffer(self, max(count * 4, 1))
            call(x._live(), result._live(), count, c)
            return result
        arr = _array(x, "x", dtype=np.float32)
        count = arr.size if n is None else _int(n, "n")
        if count != arr.size:
            raise ValueError("n must be x's size %d, got %d" % (arr.size, count))
        result = _out_array(out, "out", arr.shape, np.float32)
        with Buffer(self, arr.nbytes) as din, Buffer(self, arr.nbytes) as dout:
            din.upload(arr)
            call(din._live(), dout._live(), count, c)
            dout.download(result)
        return result

    def stencil_constant(self, x, coefficients, n=None, *, out=None):
        """The nine-point 1D stencil on float32, coefficients in __constant__ memory:
        out[i] = sum over r = 1..4 of c[r-1] * (x[i+r] - x[i-r]), x taken as 0 outside [0, n).

        x is a float32 numpy array (the result is a new array of its shape, or
        ``out``) or a Buffer of n floats (default: its size / 4; the result is a
        new Buffer, or ``out``). coefficients: 4 numbers.
        """
        return self._stencil(True, x, coefficients, n, out)

    def stencil_readonly(self, x, coefficients, n=None, *, out=None):
        """The same stencil with the coefficients read from global memory through the
        read-only cache (__ldg)."""
        return self._stencil(False, x, coefficients, n, out)

    def copy_strided(self, dst: "Buffer", src: "Buffer", count: int, word_size: int = 4, *, dst_offset: int = 0,
                     dst_stride: int = 1, src_offset: int = 0, src_stride: int = 1) -> None:
        """dst[dst_offset + i*dst_stride] = src[src_offset + i*src_stride] for count words of
        word_size bytes (1, 2, 4, 8 or 16); offsets and strides count words."""
        h = self._live()
        for value, name in ((dst, "dst"), (src, "src")):
            if not isinstance(value, Buffer):
                raise TypeError("%s must be a gmlab.Buffer, got %s" % (name, type(value).__name__))
        h.copyStrided(dst._live(), _size(dst_offset, "dst_offset"), _size(dst_stride, "dst_stride"), src._live(),
                      _size(src_offset, "src_offset"), _size(src_stride, "src_stride"), _size(count, "count"),
                      _size(word_size, "word_size"))

    # ---- L2 persisting window ----------------------------------------------
    def set_l2_persisting_size(self, nbytes: int) -> int:
        """Sets aside up to nbytes of L2 for persisting lines; returns the size granted
        (compute capability 8.0 and later, else NotSupportedError)."""
        return self._live().setL2PersistingSize(_size(nbytes, "nbytes"))

    def set_l2_window(self, buffer: "Buffer", offset: int = 0, num_bytes: "int | None" = None, hit_ratio: float = 1.0,
                      hit_property: int = AccessProperty.PERSISTING,
                      miss_property: int = AccessProperty.STREAMING) -> None:
        """An access policy window over [offset, offset + num_bytes) of buffer (default: to its
        end) for this context's stream: every later operation and experiment on the context runs
        under it."""
        h = self._live()
        if not isinstance(buffer, Buffer):
            raise TypeError("buffer must be a gmlab.Buffer, got %s" % type(buffer).__name__)
        offset = _size(offset, "offset")
        num_bytes = buffer.size - offset if num_bytes is None else _size(num_bytes, "num_bytes")
        h.setL2Window(buffer._live(), offset, num_bytes, _float(hit_ratio, "hit_ratio"),
                      _int(hit_property, "hit_property"), _int(miss_property, "miss_property"))

    def reset_l2_window(self) -> None:
        """Removes the window and returns persisting lines to normal."""
        self._live().resetL2Window()

    def l2_state(self) -> dict:
        """The window and set-aside CUDA reports in force now."""
        return json.loads(self._live().l2StateJson())


class Buffer:
    """Device memory on a context's device (gm_buffer): ``Buffer(ctx, nbytes)``."""

    def __init__(self, ctx: Context, nbytes: int) -> None:
        self._h = None
        if not isinstance(ctx, Context):
            raise TypeError("ctx must be a gmlab.Context, got %s" % type(ctx).__name__)
        self._h = _s.Buffer(ctx._live(), _size(nbytes, "nbytes"))

    @classmethod
    def from_array(cls, ctx: Context, data) -> "Buffer":
        """A buffer of data's size holding a copy of data (any C-contiguous buffer-protocol object)."""
        view = _view(data, "data")
        buf = cls(ctx, view.nbytes)
        try:
            buf.upload(data)
        except BaseException:
            buf.close()
            raise
        return buf

    def close(self) -> None:
        """Frees the device memory now; calling it again does nothing."""
        h, self._h = self._h, None
        if h is not None:
            _s._swiggmlab.delete_Buffer(h)

    @property
    def closed(self) -> bool:
        """True once close() has been called."""
        return self._h is None

    def __enter__(self) -> "Buffer":
        self._live()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return "Buffer(closed)" if self._h is None else "Buffer(%d bytes)" % self.size

    def _live(self):
        if self._h is None:
            raise _errors.closed("Buffer")
        return self._h

    @property
    def size(self) -> int:
        """Size in bytes."""
        return self._live().size()

    nbytes = size

    def fill(self, value: int) -> None:
        """Sets every byte to value (0..255)."""
        self._live().fill(_int(value, "value"))

    def upload(self, data, offset: int = 0) -> None:
        """Copies data (any C-contiguous object with the buffer protocol: numpy arrays, bytes,
        bytearray, array.array) into the buffer at offset bytes, without an extra copy."""
        h = self._live()
        view = _view(data, "data")
        offset = _int(offset, "offset")
        size = h.size()
        if offset >= 0 and offset + view.nbytes > size:
            raise ValueError("data is %d bytes, which does not fit in the buffer's %d bytes from offset %d"
                             % (view.nbytes, size, offset))
        h.uploadBytes(offset, view)

    def download(self, out=None, *, dtype=None, shape=None, offset: int = 0):
        """Copies the buffer's bytes from offset into a numpy array and returns it.

        With ``out`` (a writable C-contiguous array, or any writable buffer-protocol
        object) the buffer fills it; otherwise a new array of ``dtype`` (default
        uint8) is made, of ``shape`` or as long as the bytes from offset allow.
        """
        h = self._live()
        offset = _int(offset, "offset")
        size = h.size()
        available = size - offset if 0 <= offset <= size else 0
        if offset < 0 or offset > size:
            raise _errors.InvalidArgumentError("offset must be in 0..%d, got %d" % (size, offset))
        if out is not None:
            if dtype is not None or shape is not None:
                raise TypeError("give either out or dtype/shape, not both")
            view = _view(out, "out", writable=True)
            if view.nbytes > available:
                raise ValueError("out is %d bytes, more than the buffer's %d bytes from offset %d"
                                 % (view.nbytes, size, offset))
            h.downloadBytes(offset, view)
            return out
        np = _numpy()
        try:
            dt = np.dtype("uint8" if dtype is None else dtype)
        except TypeError:
            raise TypeError("dtype must be a numpy dtype, got %r" % (dtype,)) from None
        if dt.hasobject or dt.itemsize == 0:
            raise TypeError("dtype must be a numeric numpy dtype, got %s" % dt)
        if shape is None:
            if available % dt.itemsize:
                raise ValueError("the buffer's %d bytes from offset %d are not a whole number of %s (%d bytes); "
                                 "give shape or offset" % (available, offset, dt, dt.itemsize))
            shape = (available // dt.itemsize,)
        else:
            if isinstance(shape, int) or hasattr(shape, "__index__"):
                shape = (shape,)
            try:
                shape = tuple(_int(s, "shape") for s in shape)
            except TypeError:
                raise TypeError("shape must be an int or a tuple of ints, got %r" % (shape,)) from None
            if any(s < 0 for s in shape):
                raise ValueError("shape must not be negative, got %r" % (shape,))
            count = 1
            for s in shape:
                count *= s
            if count * dt.itemsize > available:
                raise ValueError("shape %r of %s needs %d bytes, more than the buffer's %d bytes from offset %d"
                                 % (shape, dt, count * dt.itemsize, size, offset))
        result = np.empty(shape, dtype=dt)
        if result.nbytes:
            h.downloadBytes(offset, result)
        return result
