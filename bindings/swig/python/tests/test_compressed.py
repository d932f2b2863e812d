"""load_run on gzip and zstd documents (as gmlab-upload sends them and
gmlab-server serves them), told by their first bytes; truncated, damaged and
oversized ones refused with a clear message. No device needed."""

import ctypes
import ctypes.util
import gzip

import pytest

import gmlab
from gmlab import _compressed


@pytest.fixture(scope="module")
def plain(source_dir):
    return (source_dir / "results" / "nvidia-h200.json").read_bytes()


def _zstd_compress(data):
    """One zstd frame: through zstandard where installed, else libzstd by ctypes."""
    try:
        import zstandard
        return zstandard.ZstdCompressor(level=19).compress(data)
    except ImportError:
        pass
    name = ctypes.util.find_library("zstd")
    if not name:
        pytest.skip("neither zstandard nor libzstd is installed: no zstd document can be made")
    lib = ctypes.CDLL(name)
    lib.ZSTD_compressBound.restype = ctypes.c_size_t
    lib.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
    lib.ZSTD_compress.restype = ctypes.c_size_t
    lib.ZSTD_compress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    out = ctypes.create_string_buffer(lib.ZSTD_compressBound(len(data)))
    n = lib.ZSTD_compress(out, len(out), data, len(data), 19)
    return out.raw[:n]


# The ways zstd is read: the zstandard package, the system's libzstd by
# ctypes (what a Python without zstandard uses), or neither.
@pytest.fixture(params=["zstandard", "ctypes"])
def zstd_reader(request, monkeypatch):
    if request.param == "zstandard":
        if _compressed._zstandard is None:
            pytest.skip("zstandard is not installed (Debian: python3-zstandard)")
    else:
        monkeypatch.setattr(_compressed, "_zstandard", None)
        if _compressed._libzstd() is None:
            pytest.skip("libzstd is not installed")
    return request.param


def _same_run(a, b):
    assert a.experiments == b.experiments
    assert a.device == b.device
    for ra, rb in zip(a, b):
        assert ra.to_dict() == rb.to_dict()


def _write(tmp_path, name, data):
    p = tmp_path / name
    p.write_bytes(data)
    return p


def test_gzip_is_read_whatever_the_file_is_called(tmp_path, plain):
    with gmlab.load_run(_write(tmp_path, "plain.json", plain)) as expected:
        for name in ("run.json.gz", "run.json"):
            with gmlab.load_run(_write(tmp_path, name, gzip.compress(plain))) as got:
                _same_run(got, expected)
        # two members one after the other (cat a.gz b.gz) are one document
        two = gzip.compress(plain[:1000]) + gzip.compress(plain[1000:])
        with gmlab.load_run(_write(tmp_path, "two.gz", two)) as got:
            _same_run(got, expected)


def test_zstd_is_read_whatever_the_file_is_called(tmp_path, plain, zstd_reader):
    with gmlab.load_run(_write(tmp_path, "plain.json", plain)) as expected:
        for name in ("run.json.zst", "download"):
            with gmlab.load_run(_write(tmp_path, name, _zstd_compress(plain))) as got:
                _same_run(got, expected)
        two = _zstd_compress(plain[:1000]) + _zstd_compress(plain[1000:])
        with gmlab.load_run(_write(tmp_path, "two.zst", two)) as got:
            _same_run(got, expected)


def test_truncated_and_damaged_gzip(tmp_path, plain):
    gz = gzip.compress(plain)
    for name, data, message in [
        ("half.json.gz", gz[: len(gz) // 2], "is a truncated gzip document"),
        ("tail.json.gz", gz[:-3], "is a truncated gzip document"),
        ("bad.json.gz", gz[:40] + bytes(b ^ 0x5A for b in gz[40:80]) + gz[80:], "is a damaged gzip document (zlib: "),
        ("after.json.gz", gz + b"trailing", "is a damaged gzip document (other bytes follow"),
        ("text.json.gz", gzip.compress(b"{not json"), "not valid JSON"),
    ]:
        path = _write(tmp_path, name, data)
        with pytest.raises(gmlab.InvalidArgumentError, match=message.replace("(", r"\(")) as e:
            gmlab.load_run(path)
        if "JSON" not in message:
            assert str(e.value).startswith(str(path) + ": ")


def test_truncated_and_damaged_zstd(tmp_path, plain, zstd_reader):
    zs = _zstd_compress(plain)
    bad = bytearray(zs)
    d = zs[4]  # the first block's type made the reserved one, after the frame header (RFC 8878 3.1.1.1)
    single = bool(d & 0x20)
    bad[4 + 1 + (0 if single else 1) + (0, 1, 2, 4)[d & 3] + ((1 if single else 0), 2, 4, 8)[d >> 6]] |= 0x06
    for name, data, message in [
        ("half.json.zst", zs[: len(zs) // 2], "is a truncated zstd document"),
        ("tail.json.zst", zs[:-3], "is a truncated zstd document"),
        ("magic.json.zst", zs[:4], "is a truncated zstd document"),
        ("bad.json.zst", bytes(bad), "is a damaged zstd document"),
        ("after.json.zst", zs + b"trailing", "is a damaged zstd document"),
    ]:
        path = _write(tmp_path, name, data)
        with pytest.raises(gmlab.InvalidArgumentError, match=message) as e:
            gmlab.load_run(path)
        assert str(e.value).startswith(str(path) + ": ")


def test_zstd_without_any_reader_says_how_to_decompress(tmp_path, plain, monkeypatch):
    monkeypatch.setattr(_compressed, "_zstandard", None)
    monkeypatch.setattr(_compressed, "_LIBZSTD", [None])
    path = _write(tmp_path, "run.json.zst", b"\x28\xb5\x2f\xfd" + bytes(16))
    with pytest.raises(gmlab.NotSupportedError) as e:
        gmlab.load_run(path)
    message = str(e.value)
    assert message.startswith(str(path) + ": is a zstd-compressed document")
    assert "decompress it first: zstd -d %s" % path in message
    assert "pip install zstandard" in message


def test_output_is_bounded(tmp_path, monkeypatch, zstd_reader):
    """A small file that expands past the limit is refused: lowered here to 1 MiB for 2 MiB of zeros."""
    monkeypatch.setattr(_compressed, "MAX_DOCUMENT_BYTES", 1 << 20)
    zeros = bytes(2 << 20)
    with pytest.raises(gmlab.InvalidArgumentError, match="is a gzip document that expands to more than 1 MiB"):
        gmlab.load_run(_write(tmp_path, "bomb.json.gz", gzip.compress(zeros)))
    # a zstd frame that declares its size is refused before anything is decoded
    with pytest.raises(gmlab.InvalidArgumentError, match="is a zstd document that declares 2 MiB, more than the 1 MiB"):
        gmlab.load_run(_write(tmp_path, "bomb.json.zst", _zstd_compress(zeros)))
    # one that does not (two frames: the first small) once the output passes the limit
    two = _zstd_compress(b"[") + _zstd_compress(zeros)
    with pytest.raises(gmlab.InvalidArgumentError, match="is a zstd document that expands to more than 1 MiB"):
        gmlab.load_run(_write(tmp_path, "bomb2.json.zst", two))
    assert _compressed.decompressed(gzip.compress(zeros), "ok.gz", limit=2 << 20) == zeros


def test_the_default_limit_is_one_gib():
    assert _compressed.MAX_DOCUMENT_BYTES == 1 << 30
