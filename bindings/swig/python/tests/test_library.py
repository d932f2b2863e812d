"""The library as a whole, no device needed: versions, enums, the registry."""

import re

import pytest

import gmlab
from gmlab import _native


def header_define(source_dir, name):
    text = (source_dir / "include" / "gmlab.h").read_text()
    return int(re.search(r"#define %s (\d+)" % name, text).group(1))


def test_version_is_the_headers(source_dir):
    expected = "%d.%d.%d" % tuple(header_define(source_dir, "GM_VERSION_" + p) for p in ("MAJOR", "MINOR", "PATCH"))
    assert gmlab.version() == expected
    assert gmlab.__version__ == expected
    assert gmlab.abi_version() == header_define(source_dir, "GM_ABI_VERSION")


def test_libgmlab_is_the_packaged_copy():
    # The extension loads the libgmlab beside it (RPATH $ORIGIN), not another one.
    import pathlib

    package = pathlib.Path(gmlab.__file__).parent
    assert list(package.glob("libgmlab.so.*")), "libgmlab.so.N must lie in the package"
    maps = pathlib.Path("/proc/self/maps")
    if maps.exists():
        loaded = {line.split()[-1] for line in maps.read_text().splitlines() if "libgmlab.so" in line}
        assert loaded and all(pathlib.Path(p).parent == package for p in loaded), loaded


@pytest.mark.parametrize("enum_class, swig_class", [
    (gmlab.Status, _native.native.Status), (gmlab.Transpose, _native.native.Transpose),
    (gmlab.Matmul, _native.native.Matmul), (gmlab.AccessProperty, _native.native.AccessProperty)])
def test_enums_match_the_wrapper(enum_class, swig_class):
    # The wrapper's constants are checked against gmlab.h when it is compiled.
    swig_names = {n for n in vars(swig_class) if n.isupper()}
    assert swig_names == set(enum_class.__members__)
    for member in enum_class:
        assert member == getattr(swig_class, member.name), member


def test_status_strings():
    assert gmlab.status_string(gmlab.Status.OK) != gmlab.status_string(gmlab.Status.INVALID_ARGUMENT)
    for s in gmlab.Status:
        assert gmlab.status_string(s)
    with pytest.raises(TypeError, match="status"):
        gmlab.status_string("ok")


def test_device_count_is_a_number():
    n = gmlab.device_count()
    assert isinstance(n, int) and n >= 0


def test_registry():
    names = gmlab.experiments()
    assert len(names) == len(set(names)) >= 20
    for name in ("stream", "offset_copy", "stride_copy", "transpose", "matmul_ab", "latency"):
        assert name in names


def test_describe_every_experiment():
    for name in gmlab.experiments():
        d = gmlab.describe(name)
        assert d["name"] == name
        assert d["guide_section"] and d["summary"]
        assert isinstance(d["parameters"], list)
        assert isinstance(d["kernels"], list), name


def test_describe_errors():
    with pytest.raises(gmlab.UnknownExperimentError) as e:
        gmlab.describe("no_such_experiment")
    assert e.value.status == gmlab.Status.UNKNOWN_EXPERIMENT
    assert "no_such_experiment" in e.value.message
    assert isinstance(e.value, LookupError)
    with pytest.raises(gmlab.InvalidArgumentError, match="experiment must not be empty"):
        gmlab.describe("")
    with pytest.raises(TypeError, match="experiment must be a str"):
        gmlab.describe(None)
    with pytest.raises(TypeError, match="experiment must be a str"):
        gmlab.describe(3)
