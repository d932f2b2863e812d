#!/usr/bin/env python3
"""`gmlab report`, `gmlab compare`, `gmlab contribute --run` and `gmlab-upload`
read gzip and zstd run documents, by their first bytes; and what the report's
tables print (papercuts of issue 26).

    check_compressed.py --gmlab PATH --committed RUN.json --gzip 0|1 --zstd 0|1 [--upload PATH]

--gzip/--zstd: whether this build reads the format (zlib/libzstd found at
configure time). Where it does: a compressed copy of the committed run (named
.json.gz/.json.zst, and named .json) reports exactly as the plain file does,
compare reads one form against the other, and truncated, damaged and
oversized files (a gzip file of 1 MiB that expands past the 1 GiB limit, a
zstd frame that declares 2 GiB) are refused with exit 2 and a message naming
the file and what is wrong. Where it does not: the message names the format
and the command that decompresses it. Then the tables: stream's cudaMemcpy
row is 100 % of the same-run same-size memcpy and its copy row agrees with
copy_over_memcpy, and compare prints the array size as "256 MiB". Prints one
line per check and "N passed, M failed" last.
"""
import argparse
import ctypes
import ctypes.util
import gzip
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import tempfile
import zlib

results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'FAILED'}: {name}{(' - ' + detail) if detail and not ok else ''}")


def run(*args, stdin=subprocess.DEVNULL):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=300, stdin=stdin)
    return p.returncode, p.stdout, p.stderr


def zstd_compress(data):
    """One zstd frame (declaring its size) through the system's libzstd, or None."""
    name = ctypes.util.find_library("zstd") or "libzstd.so.1"
    try:
        lib = ctypes.CDLL(name)
    except OSError:
        return None
    lib.ZSTD_compressBound.restype = ctypes.c_size_t
    lib.ZSTD_compressBound.argtypes = [ctypes.c_size_t]
    lib.ZSTD_compress.restype = ctypes.c_size_t
    lib.ZSTD_compress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    lib.ZSTD_isError.argtypes = [ctypes.c_size_t]
    out = ctypes.create_string_buffer(lib.ZSTD_compressBound(len(data)))
    n = lib.ZSTD_compress(out, len(out), data, len(data), 19)
    return None if lib.ZSTD_isError(n) else out.raw[:n]


def zstd_header_bytes(frame):
    """The frame header's length (RFC 8878 3.1.1.1): magic, descriptor, window, dictionary id, content size."""
    d = frame[4]
    single = bool(d & 0x20)
    return 4 + 1 + (0 if single else 1) + (0, 1, 2, 4)[d & 3] + ((1 if single else 0), 2, 4, 8)[d >> 6]


def gzip_bomb(path, size):
    """A gzip file of `size` zero bytes, written without holding them."""
    c = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    with open(path, "wb") as f:
        for _ in range(size >> 20):
            f.write(c.compress(block))
        f.write(c.flush())


def zstd_bomb(declared):
    """A zstd frame header that declares `declared` bytes, and one RLE block of 128 KiB zeros."""
    # Descriptor 0xC0: an 8-byte content size, a window descriptor, no checksum, no dictionary.
    header = b"\x28\xb5\x2f\xfd" + bytes([0xC0, 0x38]) + struct.pack("<Q", declared)
    block = (1 << 1) | ((128 << 10) << 3)  # not the last block, type RLE, 128 KiB
    return header + struct.pack("<I", block)[:3] + b"\x00"


