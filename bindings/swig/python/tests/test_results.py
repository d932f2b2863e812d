"""Saved results: load_run, Result, Series and Point, pandas; no device needed."""

import json

import pytest

import gmlab

STANDARD_FIELDS = ("x", "bytes", "median_ms", "min_ms", "max_ms", "mean_ms", "stddev_ms", "repetitions",
                   "bandwidth_gbs", "fraction_of_theoretical", "fraction_of_memcpy")


@pytest.fixture(scope="module")
def run_file(source_dir):
    return source_dir / "results" / "nvidia-h200.json"


@pytest.fixture(scope="module")
def run(run_file):
    with gmlab.load_run(run_file) as r:
        yield r


def test_load_run_holds_every_result(run, run_file):
    doc = json.loads(run_file.read_text())
    assert run.schema == doc["schema"]
    assert len(run) == len(doc["results"])
    assert run.experiments == [r["experiment"]["name"] for r in doc["results"]]
    assert run.device["name"] == doc["device"]["name"]
    assert run.settings == doc["settings"]
    for result, rdoc in zip(run, doc["results"]):
        assert [s.name for s in result.series] == [s["name"] for s in rdoc["series"]]
        # the run's device block is put back into each result
        assert result.device["name"] == doc["device"]["name"]


def test_points_agree_with_the_library(run):
    checked = 0
    for result in run:
        for si, series in enumerate(result.series):
            for pi in sorted({0, len(series.points) - 1}):
                point = series.points[pi]
                assert point.x is not None
                for field, value in point.fields.items():
                    assert value == pytest.approx(result.point_value(si, pi, field), rel=1e-12), (
                        result.experiment, series.name, field)
                    checked += 1
                for field in STANDARD_FIELDS:  # what the point lacks, the library refuses too
                    if field not in point.fields:
                        with pytest.raises(gmlab.InvalidArgumentError):
                            result.point_value(si, pi, field)
    assert checked > 500


def test_points_carry_the_standard_fields(run):
    point = run["stride_copy"].series[0].points[0]
    assert set(STANDARD_FIELDS) <= set(point.fields)


def test_series_and_points(run):
    stride = run["stride_copy"]
    assert stride.experiment == "stride_copy"
    s = stride.series[0]
    assert (s.x_name, s.x_unit, s.y_field) == ("stride", "words", "bandwidth_gbs")
    assert s.x == [p.x for p in s.points] == s.values("x")
    assert s.y == s.values("bandwidth_gbs")
    assert len(s) == len(s.points) > 1
    assert s.points[0]["predicted.sectors_per_request"] == 4
    # the committed run is compact: the deciles stand for the samples (the fifth is the median)
    assert s.points[0].samples == []
    assert s.points[0]["p50_ms"] == pytest.approx(s.points[0]["median_ms"], rel=1e-5)
    assert s.attributes["word_size"] == 4
    with pytest.raises(KeyError, match="bandwidth_gbs"):
        s.points[0]["no_such_field"]
    assert s.points[0].get("no_such_field", -1) == -1
    assert stride.points[0] == (s.name, s.points[0])
    assert stride.parameters["strides"]
    assert stride.notes
    assert stride.applicable


def test_summary(run):
    stream = run["stream"]
    assert stream.summary["copy_over_memcpy"] == pytest.approx(stream.summary_value("copy_over_memcpy"))
    with pytest.raises(gmlab.InvalidArgumentError):
        stream.summary_value("no_such_figure")
    with pytest.raises(TypeError, match="name must be a str"):
        stream.summary_value(None)


def test_run_indexing(run):
    # Each result is a new object: closing one closes no other, nor the run.
    first = run[0]
    assert first is not run[0] and first.experiment == run.results[0].experiment
    first.close()
    assert run[0].experiment == run.experiments[0] and run[-1].experiment == run.experiments[-1]
    assert [r.experiment for r in run[1:3]] == run.experiments[1:3]
    assert run["stream"].experiment == "stream"
    with pytest.raises(KeyError, match="stream"):
        run["no_such_experiment"]
    assert "Run(" in repr(run)


