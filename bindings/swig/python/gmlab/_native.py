"""Loads the SWIG module (gmlab.swiggmlab and its extension _swiggmlab, which
finds libgmlab beside it) with a clear message when it cannot be loaded."""

import sys

try:
    from . import swiggmlab as native  # noqa: F401  (re-exported)
except ImportError as e:  # the extension is missing, or built for another Python
    raise ImportError(
        "gmlab: cannot load the native module gmlab._swiggmlab for Python %d.%d (%s); it is built for one "
        "Python version by CMake (GM_BUILD_PYTHON=ON): rebuild it for this interpreter"
        % (sys.version_info[0], sys.version_info[1], e)) from e

# The package is made for one ABI of libgmlab; a library of another ABI (a
# libgmlab.so.N put beside the extension by hand, or found first on the
# library path) is refused before anything uses it.
_problem = native.abiProblem(native.BINDING_ABI_VERSION)
if _problem:
    raise ImportError(_problem)
