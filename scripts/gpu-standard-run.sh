#!/usr/bin/env bash
# On a GPU machine, the whole loop with what this commit writes: build for the
# GPU present, the GPU tests, compute-sanitizer on the experiments named in
# GM_SANITIZE, the standard suite (the run to commit to results/), `gmlab
# report`, then `gmlab contribute --run ... --yes` to a gmlab-server started
# here on 127.0.0.1, and the server's GPU page and compare view read back.
#
#   OUT=dir GM_RUN_NAME=nvidia-h100-80gb-hbm3 scripts/gpu-standard-run.sh
#
# A machine without libcurl or the server's libraries may bring a `gmlab`
# built with the uploader and a `gmlab-server` in .carry/bin, with the shared
# libraries they need in .carry/lib; header-only libraries and GoogleTest may
# come from .carry/ as for scripts/gpu-check.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
# The run is named after the GPU ("nvidia-h100-80gb-hbm3"), as in results/.
NAME=${GM_RUN_NAME:-$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/-$//')}
B=$(realpath -m "${GM_GPU_BUILD:-/tmp/gm-standard-build}")
mkdir -p "$OUT"
status=0
extra=()
[ -d .carry/include ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$PWD/.carry/include")
[ -d .carry/googletest ] && extra+=(-DGM_GTEST_SOURCE_DIR="$PWD/.carry/googletest")
[ -f .carry/chart.min.js ] && extra+=(-DGM_CHARTJS="$PWD/.carry/chart.min.js")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv | tee "$OUT/nvidia-smi.log"
start=$(date +%s)
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native "${extra[@]}" >"$OUT/configure.log" 2>&1 ||
  { tail -20 "$OUT/configure.log"; exit 1; }
cmake --build "$B" -j"$(nproc)" >"$OUT/build.log" 2>&1 || { status=1; grep -E "error|FAILED" "$OUT/build.log" | head -30; }
echo "build: $(($(date +%s) - start)) s"
GMLAB=$B/tools/cli/gmlab
[ -x "$GMLAB" ] || exit 1

# The GPU tests, one binary at a time: two at once would each see the
# other's memory and load in the checks of what an experiment leaves behind.
timeout 300 ctest --test-dir "$B" -L gpu --output-on-failure -j1 >"$OUT/ctest-gpu.log" 2>&1 || status=1
tail -6 "$OUT/ctest-gpu.log"

# compute-sanitizer on the experiments named ("name --set ..." separated by ';').
IFS=';' read -r -a checks <<<"${GM_SANITIZE:-}"
for exp in "${checks[@]}"; do
  [ -n "$exp" ] || continue
  # shellcheck disable=SC2086
  if compute-sanitizer --tool memcheck --error-exitcode 99 "$GMLAB" run $exp --warmup 0 --min-repetitions 1 \
       --max-repetitions 1 --min-time-ms 0 >"$OUT/memcheck-${exp%% *}.log" 2>&1; then
    echo "memcheck ${exp%% *}: $(grep -h 'ERROR SUMMARY' "$OUT/memcheck-${exp%% *}.log" | tail -1)"
  else
    status=1; echo "memcheck ${exp%% *}: FAILED"; tail -20 "$OUT/memcheck-${exp%% *}.log"
  fi
done

# The standard suite: the run to commit, with the command that made it.
t0=$(date +%s)
(cd "$OUT" && "$GMLAB" run --json "$NAME.json" --csv "$NAME.csv" >"$NAME.txt" 2>"$NAME.err") || { status=1; tail -20 "$OUT/$NAME.err"; }
echo "standard suite: $(($(date +%s) - t0)) s"
"$GMLAB" report "$OUT/$NAME.json" --html "$OUT/$NAME-report.html" >"$OUT/$NAME-report.txt" 2>&1 || status=1
echo "report: $(wc -l <"$OUT/$NAME-report.txt") lines"

# gmlab contribute to a server of our own on 127.0.0.1.
SERVER=${GM_SERVER_BIN:-$B/tools/server/gmlab-server}
CONTRIB=$GMLAB
if [ -x .carry/bin/gmlab-server ]; then
  export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  SERVER=.carry/bin/gmlab-server
  CONTRIB=.carry/bin/gmlab
fi
if [ -x "$SERVER" ]; then
  db=$(mktemp -d)/runs.sqlite
  coproc SRV { "$SERVER" --db "sqlite:$db" --listen 127.0.0.1:0 2>"$OUT/server.log"; }
  read -r line <&"${SRV[0]}"
  port=$(sed -n 's#.*http://127.0.0.1:\([0-9]*\).*#\1#p' <<<"$line")
  echo "server: $line"
  XDG_STATE_HOME=$(mktemp -d) "$CONTRIB" contribute --run "$OUT/$NAME.json" --yes --server "http://127.0.0.1:$port" \
    >"$OUT/contribute.txt" 2>&1 || status=1
  tail -5 "$OUT/contribute.txt"
  python3 - "$port" "$OUT/$NAME.json" <<'EOF' || status=1
import json, re, sys, urllib.request
port, path = sys.argv[1], sys.argv[2]
base = f"http://127.0.0.1:{port}"
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
doc = json.load(open(path))
runs = json.load(opener.open(base + "/api/v1/gpus"))
print("gpus on the server:", json.dumps(runs)[:300])
key = runs["gpus"][0]["key"] if isinstance(runs, dict) and runs.get("gpus") else None
page = opener.open(f"{base}/gpu/{key}").read().decode()
measured = [r["experiment"]["name"] for r in doc["results"] if r.get("applicable", True)]
missing = [e for e in measured if not re.search(r"\b%s\b" % re.escape(e), page)]
print(f"GPU page /gpu/{key}: {len(page)} bytes, {len(measured) - len(missing)} of {len(measured)} experiments shown; missing {missing}")
sys.exit(1 if missing else 0)
EOF
  kill "$SRV_PID" 2>/dev/null; wait 2>/dev/null
else
  echo "no gmlab-server here: the upload was not made"; status=1
fi
tar -C "$OUT" -czf "$OUT/logs.tar.gz" --remove-files $(cd "$OUT" && ls *.log *.err 2>/dev/null) 2>/dev/null
exit $status
