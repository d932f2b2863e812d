#!/usr/bin/env bash
# On a machine with two or more GPUs: every GPU of the node measured (issue
# 40), everything under $OUT, in under 9 minutes:
#   A/B  gmlab check three times on the idle node and three times with a
#        competing load (bench/gpu_load.cu) streaming memory on one GPU:
#        wall time, verdicts, the Prometheus text
#   1    gmlab run --devices all --parallel (the standard suite on every GPU at
#        once), and the device experiments alone vs in parallel, per GPU
#   2    two and four tasks at once as launchers start them
#        (OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID, mpirun where present)
#   3    peer on every ordered pair, against each link's theoretical figure:
#        results/<gpu>-x<N>-peer.json with its command
#   4    gmlab contribute of each GPU's run to a gmlab-server on 127.0.0.1
#   5    the standard suite on GPUs 1.. while GPU 0 runs experiments under
#        compute-sanitizer; the GPUs' state before and after
#   and the bad-input cases that need no fault planted (a GPU named twice,
#   one that does not exist, a server that does not answer or answers
#   garbage, a baseline of another model).
#
#   OUT=dir bash scripts/multi-gpu.sh
#
# Binaries: .carry/multi/bin/gmlab and gmlab-server with .carry/multi/lib
# (libgmlab built from this commit for sm_75 and sm_90) and .carry/lib (the
# libraries they need), unless GM_MULTI_BUILD=1 or they are absent: then
# gmlab and gmlab-server are built here for the GPUs present (adds minutes).
# GM_LOAD_DEVICE: the GPU the load runs on (default: the last).
# GM_SANITIZE_EXPERIMENTS: what runs under compute-sanitizer on GPU 0.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=$(realpath -m "${OUT:-$PWD/multi-gpu-out}")
mkdir -p "$OUT"/{check,runs,compare,concurrent,results,sanitizer,contribute}
exec > >(tee -a "$OUT/multi-gpu.log") 2>&1
SECONDS=0
status=0
step() { echo; echo "=== [$SECONDS s] $*"; }
N=$(nvidia-smi -L | grep -c '^GPU')
NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9]\{1,\}/-/g; s/-$//')
LOAD_GPU=${GM_LOAD_DEVICE:-$((N - 1))}
echo "machine: $N GPUs ($NAME), $(nproc) cores; commit $(git rev-parse --short HEAD 2>/dev/null)"
nvidia-smi --query-gpu=index,name,pci.bus_id,driver_version,clocks.sm,clocks.mem,power.draw,temperature.gpu,mig.mode.current --format=csv
nvidia-smi topo -m
[ "$N" -ge 2 ] || { echo "multi-gpu.sh needs two or more GPUs; this machine has $N"; exit 1; }

