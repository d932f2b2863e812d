#!/usr/bin/env bash
# The release packages from an already built tree: runs CPack (no rebuild),
# unpacks the tarball into an empty directory and checks that it is whole and
# portable: the files are there, no ELF file needs anything from the CUDA
# toolkit (the runtime is static) or points into the build tree, libgmlab.so
# needs no libcurl, and the unpacked `gmlab list` runs (no GPU needed), as does
# `gmlab report` on a gzip and a zstd run where the build reads them. The
# .deb must hold the same files under /usr and declare libcurl for the
# uploader when it was built, and zlib1g/libzstd1 where gmlab needs them.
#
#   check_package.sh BUILD_DIR [WORK_DIR]      ($CPACK: the cpack to use)
set -euo pipefail
build=$(cd "$1" && pwd)
work=${2:-$(mktemp -d)}
rm -rf "$work" && mkdir -p "$work/out" "$work/unpacked"
fail() { echo "FAIL: $*" >&2; exit 1; }

# CPack installs the components from the build tree into its own staging
# directory under -B; it builds nothing.
(cd "$build" && "${CPACK:-cpack}" -G "TGZ;DEB" -B "$work/out" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log" >&2; fail "cpack"; }
tgz=$(ls "$work"/out/gmlab-*.tar.gz 2>/dev/null | head -1)
deb=$(ls "$work"/out/gmlab_*.deb 2>/dev/null | head -1)
[ -n "$tgz" ] || fail "no .tar.gz in $work/out"
[ -n "$deb" ] || fail "no .deb in $work/out"
echo "packages: $(basename "$tgz") ($(du -h "$tgz" | cut -f1)), $(basename "$deb") ($(du -h "$deb" | cut -f1))"

tar -xzf "$tgz" -C "$work/unpacked"
root=$(ls -d "$work"/unpacked/gmlab-*)
with_upload=0
grep -q '^GM_BUILD_UPLOAD:BOOL=ON' "$build/CMakeCache.txt" && with_upload=1

for f in bin/gmlab lib/libgmlab.so include/gmlab.h lib/cmake/gmlab/gmlabConfig.cmake \
         lib/cmake/gmlab/gmlabTargets.cmake lib/pkgconfig/gmlab.pc share/gmlab/schema/gmlab.run-1.schema.json; do
  [ -e "$root/$f" ] || fail "$f is not in the tarball"
done
ls "$root"/lib/libgmlab.so.* >/dev/null 2>&1 || fail "no versioned libgmlab.so.N in the tarball"
if [ "$with_upload" = 1 ]; then [ -x "$root/bin/gmlab-upload" ] || fail "bin/gmlab-upload is not in the tarball"; fi
for extra in bin/gmlab-server; do [ ! -e "$root/$extra" ] || fail "$extra should not be in the release"; done

# Nothing from the toolkit, nothing from the build tree.
toolkit='libcudart|libcublas|libcufft|libcurand|libcusparse|libcusolver|libnvrtc|libnvJitLink|libcupti|libnvptxcompiler|libnppc'
elfs=$(find "$root" -type f \( -name 'gmlab*' -o -name '*.so*' \) -exec sh -c 'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
[ -n "$elfs" ] || fail "no ELF files found"
for f in $elfs; do
  dyn=$(readelf -d "$f")
  needed=$(echo "$dyn" | awk '/\(NEEDED\)/ {print $NF}' | tr -d '[]')
  if echo "$needed" | grep -Eq "$toolkit"; then fail "$f needs a CUDA toolkit library: $(echo $needed)"; fi
  runpath=$(echo "$dyn" | awk '/\((RUNPATH|RPATH)\)/ {print $NF}' | tr -d '[]')
  if [ -n "$runpath" ] && echo "$runpath" | tr ':' '\n' | grep -vq '^\$ORIGIN'; then
    fail "$f has a run path outside the package: $runpath"
  fi
  # ldd with a clean environment: every library resolves, none from the
  # toolkit's directories or the build tree.
  resolved=$(env -u LD_LIBRARY_PATH ldd "$f")
  if grep -q 'not found' <<<"$resolved"; then fail "$f: $(echo "$resolved" | grep 'not found')"; fi
  # (The unpacked package itself may lie inside the build tree: its own files do not count.)
  if echo "$resolved" | grep -v "=> $work/" | grep -Eq "$toolkit|/cuda[^ ]*/(lib|targets)|$build"; then
    fail "$f resolves libraries from the toolkit or the build tree:
$resolved"
  fi
  echo "ok: $(basename "$f") needs $(echo $needed)"
done
lib=$(ls "$root"/lib/libgmlab.so.*.*.* | head -1)
readelf -d "$lib" | grep -Eq '\(NEEDED\).*(libcurl|libz\.)' && fail "libgmlab.so needs libcurl or zlib"
# ldd's output is kept first: grep -q stops reading at the first match, and
# under pipefail the writer's SIGPIPE would then fail the check at random.
loaded=$(env -u LD_LIBRARY_PATH ldd "$root/bin/gmlab")
grep -q "$root/bin/../lib/libgmlab.so\|$root/lib/libgmlab.so" <<<"$loaded" ||
  fail "the unpacked gmlab does not load the unpacked libgmlab.so: $(echo "$loaded" | grep gmlab)"

# The unpacked command runs from an empty directory.
mkdir -p "$work/empty"
out=$(cd "$work/empty" && env -u LD_LIBRARY_PATH "$root/bin/gmlab" list) || fail "the unpacked gmlab list exited $?"
echo "$out" | grep -Eq '^stride_copy +yes' || fail "the unpacked gmlab list does not list stride_copy:
$out"
[ -z "$(ls -A "$work/empty")" ] || fail "gmlab list wrote files into the current directory"
"$root/bin/gmlab" --version | grep -q "^gmlab [0-9]" || fail "gmlab --version"

# The unpacked gmlab reads compressed runs where it was built to (zlib and
# libzstd found: tools/report/CMakeLists.txt), through the system's libraries.
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
if [ -f "$src/results/nvidia-h200.json" ] && [ "$(cached GM_READ_COMPRESSED)" = ON ]; then
  for kind in gzip zstd; do
    tool=$kind; ext=gz; var=ZLIB
    [ "$kind" = zstd ] && ext=zst && var=ZSTD
    case "$(cached GM_${var}_LIBRARY)" in ''|*NOTFOUND) continue ;; esac
    case "$(cached GM_${var}_INCLUDE_DIR)" in ''|*NOTFOUND) continue ;; esac
    command -v "$tool" >/dev/null || continue
    "$tool" -c -q "$src/results/nvidia-h200.json" >"$work/run.json.$ext"
    report=$(cd "$work/empty" && env -u LD_LIBRARY_PATH "$root/bin/gmlab" report "$work/run.json.$ext" 2>&1) ||
      fail "the unpacked gmlab does not report a $kind run: $(echo "$report" | tail -3)"
    grep -q 'of same-size memcpy %' <<<"$report" || fail "the unpacked gmlab's report of a $kind run lacks stream's table"
    echo "ok: the unpacked gmlab reports a $kind run"
  done