def contribute_refused(gmlab, path, tmp):
    """gmlab contribute --run PATH on a terminal (a pty) whose answer, no, is typed ahead: (rc, stdout, terminal)."""
    env = {k: v for k, v in os.environ.items() if k not in ("GMLAB_SERVER", "XDG_CONFIG_HOME", "XDG_STATE_HOME")}
    env.update({"XDG_CONFIG_HOME": os.path.join(tmp, "cfg"), "XDG_STATE_HOME": os.path.join(tmp, "state"), "HOME": tmp})
    master, slave = pty.openpty()
    os.write(master, b"n\n")
    # The document shown is larger than a pipe holds: stdout goes to a file.
    with open(os.path.join(tmp, "contribute.out"), "w+b") as shown:
        p = subprocess.Popen([gmlab, "contribute", "--run", path, "--server", "http://127.0.0.1:9"], stdin=slave,
                             stdout=shown, stderr=slave, env=env)
        os.close(slave)
        p.wait(timeout=60)
        shown.seek(0)
        out = shown.read()
    terminal = b""
    try:
        while select.select([master], [], [], 0.2)[0]:
            terminal += os.read(master, 4096)
    except OSError:  # the terminal closed with the process
        pass
    os.close(master)
    return p.returncode, out.decode(errors="replace"), terminal.decode(errors="replace")


