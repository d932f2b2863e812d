"""zstd for the Python tests and benches, through libzstd itself (ctypes):
Debian 12 packages no zstd module for Python, and libzstd1 is on every system
that builds gmlab-server."""
import ctypes
import ctypes.util

_lib = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
_lib.ZSTD_compressBound.restype = ctypes.c_size_t
_lib.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
_lib.ZSTD_compress.restype = ctypes.c_size_t
_lib.ZSTD_compress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
_lib.ZSTD_isError.restype = ctypes.c_uint
_lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
_lib.ZSTD_getFrameContentSize.restype = ctypes.c_ulonglong
_lib.ZSTD_getFrameContentSize.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
_lib.ZSTD_decompress.restype = ctypes.c_size_t
_lib.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]

MAGIC = b"\x28\xb5\x2f\xfd"


def compress(data, level=19):
    """One frame that declares its size, as gmlab-upload sends a document."""
    cap = _lib.ZSTD_compressBound(len(data))
    out = ctypes.create_string_buffer(cap)
    n = _lib.ZSTD_compress(out, cap, data, len(data), level)
    if _lib.ZSTD_isError(n):
        raise ValueError("zstd compression failed")
    return out.raw[:n]


def decompress(frame, max_size=1 << 30):
    """The content of one frame that declares its size (what gmlab sends)."""
    size = _lib.ZSTD_getFrameContentSize(frame, len(frame))
    if size >= (1 << 64) - 2 or size > max_size:  # unknown, error, or too large
        raise ValueError("not one zstd frame that declares its size")
    out = ctypes.create_string_buffer(max(size, 1))
    n = _lib.ZSTD_decompress(out, size, frame, len(frame))
    if _lib.ZSTD_isError(n) or n != size:
        raise ValueError("damaged zstd frame")
    return out.raw[:n]


def frame_with_raw_tail(compressed_head, head_size, tail):
    """A single frame of head + tail, from one frame of the head alone: the
    head's blocks as they are, then the tail as a raw last block, under a
    header that declares the whole size. For load generators, which would spend
    more time compressing each body anew than the server spends decoding it.

    compressed_head must be compress(head) of a head whose frame uses the
    single-segment form with a 4-byte size field (heads of 64 KiB .. 4 GiB do)
    and no checksum; its blocks are reused with the last-block bit cleared."""
    fhd = compressed_head[4]
    if fhd & 0x20 == 0 or fhd >> 6 != 2 or fhd & 0x07 or fhd & 0x04:
        raise ValueError("unexpected frame header for the head")
    if int.from_bytes(compressed_head[5:9], "little") != head_size:
        raise ValueError("the head's frame does not declare its size")
    blocks = bytearray(compressed_head[9:])
    # Walk to the last block and clear its last-block bit.
    pos = 0
    while True:
        header = int.from_bytes(blocks[pos:pos + 3], "little")
        last, kind, size = header & 1, (header >> 1) & 3, header >> 3
        length = 1 if kind == 1 else size  # an RLE block holds one byte
        if last:
            blocks[pos:pos + 3] = (header & ~1).to_bytes(3, "little")
            if pos + 3 + length != len(blocks):
                raise ValueError("data after the head's last block")
            break
        pos += 3 + length
    raw_tail = ((len(tail) << 3) | 1).to_bytes(3, "little") + tail  # raw block, last
    total = head_size + len(tail)
    return MAGIC + bytes([fhd]) + total.to_bytes(4, "little") + bytes(blocks) + raw_tail
