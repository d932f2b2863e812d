"""gmlab explain from Python: run a CUDA program under ``gmlab explain`` and
read the explanation, or load one written earlier (schema gmlab.explain/1,
docs/explain.md).

    from gmlab import explain
    e = explain.run(["python3", "train.py"], kernels=5)
    for kernel, finding in e.findings():
        print(kernel, finding["title"], finding["cost"].get("text"))

The explanation is made by the gmlab command (it runs the program under its
injection library); this module starts it and reads its document.
"""

import contextlib
import ctypes
import html
import json
import os
import shutil
import subprocess
import tempfile

SCHEMA_PREFIX = "gmlab.explain/1"

__all__ = ["Explanation", "ExplainError", "Session", "kernel_name", "load", "loads", "run", "session"]


def kernel_name(kernel):
    """The name a person reads for a kernel of the document (a dict of its
    ``kernels``): its ``short_name`` ("elementwise_kernel<direct_copy_kernel_cuda>",
    schema 1.1), else its whole demangled ``name`` (a 1.0 document)."""
    return kernel.get("short_name") or kernel.get("name", "")


class ExplainError(Exception):
    """gmlab explain stopped without an explanation; ``exit_code`` says why
    (the README's exit codes: 20 program not found, 23 not a CUDA program, ...)."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


class Explanation:
    """One explanation document, with the exit code gmlab explain gave."""

    def __init__(self, document, exit_code=0):
        schema = document.get("schema", "") if isinstance(document, dict) else ""
        if not schema.startswith(SCHEMA_PREFIX):
            raise ValueError("not a gmlab explanation (schema %r)" % (schema,))
        for field in ("kernels", "run", "summary", "device"):
            if field not in document:
                raise ValueError("gmlab explanation without %r" % field)
        self.document = document
        self.exit_code = exit_code

    @property
    def device(self):
        """The GPU's name, as CUPTI reported it."""
        return self.document["device"].get("name", "")

    @property
    def kernels(self):
        """The kernels, longest total time first (dicts, as in the document)."""
        return list(self.document["kernels"])

    def findings(self):
        """Every finding as (kernel name, finding); the whole program's under None.
        The name is the whole demangled one, as the document keeps it (for
        the one a person reads, kernel_name() of the kernel's dict)."""
        out = []
        for kernel in self.document["kernels"]:
            for finding in kernel.get("findings", []):
                out.append((kernel["name"], finding))
        for finding in self.document["run"].get("findings", []):
            out.append((None, finding))
        return out

    def limiting_findings(self):
        """The findings that limit their kernel (or the program): the ones the
        summary counts. A pattern present on a kernel whose compute units set
        its time is listed with ``"limiting": False`` and no gain."""
        return [(k, f) for k, f in self.findings() if f.get("limiting", True)]

    def rules(self):
        """The set of rule ids named anywhere."""
        return {finding["rule"] for _, finding in self.findings()}

    @property
    def estimated_gain_ms(self):
        """The sum of the findings' gains in ms (an upper bound), or None without costs."""
        return self.document["summary"].get("estimated_gain_ms")

    def _gain_text(self):
        gain = self.estimated_gain_ms
        return "" if gain is None else ", estimated gain up to %.3g ms" % gain

    def __repr__(self):
        kernels = self.document["kernels"]
        top = "; top kernel %s" % kernel_name(kernels[0]) if kernels else ""
        return "<gmlab.explain.Explanation on %s: %d kernel(s), %d finding(s)%s>" % (
            self.device, len(kernels), len(self.limiting_findings()), top)

    def __str__(self):
        lines = ["gmlab explanation on %s: %d finding(s)%s" % (self.device, len(self.limiting_findings()), self._gain_text())]
        for kernel in self.document["kernels"]:
            rules = ", ".join(_rule_text(f) for f in kernel.get("findings", [])) or "no finding"
            lines.append("#%s %s: %.3g ms, %s" % (kernel.get("rank", "?"), kernel_name(kernel),
                                                  kernel.get("total_ms", 0.0), rules))
        return "\n".join(lines)

    def _repr_html_(self):
        """A table of the kernels for notebooks: short names, the whole name on hover."""
        rows = []
        for kernel in self.document["kernels"]:
            rules = ", ".join(_rule_text(f) for f in kernel.get("findings", [])) or "no finding"
            rows.append("<tr><td>%s</td><td title=\"%s\"><code>%s</code></td><td>%.3g</td><td>%s</td></tr>" % (
                kernel.get("rank", "?"), html.escape(kernel.get("name", "")), html.escape(kernel_name(kernel)),
                kernel.get("total_ms", 0.0), html.escape(rules)))
        return ("<p>gmlab explanation on %s: %d finding(s)%s</p><table><tr><th>#</th><th>kernel</th><th>ms</th>"
                "<th>findings</th></tr>%s</table>" % (html.escape(self.device), len(self.limiting_findings()),
                                                      html.escape(self._gain_text()), "".join(rows)))


