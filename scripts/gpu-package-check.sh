#!/usr/bin/env bash
# On a GPU machine: builds the release packages (every architecture the
# toolkit builds, cmake/GmlabCudaArchitectures.cmake), unpacks the tarball into
# an empty temporary directory, and runs the unpacked gmlab from another empty
# directory with nothing else on the library path: the standard suite
# (--quick where this gmlab has it), then every visible GPU in turn
# (--devices all, one small experiment, one document per device).
#
#   scripts/gpu-package-check.sh                 # build in build-package/, then check
#   scripts/gpu-package-check.sh gmlab-*.tar.gz  # check a tarball built elsewhere
#
# Prints the package's size, what its binaries need (ldd), the run's exit
# code and time, and the files written. Exit status: 0 when everything ran.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v nvcc >/dev/null || export PATH="/usr/local/cuda/bin:$PATH"

if [ $# -ge 1 ]; then
  tgz=$(realpath "$1")
else
  build=${GM_BUILD_DIR:-build-package}
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGM_BUILD_TESTS=OFF >/dev/null
  grep -E '^CMAKE_CUDA_ARCHITECTURES:' "$build/CMakeCache.txt"
  time cmake --build "$build" --target package -j "$(nproc)"
  tgz=$(ls -t "$build"/gmlab-*.tar.gz | head -1)
fi
work=$(mktemp -d)
trap 'echo "(left in $work)"' EXIT
mkdir -p "$work/unpacked" "$work/run"
tar -xzf "$tgz" -C "$work/unpacked"
root=$(ls -d "$work"/unpacked/gmlab-*)
gmlab="$root/bin/gmlab"
echo "package: $tgz ($(du -h "$tgz" | cut -f1))"
for f in "$root"/bin/* "$root"/lib/libgmlab.so.*.*.*; do echo "== ldd $(basename "$f")"; env -u LD_LIBRARY_PATH ldd "$f"; done
cuobjdump --list-elf "$root"/lib/libgmlab.so.*.*.* 2>/dev/null | sed -E 's/.*\.(sm_[0-9]+)\..*/\1/' | sort | uniq -c || true
cuobjdump --list-ptx "$root"/lib/libgmlab.so.*.*.* 2>/dev/null | sed -E 's/.*\.(sm_[0-9]+)\..*/PTX \1/' | sort | uniq -c || true

cd "$work/run"
env -u LD_LIBRARY_PATH "$gmlab" info
quick=()
"$gmlab" run --help | grep -q -- '--quick' && quick=(--quick)
echo "== gmlab run ${quick[*]} --json run.json   (from an empty directory)"
start=$(date +%s%N)
set +e
env -u LD_LIBRARY_PATH "$gmlab" run "${quick[@]}" --json run.json
rc=$?
set -e
echo "gmlab run ${quick[*]}: exit $rc in $(( ($(date +%s%N) - start) / 1000000 )) ms; run.json $(du -h run.json 2>/dev/null | cut -f1)"

echo "== gmlab run stream --devices all --json stream-{device}.json"
set +e
env -u LD_LIBRARY_PATH "$gmlab" run stream --devices all --set array_bytes=64MiB --json 'stream-{device}.json'
rc2=$?
set -e
echo "--devices all: exit $rc2, files: $(ls stream-*.json 2>/dev/null | tr '\n' ' ')"
ls -la
[ "$rc" = 0 ] && [ "$rc2" = 0 ]
