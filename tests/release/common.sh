# Sourced by the release tests: arguments, a fresh work folder, helpers.
#   check_X.sh RELEASE_DIR SOURCE_DIR WORK_DIR OTHER_ABI_LIBRARY [tool arguments...]
set -euo pipefail
release=$(cd "$1" && pwd)
source_dir=$(cd "$2" && pwd)
work=$3
other_abi=$4
shift 4
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
version=$(sed -n 's/^gmlab-\([0-9][0-9.]*\)-Linux-.*\.tar\.gz$/\1/p' < <(ls "$release"))
[ -n "$version" ] || { echo "FAIL: no gmlab-<version>-Linux-*.tar.gz in $release" >&2; exit 1; }
results=$source_dir/results/nvidia-h200.json
fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }
# Runs a command that must fail, with output that holds every given text.
#   refuses "what" "text1|text2|..." command...
refuses() {
  local what=$1 texts=$2 out rc=0
  shift 2
  out=$("$@" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || fail "$what: succeeded, should have refused:
$out"
  local IFS='|'
  for t in $texts; do
    grep -qF -- "$t" <<<"$out" || fail "$what: the message does not name '$t':
$out"
  done
  ok "$what: refused ($(grep -m1 -F -- "${texts%%|*}" <<<"$out" | cut -c1-300))"
}
abi=$(sed -n 's/^#define GM_ABI_VERSION \([0-9][0-9]*\)$/\1/p' "$source_dir/include/gmlab.h")
other=$((abi + 1))  # what the stand-in library says
# Zip archives through Python's zipfile (no unzip needed).
zip_list() { python3 -m zipfile -l "$1"; }
zip_extract() { python3 -m zipfile -e "$1" "$2"; }
# Runs, in the current folder, the shell block that follows the line
# "<!-- release-steps: NAME -->" of a README, as a user would paste it: only
# the release folder's place in the README (/opt/gmlab-release) becomes this
# release's. Prints how long the steps took.
#   readme_steps README NAME
readme_steps() {
  local readme=$1 name=$2 script start
  script=$(awk -v tag="<!-- release-steps: $name -->" '
    $0 == tag { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' "$readme")
  [ -n "$script" ] || fail "$readme has no block after <!-- release-steps: $name -->"
  script=${script//\/opt\/gmlab-release/$release}
  start=$(date +%s%N)
  bash -euo pipefail -c "$script" || fail "the steps of $readme ($name) failed in $PWD"
  ok "the README's $name steps, verbatim, from an empty folder: $(( ($(date +%s%N) - start) / 1000000 )) ms"
}
