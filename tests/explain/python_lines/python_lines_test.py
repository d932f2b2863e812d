"""The user's line read from a live interpreter (python_frames.cpp), as a
kernel launch from PyTorch, CuPy or Triton would read it: through a library
frame (site-packages) that is skipped, with the GIL held (ctypes.PyDLL) and
released (ctypes.CDLL, as PyTorch releases it around its operators), and from
a second Python thread."""
import ctypes
import os
import sys
import threading

probe_path = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "site-packages"))
import fakelib  # noqa: E402

failures = []


def line_of(marker):
    with open(__file__) as source:
        for number, text in enumerate(source, 1):
            if text.rstrip().endswith("# " + marker):
                return number
    raise AssertionError(marker)


def check(what, got, marker, function):
    file, line, qualname = got.decode().rsplit(":", 2) if got else ("", "0", "")
    want = (os.path.abspath(__file__), line_of(marker), function)
    if (os.path.abspath(file) if file else "", int(line), qualname) != want:
        failures.append("%s: got %r, want %r" % (what, got, want))


for name, loader in (("GIL held", ctypes.PyDLL), ("GIL released", ctypes.CDLL)):
    lib = loader(probe_path)
    lib.gmx_python_line.restype = ctypes.c_char_p

    class Model:
        def forward(self):
            return fakelib.launch(lib.gmx_python_line)  # the line named

    check(name, Model().forward(), "the line named", "Model.forward")

    result = {}

    def worker():
        result["line"] = fakelib.launch(lib.gmx_python_line)  # the line named in a thread

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    check(name + ", second thread", result["line"], "the line named in a thread", "worker")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print("python lines: all named")
