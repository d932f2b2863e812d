#!/usr/bin/env bash
# The NuGet package, as a C# user takes it: unpacked into an empty folder, its
# .nuspec says id, version, authors, licence, description and readme, and it
# holds lib/netstandard2.0/Gmlab.dll and runtimes/linux-x64/native/ with both
# native libraries. The C# tests (GmlabTests.exe) run with Mono against what
# the package holds (MONO_PATH names its lib/netstandard2.0; the native
# libraries come from its runtimes folder, no LD_LIBRARY_PATH). A libgmlab of
# another ABI in that folder is refused.
#   check_csharp.sh ... MONO GMLAB_TESTS_EXE
source "$(dirname "$0")/common.sh"
mono=$1 tests=$2
nupkg=$release/Gmlab.$version.nupkg
pkg=$work/package
zip_extract "$nupkg" "$pkg"
for f in Gmlab.nuspec README.md lib/netstandard2.0/Gmlab.dll lib/netstandard2.0/Gmlab.dll.config runtimes/linux-x64/native/libgmlab_csharp.so \
         "runtimes/linux-x64/native/libgmlab.so.$abi" "[Content_Types].xml" _rels/.rels; do
  [ -f "$pkg/$f" ] || fail "$f is not in $(basename "$nupkg")"
done
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

cp -r "$pkg" "$work/other"
cp "$other_abi" "$work/other/runtimes/linux-x64/native/libgmlab.so.$abi"
refuses "a libgmlab of another ABI" "ABI $abi|ABI $other|$work/other/|runtimes/linux-x64/native/libgmlab.so.$abi" \
  env MONO_PATH="$work/other/lib/netstandard2.0" "$mono" --debug "$work/app/$(basename "$tests")" LibraryTests.VersionMatchesTheHeader
echo "csharp release check passed"
