"""Saved documents as gmlab-upload sends them and gmlab-server serves them:
gzip (.json.gz) or zstd (.json.zst), told apart by their first bytes, never by
the file's name. gzip through the standard library; zstd (Python 3.11 has no
zstd module) through the ``zstandard`` package where it is installed, else
through the system's libzstd by ctypes, else a message saying how to
decompress the file. Either way the output is bounded (MAX_DOCUMENT_BYTES):
each document is decoded twice, first only counting its size (and stopping
past the limit), then keeping it, so that a small file cannot expand into all
of the machine's memory."""

import ctypes
import ctypes.util
import zlib

from . import _errors

try:
    import zstandard as _zstandard
except ImportError:  # the ctypes path below
    _zstandard = None

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

#: No gmlab document comes near this (a standard suite is about 1 MiB): a file
#: that expands past it is refused.
MAX_DOCUMENT_BYTES = 1 << 30

_CHUNK = 1 << 20  # output taken at a time
_ZSTD_FEED = 1 << 12  # zstandard's decompressobj has no output bound: input fed in small pieces


def _fail(where, what):
    raise _errors.InvalidArgumentError("%s: %s" % (where, what))


def _too_large(where, name, limit):
    _fail(where, "is a %s document that expands to more than %s, far more than any gmlab document: not read "
                 "(a damaged file or a decompression bomb?)" % (name, size_text(limit)))


def _truncated(where, name):
    _fail(where, "is a truncated %s document (its compressed data ends early: an interrupted download or copy?)" % name)


def size_text(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return ("%d %s" if n == int(n) else "%.1f %s") % (n, unit)
        n /= 1024.0
    return "%d B" % n  # not reached


def compression_of(data):
    """"gzip", "zstd" or None, from the first bytes."""
    if data[:2] == GZIP_MAGIC:
        return "gzip"
    if data[:4] == ZSTD_MAGIC:
        return "zstd"
    return None


def decompressed(data, where, limit=None):
    """The document in ``data`` (bytes): decompressed where it is gzip or zstd
    (several members or frames one after the other are one document), as it is
    otherwise. InvalidArgumentError naming ``where`` for truncated or damaged
    data, more than ``limit`` (default MAX_DOCUMENT_BYTES) bytes of output, or
    zstd with no decoder."""
    if limit is None:
        limit = MAX_DOCUMENT_BYTES
    kind = compression_of(data)
    decode = None
    if kind == "gzip":
        decode = _gunzip
    elif kind == "zstd":
        lib = None if _zstandard is not None else _libzstd()
        if _zstandard is not None:
            decode = _unzstd_zstandard
        elif lib is not None:
            def decode(data, where, limit, out):
                return _unzstd_ctypes(lib, data, where, limit, out)
        else:
            # The same answer as the bindings without a zstd decoder (bindings/contract.json).
            raise _errors.NotSupportedError(
                "%s: is a zstd-compressed document, and neither the zstandard module nor libzstd is available: "
                "decompress it first: zstd -d %s (or install zstandard: pip install zstandard; Debian: "
                "python3-zstandard)" % (where, where))
    if decode is None:
        return data
    decode(data, where, limit, None)  # counted: nothing kept
    out = []
    decode(data, where, limit, out)
    return b"".join(out)


# The decoders: output appended to `out`, or only counted where it is None.
def _gunzip(data, where, limit, out):
    produced = 0
    rest = data
    while True:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)  # a gzip wrapper
        pending = rest
        while True:
            try:
                chunk = d.decompress(pending, _CHUNK)
            except zlib.error as e:
                _fail(where, "is a damaged gzip document (zlib: %s)" % e)
            produced += len(chunk)
            if produced > limit:
                _too_large(where, "gzip", limit)
            if out is not None:
                out.append(chunk)
            pending = d.unconsumed_tail
            if d.eof or (not pending and not chunk):
                break
        if not d.eof:
            _truncated(where, "gzip")
        rest = d.unused_data
        if not rest:
            return
        if rest[:2] != GZIP_MAGIC:  # another member continues the document; anything else does not belong
            _fail(where, "is a damaged gzip document (other bytes follow the end of its compressed data)")


def _declared_too_large(where, declared, limit):
    if declared is not None and declared > limit:
        _fail(where, "is a zstd document that declares %s, more than the %s any gmlab document stays under: not read "
                     "(a damaged file or a decompression bomb?)" % (size_text(declared), size_text(limit)))