def test_result_json_round_trip(run):
    first = run[1]
    doc = first.to_dict()
    # As written now: 1.3 where every series declares its quantity, else 1.2.
    declared = all("quantity" in s for s in doc["series"])
    assert doc["schema"] == ("gmlab.result/1.3" if declared else "gmlab.result/1.2")
    with gmlab.Result.from_json(first.to_json("all")) as again:
        assert again.to_dict() == doc
        assert [s.name for s in again.series] == [s.name for s in first.series]
    # a result document loads as a run of one
    with gmlab.loads_run(first.to_json()) as single:
        assert single.experiments == [first.experiment]


def test_to_dict_is_a_copy(run):
    d = run[0].to_dict()
    d["series"].clear()
    assert run[0].series


def test_records(run):
    rows = run["offset_copy"].to_records()
    assert rows[0]["experiment"] == "offset_copy"
    assert rows[0]["series"] == run["offset_copy"].series[0].name
    assert rows[0]["x"] == 0
    assert "bandwidth_gbs" in rows[0] and "predicted.sectors_per_request" in rows[0]
    assert len(rows) == sum(len(s) for s in run["offset_copy"].series)


def test_to_pandas(run):
    pandas = pytest.importorskip("pandas")
    frame = run["stride_copy"].to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame.columns[:4]) == ["experiment", "series", "variant", "x"]
    assert len(frame) == sum(len(s) for s in run["stride_copy"].series)
    first = frame[frame["series"] == run["stride_copy"].series[0].name]
    assert list(first["bandwidth_gbs"]) == run["stride_copy"].series[0].y
    everything = run.to_pandas()
    assert set(everything["experiment"]) == {r.experiment for r in run if r.series}
    assert len(everything) == sum(len(s) for r in run for s in r.series)