# ---- binaries
GMLAB=.carry/multi/bin/gmlab SERVER=.carry/multi/bin/gmlab-server
if [ "${GM_MULTI_BUILD:-0}" = 1 ] || [ ! -x "$GMLAB" ]; then
  step "build for the GPUs present"
  B=/tmp/gm-multi-build
  extra=()
  [ -d .carry/include ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$PWD/.carry/include")
  [ -d .carry/googletest ] && extra+=(-DGM_GTEST_SOURCE_DIR="$PWD/.carry/googletest")
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native "${extra[@]}" >"$OUT/configure.log" 2>&1 ||
    { tail -20 "$OUT/configure.log"; exit 1; }
  timeout 420 cmake --build $B -j"$(nproc)" --target gmlab-cli >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  timeout 120 cmake --build $B -j"$(nproc)" --target gmlab-server >>"$OUT/build.log" 2>&1 || echo "gmlab-server not built (see build.log)"
  GMLAB=$B/tools/cli/gmlab SERVER=$B/tools/server/gmlab-server
  if [ ! -x "$SERVER" ] && [ -x .carry/multi/bin/gmlab-server ]; then  # the server from the carried build
    SERVER=.carry/multi/bin/gmlab-server
    export LD_LIBRARY_PATH="$PWD/.carry/multi/lib:$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
else
  export LD_LIBRARY_PATH="$PWD/.carry/multi/lib:$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
GMLAB=$(realpath "$GMLAB"); export GMLAB
"$GMLAB" --version || exit 1
LOAD=.carry/multi/bin/gpu_load
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
  "$NVCC" -O2 -arch=native -o /tmp/gpu_load bench/gpu_load.cu && LOAD=/tmp/gpu_load
fi
[ -x "$LOAD" ] || { echo "no load program (bench/gpu_load.cu): neither nvcc nor .carry/multi/bin/gpu_load"; exit 1; }
echo "gmlab: $GMLAB; load: $LOAD"

# ---- a results server on 127.0.0.1, its crowd seeded with the committed runs
URL=""
if [ -x "$SERVER" ]; then
  db=$(mktemp -d)/runs.sqlite
  coproc SRV { exec "$SERVER" --db "sqlite:$db" --listen 127.0.0.1:0 2>"$OUT/server.log"; }
  read -r line <&"${SRV[0]}"
  port=$(sed -n 's#.*http://127.0.0.1:\([0-9]*\).*#\1#p' <<<"$line")
  URL=http://127.0.0.1:$port
  echo "server: $line"
  export XDG_STATE_HOME=$OUT/contribute/state XDG_CONFIG_HOME=$OUT/contribute/config
  for f in results/*-standard-suite.json results/nvidia-h200.json results/nvidia-h100-80gb-hbm3.json; do
    "$GMLAB" contribute --run "$f" --yes --server "$URL" >/dev/null 2>&1 && echo "  crowd seeded with $f"
  done
else
  echo "no gmlab-server: the checks judge without the crowd"
fi
SERVER_ARG=(); [ -n "$URL" ] && SERVER_ARG=(--server "$URL")

run_check() {  # run_check NAME: one check, its table in the log, figures, JSON and Prometheus kept
  local t0=$SECONDS s0 rc
  s0=$(date +%s.%N)
  "$GMLAB" check "${SERVER_ARG[@]}" --prometheus "$OUT/check/$1.prom" --save-figures "$OUT/check/$1.figures.json"
  rc=$?
  echo "check $1: exit $rc, $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $s0 }") s wall (the whole command)"
  "$GMLAB" check --figures "$OUT/check/$1.figures.json" "${SERVER_ARG[@]}" --json >"$OUT/check/$1.json" 2>/dev/null
  [ $((SECONDS - t0)) -le 75 ] || status=1
  return 0
}

# ---- A: the idle node, three times
for i in 1 2 3; do step "A$i: gmlab check, no load"; run_check clean-$i; done
echo "--- Prometheus text of clean-1:"; cat "$OUT/check/clean-1.prom"

# ---- B: one GPU slowed by a competing load in another process, three times
for i in 1 2 3; do
  step "B$i: gmlab check with a memory-streaming load on GPU $LOAD_GPU"
  "$LOAD" "$LOAD_GPU" 120 >"$OUT/check/load-$i.log" 2>&1 &
  loadpid=$!
  for _ in $(seq 100); do
    grep -q ready "$OUT/check/load-$i.log" && break
    kill -0 "$loadpid" 2>/dev/null || { echo "  the load did not start"; status=1; break; }
    sleep 0.2
  done
  cat "$OUT/check/load-$i.log"
  run_check load-$i
  kill "$loadpid" 2>/dev/null; wait "$loadpid" 2>/dev/null
done
step "check summary"
python3 scripts/multi_gpu_figures.py checks "$OUT"/check/clean-?.json "$OUT"/check/load-?.json || status=1

# ---- bad input (no GPU time to speak of)
step "bad input"
"$GMLAB" check --devices 0,0; echo "  --devices 0,0: exit $?"
"$GMLAB" check --devices "$N"; echo "  --devices $N: exit $?"
"$GMLAB" check --figures "$OUT/check/clean-1.figures.json" --server http://127.0.0.1:9 >/dev/null; echo "  dead server: exit $?"
python3 -c 'import http.server,sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"<html>garbage")
    def log_message(self,*a): pass
s=http.server.HTTPServer(("127.0.0.1",0),H); s.timeout=20; print(s.server_port,flush=True); s.handle_request()' >"$OUT/garbage.port" &
sleep 1  # it answers one request, or gives up after 20 s
"$GMLAB" check --figures "$OUT/check/clean-1.figures.json" --server "http://127.0.0.1:$(cat "$OUT/garbage.port")" >/dev/null
echo "  garbage server: exit $?"
python3 -c 'import json; json.dump({"model": "Some Other GPU", "figures": {}}, open("/tmp/other-baseline.json", "w"))'
"$GMLAB" check --figures "$OUT/check/clean-1.figures.json" --baseline /tmp/other-baseline.json; echo "  baseline of another model: exit $?"

# ---- 3: peer on every ordered pair
step "3: peer, every ordered pair"
(cd "$OUT/results" && "$GMLAB" run peer --json "$NAME-x$N-peer.json" --csv "$NAME-x$N-peer.csv" >"$NAME-x$N-peer.txt" 2>&1) || status=1
python3 scripts/multi_gpu_figures.py peer "$OUT/results/$NAME-x$N-peer.json" "$OUT/check/clean-1.figures.json"

# ---- 1: every GPU at once, and alone vs in parallel
step "1: the standard suite on all $N GPUs at once (--parallel)"
(cd "$OUT/results" && timeout 200 "$GMLAB" run --devices all --parallel --json "$NAME-x$N-parallel-{device}.json" >"$OUT/runs/parallel-suite.log" 2>&1) || status=1
grep -E "^parallel run|^  device |^peer, once" "$OUT/runs/parallel-suite.log"
python3 scripts/multi_gpu_figures.py hostlink "$OUT/results/$NAME-x$N"-parallel-[0-9]*.json
step "1: device experiments alone, then all GPUs in parallel"
EXPS=(stream l2_persist carveout cache_hints tma_copy)
for d in $(seq 0 $((N - 1))); do
  "$GMLAB" run "${EXPS[@]}" --device "$d" --json "$OUT/compare/alone-$d.json" >"$OUT/compare/alone-$d.log" 2>&1 || status=1
done
"$GMLAB" run "${EXPS[@]}" --devices all --parallel --json "$OUT/compare/parallel-{device}.json" >"$OUT/compare/parallel.log" 2>&1 || status=1
for d in $(seq 0 $((N - 1))); do
  python3 scripts/multi_gpu_figures.py compare "$OUT/compare/alone-$d.json" "$OUT/compare/parallel-$d.json" || status=1
done

# ---- 2: tasks started as launchers start them
step "2: tasks at once, by local rank"
for T in 2 4; do
  [ "$T" -le "$N" ] || { echo "  $T tasks: this machine has $N GPUs"; continue; }
  for var in OMPI_COMM_WORLD_LOCAL_RANK SLURM_LOCALID; do
    pids=(); files=()
    for r in $(seq 0 $((T - 1))); do
      f=$OUT/concurrent/$var-$T-$r.json; files+=("$f")
      env "$var=$r" "$GMLAB" run stream memory_spaces --quick --json "$f" >"${f%.json}.log" 2>&1 & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || status=1; done
    echo "  $T tasks by $var:"
    python3 scripts/multi_gpu_figures.py concurrent "$(seq -s, 0 $((T - 1)))" "${files[@]}" || status=1
  done
done
if command -v mpirun >/dev/null; then
  mpirun --allow-run-as-root --oversubscribe -np 2 -x GMLAB -x LD_LIBRARY_PATH \
    sh -c '"$GMLAB" run stream --quick --json '"$OUT"'/concurrent/mpirun-2-$OMPI_COMM_WORLD_LOCAL_RANK.json >/dev/null' || status=1
  python3 scripts/multi_gpu_figures.py concurrent 0,1 "$OUT"/concurrent/mpirun-2-*.json || status=1
else
  echo "  mpirun: not installed here"
fi

# ---- 4: each GPU's run contributed, stored once each
step "4: gmlab contribute of each GPU's run"
if [ -n "$URL" ]; then
  get() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' "$1"; }
  before=$(get "$URL/api/v1/stats")
  for f in "$OUT/results/$NAME-x$N"-parallel-[0-9]*.json; do
    echo "  $(basename "$f"):"
    "$GMLAB" contribute --run "$f" --yes --server "$URL" 2>&1 | grep -v '^delete token kept' | sed 's/^/    /'
  done
  echo "  stats before: $before, after: $(get "$URL/api/v1/stats")"
  first=$(ls "$OUT/results/$NAME-x$N"-parallel-[0-9]*.json | head -1)
  echo "  the same document again ($(basename "$first")), which the server must store only once:"
  "$GMLAB" contribute --run "$first" --yes --server "$URL" 2>&1 | grep -v '^delete token kept' | sed 's/^/    /'
  echo "  stats after the repeat: $(get "$URL/api/v1/stats")"
  get "$URL/api/v1/gpus" | python3 -c 'import json,sys; [print("  ", g) for g in json.load(sys.stdin).get("gpus", [])]'
fi

# ---- 5: the standard suite on GPUs 1.. while GPU 0 runs under compute-sanitizer
step "5: standard suite on GPUs 1..$((N - 1)), compute-sanitizer on GPU 0"
state() { nvidia-smi --query-gpu=index,memory.used,clocks.sm,clocks.mem,compute_mode,mig.mode.current --format=csv,noheader; }
state >"$OUT/sanitizer/state-before.csv"
left=$((530 - SECONDS)); [ $left -lt 60 ] && left=60
read -r -a SAN <<<"${GM_SANITIZE_EXPERIMENTS:-stream l2_persist carveout allocation transfer memory_spaces}"
SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout $left "$SANITIZER" --tool memcheck --error-exitcode 99 "$GMLAB" run "${SAN[@]}" --device 0 --quick --warmup 0 \
  --min-repetitions 1 --max-repetitions 1 --min-time-ms 0 >"$OUT/sanitizer/memcheck-gpu0.log" 2>&1 &
sanpid=$!
pids=()
for d in $(seq 1 $((N - 1))); do
  timeout $left "$GMLAB" run --device "$d" --json "$OUT/sanitizer/suite-$d.json" >"$OUT/sanitizer/suite-$d.log" 2>&1 & pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { status=1; echo "  a suite run failed or ran out of time"; }; done
wait $sanpid; rc=$?
echo "  compute-sanitizer on GPU 0: exit $rc; $(grep -h 'ERROR SUMMARY' "$OUT/sanitizer/memcheck-gpu0.log" | tail -1)"
[ $rc -eq 0 ] || { status=1; tail -15 "$OUT/sanitizer/memcheck-gpu0.log"; }
state >"$OUT/sanitizer/state-after.csv"
echo "  GPU state before / after (index, memory used, SM and memory clocks, compute mode, MIG):"
paste -d'|' "$OUT/sanitizer/state-before.csv" "$OUT/sanitizer/state-after.csv" | sed 's/^/    /'

[ -n "$URL" ] && kill "$SRV_PID" 2>/dev/null
step "done in $SECONDS s, status $status"
exit $status
