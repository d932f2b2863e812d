"""What a new user meets first: the exceptions' names, errors that say which
run and which result, the argument names of the Python API, and the package
working without numpy or pandas where they are not needed."""

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import gmlab


@pytest.fixture(scope="module")
def run_file(source_dir):
    return str(source_dir / "results" / "nvidia-h200.json")


def test_exceptions_are_named_as_gmlab_exports_them():
    for name in ("Error", "NoDeviceError", "InvalidArgumentError", "UnknownExperimentError", "CudaError"):
        cls = getattr(gmlab, name)
        assert cls.__module__ == "gmlab", cls
        assert "%s.%s" % (cls.__module__, cls.__qualname__) == "gmlab." + name


def test_a_traceback_names_gmlab_dot_the_error():
    package_parent = os.path.dirname(os.path.dirname(gmlab.__file__))
    out = subprocess.run([sys.executable, "-c", "import gmlab; gmlab.describe('nope')"], capture_output=True,
                         text=True, env=dict(os.environ, PYTHONPATH=package_parent), cwd=package_parent)
    assert out.returncode != 0
    assert "gmlab.UnknownExperimentError: unknown experiment 'nope'" in out.stderr, out.stderr
    assert "_errors" not in out.stderr.splitlines()[-1]


def test_a_negative_device_is_an_argument_error_with_or_without_a_gpu():
    with pytest.raises(gmlab.InvalidArgumentError, match="device must be >= 0, got -1"):
        gmlab.Context(-1)


def test_an_index_past_the_end_names_the_run_and_its_size(run_file):
    run = gmlab.load_run(run_file)
    with pytest.raises(IndexError) as e:
        run[99]
    assert str(e.value) == "index must be in 0..%d, got 99 (%s holds %d results)" % (len(run) - 1, run_file, len(run))
    with pytest.raises(KeyError, match="experiment nope is not in %s; it holds stream, " % run_file):
        run["nope"]
    assert run.source == run_file


def test_a_broken_result_names_the_file_and_the_result(tmp_path, run_file):
    document = json.loads(pathlib.Path(run_file).read_text())
    del document["results"][2]["series"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(document))
    with pytest.raises(gmlab.InvalidArgumentError) as e:
        gmlab.load_run(broken)
    name = document["results"][2]["experiment"]["name"]
    assert str(e.value).startswith("%s, result 2 (%s): " % (broken, name)), str(e.value)
    assert "not a gmlab.result/1" in str(e.value)


def test_messages_use_the_python_argument_names():
    with pytest.raises(gmlab.InvalidArgumentError, match="^params is not valid JSON"):
        gmlab.resolve_params("stream", "{")
    with pytest.raises(gmlab.InvalidArgumentError, match="^text is not valid JSON"):
        gmlab.Result.from_json("{")


def test_the_shared_helpers_leave_no_import_circle():
    """_results and _handles import only downwards (_errors, _native, _compressed);
    _handles may import _results, never the other way round."""
    package = pathlib.Path(gmlab.__file__).parent
    results = (package / "_results.py").read_text()
    assert "_handles" not in results
    errors = (package / "_errors.py").read_text()
    assert "from ._handles" not in errors and "from ._results" not in errors


def test_saved_runs_need_neither_numpy_nor_pandas(tmp_path, run_file):
    """A Python where numpy and pandas cannot be imported: load_run works, and the
    methods that need them say which extra to install."""
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(textwrap.dedent("""
        import builtins
        _import = builtins.__import__
        def _no_numpy(name, *args, **kwargs):
            if name.split(".")[0] in ("numpy", "pandas"):
                raise ImportError("No module named %r" % name)
            return _import(name, *args, **kwargs)
        builtins.__import__ = _no_numpy
    """))
    program = textwrap.dedent("""
        import sys, gmlab
        run = gmlab.load_run(sys.argv[1])
        print(len(run), run["stride_copy"].series[0].values("bandwidth_gbs")[1])
        try:
            run.to_pandas()
        except ImportError as e:
            print(e)
        try:
            gmlab.Buffer.__init__  # arrays: the message names the numpy extra
            gmlab._handles._numpy()
        except ImportError as e:
            print(e)
    """)
    package_parent = os.path.dirname(os.path.dirname(gmlab.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), package_parent]))
    out = subprocess.run([sys.executable, "-c", program, run_file], capture_output=True, text=True, env=env,
                         cwd=package_parent)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert int(lines[0].split()[0]) > 20 and float(lines[0].split()[1]) > 0
    assert "pip install 'gmlab[pandas]'" in lines[1]
    # the method the message offers instead exists on Run as on Result
    assert "to_records()" in lines[1] and callable(gmlab.Run.to_records) and callable(gmlab.Result.to_records)
    assert "pip install 'gmlab[numpy]'" in lines[2]