def _rule_text(finding):
    return finding["rule"] if finding.get("limiting", True) else finding["rule"] + " (present, not limiting)"


def loads(text, exit_code=0):
    """An explanation from its JSON text."""
    return Explanation(json.loads(text), exit_code)


def load(path):
    """An explanation from a file written by ``gmlab explain --json FILE``."""
    with open(path) as f:
        return Explanation(json.load(f))


def _int_option(name, value, lowest):
    if not isinstance(value, int) or value < lowest:
        raise ValueError("%s=%r: must be an integer of at least %d" % (name, value, lowest))
    return ["--" + name.replace("_", "-"), str(value)]


def run(command, kernels=5, kernel_regex=None, launch_skip=0, launch_count=1, passes=1, lab_run=None,
        measure=None, replay="kernel", lines=False, gmlab=None, timeout=None):
    """Runs ``gmlab explain`` on ``command`` (a list: the program and its arguments)
    and returns its Explanation. Raises ExplainError when explain stops without
    one (bad input, not a CUDA program), ValueError on bad arguments. ``gmlab``
    is the gmlab executable (default: $GMLAB, else ``gmlab`` on PATH). A program
    that exits non-zero still gives an explanation, whose exit_code is its status.
    ``measure``: None (default) measures the costs on the spot only where no run
    document of this GPU model is found, True always (``--measure``), False
    never (``--no-measure``). ``replay``: "kernel" (default: each counted launch
    replayed inside the program) or "application" (the program runs once per
    one-pass group of metrics, ``--replay application``). ``lines``: True runs
    pass 3 (``--lines``): the chosen kernels' worst source lines, in each
    kernel's ``lines`` (the program built with ``nvcc -lineinfo``)."""
    if isinstance(command, str) or not command:
        raise ValueError("command must be a non-empty list: the program and its arguments")
    args = []
    args += _int_option("kernels", kernels, 1)
    args += _int_option("launch_skip", launch_skip, 0)
    args += _int_option("launch_count", launch_count, 1)
    if passes not in (1, 2):
        raise ValueError("passes=%r: must be 1 or 2" % (passes,))
    args += ["--passes", str(passes)]
    if kernel_regex:
        args += ["--kernel-regex", kernel_regex]
    if lab_run:
        args += ["--lab-run", os.fspath(lab_run)]
    if measure not in (None, True, False):
        raise ValueError("measure=%r: must be None, True or False" % (measure,))
    if measure is not None:
        args += ["--measure" if measure else "--no-measure"]
    if replay not in ("kernel", "application"):
        raise ValueError("replay=%r: must be 'kernel' or 'application'" % (replay,))
    args += ["--replay", replay]
    if lines not in (True, False):
        raise ValueError("lines=%r: must be True or False" % (lines,))
    if lines:
        args += ["--lines"]
    exe = _gmlab_executable(gmlab)
    with tempfile.TemporaryDirectory(prefix="gmlab-explain-") as tmp:
        doc = os.path.join(tmp, "explanation.json")
        proc = subprocess.run([exe, "explain", "--json", doc] + args + ["--"] + [os.fspath(c) for c in command],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=timeout)
        if not os.path.exists(doc):
            raise ExplainError(proc.stderr.strip() or "gmlab explain wrote no explanation", proc.returncode)
        with open(doc) as f:
            return Explanation(json.load(f), proc.returncode)


def _gmlab_executable(gmlab):
    exe = gmlab or os.environ.get("GMLAB") or shutil.which("gmlab")
    if not exe:
        raise ExplainError("the gmlab executable was not found (set GMLAB or pass gmlab=)", 26)
    return exe


