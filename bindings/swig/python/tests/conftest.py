"""Shared fixtures of the Python binding's tests.

Tests marked "gpu" need a CUDA device: where there is none they are skipped,
unless GMLAB_REQUIRE_GPU=1 (set by run_pytest.py on a machine with a device),
where a missing device is a failure.
"""

import os
import pathlib

import pytest

import gmlab


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped without one)")


@pytest.fixture(scope="session")
def source_dir():
    """The repository (GMLAB_SOURCE_DIR, or found from this file's place)."""
    env = os.environ.get("GMLAB_SOURCE_DIR")
    root = pathlib.Path(env) if env else pathlib.Path(__file__).resolve().parents[4]
    assert (root / "include" / "gmlab.h").is_file(), "GMLAB_SOURCE_DIR must name the gmlab repository"
    return root


def _need_device():
    if gmlab.device_count() > 0:
        return
    if os.environ.get("GMLAB_REQUIRE_GPU") == "1":
        pytest.fail("GMLAB_REQUIRE_GPU=1 but there is no CUDA device")
    pytest.skip("no CUDA device")


@pytest.fixture
def ctx():
    """A context on device 0 with quick measurement settings, closed afterwards."""
    _need_device()
    with gmlab.Context(0) as c:
        c.set("warmup", 0)
        c.set("min_repetitions", 3)
        c.set("max_repetitions", 3)
        c.set("min_time_ms", 0)
        yield c


def closed_context():
    """A Context whose handle is closed, without needing a device to open one."""
    c = gmlab.Context.__new__(gmlab.Context)
    c._h = None
    return c


def closed_buffer():
    b = gmlab.Buffer.__new__(gmlab.Buffer)
    b._h = None
    return b