def _unzstd_zstandard(data, where, limit, out):
    try:
        declared = _zstandard.frame_content_size(data)
    except _zstandard.ZstdError:
        declared = -1
    _declared_too_large(where, declared if declared >= 0 else None, limit)
    produced = 0
    rest = data
    try:
        while rest:
            d = _zstandard.ZstdDecompressor().decompressobj()
            pos = 0
            while pos < len(rest) and not d.eof:
                chunk = d.decompress(rest[pos:pos + _ZSTD_FEED])
                pos += _ZSTD_FEED
                produced += len(chunk)
                if produced > limit:
                    _too_large(where, "zstd", limit)
                if out is not None:
                    out.append(chunk)
            if not d.eof:
                _truncated(where, "zstd")
            rest = d.unused_data + rest[pos:]
            if rest and rest[:4] != ZSTD_MAGIC:
                _fail(where, "is a damaged zstd document (other bytes follow the end of its compressed data)")
    except _zstandard.ZstdError as e:
        _fail(where, "is a damaged zstd document (zstandard: %s)" % e)


class _InBuffer(ctypes.Structure):
    _fields_ = [("src", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]


class _OutBuffer(ctypes.Structure):
    _fields_ = [("dst", ctypes.c_void_p), ("size", ctypes.c_size_t), ("pos", ctypes.c_size_t)]


_LIBZSTD = []  # [library or None] once looked for


def _libzstd():
    """The system's libzstd through ctypes, or None."""
    if _LIBZSTD:
        return _LIBZSTD[0]
    lib = None
    for name in (ctypes.util.find_library("zstd"), "libzstd.so.1", "libzstd.dylib", "libzstd.dll"):
        if not name:
            continue
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if lib is not None:
        lib.ZSTD_createDStream.restype = ctypes.c_void_p
        lib.ZSTD_freeDStream.argtypes = [ctypes.c_void_p]
        lib.ZSTD_initDStream.argtypes = [ctypes.c_void_p]
        lib.ZSTD_initDStream.restype = ctypes.c_size_t
        lib.ZSTD_decompressStream.argtypes = [ctypes.c_void_p, ctypes.POINTER(_OutBuffer), ctypes.POINTER(_InBuffer)]
        lib.ZSTD_decompressStream.restype = ctypes.c_size_t
        lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
        lib.ZSTD_isError.restype = ctypes.c_uint
        lib.ZSTD_getErrorName.argtypes = [ctypes.c_size_t]
        lib.ZSTD_getErrorName.restype = ctypes.c_char_p
        lib.ZSTD_getFrameContentSize.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        lib.ZSTD_getFrameContentSize.restype = ctypes.c_ulonglong
    _LIBZSTD.append(lib)
    return lib


def _unzstd_ctypes(lib, data, where, limit, out):
    src = ctypes.create_string_buffer(data, len(data))
    declared = lib.ZSTD_getFrameContentSize(src, len(data))
    # ZSTD_CONTENTSIZE_UNKNOWN and _ERROR are the two largest values.
    _declared_too_large(where, declared if declared < (1 << 64) - 2 else None, limit)
    stream = lib.ZSTD_createDStream()
    if not stream:
        _fail(where, "cannot start libzstd to read this zstd document")
    try:
        if lib.ZSTD_isError(lib.ZSTD_initDStream(stream)):
            _fail(where, "cannot start libzstd to read this zstd document")
        inb = _InBuffer(ctypes.cast(src, ctypes.c_void_p), len(data), 0)
        dst = ctypes.create_string_buffer(_CHUNK)
        produced = 0
        while True:
            outb = _OutBuffer(ctypes.cast(dst, ctypes.c_void_p), _CHUNK, 0)
            rc = lib.ZSTD_decompressStream(stream, ctypes.byref(outb), ctypes.byref(inb))
            if lib.ZSTD_isError(rc):
                _fail(where, "is a damaged zstd document (libzstd: %s)" % lib.ZSTD_getErrorName(rc).decode())
            produced += outb.pos
            if produced > limit:
                _too_large(where, "zstd", limit)
            if out is not None:
                out.append(dst.raw[:outb.pos])
            # All input taken: done where the last frame ended (0), cut short
            # where libzstd wants more although it had room to write.
            if inb.pos == inb.size and rc == 0:
                return
            if inb.pos == inb.size and outb.pos < outb.size:
                _truncated(where, "zstd")
    finally:
        lib.ZSTD_freeDStream(stream)
