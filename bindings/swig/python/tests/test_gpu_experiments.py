"""A run of every experiment in the registry, small, through Context.run."""

import pytest

import gmlab
from small_params import SMALL

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("experiment", sorted(SMALL))
def test_run(ctx, experiment):
    try:
        r = ctx.run(experiment, SMALL[experiment])
    except gmlab.NotSupportedError as e:  # l2_persist below compute capability 8.0
        pytest.skip("%s: %s" % (experiment, e))
    with r:
        assert r.experiment == experiment
        doc = r.to_dict()
        assert doc["verification"]["passed"] is True
        for key, value in SMALL[experiment].items():
            assert key in r.parameters
        if not r.applicable:  # peer with one GPU
            assert r.series == [] and r.notes
            return
        assert r.series and doc["verification"]["elements_checked"] >= 1
        for si, s in enumerate(r.series):
            assert s.points, s.name
            for pi, p in enumerate(s.points):
                assert p["repetitions"] >= 1
                assert 0 < p["min_ms"] <= p["median_ms"] <= p["max_ms"]
                assert p[s.y_field] == pytest.approx(r.point_value(si, pi, s.y_field))
        # the result reads back as it was written
        with gmlab.Result.from_json(r.to_json()) as again:
            assert [x.name for x in again.series] == [x.name for x in r.series]


def test_stride_copy_predictions_and_keywords(ctx):
    with ctx.run("stride_copy", elements=65536, strides=[1, 2, 32], word_sizes=[4], variants=["guide"]) as r:
        s = r.series[0]
        assert s.x == [1, 2, 32]
        assert s.values("predicted.sectors_per_request") == [4, 8, 32]
        assert r.summary is not None


def test_run_errors(ctx):
    with pytest.raises(gmlab.InvalidArgumentError, match="strides must be in 1..32, got 0"):
        ctx.run("stride_copy", strides=[0])
    with pytest.raises(gmlab.UnknownExperimentError):
        ctx.run("no_such_experiment")
    with pytest.raises(gmlab.InvalidArgumentError, match="experiment must not be empty"):
        ctx.run("")
    with pytest.raises(TypeError, match="experiment must be a str"):
        ctx.run(None)
    with pytest.raises(TypeError, match="params must be a dict"):
        ctx.run("stream", 5)
    with pytest.raises(gmlab.OutOfMemoryError):
        ctx.run("stream", array_bytes="1000GiB")
    # the context stays usable after errors
    with ctx.run("stream", array_bytes="8MiB", kernels="copy", include_memcpy=False) as r:
        assert r.series[0].y[0] > 0


def test_results_outlive_the_context():
    from conftest import _need_device

    _need_device()
    ctx = gmlab.Context()
    ctx.set("min_repetitions", 3)
    ctx.set("min_time_ms", 0)
    r = ctx.run("offset_copy", elements=65536, offsets="0,1")
    ctx.close()
    assert r.series[0].x == [0, 1]
    r.close()
    r.close()
