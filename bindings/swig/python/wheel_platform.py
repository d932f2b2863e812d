#!/usr/bin/env python3
"""The manylinux platform tag a folder of ELF files really needs, read with readelf.

    wheel_platform.py FOLDER          prints e.g. manylinux_2_34_x86_64, or fails

What it checks, as auditwheel does for its manylinux policies:
  - every library an ELF file needs (DT_NEEDED) is in the folder itself or one
    that every manylinux system provides (glibc's, libstdc++, libgcc_s, libz);
    nothing from the CUDA toolkit;
  - the glibc symbol versions (GLIBC_2.x) give the baseline: manylinux_2_x for
    the newest x needed;
  - the libstdc++ and libgcc symbol versions (GLIBCXX_3.4.y, CXXABI_1.3.z) must
    be within what that baseline's reference distribution ships; where they are
    not, the baseline is raised until they are.
"""

import os
import platform
import re
import subprocess
import sys

# Libraries every manylinux system has (auditwheel's lib_whitelist).
SYSTEM_LIBRARIES = {
    "libc.so.6", "libm.so.6", "libmvec.so.1", "libdl.so.2", "librt.so.1", "libpthread.so.0", "libanl.so.1",
    "libnsl.so.1", "libutil.so.1", "libresolv.so.2", "libstdc++.so.6", "libgcc_s.so.1", "libatomic.so.1",
    "libz.so.1", "libexpat.so.1", "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1",
}

# glibc minor of a baseline -> the newest GLIBCXX_3.4.y and CXXABI_1.3.z its
# reference distribution's libstdc++ provides (x86_64).
LIBSTDCXX = [
    (17, (3, 4, 19), (1, 3, 7)),
    (24, (3, 4, 22), (1, 3, 10)),
    (28, (3, 4, 25), (1, 3, 11)),
    (31, (3, 4, 28), (1, 3, 12)),
    (34, (3, 4, 29), (1, 3, 13)),
    (35, (3, 4, 30), (1, 3, 13)),
    (36, (3, 4, 30), (1, 3, 13)),
    (39, (3, 4, 33), (1, 3, 15)),
]


def is_elf(path):
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def readelf(flag, path):
    return subprocess.run(["readelf", flag, "-W", path], check=True, capture_output=True, text=True).stdout


def version(text):
    return tuple(int(p) for p in text.split("."))


def inspect(folder):
    """(needed libraries outside the folder, {prefix: newest version}) over every ELF file."""
    files = [os.path.join(r, f) for r, _, fs in os.walk(folder) for f in fs]
    elfs = [f for f in files if os.path.isfile(f) and not os.path.islink(f) and is_elf(f)]
    if not elfs:
        raise SystemExit("wheel_platform: no ELF file in %s" % folder)
    inside = {os.path.basename(f) for f in files}
    outside, newest = {}, {}
    for path in elfs:
        for lib in re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", readelf("-d", path)):
            if lib not in inside:
                outside.setdefault(lib, []).append(os.path.relpath(path, folder))
        for prefix, number in re.findall(r"Name: (GLIBC|GLIBCXX|CXXABI|GCC)_([0-9.]+)", readelf("-V", path)):
            v = version(number)
            if v > newest.get(prefix, ()):
                newest[prefix] = v
    return outside, newest


def platform_tag(folder):
    outside, newest = inspect(folder)
    bad = {lib: users for lib, users in outside.items() if lib not in SYSTEM_LIBRARIES}
    if bad:
        raise SystemExit("wheel_platform: needs libraries no manylinux system provides: " +
                         "; ".join("%s (by %s)" % (lib, ", ".join(users)) for lib, users in sorted(bad.items())))
    glibc = newest.get("GLIBC", (2, 17))
    admitting = [b for b, glibcxx, cxxabi in LIBSTDCXX
                 if newest.get("GLIBCXX", ()) <= glibcxx and newest.get("CXXABI", ()) <= cxxabi]
    if not admitting:
        raise SystemExit("wheel_platform: libstdc++ symbols newer than any known baseline: %s" % newest)
    minor = max(glibc[1], admitting[0])
    machine = platform.machine()
    return "manylinux_2_%d_%s" % (minor, machine), newest


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    tag, newest = platform_tag(sys.argv[1])
    print(tag)
    print("newest symbol versions: " + ", ".join("%s_%s" % (k, ".".join(map(str, v)))
                                                 for k, v in sorted(newest.items())), file=sys.stderr)


if __name__ == "__main__":
    main()
