#!/usr/bin/env bash
# The NuGet package, as a C# user takes it: unpacked into an empty folder, its
# .nuspec says id, version, authors, licence, description and readme, and it
# holds lib/netstandard2.0/Gmlab.dll and runtimes/linux-x64/native/ with both
# native libraries, and no Gmlab.dll.config. The C# tests (GmlabTests.exe) run
# with Mono against what the package holds (MONO_PATH names its
# lib/netstandard2.0; the native libraries come from its runtimes folder, no
# LD_LIBRARY_PATH). The package's README steps run verbatim in an empty
# folder (the assembly and the libraries copied beside the application); the
# same application runs with the libraries moved to runtimes/linux-x64/native/
# under it, and without them it fails naming every place it looked. A libgmlab
# of another ABI in the package is refused.
#   check_csharp.sh ... MONO GMLAB_TESTS_EXE
source "$(dirname "$0")/common.sh"
mono=$1 tests=$2
nupkg=$release/Gmlab.$version.nupkg
pkg=$work/package
zip_extract "$nupkg" "$pkg"
for f in Gmlab.nuspec README.md lib/netstandard2.0/Gmlab.dll runtimes/linux-x64/native/libgmlab_csharp.so \
         "runtimes/linux-x64/native/libgmlab.so.$abi" "[Content_Types].xml" _rels/.rels; do
  [ -f "$pkg/$f" ] || fail "$f is not in $(basename "$nupkg")"
done
[ ! -e "$pkg/lib/netstandard2.0/Gmlab.dll.config" ] || fail "the package holds a Gmlab.dll.config"
python3 - "$pkg/Gmlab.nuspec" "$version" <<'PY' || fail "the .nuspec"
import sys, xml.etree.ElementTree as ET
nuspec, version = sys.argv[1:]
m = ET.parse(nuspec).getroot().find("{*}metadata")
get = lambda tag: (m.findtext("{*}" + tag) or "").strip()
assert get("id") == "Gmlab" and get("version") == version, (get("id"), get("version"))
assert get("authors") and get("description") and get("readme") == "README.md"
assert m.find("{*}license").get("type") == "expression" and get("license"), "licence expression"
print("ok: Gmlab.nuspec: Gmlab %s, licence %s, readme %s" % (version, get("license"), get("readme")))
PY

mkdir -p "$work/app"
cp "$tests" "$work/app/"
cd "$work/app"
export MONO_PATH=$pkg/lib/netstandard2.0 GMLAB_SOURCE_DIR=$source_dir
out=$("$mono" --debug "$work/app/$(basename "$tests")" 2>&1) || fail "the C# tests failed against the package:
$out"
echo "$out" | tail -3
loaded=$(sed -n "s/^libgmlab $version from //p" <<<"$out")
[ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$pkg/runtimes/linux-x64/native/libgmlab.so.$abi" ] ||
  fail "the tests did not load libgmlab from the package's runtimes folder: $(grep '^libgmlab' <<<"$out")"
ok "C# tests against the unpacked package"

# The README's steps from an empty folder, with a saved run as run.json.
mkdir -p "$work/first"
cd "$work/first"
cp "$results" run.json
readme_steps "$pkg/README.md" csharp > steps.log 2>&1 || { cat steps.log; exit 1; }
cat steps.log
grep -q "^stride_copy: [0-9.]* GB/s" steps.log || fail "the README's program did not print stride_copy's bandwidth"

# The same application with the libraries where an application's build
# output keeps them (NuGet's runtimes folder under it), then with none.
mkdir -p "$work/build-output/runtimes/linux-x64/native" "$work/bare"
cp First.exe Gmlab.dll run.json "$work/build-output/"
cp "$pkg"/runtimes/linux-x64/native/* "$work/build-output/runtimes/linux-x64/native/"
out=$(cd "$work/build-output" && "$mono" First.exe) || fail "libraries in runtimes/linux-x64/native/: $out"
ok "libraries in the application's runtimes/linux-x64/native/: $(head -1 <<<"$out")"
cp First.exe Gmlab.dll run.json "$work/bare/"
refuses "an application without the native libraries" \
  "DllNotFoundException|$work/bare/libgmlab_csharp.so|$work/bare/runtimes/linux-x64/native/libgmlab_csharp.so|system's library path" \
  env -C "$work/bare" "$mono" First.exe

cp -r "$pkg" "$work/other"
cp "$other_abi" "$work/other/runtimes/linux-x64/native/libgmlab.so.$abi"
refuses "a libgmlab of another ABI" "ABI $abi|ABI $other|$work/other/|runtimes/linux-x64/native/libgmlab.so.$abi" \
  env MONO_PATH="$work/other/lib/netstandard2.0" "$mono" --debug "$work/app/$(basename "$tests")" LibraryTests.VersionMatchesTheHeader
echo "csharp release check passed"
