"""The bindings' shared behaviour table (bindings/contract.json, explained in
bindings/CONTRACT.md), row by row, in Python: each row's input, the error class
it raises (or none) and what its message names. A row of the table without an
entry below fails: every row is run."""

import json
import pathlib
import shutil

import pytest

import gmlab

BINDINGS = pathlib.Path(__file__).resolve().parents[3]
TABLE = json.loads((BINDINGS / "contract.json").read_text())
ROWS = {row["id"]: row for row in TABLE["rows"]}


@pytest.fixture
def files(tmp_path):
    """The fixture run and the bad files the rows read, in a folder of their own."""
    run = tmp_path / "run.json"
    shutil.copy(BINDINGS / TABLE["fixtures"]["run"], run)
    zst = tmp_path / "run.json.zst"
    shutil.copy(BINDINGS / TABLE["fixtures"]["run_zst"], zst)
    text = run.read_bytes()
    made = {"run": run, "run_zst": zst, "missing": tmp_path / "no_such_run.json", "empty": tmp_path / "empty.json",
            "not_json": tmp_path / "not_json.json", "truncated": tmp_path / "truncated.json"}
    made["empty"].write_bytes(b"")
    made["not_json"].write_text("this is not JSON")
    made["truncated"].write_bytes(text[:len(text) // 2])
    return {k: str(v) for k, v in made.items()}


def _closed_result(files):
    r = gmlab.load_run(files["run"])["stream"]
    r.close()
    return r.experiment


def _independent(files):
    run = gmlab.load_run(files["run"])
    with run["stream"] as r:
        assert r.experiment == "stream"
    assert run["stream"].experiment == "stream"
    assert run["matmul_ab"].experiment == "matmul_ab"
    assert [r.experiment for r in run] == TABLE["fixtures"]["experiments"]


def _zstd(files):
    run = gmlab.load_run(files["run_zst"])
    assert run.experiments == TABLE["fixtures"]["experiments"]


def _point_value(files):
    with gmlab.load_run(files["run"])["stream"] as r:
        return r.point_value(99, 0, "x")


# Each row's input, in Python, and the file its message names (None: none).
CASES = {
    "negative_device": (lambda f: gmlab.Context(-1), None),
    "no_device": (lambda f: gmlab.Context(0), None),
    "null": (lambda f: gmlab.load_run(None), None),
    "empty_path": (lambda f: gmlab.load_run(""), None),
    "missing_file": (lambda f: gmlab.load_run(f["missing"]), "missing"),
    "empty_file": (lambda f: gmlab.load_run(f["empty"]), "empty"),
    "not_json": (lambda f: gmlab.load_run(f["not_json"]), "not_json"),
    "truncated_file": (lambda f: gmlab.load_run(f["truncated"]), "truncated"),
    "zstd_file": (_zstd, "run_zst"),
    "experiment_not_in_run": (lambda f: gmlab.load_run(f["run"])["no_such_experiment"], "run"),
    "unknown_experiment": (lambda f: gmlab.describe("no_such_experiment"), None),
    "index_out_of_range": (lambda f: gmlab.load_run(f["run"])[99], "run"),
    "series_out_of_range": (_point_value, None),
    "use_after_close": (_closed_result, None),
    "results_independent": (_independent, None),
}


def test_every_row_has_a_case():
    assert sorted(CASES) == sorted(ROWS)


@pytest.mark.parametrize("row_id", sorted(ROWS))
def test_row(row_id, files):
    row = ROWS[row_id]
    if row.get("needs") == "no_device" and gmlab.device_count() > 0:
        pytest.skip("this machine has a CUDA device")
    case, file_key = CASES[row_id]
    expected = row["python"]
    if expected["error"] is None:
        case(files)
        return
    with pytest.raises(Exception) as raised:
        case(files)
    error = raised.value
    assert type(error).__name__ == expected["error"], repr(error)
    message = error.args[0] if isinstance(error, KeyError) else str(error)
    if isinstance(error, gmlab.Error) and "status" in row:
        assert error.status == gmlab.Status[row["status"]], repr(error)
    path = files[file_key] if file_key else None
    for text in row.get("contains", []) + expected.get("contains", []):
        text = text.replace("{file}", path) if path else text
        assert text in message, "%s: %r lacks %r" % (row_id, message, text)
    for text in row.get("absent", []):
        assert text not in message, "%s: %r has %r" % (row_id, message, text)


def test_contract_md_holds_the_current_table():
    import importlib.util
    spec = importlib.util.spec_from_file_location("contract_table", BINDINGS / "contract_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    md = (BINDINGS / "CONTRACT.md").read_text(encoding="utf-8")
    assert module.BEGIN + "\n" + module.table(TABLE) + module.END in md, \
        "bindings/CONTRACT.md is not current: python3 bindings/contract_table.py --write"
