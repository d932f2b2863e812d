#!/usr/bin/env bash
# The released jar's and wheel's GPU tests, on a GPU machine that has neither a
# JDK, nor SWIG, nor a network: only the NVIDIA driver and a Python 3 with
# NumPy, pandas and pytest. In two steps.
#
# 1. Where the release was built (cmake --build build --target release):
#      scripts/gpu-release-check.sh --prepare [BUILD_DIR]      (default: build)
#    writes .carry/release-gpu/ (ignored by git):
#      release/     the jar and the wheel from BUILD_DIR/release, with SHA256SUMS
#      jre/         a Java runtime made with jlink from the JDK that built the jar
#                   (the modules JUnit's console launcher needs, about 40 MiB)
#      junit/       JUnit 5's console launcher (Debian's junit5)
#      java-tests/  the Java binding's JUnit tests, compiled
#    and prints its size.
#
# 2. On the GPU machine, in a copy of the repository holding .carry/release-gpu:
#      scripts/gpu-release-check.sh [--java-only|--python-only]
#    checks the carried artifacts against SHA256SUMS, then
#    - runs the Java binding's JUnit suite against the released jar alone (its
#      native libraries come out of the jar) with the carried runtime;
#    - installs the wheel into a fresh virtual environment (python3 -m venv
#      --system-site-packages, pip --no-index) and runs the Python binding's
#      pytest suite against it from an empty folder;
#    with the GPU tests required to run (a GPU test that skips fails; the Java
#    no-device tests are left out). Logs go
#    to $OUT (default .carry/release-gpu/out). Exit status 0 when both passed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
CARRY=$ROOT/.carry/release-gpu