def refused(gmlab, path, expect, name):
    rc, out, err = run(gmlab, "report", path)
    check(name, rc == 2 and expect in err and path in err, f"exit {rc}: {err.strip()[-400:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gmlab", required=True)
    ap.add_argument("--committed", required=True)
    ap.add_argument("--gzip", type=int, required=True)
    ap.add_argument("--zstd", type=int, required=True)
    ap.add_argument("--upload")
    a = ap.parse_args()
    with open(a.committed, "rb") as f:
        plain_bytes = f.read()
    doc = json.loads(plain_bytes)
    rc, plain_report, err = run(a.gmlab, "report", a.committed)
    check("the committed run reports", rc == 0 and "stream" in plain_report, err[-400:])

    with tempfile.TemporaryDirectory(prefix="gmlab-compressed-") as d:
        forms = {}
        forms["gzip"] = gzip.compress(plain_bytes)
        z = zstd_compress(plain_bytes)
        if z is not None:
            forms["zstd"] = z
        elif a.zstd:
            check("libzstd is there to compress the zstd test documents", False, "ctypes found no libzstd")
        paths = {}
        for kind, data in forms.items():
            ext = ".json.gz" if kind == "gzip" else ".json.zst"
            supported = a.gzip if kind == "gzip" else a.zstd
            named = os.path.join(d, "run" + ext)
            unnamed = os.path.join(d, kind + "-but-named.json")
            for p in (named, unnamed):
                with open(p, "wb") as f:
                    f.write(data)
            paths[kind] = named
            if not supported:
                tool = "gzip" if kind == "gzip" else "zstd"
                rc, out, err = run(a.gmlab, "report", named)
                check(f"without its library, a {kind} document is refused with how to decompress it",
                      rc == 2 and f"is a {kind}-compressed document" in err and f"{tool} -dc {named} > run.json" in err,
                      f"exit {rc}: {err.strip()}")
                continue
            rc, out, err = run(a.gmlab, "report", named)
            check(f"report reads the {kind} document ({os.path.basename(named)}) as the plain one",
                  rc == 0 and out == plain_report, f"exit {rc}: {err.strip()[-400:]}")
            rc, out, err = run(a.gmlab, "report", unnamed)
            check(f"report tells {kind} by its first bytes, not by the name ({os.path.basename(unnamed)})",
                  rc == 0 and out == plain_report, f"exit {rc}: {err.strip()[-400:]}")
            rc, out, err = run(a.gmlab, "report", named, "--markdown")
            check(f"report --markdown reads the {kind} document", rc == 0 and "| of same-size memcpy % |" in out, err[-400:])
            rc, out, err = run(a.gmlab, "compare", a.committed, named)
            ratios = re.findall(r"\s(\d+\.\d{3})\s*\*?\s*$", out, re.M)
            check(f"compare reads the plain run against the {kind} one: every ratio 1.000",
                  rc == 0 and ratios and set(ratios) == {"1.000"}, f"exit {rc}: {err.strip()[-300:]} {sorted(set(ratios))}")

            truncated = os.path.join(d, "truncated" + ext)
            with open(truncated, "wb") as f:
                f.write(data[: len(data) // 2])
            refused(a.gmlab, truncated, f"is a truncated {kind} document", f"a truncated {kind} document is refused as such")
            damaged = os.path.join(d, "damaged" + ext)
            bad = bytearray(data)
            if kind == "gzip":
                for i in range(40, 80):
                    bad[i] ^= 0x5A
            else:  # the first block's type made the reserved one
                bad[zstd_header_bytes(data)] |= 0x06
            with open(damaged, "wb") as f:
                f.write(bytes(bad))
            refused(a.gmlab, damaged, f"is a damaged {kind} document", f"a damaged {kind} document is refused as such")

            if a.upload:
                rc, out, err = run(a.upload, named, "--dry-run")
                check(f"gmlab-upload --dry-run reads the {kind} document",
                      rc == 0 and doc["device"]["name"] in out, f"exit {rc}: {err.strip()[-400:]}")
                rc, out, err = contribute_refused(a.gmlab, named, d)
                check(f"contribute --run reads the {kind} document (shows it, and sends nothing when refused)",
                      "consent refused" in err and doc["device"]["name"] in out, f"exit {rc}: {err.strip()[-400:]}")

        if "gzip" in paths and "zstd" in paths and a.gzip and a.zstd:
            rc, out, err = run(a.gmlab, "compare", paths["gzip"], paths["zstd"])
            check("compare reads a gzip run against a zstd one", rc == 0 and "stream / copy" in out, err[-400:])

        if a.gzip:
            bomb = os.path.join(d, "bomb.json.gz")
            gzip_bomb(bomb, (1 << 30) + (1 << 20))
            check("the gzip bomb is small", os.path.getsize(bomb) < 2 << 20, str(os.path.getsize(bomb)))
            refused(a.gmlab, bomb, "is a gzip document that expands to more than 1 GiB",
                    "a gzip file that expands past 1 GiB is refused")
        if a.zstd:
            bomb = os.path.join(d, "bomb.json.zst")
            with open(bomb, "wb") as f:
                f.write(zstd_bomb(2 << 30))
            refused(a.gmlab, bomb, "is a zstd document that declares 2 GiB, more than the 1 GiB",
                    "a zstd frame that declares 2 GiB is refused before decoding")

    # The tables: stream's memcpy column and compare's sizes.
    stream = next(r for r in doc["results"] if r["experiment"]["name"] == "stream")
    section = plain_report[plain_report.index("== stream"):]
    section = section[: section.find("\n== ", 1) if "\n== " in section[1:] else len(section)]
    check("stream's column says it is the same-size memcpy", "of same-size memcpy %" in section and "of memcpy %" not in section,
          section[:600])

    def memcpy_cell(series):
        """The "of same-size memcpy %" cell of the series' first row."""
        lines = section[section.index("\n  " + series + "\n"):].splitlines()
        header = re.split(r"\s{2,}", next(line for line in lines if "median ms" in line).strip())
        row = re.split(r"\s{2,}", [line for line in lines if re.match(r"^\s+\d", line)][0].strip())
        return row[header.index("of same-size memcpy %")] if "of same-size memcpy %" in header else None

    check("stream's cudaMemcpy row is 100.0 % of the same-size memcpy", memcpy_cell("cudaMemcpy") == "100.0", section[-800:])
    copy = f"{100 * stream['summary']['copy_over_memcpy']:.1f}"
    check(f"stream's copy row is copy_over_memcpy ({copy} %)", memcpy_cell("copy") == copy, str(memcpy_cell("copy")))
    check("the reference the other experiments use is named", "of ref. memcpy %: bandwidth / reference.memcpy_d2d_gbs" in plain_report)
    rc, out, err = run(a.gmlab, "compare", a.committed, a.committed)
    stream_cmp = out[out.index("== stream / copy"):]
    stream_cmp = stream_cmp[: stream_cmp.index("\n== ", 1)]
    check("compare prints the stream array size as the report does (256 MiB)",
          rc == 0 and "256 MiB" in stream_cmp and "268435456" not in out, stream_cmp)
    check("report prints the same size", "256 MiB" in section)

    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
