#!/usr/bin/env bash
# `gmlab explain --replay application` on a GPU machine (docs/explain.md,
# "Application replay"): on strided_access and bank_conflicts, the counters
# and findings of application replay beside kernel replay's (the same launch,
# launch 0 of each kernel, with --passes 2); on nondeterministic, the refusal
# (its launches differ between runs) and, with --fixed, the join; the wall
# time of each. Keeps the documents, texts and records under $OUT.
#   OUT=dir GMLAB=path/to/gmlab scripts/explain-replay-gpu.sh
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/explain-replay-gpu}
GMLAB=${GMLAB:-$ROOT/build/tools/cli/gmlab}
EX=${EXAMPLES_BUILD:-/tmp/gmlab-explain-examples}
mkdir -p "$OUT/records"
TIMES=$OUT/timings.tsv
: > "$TIMES"

gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
echo "GPU: $gpu"
case "$gpu" in
  *H200*) LABOPT=(--lab-run "$ROOT/results/nvidia-h200-standard-suite.json") ;;
  *H100*) LABOPT=(--lab-run "$ROOT/results/nvidia-h100-80gb-hbm3-standard-suite.json") ;;
  *) LABOPT=(--no-measure) ;;
esac

cmake -S "$ROOT/examples/explain" -B "$EX" -DCMAKE_CUDA_ARCHITECTURES=native -DCMAKE_BUILD_TYPE=Release > "$OUT/examples-build.log" 2>&1 &&
  cmake --build "$EX" -j 16 --target strided_access bank_conflicts nondeterministic >> "$OUT/examples-build.log" 2>&1 ||
  { echo "examples did not build"; tail -20 "$OUT/examples-build.log"; exit 1; }

now() { date +%s.%N; }

# explain NAME REPLAY -- COMMAND...: gmlab explain with that replay; its exit code and wall time.
explain() {
  local name=$1 replay=$2; shift 3
  local t0 t1 rc
  t0=$(now)
  timeout 120 "$GMLAB" explain "${LABOPT[@]}" --passes 2 --replay "$replay" --records "$OUT/records/$name" \
    --json "$OUT/$name.json" -- "$@" > "$OUT/$name.txt" 2>&1
  rc=$?; t1=$(now)
  printf '%s\t%s\t%s\n' "$name" "$rc" "$(awk "BEGIN{print $t1 - $t0}")" >> "$TIMES"
  echo "== $name: exit $rc, $(awk "BEGIN{printf \"%.2f\", $t1 - $t0}") s"
}

alone() {
  local t0 t1 rc
  t0=$(now); "$@" > /dev/null 2>&1; rc=$?; t1=$(now)
  printf '%s alone\t%s\t%s\n' "$(basename "$1")" "$rc" "$(awk "BEGIN{print $t1 - $t0}")" >> "$TIMES"
}

for p in strided_access bank_conflicts; do
  alone "$EX/$p"
  explain "$p-kernel" kernel -- "$EX/$p"
  explain "$p-application" application -- "$EX/$p"
done
explain nondeterministic-application application -- "$EX/nondeterministic"
explain nondeterministic-fixed-application application -- "$EX/nondeterministic" --fixed

python3 - "$OUT" <<'EOF'
import json, sys, os
out = sys.argv[1]
def load(name):
    try:
        return json.load(open(os.path.join(out, name + '.json')))
    except Exception as e:
        print(f'{name}: no document ({e})')
        return None
def kernels(doc):
    return {k['name']: k for k in doc.get('kernels', []) if k.get('counted')}
for p in ('strided_access', 'bank_conflicts'):
    k, a = load(p + '-kernel'), load(p + '-application')
    if not k or not a:
        continue
    app = a['passes']['counters'].get('application', {})
    print(f"\n{p}: application replay: {app.get('runs')} run(s), {len(app.get('groups') or [])} group(s), "
          f"refused {[r['reason'] for r in app.get('refused', [])]}, failure {app.get('failure')}")
    for name, kk in kernels(k).items():
        ka = kernels(a).get(name)
        if not ka:
            print(f"  {name}: not counted with application replay: "
                  f"{next((x.get('not_counted') for x in a['kernels'] if x['name'] == name), '')}")
            continue
        worst = 0
        print(f"  {name}: replay passes kernel {kk.get('replay_passes')}, application {ka.get('replay_passes')} ({ka.get('replay')})")
        for m, v in sorted(kk['counters'].items()):
            w = ka['counters'].get(m)
            rel = None if w is None else (0 if v == w else abs(w - v) / max(abs(v), abs(w)))
            if rel is not None and m != 'gpu__time_duration.sum':
                worst = max(worst, rel)
            print(f"    {m:62s} kernel {v:14.6g}  application {w if w is None else f'{w:14.6g}'}  "
                  f"{'' if rel is None else f'{100 * rel:.2f} %'}")
        missing = sorted(set(kk['counters']) - set(ka['counters']))
        print(f"    largest difference (time aside) {100 * worst:.2f} %; metrics missing with application: {missing}")
        print(f"    findings kernel {[f['rule'] for f in kk.get('findings', [])]}, "
              f"application {[f['rule'] for f in ka.get('findings', [])]}")
for n in ('nondeterministic-application', 'nondeterministic-fixed-application'):
    d = load(n)
    if not d:
        continue
    app = d['passes']['counters'].get('application', {})
    print(f"\n{n}: {app.get('runs')} run(s), refused:")
    for r in app.get('refused', []):
        print(f"  {r['kernel']}: {r['reason']} -> {r['instead']}")
    for k in d.get('kernels', []):
        print(f"  kernel {k['name']}: counted {k['counted']}, replay {k.get('replay')}, {k.get('not_counted', '')}")
    for note in d.get('notes', []):
        if 'replay' in note:
            print('  note: ' + note)
print()
print(open(os.path.join(out, 'timings.tsv')).read())
EOF
