#!/usr/bin/env bash
# Pass 3 of gmlab explain (--lines) on a GPU machine (docs/explain.md, "Pass 3,
# source lines"): builds what it needs without the main build (the injection
# library with g++, the three examples with nvcc -lineinfo, and strided_access
# once more without -lineinfo), runs each planted example under the single
# pass and the lines pass, keeps the records and prints the line records.
#   OUT=dir scripts/explain-lines-gpu.sh
# With GMLAB=path/to/gmlab it also prints `gmlab explain --lines` on each
# (live); without, explain the kept records elsewhere:
#   gmlab explain --lines --from-records OUT/records/strided_access
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/explain-lines}
ARCH=${CUDA_ARCH:-native}
CUDA=${CUDA_HOME:-/usr/local/cuda}
BIN=$OUT/bin
mkdir -p "$BIN" "$OUT/records"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1

# The injection library: the same sources the main build compiles, one object each.
INJ=${GMLAB_EXPLAIN_INJECTION:-}
if [ -z "$INJ" ]; then
  INJ=$BIN/libgmlab_explain_inject.so
  g++ -std=c++17 -O1 -shared -fPIC -fvisibility=hidden -I"$ROOT/src" -I"$CUDA/include" -I"$CUDA/extras/CUPTI/include" \
    "$ROOT"/src/inject/*.cpp -o "$INJ" -ldl -lpthread > "$OUT/inject-build.log" 2>&1 &
fi
for ex in strided_access bank_conflicts local_memory l2_eviction; do
  nvcc -O3 -std=c++17 -arch="$ARCH" -lineinfo "$ROOT/examples/explain/$ex.cu" -o "$BIN/$ex" > "$OUT/$ex-build.log" 2>&1 &
done
nvcc -O3 -std=c++17 -arch="$ARCH" "$ROOT/examples/explain/strided_access.cu" -o "$BIN/strided_access_nolineinfo" \
  > "$OUT/nolineinfo-build.log" 2>&1 &
wait
for f in "$INJ" "$BIN/strided_access" "$BIN/bank_conflicts" "$BIN/local_memory" "$BIN/l2_eviction" "$BIN/strided_access_nolineinfo"; do
  [ -f "$f" ] || { echo "not built: $f"; cat "$OUT"/*.log | grep -E "error" | head -20; exit 1; }
done

# The counting metrics the rules read, as the single pass asks for them (from a
# committed record, so that gmlab need not be built here).
METRICS=$(python3 - "$ROOT/tests/explain/fixtures/strided_access-planted" <<'EOF'
import json, glob, sys
for path in glob.glob(sys.argv[1] + "/single-*.jsonl"):
    for line in open(path):
        r = json.loads(line)
        if r.get("type") == "counters":
            print(",".join(sorted(r["metrics"]))); sys.exit(0)
EOF
)

# The kernels the single pass counted, one mangled name a line: what gmlab
# explain hands the lines pass (GMLAB_EXPLAIN_KERNELS) for the chosen kernels.
counted_kernels() {
  python3 - "$1" <<'EOF'
import json, glob, sys
names = []
for path in glob.glob(sys.argv[1] + "/single-*.jsonl"):
    for line in open(path):
        r = json.loads(line)
        if r.get("type") == "counters" and r["name"] not in names:
            names.append(r["name"])
print("\n".join(names))
EOF
}

run_pass() {  # run_pass FOLDER PASS PROGRAM...
  local dir=$1 pass=$2; shift 2
  local t0=$SECONDS kernels=
  mkdir -p "$dir"
  [ "$pass" = lines ] && kernels=$(counted_kernels "$dir")
  env CUDA_INJECTION64_PATH="$INJ" GMLAB_EXPLAIN_OUT="$dir" GMLAB_EXPLAIN_PASS="$pass" \
    GMLAB_EXPLAIN_KERNELS="$kernels" GMLAB_EXPLAIN_METRICS="$METRICS" timeout 120 "$@" > /dev/null 2>&1
  echo "  $pass pass: exit $? in $((SECONDS - t0)) s"
}

# l2_eviction: two kernels of one module chosen (the second's first launch
# flushes the first's values and enables the context again).
for name in strided_access bank_conflicts local_memory l2_eviction strided_access_nolineinfo; do
  echo "== $name (planted)"
  dir=$OUT/records/$name
  run_pass "$dir" single "$BIN/$name"
  run_pass "$dir" lines "$BIN/$name"
  # The line records, shortest form: kernel, file:line and the figures that are not zero.
  python3 - "$dir" <<'EOF'
import json, glob, sys
for path in sorted(glob.glob(sys.argv[1] + "/lines-*.jsonl")):
    for line in open(path):
        r = json.loads(line)
        t = r.get("type")
        if t == "line":
            figs = {k: v for k, v in r.items() if isinstance(v, (int, float)) and v and k != "line"}
            print("  %s %s:%d %s" % (r["name"], r["file"].split("/")[-1], r["line"], json.dumps(figs)))
        elif t in ("note", "lines_unavailable", "lines_no_info", "lines_flush", "signal"):
            print("  " + json.dumps(r))
EOF
  if [ -n "${GMLAB:-}" ]; then
    "$GMLAB" explain --lines --no-measure --from-records "$OUT/records/$name" 2>&1 | sed 's/^/  | /'
  fi
done
