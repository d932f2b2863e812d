"""Runs the Python binding's pytest suite for CTest and the GPU script.

    run_pytest.py --no-gpu TESTDIR [pytest args]   tests that need no device
    run_pytest.py --gpu TESTDIR [pytest args]      tests that need one (marker "gpu")
    run_pytest.py --all TESTDIR [pytest args]      both

Exit status 77 (CTest's "skipped") where --gpu finds no CUDA device, or where
pytest collects no tests (pytest's own status 5); otherwise pytest's status.
With --gpu and --all the GPU tests must run: a GPU test that would skip fails
instead (GMLAB_REQUIRE_GPU=1), so that a GPU machine cannot pass them by skipping.
"""

import os
import sys

SKIPPED = 77


def main(argv):
    if len(argv) < 2 or argv[0] not in ("--gpu", "--no-gpu", "--all"):
        print(__doc__, file=sys.stderr)
        return 2
    mode, testdir, extra = argv[0], argv[1], argv[2:]
    try:
        import pytest
    except ImportError:
        print("run_pytest: pytest is not installed for %s (Debian: python3-pytest)" % sys.executable, file=sys.stderr)
        return 1
    args = [testdir, "-p", "no:cacheprovider", "--rootdir", testdir, "-rs"]
    if mode == "--no-gpu":
        args += ["-m", "not gpu"]
    else:
        import gmlab

        if gmlab.device_count() == 0:
            print("run_pytest: no CUDA device, so the GPU tests are skipped")
            if mode == "--gpu":
                return SKIPPED
        else:
            os.environ["GMLAB_REQUIRE_GPU"] = "1"
        if mode == "--gpu":
            args += ["-m", "gpu"]
    status = pytest.main(args + extra)
    if status == pytest.ExitCode.NO_TESTS_COLLECTED:
        print("run_pytest: no tests collected")
        return SKIPPED
    return int(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
