"""Results in Python's terms: Result (one experiment's measurements, owning its
gm_result), Series and Point (plain objects), and Run / load_run for saved
gmlab.run/1 and gmlab.result/1 documents, which need no GPU."""

import json
import os

from . import _compressed, _errors
from ._errors import _int, _text
from ._native import native as _s

# The point fields gm_result_point_value reads, from the document's point
# (docs/result-schema.md, "A point"): time statistics under their accessor names.
_TIME_FIELDS = (("median", "median_ms"), ("min", "min_ms"), ("max", "max_ms"), ("mean", "mean_ms"),
                ("stddev", "stddev_ms"), ("n", "repetitions"))


# The run document versions read (a minor version only adds optional fields).
_RUN_SCHEMAS = ("gmlab.run/1", "gmlab.run/1.1", "gmlab.run/1.2", "gmlab.run/1.3")


class Point:
    """One measured point: ``x``, ``fields`` (every number by the name
    gm_result_point_value uses: "bandwidth_gbs", "median_ms", "repetitions",
    "p10_ms" .. "p90_ms", a name from the point's values, "predicted.<name>",
    "counters.<name>", ...) and ``samples``
    (milliseconds per launch; empty where the document left them out)."""

    __slots__ = ("x", "fields", "samples")

    def __init__(self, x, fields, samples):
        self.x = x
        self.fields = fields
        self.samples = samples

    @classmethod
    def _from_doc(cls, p):
        fields = {}
        for key, value in p.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                fields[key] = float(value)
        time = p.get("time_ms") or {}
        for src, dst in _TIME_FIELDS:
            if isinstance(time.get(src), (int, float)):
                fields[dst] = float(time[src])
        for name, value in (p.get("values") or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                fields[name] = float(value)
        for name, value in (p.get("predicted") or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                fields["predicted." + name] = float(value)
        # Schema 1.1: the deciles of the launch times, as "p10_ms" .. "p90_ms".
        quantiles = time.get("quantiles")
        if isinstance(quantiles, list) and len(quantiles) == 9:
            for k, value in enumerate(quantiles):
                fields["p%d0_ms" % (k + 1)] = float(value)
        # Schema 1.2: hardware counters of one more, untimed launch, as "counters.<name>".
        for name, value in (p.get("counters") or {}).items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                fields["counters." + name] = float(value)
        samples = [float(v) for v in time.get("samples") or []]
        return cls(fields.get("x"), fields, samples)

    def __getitem__(self, field):
        try:
            return self.fields[field]
        except KeyError:
            raise KeyError("%r: this point has %s" % (field, ", ".join(sorted(self.fields)))) from None

    def get(self, field, default=None):
        """A field, or default where the point lacks it."""
        return self.fields.get(field, default)

    def __repr__(self):
        return "Point(x=%r, %d fields)" % (self.x, len(self.fields))


class Series:
    """One curve of a result: ``name``, ``variant`` (which kernel), the axes
    (``x_name``, ``x_unit``, ``y_field`` — the point field that is the headline —,
    ``y_name``, ``y_unit``), ``attributes`` (the curve's fixed settings) and
    ``points``."""

    __slots__ = ("name", "variant", "x_name", "x_unit", "y_field", "y_name", "y_unit", "attributes", "points")

    def __init__(self, doc):
        x, y = doc.get("x") or {}, doc.get("y") or {}
        self.name = doc.get("name", "")
        self.variant = doc.get("variant", "")
        self.x_name, self.x_unit = x.get("name", ""), x.get("unit", "")
        self.y_field, self.y_name, self.y_unit = y.get("field", ""), y.get("name", ""), y.get("unit", "")
        self.attributes = dict(doc.get("attributes") or {})
        self.points = [Point._from_doc(p) for p in doc.get("points") or []]

    def values(self, field):
        """One field of every point, in order (KeyError naming the fields where a point lacks it)."""
        return [p[field] for p in self.points]

    @property
    def x(self):
        """The swept value of every point."""
        return [p.x for p in self.points]

    @property
    def y(self):
        """The headline field (y_field) of every point."""
        return self.values(self.y_field)

    def __len__(self):
        return len(self.points)

    def __repr__(self):
        return "Series(%r, %d points)" % (self.name, len(self.points))


class Result:
    """The measurements of one experiment run (gm_result): a context manager
    that owns its handle. ``series``, ``summary``, ``to_dict()``, ``to_json()``,
    ``to_pandas()``; ``point_value()`` and ``summary_value()`` read the handle
    itself."""

    def __init__(self, *args, **kwargs):
        raise TypeError("Results come from Context.run, Result.from_json and gmlab.load_run")

    @classmethod
    def _own(cls, handle):
        self = object.__new__(cls)
        self._h = handle
        self._doc = None
        self._series = None
        return self

    @classmethod
    def from_json(cls, text: str) -> "Result":
        """Reads a gmlab.result/1 document (text)."""
        if not isinstance(text, str):
            raise TypeError("text must be a str, got %s" % type(text).__name__)
        return cls._own(_s.Result.fromJson(text))

    # ---- ownership -------------------------------------------------------
    def close(self) -> None:
        """Releases the result now; calling it again does nothing."""
        h, self._h = self._h, None
        self._doc = self._series = None
        if h is not None:
            _s._swiggmlab.delete_Result(h)

    @property
    def closed(self) -> bool:
        """True once close() has been called."""
        return self._h is None

    def __enter__(self) -> "Result":
        self._live()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self):
        if self._h is None:
            return "Result(closed)"
        return "Result(%r, %d series)" % (self.experiment, self._h.seriesCount())

    def _live(self):
        if self._h is None:
            raise _errors.closed("Result")
        return self._h

    # ---- contents ---------------------------------------------------------
    @property
    def experiment(self) -> str:
        """The experiment's registry name."""
        return self._live().experiment()

    def to_json(self, samples: str = "summary") -> str:
        """The gmlab.result/1.3 document (docs/result-schema.md): with samples="summary" each
        point's statistics and deciles, with samples="all" every raw sample the result holds too."""
        if samples == "summary":
            return self._live().toJson()
        if samples == "all":
            return self._live().toJsonWithSamples()
        raise ValueError("samples must be 'summary' or 'all', got %r" % (samples,))

    def to_dict(self, samples: str = "all") -> dict:
        """The document as a dict (a fresh copy each call); by default with every raw sample the
        result holds, so that nothing read from a saved run is lost (see to_json)."""
        return json.loads(self.to_json(samples))

    def _document(self):
        self._live()
        if self._doc is None:
            self._doc = self.to_dict()
        return self._doc

    @property
    def series(self) -> list:
        """The curves, as :class:`Series` of :class:`Point`."""
        doc = self._document()
        if self._series is None:
            self._series = [Series(s) for s in doc.get("series") or []]
        return list(self._series)

    @property
    def points(self) -> list:
        """(series name, Point) for every point of every series."""
        return [(s.name, p) for s in self.series for p in s.points]

    @property
    def summary(self) -> dict:
        """Key figures by name (e.g. stream's "copy_over_memcpy")."""
        return dict(self._document().get("summary") or {})

    @property
    def parameters(self) -> dict:
        """Every parameter of the run with the value used."""
        return dict(self._document().get("parameters") or {})

    @property
    def notes(self) -> list:
        """What the numbers mean, in words: which kernel is which, what the guide predicts."""
        return list(self._document().get("notes") or [])

    @property
    def device(self) -> dict:
        """The device block (empty where the document has none)."""
        return dict(self._document().get("device") or {})

    @property
    def applicable(self) -> bool:
        """False where the experiment does not apply to the machine (peer with one GPU)."""
        return self._document().get("applicable", True) is not False

    def point_value(self, series: int, point: int, field: str) -> float:
        """One number of one point through the library (gm_result_point_value)."""

        return self._live().pointValue(_int(series, "series"), _int(point, "point"), _text(field, "field"))

    def summary_value(self, name: str) -> float:
        """A key figure by name through the library (gm_result_summary_value)."""

        return self._live().summaryValue(_text(name, "name"))

    def to_records(self) -> list:
        """One dict per point: experiment, series, variant, x, then every field of the point."""
        experiment = self.experiment
        rows = []
        for s in self.series:
            for p in s.points:
                row = {"experiment": experiment, "series": s.name, "variant": s.variant, "x": p.x}
                row.update((k, v) for k, v in p.fields.items() if k != "x")
                rows.append(row)
        return rows

    def to_pandas(self):
        """A tidy pandas.DataFrame: one row per point, columns experiment, series, variant, x
        and every field (needs pandas)."""
        return _frame(self.to_records())


def _frame(rows):
    try:
        import pandas
    except ImportError:
        raise ImportError("gmlab: to_pandas needs pandas, which is not installed: pip install 'gmlab[pandas]' "
                          "(or pip install pandas); to_records() gives the same rows without it") from None
    leading = ["experiment", "series", "variant", "x"]
    columns = list(leading)
    for row in rows:
        for key in row:
            if key not in columns:
                columns.append(key)
    return pandas.DataFrame(rows, columns=columns)


class Run:
    """A saved run: ``device``, ``settings``, ``command`` and ``experiments``;
    its results by position or experiment name (``run["stride_copy"]``), by
    iteration, or all at once (``results``).

    Each :class:`Result` it gives is a new object, the caller's: closing it
    (``with run["stride_copy"] as r: ...``) closes no other result and not the
    run, which can be asked for the same result again."""

    def __init__(self, documents, names, document, source="the run"):
        self._documents = documents  # one result document (text) per result, in order
        self._names = names
        #: the file the run was read from, or "the run" for a text
        self.source = source
        self.device = dict(document.get("device") or {})
        self.settings = dict(document.get("settings") or {})
        self.command = document.get("command")
        self.schema = document.get("schema")

    def _result(self, index):
        return Result.from_json(self._documents[index])

    @property
    def results(self) -> list:
        """Every result, in the run's order (new objects each time)."""
        return [self._result(i) for i in range(len(self._names))]

    def __iter__(self):
        return (self._result(i) for i in range(len(self._names)))

    def __len__(self):
        return len(self._names)

    def __getitem__(self, key):
        if isinstance(key, str):
            if key not in self._names:
                raise KeyError("experiment %s is not in %s; it holds %s" % (key, self.source, ", ".join(self._names)))
            return self._result(self._names.index(key))
        if isinstance(key, slice):
            return [self._result(i) for i in range(len(self._names))[key]]
        index = _int(key, "index")
        count = len(self._names)
        if not -count <= index < count:
            raise IndexError("index must be in 0..%d, got %d (%s holds %d results)" % (count - 1, index, self.source, count))
        return self._result(index % count)

    @property
    def experiments(self):
        """The experiments' names, in the run's order."""
        return list(self._names)

    def to_records(self) -> list:
        """One dict per point of every result (see Result.to_records)."""
        rows = []
        for r in self:
            with r:
                rows.extend(r.to_records())
        return rows

    def to_pandas(self):
        """Every point of every result in one tidy frame (see Result.to_pandas)."""
        return _frame(self.to_records())

    def close(self):
        """Does nothing: a run holds no handle, and each result it gave is the caller's to close.
        Kept, with the context manager, for code written when the run owned its results."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return "Run(%d results: %s)" % (len(self._names), ", ".join(self._names))


def load_run(path) -> Run:
    """Reads a saved run: a gmlab.run/1 document (``gmlab run --json``, the files in
    results/) or a single gmlab.result/1 document, as JSON text or compressed
    with gzip or zstd (told by its first bytes, whatever the file is called).
    Needs no GPU."""
    if path is None or not isinstance(path, (str, bytes, os.PathLike)):
        raise TypeError("path must be a str or os.PathLike, got %s" % type(path).__name__)
    where = os.fsdecode(path)
    if not where:
        raise _errors.InvalidArgumentError("path must not be empty")
    limit = _compressed.MAX_DOCUMENT_BYTES
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if not data:
        raise _errors.InvalidArgumentError("%s: the file is empty" % where)
    if len(data) > limit:
        raise _errors.InvalidArgumentError("%s: is larger than %s, far more than any gmlab document: not read"
                                           % (where, _compressed.size_text(limit)))
    data = _compressed.decompressed(data, where)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _errors.InvalidArgumentError("%s: not a JSON document (not UTF-8 text: %s)" % (where, e)) from None
    return _parse_run(text, where)


def loads_run(text: str) -> Run:
    """The same as load_run, from the document's text."""
    if not isinstance(text, str):
        raise TypeError("text must be a str, got %s" % type(text).__name__)
    return _parse_run(text, "the run")


def _parse_run(text, source):
    """A Run from a document's text; errors name the source (a file or "the run") and the result."""
    try:
        document = json.loads(text)
    except ValueError as e:
        raise _errors.InvalidArgumentError("%s: not valid JSON: %s" % (source, e)) from None
    if not isinstance(document, dict):
        raise _errors.InvalidArgumentError("%s: not a gmlab.run/1 or gmlab.result/1 document: the top level is not an object"
                                           % source)
    if str(document.get("schema", "")).startswith("gmlab.result/"):
        try:
            with Result.from_json(text) as r:
                return Run([r.to_json("all")], [r.experiment], document, source)
        except _errors.Error as e:
            raise type(e)("%s: %s" % (source, e.message), e.status) from None
    results_doc = document.get("results")
    if document.get("schema") not in _RUN_SCHEMAS or not isinstance(results_doc, list):
        try:
            _s.Result.runResultCount(text)  # raises the library's error for this document
        except _errors.Error as e:
            raise type(e)("%s: %s" % (source, e.message), e.status) from None
        raise _errors.InvalidArgumentError("%s: not a gmlab.run/1 document" % source)
    # Each result goes to the library in a run document of its own (with the
    # run's device block, which the library puts back into it), so that a large
    # run is parsed there once per result, not once in full per result. What
    # the run keeps is each result's own document, read again for each Result
    # it gives.
    documents, names = [], []
    for index, entry in enumerate(results_doc):
        single = {"schema": document["schema"], "results": [entry]}
        if "device" in document:
            single["device"] = document["device"]
        try:
            with Result._own(_s.Result.fromRunJson(json.dumps(single), 0)) as r:
                documents.append(r.to_json("all"))
                names.append(r.experiment)
        except _errors.Error as e:
            raise type(e)("%s, result %d%s: %s" % (source, index, _experiment_of(entry), e.message), e.status) from None
    return Run(documents, names, document, source)


def _experiment_of(entry):
    """" (stride_copy)" for a result entry that names its experiment, else ""."""
    experiment = entry.get("experiment") if isinstance(entry, dict) else None
    name = experiment.get("name") if isinstance(experiment, dict) else None
    return " (%s)" % name if isinstance(name, str) else ""
