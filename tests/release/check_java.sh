#!/usr/bin/env bash
# The Maven folder, as a Java user takes it: the POM is well formed and says
# group, artifact, version, licence and description, with no dependencies;
# every .sha1/.sha256 matches; maven-metadata.xml names the version. A
# consumer compiled with javac against the released jar alone runs from an
# empty folder (no java.library.path, no build tree): the native libraries come
# out of the jar, into a cache folder in the user's cache the first time,
# reused (not written again) by the next start. The binding README's steps
# run verbatim in an empty folder. Refused, with a message naming what is
# wrong: a JVM of another platform (os.arch=aarch64) and a libgmlab of another
# ABI.
#   check_java.sh ... JAVA JAVAC
source "$(dirname "$0")/common.sh"
java=$1 javac=$2
repo=$release/maven
dir=$repo/org/gmlab/gmlab/$version
jar=$dir/gmlab-$version.jar
for f in gmlab-$version.jar gmlab-$version-sources.jar gmlab-$version-javadoc.jar gmlab-$version.pom; do
  [ -f "$dir/$f" ] || fail "$f is not in $dir"
  for a in sha1 sha256; do
    [ "$(cat "$dir/$f.$a")" = "$(${a}sum "$dir/$f" | cut -d' ' -f1)" ] || fail "$f.$a does not match"
  done
done
for a in sha1 sha256; do
  [ "$(cat "$repo/org/gmlab/gmlab/maven-metadata.xml.$a")" = "$(${a}sum "$repo/org/gmlab/gmlab/maven-metadata.xml" | cut -d' ' -f1)" ] ||
    fail "maven-metadata.xml.$a does not match"
done
ok "the Maven folder's checksums match"
python3 - "$dir/gmlab-$version.pom" "$repo/org/gmlab/gmlab/maven-metadata.xml" "$version" <<'PY' || fail "POM or metadata"
import sys, xml.etree.ElementTree as ET
pom, meta, version = sys.argv[1:]
ns = {"m": "http://maven.apache.org/POM/4.0.0"}
p = ET.parse(pom).getroot()
get = lambda path: (p.findtext(path, namespaces=ns) or "").strip()
assert get("m:groupId") == "org.gmlab" and get("m:artifactId") == "gmlab" and get("m:version") == version
assert get("m:licenses/m:license/m:name") and get("m:description"), "licence and description"
assert p.find("m:dependencies", ns) is None, "the POM declares dependencies"
m = ET.parse(meta).getroot()
assert m.findtext("groupId") == "org.gmlab" and m.findtext("artifactId") == "gmlab"
assert version in [v.text for v in m.iter("version")], "maven-metadata.xml does not list " + version
print("ok: POM org.gmlab:gmlab:%s, licence %s; maven-metadata.xml lists it" % (version, get("m:licenses/m:license/m:name")))
PY
for j in sources javadoc; do
  listing=$(zip_list "$dir/gmlab-$version-$j.jar")
  grep -q "org/gmlab/Gmlab\.\(java\|html\)" <<<"$listing" || fail "the $j jar has no Gmlab"
done
ok "sources and javadoc jars hold org.gmlab.Gmlab"
# The javadoc shows no SWIG internals and describes every class; both the jar
# and the Maven folder carry the README.
mkdir -p "$work/javadoc"
zip_extract "$dir/gmlab-$version-javadoc.jar" "$work/javadoc"
for internal in swigCMemOwn swigCPtr 'id="finalize()"' 'id="delete()"' GmlabConstants GmlabJNI; do
  ! grep -rlF -- "$internal" "$work/javadoc/org" > /dev/null || fail "the javadoc shows $internal: $(grep -rlF -- "$internal" "$work/javadoc/org")"
done
for class in Gmlab Context Buffer Result Run Status Transpose Matmul AccessProperty GmlabException; do
  grep -q 'class="block"' "$work/javadoc/org/gmlab/$class.html" || fail "the javadoc of $class has no description"
done
grep -qE "Enum( Class)? Status" "$work/javadoc/org/gmlab/Status.html" || fail "Status is not an enum"
grep -q "^README.md " <<<"$(zip_list "$jar")" || fail "the jar has no README.md"
[ -f "$dir/README.md" ] || fail "the Maven folder has no README.md"
ok "javadoc: no SWIG internals, a description for every class; README.md in the jar and the Maven folder"

mkdir -p "$work/classes" "$work/empty"
# The user's cache folder ($XDG_CACHE_HOME; the JVM takes user.home from the
# password database, not from $HOME) is the test's own.
export XDG_CACHE_HOME=$work/user-cache
"$javac" -d "$work/classes" -cp "$jar" "$(dirname "$0")/consumers/java/Consumer.java"
cd "$work/empty"
out=$("$java" -cp "$jar:$work/classes" Consumer "$results") || fail "the consumer failed: $out"
echo "$out"
grep -q "^gmlab $version (ABI $abi)" <<<"$out" || fail "the consumer does not report gmlab $version"
[ -z "$(ls -A)" ] || fail "the consumer left files in its folder"
ok "consumer against the released jar alone"

# The native libraries: extracted once into the versioned cache, then reused.
cache=$(ls -d "$XDG_CACHE_HOME/gmlab/$version-linux-x86_64-"*)
[ "$(ls "$cache" | sort | tr '\n' ' ')" = "libgmlab.so.$abi libgmlab_java.so " ] || fail "the cache holds $(ls "$cache")"
touch -d @1000000000 "$cache"/*
before=$(stat -c %Y "$cache"/*)
"$java" -cp "$jar:$work/classes" Consumer "$results" > /dev/null || fail "the consumer's second start failed"
[ "$(stat -c %Y "$cache"/*)" = "$before" ] || fail "the second start extracted the libraries again"
ok "the second start reused $cache"
"$java" -Dgmlab.native.cache="$work/chosen" -cp "$jar:$work/classes" Consumer "$results" > /dev/null ||
  fail "the consumer with -Dgmlab.native.cache"
ls "$work/chosen/$version-linux-x86_64-"*/libgmlab_java.so > /dev/null || fail "-Dgmlab.native.cache was not used"
ok "-Dgmlab.native.cache names the cache's root"

# The README's steps from an empty folder, with a saved run as run.json.
mkdir -p "$work/first"
cd "$work/first"
cp "$results" run.json
readme_steps "$source_dir/bindings/swig/java/README.md" java > steps.log 2>&1 || { cat steps.log; exit 1; }
cat steps.log
grep -q "^stride_copy: [0-9.]* GB/s" steps.log || fail "the README's program did not print stride_copy's bandwidth"

refuses "a JVM on another platform" "linux-aarch64|linux-x86_64" \
  "$java" -Dos.arch=aarch64 -cp "$jar:$work/classes" Consumer "$results"

# libgmlab of another ABI beside the jar's JNI library, on java.library.path.
mkdir -p "$work/other"
zip_extract "$jar" "$work/jar"
cp "$work"/jar/native/linux-x86_64/*.so* "$work/other/"
lib=$(cd "$work/other" && ls libgmlab.so.*)
cp "$other_abi" "$work/other/$lib"
refuses "a libgmlab of another ABI" "ABI $abi|ABI $other|$work/other/$lib" \
  "$java" -Djava.library.path="$work/other" -cp "$jar:$work/classes" Consumer "$results"
echo "java release check passed"