prepare() {
  set -e
  local build=${1:-build}
  local release=$build/release
  [ -f "$release/SHA256SUMS" ] || { echo "no $release/SHA256SUMS: run cmake --build $build --target release first" >&2; exit 1; }
  rm -rf "$CARRY"
  mkdir -p "$CARRY/release" "$CARRY/junit" "$CARRY/java-tests"
  local jar wheel
  jar=$(cd "$release" && ls maven/org/gmlab/gmlab/*/gmlab-*[0-9].jar)
  wheel=$(cd "$release" && ls gmlab-*.whl)
  mkdir -p "$CARRY/release/$(dirname "$jar")"
  cp "$release/$jar" "$CARRY/release/$jar"
  cp "$release/$wheel" "$CARRY/release/"
  grep -F -e "  $jar" -e "  $wheel" "$release/SHA256SUMS" > "$CARRY/release/SHA256SUMS"
  cp -r "$build/bindings/swig/java/tests/classes/." "$CARRY/java-tests/"
  cp /usr/share/java/junit-platform-console-standalone.jar "$CARRY/junit/"
  local javac jlink
  javac=$(grep -E '^Java_JAVAC_EXECUTABLE:' "$build/CMakeCache.txt" | cut -d= -f2)
  jlink=$(dirname "$(readlink -f "$javac")")/jlink
  "$jlink" --add-modules java.base,java.logging,java.management,java.xml,jdk.unsupported,java.scripting \
           --strip-debug --no-man-pages --no-header-files --compress=2 --output "$CARRY/jre"
  # What the tests compare against: this build's version, ABI and platform.
  grep -E '^(CMAKE_PROJECT_VERSION|GM_ABI_VERSION):' "$build/CMakeCache.txt" > "$CARRY/build.txt" || true
  du -sh "$CARRY"/* "$CARRY"
  echo "prepare: carry .carry/release-gpu; on the GPU machine run scripts/gpu-release-check.sh"
}

if [ "${1:-}" = --prepare ]; then
  shift
  prepare "$@"
  exit $?
fi

parts=${1:-all}
OUT=${OUT:-$CARRY/out}
mkdir -p "$OUT"
fail() { echo "gpu-release-check: $*" >&2; exit 1; }
[ -d "$CARRY/release" ] || fail "no $CARRY: run scripts/gpu-release-check.sh --prepare where the release was built, and carry .carry/release-gpu"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/nvidia-smi.log"
(cd "$CARRY/release" && sha256sum -c SHA256SUMS) || fail "the carried artifacts do not match SHA256SUMS"
jar=$(ls "$CARRY"/release/maven/org/gmlab/gmlab/*/gmlab-*[0-9].jar)
wheel=$(ls "$CARRY"/release/gmlab-*.whl)
version=$(basename "$jar" .jar); version=${version#gmlab-}
abi=$(sed -n 's/^#define GM_ABI_VERSION \([0-9][0-9]*\)$/\1/p' include/gmlab.h)
status=0
work=$(mktemp -d)
mkdir -p "$work/empty"

if [ "$parts" != --python-only ]; then
  echo "== Java: the JUnit suite against $(basename "$jar") (GPU tests must run)"
  (cd "$work/empty" && GMLAB_SOURCE_DIR=$ROOT "$CARRY/jre/bin/java" -ea -Xcheck:jni \
     -Dgmlab.test.version="$version" -Dgmlab.test.abiVersion="$abi" -Dgmlab.test.platform=linux-x86_64 \
     -Dgmlab.test.loader=jar \
     -jar "$CARRY/junit/junit-platform-console-standalone.jar" --disable-banner --disable-ansi-colors \
     --details=tree --fail-if-no-tests --class-path "$jar:$CARRY/java-tests" \
     --scan-class-path "$CARRY/java-tests" --exclude-classname '.*NoDeviceTest') >"$OUT/java.log" 2>&1 || status=1
  tail -16 "$OUT/java.log"
  if grep -qE "tests skipped +[1-9]|tests aborted +[1-9]" "$OUT/java.log"; then
    echo "Java: some tests were skipped or aborted on a GPU machine"; status=1
  fi
fi

if [ "$parts" != --java-only ]; then
  echo "== Python: $(basename "$wheel") in a fresh virtual environment (GPU tests must run)"
  python3 -m venv --system-site-packages "$work/venv" || fail "python3 -m venv"
  PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 "$work/venv/bin/python" -m pip install "$wheel" \
    >"$OUT/pip.log" 2>&1 || { cat "$OUT/pip.log"; fail "pip install $(basename "$wheel")"; }
  (cd "$work/empty" && env -u PYTHONPATH GMLAB_SOURCE_DIR=$ROOT PYTHONDONTWRITEBYTECODE=1 \
     "$work/venv/bin/python" "$ROOT/bindings/swig/python/tests/run_pytest.py" --all \
     "$ROOT/bindings/swig/python/tests" -v --junitxml="$OUT/pytest.xml") >"$OUT/pytest.log" 2>&1 || status=1
  grep -E "^gmlab |passed|failed|error" "$OUT/pytest.log" | tail -4
  "$work/venv/bin/python" -c "import gmlab; print('wheel: gmlab', gmlab.version(), 'from', gmlab.__file__, \
'devices', gmlab.device_count())" | tee -a "$OUT/pytest.log"
  # The GPU code the released libgmlab carries (real code per architecture, and PTX).
  lib=$(ls "$work"/venv/lib/python3*/site-packages/gmlab/libgmlab.so.*)
  cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  if [ -x "$cuobjdump" ]; then
    echo "== $(basename "$lib") in the wheel ($(du -h "$lib" | cut -f1)): cuobjdump --list-elf / --list-ptx"
    "$cuobjdump" --list-elf "$lib" | sed -E 's/.*\.(sm_[0-9a-z]+)\..*/\1/' | sort | uniq -c
    "$cuobjdump" --list-ptx "$lib" | sed -E 's/.*\.(sm_[0-9a-z]+)\..*/PTX \1/' | sort | uniq -c
  fi
fi
rm -rf "$work"
echo "gpu-release-check: exit $status (logs in $OUT)"
exit $status
