#!/usr/bin/env bash
# The wheel, as a Python user takes it: the binding README's steps, verbatim
# in an empty folder, make a plain virtual environment (no NumPy) and pip
# install the wheel into it with no index; then gmlab is imported from an
# empty folder with nothing of the build tree on any path, NumPy and pandas
# added: device_count() (0 without a GPU), load_run() of a committed run,
# to_pandas(); the bindings' behaviour table (tests/test_contract.py) runs
# against the installed package.
# The wheel's manylinux tag is the one readelf finds its files need, and its
# Requires-Python admits exactly the interpreters it has an extension for; a
# libgmlab of another ABI put in the installed package is refused.
#   check_python.sh ... PYTHON
source "$(dirname "$0")/common.sh"
python=$1
wheel=$(ls "$release"/gmlab-"$version"-*.whl)
name=$(basename "$wheel")
tag=${name%.whl}; tag=${tag##*-}
echo "wheel: $name"

mkdir -p "$work/unpacked"
zip_extract "$wheel" "$work/unpacked"
found=$("$python" "$source_dir/bindings/swig/python/wheel_platform.py" "$work/unpacked/gmlab")
[ "$found" = "$tag" ] || fail "the wheel is tagged $tag, its files need $found"
ok "manylinux tag $tag is what its ELF files need"
# Requires-Python admits exactly the interpreters the wheel has an extension for.
requires=$(sed -n 's/^Requires-Python: //p' "$work"/unpacked/gmlab-*.dist-info/METADATA)
python3 - "$name" "$requires" <<'PY' || fail "Requires-Python '$requires' is not true to the wheel's interpreters ($name)"
import re, sys
name, requires = sys.argv[1:]
carried = {int(p[3:]) for p in name.split("-")[2].split(".")}
def admits(minor):
    for spec in requires.split(","):
        op, version = re.match(r"\s*(>=|<|!=)\s*3\.(\d+)", spec).groups()
        v = int(version)
        if op == ">=" and not minor >= v or op == "<" and not minor < v or op == "!=" and minor == v:
            return False
    return True
admitted = {m for m in range(0, 40) if admits(m)}
assert admitted == carried, (sorted(admitted), sorted(carried))
PY
ok "Requires-Python: $requires, the interpreters the wheel carries"
grep -q 'NEEDED.*libcudart' <<<"$(readelf -d "$work"/unpacked/gmlab/libgmlab.so.*)" && fail "libgmlab in the wheel needs libcudart"
ok "libgmlab in the wheel has the CUDA runtime inside"

# The README's steps from an empty folder, with a saved run as run.json, and
# python3 the interpreter the release was built for.
mkdir -p "$work/first" "$work/python-bin"
ln -sf "$(command -v "$python")" "$work/python-bin/python3"
cd "$work/first"
cp "$results" run.json
(export PATH=$work/python-bin:$PATH PIP_DISABLE_PIP_VERSION_CHECK=1; readme_steps "$source_dir/bindings/swig/python/README.md" python) \
  > steps.log 2>&1 || { cat steps.log; exit 1; }
cat steps.log
grep -q "^stride_copy: [0-9.]* GB/s" steps.log || fail "the README's program did not print stride_copy's bandwidth"
venv/bin/python -c "import numpy" 2>/dev/null && fail "the README's venv has NumPy: the steps did not test without it"
ok "the wheel installs offline and loads a run without NumPy"

# The same installed package with NumPy and pandas on the path (the release
# Python's own, as the extras would bring them): device_count, to_pandas.
extras=$("$python" -c "import numpy, pandas, os; print(os.pathsep.join(sorted({os.path.dirname(os.path.dirname(m.__file__)) for m in (numpy, pandas)})))") ||
  fail "$python has no NumPy and pandas for the to_pandas check"
mkdir -p "$work/empty"
cd "$work/empty"
PYTHONPATH=$extras "$work/first/venv/bin/python" - "$work/first/venv" "$results" <<'PY' || fail "the installed wheel does not work"
import os, sys
import gmlab
venv, results = sys.argv[1:]
where = os.path.dirname(gmlab.__file__)
assert where.startswith(venv), where
n = gmlab.device_count()
print("gmlab", gmlab.version(), "from", where, "devices:", n)
if not os.path.exists("/dev/nvidiactl"):
    assert n == 0, n
run = gmlab.load_run(results)
df = run.to_pandas()
assert len(df) > 100 and "bandwidth_gbs" in df.columns, df.columns
print("load_run:", len(run.results), "results,", len(df), "rows; stride_copy rows:", (df.experiment == "stride_copy").sum())
PY
ok "pip-installed wheel: import, device_count, load_run, to_pandas"

# The bindings' behaviour table (bindings/contract.json) against the installed
# wheel, with the release Python's pytest on the path.
site=$("$work/first/venv/bin/python" -c "import gmlab, os; print(os.path.dirname(os.path.dirname(gmlab.__file__)))")
pytest_path=$("$python" -c "import pytest, os; print(os.path.dirname(os.path.dirname(pytest.__file__)))") ||
  fail "$python has no pytest for the behaviour table"
PYTHONPATH=$site:$pytest_path PYTHONDONTWRITEBYTECODE=1 "$work/first/venv/bin/python" -m pytest -q -p no:cacheprovider \
  "$source_dir/bindings/swig/python/tests/test_contract.py" > contract.log 2>&1 || { cat contract.log; fail "the behaviour table"; }
python_where=$(PYTHONPATH=$site "$work/first/venv/bin/python" -c "import gmlab; print(gmlab.__file__)")
[[ $python_where == "$site"/* ]] || fail "the table ran against $python_where, not the installed wheel"
ok "the behaviour table against the installed wheel: $(tail -1 contract.log)"


# The same package with a libgmlab of another ABI beside its extension.
mkdir -p "$work/other"
cp -r "$site/gmlab" "$work/other/"
lib=$(cd "$work/other/gmlab" && ls libgmlab.so.*)
cp "$other_abi" "$work/other/gmlab/$lib"
refuses "import with a libgmlab of another ABI" "ABI $abi|ABI $other|$work/other/gmlab/$lib" \
  env PYTHONPATH="$work/other" "$work/first/venv/bin/python" -c "import gmlab"
echo "python release check passed"
