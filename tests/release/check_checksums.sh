#!/usr/bin/env bash
# The release folder: one artifact per language beside the tarball and the
# .deb, all of one version; SHA256SUMS holds every file and matches; a
# truncated artifact fails it. Prints every artifact's size, and the GPU code
# in libgmlab (cuobjdump --list-elf) where the CUDA toolkit is installed.
source "$(dirname "$0")/common.sh"
cd "$release"
for f in "gmlab-$version-Linux-"*.tar.gz "gmlab_$version-"*.deb "Gmlab.$version.nupkg" \
         maven/org/gmlab/gmlab/"$version"/gmlab-"$version".jar "gmlab-$version-"*manylinux*.whl \
         go/*/*/@v/"v$version".zip SHA256SUMS; do
  [ -f "$f" ] || fail "$f is not in the release"
done
ok "every artifact is there, version $version"
sha256sum --quiet -c SHA256SUMS || fail "SHA256SUMS does not match"
listed=$(awk '{print $2}' SHA256SUMS | sort)
present=$(find . -type f ! -name SHA256SUMS | sed 's|^\./||' | sort)
[ "$listed" = "$present" ] || fail "SHA256SUMS does not list exactly the release's files:
$(diff <(echo "$listed") <(echo "$present"))"
ok "SHA256SUMS matches all $(wc -l < SHA256SUMS) files"

# A truncated copy of an artifact fails the check, naming it.
cp -r "$release" "$work/copy"
wheel=$(ls gmlab-*.whl)
truncate -s $(( $(stat -c %s "$wheel") / 2 )) "$work/copy/$wheel"
out=$(cd "$work/copy" && sha256sum -c SHA256SUMS 2>&1) && fail "a truncated $wheel passes SHA256SUMS"
grep -q "^$wheel: FAILED" <<<"$out" || fail "sha256sum does not name the truncated $wheel: $out"
ok "a truncated $wheel fails SHA256SUMS"

echo "== sizes"
find . -type f ! -name '*.sha1' ! -name '*.sha256' -printf '%s %p\n' | sort -k2 |
  awk '{printf "%8.1f MiB  %s\n", $1 / 1048576, substr($2, 3)}'
cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
if [ -x "$cuobjdump" ]; then
  mkdir -p "$work/tgz" && tar -xzf gmlab-*.tar.gz -C "$work/tgz"
  lib=$(ls "$work"/tgz/*/lib/libgmlab.so.*.*.*)
  echo "== GPU code in libgmlab ($(basename "$lib")): cuobjdump --list-elf / --list-ptx"
  "$cuobjdump" --list-elf "$lib" | sed -E 's/.*\.(sm_[0-9a-z]+)\..*/\1/' | sort | uniq -c
  "$cuobjdump" --list-ptx "$lib" | sed -E 's/.*\.(sm_[0-9a-z]+)\..*/PTX \1/' | sort | uniq -c
fi
echo "release check passed"