def _session_env(exe, kernels, kernel_regex):
    """What the injection library reads for a session: gmlab explain --session-env."""
    args = [exe, "explain", "--session-env"] + _int_option("kernels", kernels, 1)
    if kernel_regex:
        args += ["--kernel-regex", kernel_regex]
    proc = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise ExplainError(proc.stderr.strip() or "gmlab explain --session-env failed", proc.returncode)
    env = dict(line.split("=", 1) for line in proc.stdout.splitlines() if "=" in line)
    # A notebook cell runs its kernels once: count each at its first launch.
    env["GMLAB_EXPLAIN_COUNT_TOP"] = "0"
    return env


def _torch_operators(on, state):
    """PyTorch's NVTX annotation of operators (the injection library names each
    launch's operator from it), on for the session where torch is imported."""
    import sys
    torch = sys.modules.get("torch")
    if torch is None:
        return
    try:
        if on:
            annotation = torch.autograd.profiler.emit_nvtx(record_shapes=False)
            annotation.__enter__()
            state["annotation"] = annotation
        elif "annotation" in state:
            state.pop("annotation").__exit__(None, None, None)
    except Exception:  # an older or newer torch: lines without operators
        state.pop("annotation", None)


class Session:
    """What ran inside ``with gmlab.explain.session() as s:``: ``s.explanation``
    (an Explanation) once the block has ended; shown as it in a notebook."""

    def __init__(self):
        self.explanation = None

    def __repr__(self):
        return repr(self.explanation) if self.explanation else "<gmlab.explain.Session: open>"

    def _repr_html_(self):
        if self.explanation is None:
            return "<p>gmlab explain session: open</p>"
        return self.explanation._repr_html_()


@contextlib.contextmanager
def session(kernels=5, kernel_regex=None, lab_run=None, measure=None, gmlab=None):
    """Explains the CUDA work this process does inside the block, without
    restarting it (a notebook's kernel, an interactive session):

        with gmlab.explain.session() as s:
            model(x)
        s.explanation          # an Explanation; its HTML in Jupyter

    gmlab's injection library is loaded into the process and attached to
    CUDA through CUPTI; what the block launches is traced and its kernels
    counted at their first launch, and ``gmlab explain --from-records``
    explains it when the block ends. Where the process cannot be attached to
    (CUPTI missing, the process already under gmlab explain or another tool),
    ExplainError says why; run the program under ``gmlab explain -- python3
    script.py`` instead. Arguments as run()'s."""
    exe = _gmlab_executable(gmlab)
    env = _session_env(exe, kernels, kernel_regex)
    library = env.pop("GMLAB_EXPLAIN_INJECTION")
    try:
        inject = ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
    except OSError as error:
        raise ExplainError("the injection library %s cannot be loaded: %s" % (library, error), 26)
    inject.gmlab_explain_attach_message.restype = ctypes.c_char_p
    saved = {k: os.environ.get(k) for k in list(env) + ["NVTX_INJECTION64_PATH"]}
    os.environ.update(env)
    os.environ.setdefault("NVTX_INJECTION64_PATH", library)
    folder = tempfile.mkdtemp(prefix="gmlab-session-")
    torch_state = {}
    try:
        _torch_operators(True, torch_state)
        if inject.gmlab_explain_attach(folder.encode()) != 0:
            why = inject.gmlab_explain_attach_message().decode()
            raise ExplainError("gmlab explain cannot attach to this process: %s; run the program as "
                               "`gmlab explain -- python3 script.py` instead" % why, 26)
        s = Session()
        try:
            yield s
        finally:
            inject.gmlab_explain_detach()
        s.explanation = _explain_folder(exe, folder, lab_run, measure)
    finally:
        _torch_operators(False, torch_state)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(folder, ignore_errors=True)


def _explain_folder(exe, folder, lab_run, measure):
    """The records of a session, explained by gmlab explain --from-records."""
    args = [exe, "explain", "--from-records", folder]
    if lab_run:
        args += ["--lab-run", os.fspath(lab_run)]
    if measure is not None:
        args += ["--measure" if measure else "--no-measure"]
    doc = os.path.join(folder, "explanation.json")
    proc = subprocess.run(args + ["--json", doc], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not os.path.exists(doc):
        raise ExplainError(proc.stderr.strip() or "gmlab explain wrote no explanation", proc.returncode)
    with open(doc) as f:
        return Explanation(json.load(f), proc.returncode)

