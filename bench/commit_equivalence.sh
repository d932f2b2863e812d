#!/usr/bin/env bash
# Shows that a refactoring changed nothing a user sees: builds two commits and
# compares what each one's gmlab prints and measures on this GPU.
#
#   OUT=dir bench/commit_equivalence.sh OLD NEW
#
# OLD and NEW are commits (checked out with `git worktree add`, so this must
# run in a clone that has both) or folders holding a source tree. Each is
# built for the native GPU, without tests and bindings, in a build folder
# outside the source tree; then, for each:
#   describe/<exp>.json   gmlab describe --json of every experiment (keys named in
#                         GM_EQUIVALENCE_IGNORE_KEYS, space-separated, left out:
#                         what NEW adds on purpose, as "figures compared_figures")
#   list.txt              gmlab list
#   quick.txt             gmlab run --quick as text, every number replaced by N
#                         (what remains: experiments, series, notes, verification)
#   suite-1.json, -2.json the standard suite, twice (A B A B, so that a drift of
#                         the card's clocks falls on both sides alike)
# and writes under $OUT:
#   describe.diff, list.diff, quick.diff   empty when the two agree
#   spread.txt            bench/suite_spread.py over the four suites: a figure
#                         that moved beyond the run-to-run spread is listed
#   summary.txt           one line per check
# Header-only libraries and GoogleTest may come from .carry/ (as for
# bench/gpu_suite_check.sh). About 8 minutes on an H100 or H200 with 16 cores.
set -uo pipefail
[ $# -eq 2 ] || { echo "usage: OUT=dir $0 OLD NEW" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$PWD/equivalence-out}
WORK=${GM_EQUIVALENCE_WORK:-/tmp/gm-equivalence}
mkdir -p "$OUT" "$WORK"
start=$(date +%s)
stamp() { echo "[$(($(date +%s) - start)) s] $*"; }

# A source tree for a commit or a folder: prints its path.
source_tree() {
  local what=$1 name=$2
  if [ -d "$what" ]; then (cd "$what" && pwd); return; fi
  local dir=$WORK/src-$name
  git -C "$here" worktree remove --force "$dir" >/dev/null 2>&1
  rm -rf "$dir"
  git -C "$here" worktree add --detach "$dir" "$what" >/dev/null || { echo "cannot check out $what" >&2; return 1; }
  # The header-only libraries carried beside this tree serve the other one too.
  [ -d "$here/.carry" ] && [ ! -e "$dir/.carry" ] && ln -s "$here/.carry" "$dir/.carry"
  echo "$dir"
}

build() {
  local src=$1 bld=$2 log=$3 extra=()
  [ -d "$src/.carry/include" ] && extra+=(-DGM_THIRD_PARTY_INCLUDE="$src/.carry/include")
  cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=native \
    -DGM_BUILD_TESTS=OFF -DGM_BUILD_UPLOAD=OFF -DGM_BUILD_SERVER=OFF "${extra[@]}" >"$log" 2>&1 &&
    cmake --build "$bld" -j8 --target gmlab-cli >>"$log" 2>&1
}

# Every number of a text as N: the text of two runs agrees where the runs do.
numbers_out() { sed -E 's/[-+]?[0-9]+([.,][0-9]+)*([eE][-+]?[0-9]+)?/N/g'; }

old_src=$(source_tree "$1" old) || exit 1
new_src=$(source_tree "$2" new) || exit 1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$OUT/gpu.txt" 2>&1
stamp "building $1 and $2 side by side"
build "$old_src" "$WORK/build-old" "$OUT/build-old.log" & p_old=$!
build "$new_src" "$WORK/build-new" "$OUT/build-new.log" & p_new=$!
wait $p_old || { echo "OLD did not build:"; tail -30 "$OUT/build-old.log"; exit 1; }
wait $p_new || { echo "NEW did not build:"; tail -30 "$OUT/build-new.log"; exit 1; }
stamp "built"

for side in old new; do
  g=$WORK/build-$side/tools/cli/gmlab
  d=$OUT/$side
  mkdir -p "$d/describe"
  "$g" list >"$d/list.txt" 2>&1
  for e in $("$g" list --json 2>/dev/null | python3 -c 'import json,sys; [print(x["name"]) for x in json.load(sys.stdin)]' 2>/dev/null ||
             "$g" list | awk 'NR>1 && $1 ~ /^[a-z0-9_]+$/ {print $1}'); do
    "$g" describe --json "$e" 2>&1 | python3 -c '
import json, os, sys
text = sys.stdin.read()
try:
    d = json.loads(text)
except ValueError:
    sys.stdout.write(text)
    sys.exit()
for k in os.environ.get("GM_EQUIVALENCE_IGNORE_KEYS", "").split():
    d.pop(k, None)
print(json.dumps(d, indent=2, sort_keys=True))' >"$d/describe/$e.json"
  done
  "$g" run --quick >"$d/quick-raw.txt" 2>&1
  echo "exit $?" >>"$d/quick-raw.txt"
  numbers_out <"$d/quick-raw.txt" >"$d/quick.txt"
  stamp "$side: describe, list and the quick run done"
done

for i in 1 2; do
  for side in old new; do
    "$WORK/build-$side/tools/cli/gmlab" run --json "$OUT/$side/suite-$i.json" >"$OUT/$side/suite-$i.txt" 2>&1
    stamp "$side: suite $i done (exit $?)"
  done
done

diff -r "$OUT/old/describe" "$OUT/new/describe" >"$OUT/describe.diff"; r_describe=$?
diff "$OUT/old/list.txt" "$OUT/new/list.txt" >"$OUT/list.diff"; r_list=$?
diff "$OUT/old/quick.txt" "$OUT/new/quick.txt" >"$OUT/quick.diff"; r_quick=$?
python3 "$here/bench/suite_spread.py" "$OUT/old/suite-1.json" "$OUT/old/suite-2.json" \
  "$OUT/new/suite-1.json" "$OUT/new/suite-2.json" --json "$OUT/spread.json" >"$OUT/spread.txt" 2>&1
r_spread=$?
{
  echo "describe --json of $(ls "$OUT/old/describe" | wc -l) experiments: $([ $r_describe -eq 0 ] && echo identical || echo "differs (describe.diff)")"
  echo "list: $([ $r_list -eq 0 ] && echo identical || echo "differs (list.diff)")"
  echo "quick run's text, numbers aside: $([ $r_quick -eq 0 ] && echo identical || echo "differs (quick.diff)")"
  echo "suite spread over old 1, old 2, new 1, new 2: exit $r_spread (spread.txt)"
  echo "took $(($(date +%s) - start)) s"
} | tee "$OUT/summary.txt"
for side in old new; do
  case "$1$2" in */*) ;; *) git -C "$here" worktree remove --force "$WORK/src-$side" >/dev/null 2>&1 ;; esac
done
[ $r_describe -eq 0 ] && [ $r_list -eq 0 ] && [ $r_quick -eq 0 ]
