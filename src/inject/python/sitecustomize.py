"""gmlab explain's start-up hook for Python programs.

gmlab explain puts this folder first on PYTHONPATH. Python imports
``sitecustomize`` at start-up; this one

* turns on PyTorch's NVTX annotation of operators once the program imports
  torch (``torch.autograd.profiler.emit_nvtx`` without its device
  synchronisation, so that importing torch does not initialise CUDA), so that
  gmlab's injection library, the program's NVTX tool, names the ATen operator
  of each kernel launch and joins a backward kernel to the line of its forward
  operator;
* then imports the ``sitecustomize`` the program would have had without gmlab.

It never changes what the program computes. GMLAB_EXPLAIN_TORCH_OPS=0 turns
the operator names off.
"""

import atexit
import importlib.abc
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def _note(text):
    folder = os.environ.get("GMLAB_EXPLAIN_OUT")
    if not folder:
        return
    try:
        import json

        # The injection library's own record file (it appends too).
        name = "%s-%d.jsonl" % (os.environ.get("GMLAB_EXPLAIN_PASS", "trace"), os.getpid())
        with open(os.path.join(folder, name), "a") as out:
            out.write(json.dumps({"type": "note", "text": text}) + "\n")
    except OSError:
        pass


def _without_synchronize(torch, action):
    """emit_nvtx synchronises the device on entry and exit: not here, where
    that would initialise CUDA at import, or touch it at exit."""
    synchronize = torch.cuda.synchronize
    torch.cuda.synchronize = lambda *args, **kwargs: None
    try:
        action()
    finally:
        torch.cuda.synchronize = synchronize


def _annotate_torch_operators(torch):
    try:
        annotation = torch.autograd.profiler.emit_nvtx(record_shapes=False)
        _without_synchronize(torch, annotation.__enter__)
    except Exception as error:  # an older or newer torch: lines without operators
        _note("PyTorch operators not named: emit_nvtx failed: %s" % error)
        return

    def stop():  # else PyTorch warns of a leaked callback at exit
        try:
            _without_synchronize(torch, lambda: annotation.__exit__(None, None, None))
        except Exception:
            pass

    atexit.register(stop)


class _AfterTorchImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: wraps torch's own loader to run a hook after it."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        exec_module = loader.exec_module

        def exec_then_annotate(module):
            exec_module(module)
            _annotate_torch_operators(module)

        loader.exec_module = exec_then_annotate
        return spec


def _chain_to_the_programs_sitecustomize():
    saved = list(sys.path)
    del sys.modules[__name__]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    try:
        importlib.import_module("sitecustomize")
    except ImportError:
        pass
    finally:
        sys.path[:] = saved


if os.environ.get("GMLAB_EXPLAIN_TORCH_OPS", "1") != "0" and "torch" not in sys.modules:
    sys.meta_path.insert(0, _AfterTorchImport())
_chain_to_the_programs_sitecustomize()
