#!/usr/bin/env bash
# The Go module, as a Go user takes it: the tarball unpacked into an empty
# folder (PKG_CONFIG_PATH names its lib/pkgconfig), the module from the
# release's module proxy folder, a PATH with Go, the C/C++ compiler and
# pkg-config but no SWIG, and nothing from the build tree. A consumer module
# (consumers/go) takes the module through a replace directive to the unpacked
# module zip (GOPROXY=off), and a second one through `go get` from the proxy
# folder (GOPROXY=file://...); both build, `go test` passes, the program runs
# with no LD_LIBRARY_PATH. The module is `go vet` clean and `go doc` renders
# its documentation; run with a libgmlab of another ABI first on the library
# path, the program refuses to start. The module's README steps run verbatim
# in an empty folder (the tarball unpacked there, go mod init, the program, go mod tidy, go
# build); the program keeps running after the tarball's folder is moved away
# (libgmlab beside it, through $ORIGIN), and after its own folder moves too.
#   check_go.sh ... GO MODULE_PATH
source "$(dirname "$0")/common.sh"
go=$1 module=$2
proxy=$release/go
zip=$proxy/$module/@v/v$version.zip
[ -f "$zip" ] || fail "no $zip"

mkdir -p "$work/module"
zip_extract "$zip" "$work/module"
moddir=$work/module/$module@v$version
[ -f "$moddir/internal/swiggmlab/gmlab_wrap.cxx" ] || fail "the module has no SWIG wrapper"
grep -q '#cgo pkg-config: gmlab' "$moddir/internal/swiggmlab/cgo_flags.go" || fail "cgo flags not from pkg-config"
if grep -rn "$(dirname "$release")" "$moddir" >/dev/null; then fail "the module names build-tree paths"; fi

# A PATH without SWIG: the go tool, the compilers, pkg-config and the basics.
mkdir -p "$work/bin"
for tool in "$go" "$(dirname "$(readlink -f "$go")")/gofmt" gcc g++ cc c++ as ld pkg-config sh bash env cat \
            uname rm mkdir ls sed grep dirname basename tr sort head awk cp mv ln chmod touch find readlink \
            tar gzip date cut diff; do
  p=$(command -v "$tool") && ln -sf "$p" "$work/bin/$(basename "$tool")"
done
export PATH=$work/bin
! command -v swig >/dev/null || fail "swig is on PATH"
export GOTOOLCHAIN=local GOWORK=off GO111MODULE=on CGO_ENABLED=1 GOCACHE=$work/cache GOPATH=$work/gopath \
       GMLAB_RESULTS=$results HOME=$work

# The README's steps from an empty folder, with a saved run as run.json and
# the go tool's default settings. They unpack the tarball the consumers below
# build against too (the same flags: the module's cgo build is made once).
mkdir -p "$work/first"
cd "$work/first"
cp "$results" run.json
readme_steps "$moddir/README.md" go > steps.log 2>&1 || { cat steps.log; exit 1; }
cat steps.log
grep -q "^stride_copy: [0-9.]* GB/s" steps.log || fail "the README's program did not print stride_copy's bandwidth"
grep -qE "^ok[[:space:]]+gmlab.invalid/gmlab[[:space:]]" steps.log || fail "go test of the released module did not pass in the user's folder"
! grep -q "// indirect" go.mod || fail "the README's steps leave go.mod with an indirect requirement: $(cat go.mod)"
ok "go.mod of the README's steps requires the module directly; go test of the released module passes there"
root=$work/first/gmlab
export PKG_CONFIG_PATH=$root/lib/pkgconfig GOPROXY=off GOFLAGS=-mod=mod GOSUMDB=off

consumer() {  # consumer FOLDER GO.MOD-EXTRA
  mkdir -p "$1"
  cp "$(dirname "$0")"/consumers/go/*.go "$1/"
  printf 'module example.com/consumer\n\ngo 1.19\n%s' "$2" > "$1/go.mod"
}
# The replace directive names the module as the README's go mod tidy unpacked it
# from the release (the same files as the zip, checked above): the module's
# cgo build is then the one made for the README's program, not made again.
fetched=$GOPATH/pkg/mod/$module@v$version
diff -r "$moddir" "$fetched" > /dev/null || fail "go mod tidy unpacked other files than the module zip holds"
consumer "$work/replace" "
require $module v$version

replace $module => $fetched
"
cd "$work/replace"
go vet "$module" ./... || fail "go vet"
ok "go vet: the module and the consumer"
doc=$(go doc "$module") || fail "go doc $module"
grep -q "^package gmlab // import \"$module\"" <<<"$doc" || fail "go doc: $doc"
grep -q "GPU memory laboratory" <<<"$doc" || fail "go doc does not render the package documentation"
! grep -q swiggmlab <<<"$(go doc -all "$module")" || fail "go doc shows the SWIG package: $(grep swiggmlab <<<"$(go doc -all "$module")")"
grep -q "^const BindingABIVersion = $abi\$" <<<"$doc" || fail "go doc does not show BindingABIVersion as a number: $doc"
grep -q "^func (s Status) String() string" <<<"$(go doc "$module" Status)" || fail "Status has no String()"
ok "go doc renders the package documentation"
go test -count=1 ./... || fail "go test in the consumer"
go build -o "$work/consumer-bin" . || fail "go build"
out=$(cd "$work" && "$work/consumer-bin" "$results") || fail "the consumer failed: $out"
echo "$out"
grep -q "^gmlab $version (ABI $abi) from $root/lib/" <<<"$out" ||
  fail "the consumer did not load libgmlab from the unpacked tarball"
ok "consumer (replace => the released module), PKG_CONFIG_PATH to the unpacked tarball, no SWIG, no LD_LIBRARY_PATH"

# go get from the release's module proxy folder.
consumer "$work/proxy" ""
cd "$work/proxy"
GOPROXY=file://$proxy GONOSUMDB=gmlab.invalid GOSUMDB= GOFLAGS= go get "$module@latest" || fail "go get $module@latest"
grep -q "^require $module v$version" go.mod || fail "go get did not add $module v$version: $(cat go.mod)"
GOFLAGS= go test -count=1 ./... || fail "go test after go get"
ok "go get $module@latest from file://$proxy"

# After the build the tarball's folder moves away, then the program's own.
mv "$work/first/gmlab" "$work/gmlab-moved"
cd "$work/first"
out=$(./first 2>&1) || fail "the program fails once the unpacked tarball has moved: $out"
ok "the program runs after the tarball's folder moved (libgmlab beside it, through \$ORIGIN)"
mv "$work/first" "$work/first-moved"
out=$(cd "$work/first-moved" && ./first 2>&1) || fail "the program fails once its own folder has moved: $out"
ok "the program runs after its own folder moved too"
[ -n "$(PKG_CONFIG_PATH=$work/gmlab-moved/lib/pkgconfig pkg-config --libs gmlab | grep -F "$work/gmlab-moved/lib")" ] ||
  fail "gmlab.pc does not follow its folder"
ok "gmlab.pc follows the moved folder (\${pcfiledir})"
rm "$work/first-moved/libgmlab.so.0"
refuses "the moved program without libgmlab beside it" "libgmlab.so.$abi" env -C "$work/first-moved" ./first

mkdir -p "$work/other"
cp "$other_abi" "$work/other/libgmlab.so.$abi"
refuses "a libgmlab of another ABI" "ABI $abi|ABI $other|$work/other/libgmlab.so.$abi" \
  env LD_LIBRARY_PATH="$work/other" "$work/consumer-bin" "$results"
echo "go release check passed"