def test_loading_errors(tmp_path):
    with pytest.raises(TypeError, match="path must be"):
        gmlab.load_run(None)
    with pytest.raises(FileNotFoundError):
        gmlab.load_run(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(gmlab.InvalidArgumentError, match="bad.json: not valid JSON"):
        gmlab.load_run(bad)
    with pytest.raises(gmlab.InvalidArgumentError, match="top level is not an object"):
        gmlab.loads_run("[1]")
    with pytest.raises(gmlab.InvalidArgumentError):
        gmlab.loads_run('{"schema": "gmlab.run/1"}')
    with pytest.raises(gmlab.InvalidArgumentError):
        gmlab.loads_run('{"schema": "gmlab.result/1"}')
    with pytest.raises(TypeError, match="text must be a str"):
        gmlab.loads_run(None)
    with pytest.raises(TypeError, match="text must be a str"):
        gmlab.Result.from_json(b"{}")
    with pytest.raises(gmlab.InvalidArgumentError, match="text must not be empty"):
        gmlab.Result.from_json("")


def test_closed_result(run_file):
    loaded = gmlab.load_run(run_file)
    r = loaded[0]
    r.close()
    calls = [lambda: r.experiment, r.to_json, r.to_dict, lambda: r.series, lambda: r.points, lambda: r.summary,
             lambda: r.point_value(0, 0, "x"), lambda: r.summary_value("copy_over_memcpy"), r.to_records,
             r.__enter__]
    for call in calls:
        with pytest.raises(gmlab.InvalidArgumentError, match="^this Result is closed$"):
            call()
    r.close()  # again: fine
    assert r.closed and repr(r) == "Result(closed)"


def test_point_value_errors(run):
    r = run["stride_copy"]
    with pytest.raises(gmlab.InvalidArgumentError, match="series must be >= 0, got -1"):
        r.point_value(-1, 0, "x")
    with pytest.raises(gmlab.InvalidArgumentError):
        r.point_value(999, 0, "x")
    with pytest.raises(gmlab.InvalidArgumentError, match="bandwidth_gbs"):
        r.point_value(0, 0, "no_such_field")
    with pytest.raises(TypeError, match="series must be an int"):
        r.point_value("0", 0, "x")
    with pytest.raises(TypeError, match="field must be a str"):
        r.point_value(0, 0, None)


def test_to_json_keeps_the_samples_only_when_asked(run_file):
    # The committed stride_copy result with every sample of its first point, as
    # `gmlab run --samples all` writes them.
    doc = json.loads(run_file.read_text())
    result = next(r for r in doc["results"] if r["experiment"]["name"] == "stride_copy")
    time = result["series"][0]["points"][0]["time_ms"]
    time["samples"] = [time["min"]] + [time["median"]] * (int(time["n"]) - 2) + [time["max"]]
    with gmlab.Result.from_json(json.dumps(result)) as stride:
        compact = json.loads(stride.to_json())["series"][0]["points"][0]["time_ms"]
        full = json.loads(stride.to_json("all"))["series"][0]["points"][0]["time_ms"]
        assert "samples" not in compact and len(compact["quantiles"]) == 9
        assert full["samples"] == time["samples"] and len(full["samples"]) == compact["n"]
        assert stride.to_dict()["series"][0]["points"][0]["time_ms"]["samples"] == full["samples"]
        assert len(stride.series[0].points[0].samples) == compact["n"]
        with pytest.raises(ValueError, match="samples must be 'summary' or 'all'"):
            stride.to_json("some")


def test_counters_and_deciles_of_a_newer_document(run_file):
    # A 1.2 run (compact deciles, hardware counters) made from the committed one:
    # the point reads "counters.<name>" and "p50_ms" as the library does.
    doc = json.loads(run_file.read_text())
    doc["schema"] = "gmlab.run/1.2"
    result = next(r for r in doc["results"] if r["experiment"]["name"] == "stride_copy")
    result["schema"] = "gmlab.result/1.2"
    p = result["series"][0]["points"][1]
    p["time_ms"]["quantiles"] = [p["time_ms"]["median"]] * 9
    p["counters"] = {"sectors_per_request_ld": 8.0, "dram__bytes_read.sum": 123456.0}
    with gmlab.loads_run(json.dumps(doc)) as newer:
        r = newer["stride_copy"]
        point = r.series[0].points[1]
        assert point["counters.sectors_per_request_ld"] == 8.0
        assert point["counters.dram__bytes_read.sum"] == r.point_value(0, 1, "counters.dram__bytes_read.sum") == 123456.0
        assert point["p50_ms"] == r.point_value(0, 1, "p50_ms") == p["time_ms"]["median"]
        with pytest.raises(gmlab.InvalidArgumentError, match="counters.sectors_per_request_ld"):
            r.point_value(0, 1, "counters.no_such_counter")


BANDWIDTHS = {"dram_bandwidth", "l2_bandwidth", "l1_shared_bandwidth", "link_bandwidth"}


def test_every_committed_run_loads_with_its_quantities(source_dir):
    # What the current library writes (gmlab.run/1.3) and what the releases
    # before it wrote: every committed run loads; in a 1.3 run each series
    # declares its quantity, and a point's bandwidth is there only where that
    # quantity is one (allocation's call costs carry none).
    files = sorted((source_dir / "results").glob("*.json"))
    current = with_allocation = 0
    for path in files:
        with gmlab.load_run(path) as loaded:
            doc = json.loads(path.read_text())
            assert len(loaded) == len(doc["results"]), path.name
            if doc["schema"] != "gmlab.run/1.3":
                continue
            current += 1
            for result in loaded:
                for series in result.to_dict()["series"]:
                    quantity = series["quantity"]["name"]
                    for point in series["points"]:
                        assert ("bandwidth_gbs" in point) <= (quantity in BANDWIDTHS), (path.name, series["name"])
                        assert ("fraction_of_memcpy" in point) <= (quantity == "dram_bandwidth"), (path.name, series["name"])
            if not any(r["experiment"]["name"] == "allocation" for r in doc["results"]):
                continue  # a run of other experiments (peer on several GPUs)
            with_allocation += 1
            allocation = loaded["allocation"]
            with pytest.raises(KeyError, match="bandwidth_gbs"):
                allocation.series[0].values("bandwidth_gbs")
            assert all(v > 0 for v in allocation.series[0].values("us_per_call"))
    assert current >= 1, "a gmlab.run/1.3 document is committed"
    assert with_allocation >= 1, "a gmlab.run/1.3 standard suite is committed"