fi

# The CMake and pkg-config files point into wherever the tarball was unpacked.
if command -v pkg-config >/dev/null; then
  cflags=$(PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --cflags gmlab)
  libs=$(PKG_CONFIG_PATH="$root/lib/pkgconfig" pkg-config --libs gmlab)
  [ -e "$(echo "$cflags" | sed 's/^-I//; s/ *$//')/gmlab.h" ] || fail "pkg-config --cflags gmlab gives $cflags"
  [ -e "$(echo "$libs" | sed 's/^-L//; s/ .*//')/libgmlab.so" ] || fail "pkg-config --libs gmlab gives $libs"
fi

# The .deb: same files under /usr; libcurl declared where the uploader is in it.
if command -v dpkg-deb >/dev/null; then
  contents=$(dpkg-deb -c "$deb")
  for f in ./usr/bin/gmlab ./usr/include/gmlab.h ./usr/lib/pkgconfig/gmlab.pc ./usr/lib/cmake/gmlab/gmlabConfig.cmake; do
    grep -q " $f\$" <<<"$contents" || fail "$f is not in the .deb"
  done
  grep -q ' ./usr/lib/libgmlab.so.[0-9]' <<<"$contents" || fail "libgmlab.so.N is not in the .deb"
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "deb Depends: $depends"
  if [ "$with_upload" = 1 ]; then grep -q 'libcurl' <<<"$depends" || fail "the .deb does not declare libcurl"; fi
  gmlab_needs=$(readelf -d "$root/bin/gmlab" | awk '/\(NEEDED\)/ {print $NF}' | tr -d '[]')
  if grep -q '^libz\.so' <<<"$gmlab_needs"; then grep -q 'zlib1g' <<<"$depends" || fail "gmlab needs zlib; the .deb does not declare zlib1g"; fi
  if grep -q '^libzstd\.so' <<<"$gmlab_needs"; then grep -q 'libzstd1' <<<"$depends" || fail "gmlab needs libzstd; the .deb does not declare libzstd1"; fi
  echo "$depends" | grep -Eiq 'cuda|nvidia' && fail "the .deb depends on a CUDA package: $depends"
fi
echo "package check passed ($root)"
