"""Parameter resolution without a device."""

import json

import pytest

import gmlab
from small_params import SMALL


def test_defaults_are_filled_in():
    resolved = gmlab.resolve_params("stride_copy")
    described = {p["name"] for p in gmlab.describe("stride_copy")["parameters"]}
    assert set(resolved) == described
    assert resolved == gmlab.resolve_params("stride_copy", {}) == gmlab.resolve_params("stride_copy", "{}")


def test_lists_as_ranges_and_keywords():
    r = gmlab.resolve_params("stride_copy", strides="1..4", word_sizes=[4])
    assert r["strides"] == [1, 2, 3, 4]
    assert r["word_sizes"] == [4]
    # a dict, a JSON text and keywords say the same; keywords win over the dict
    assert gmlab.resolve_params("stride_copy", {"strides": "2,7"})["strides"] == [2, 7]
    assert gmlab.resolve_params("stride_copy", '{"strides": "2,7"}')["strides"] == [2, 7]
    assert gmlab.resolve_params("stride_copy", {"strides": [3]}, strides="5")["strides"] == [5]
    assert gmlab.resolve_params("stride_copy", '{"strides": [3]}', strides=[6])["strides"] == [6]


def test_out_of_range_names_the_parameter():
    with pytest.raises(gmlab.InvalidArgumentError) as e:
        gmlab.resolve_params("stride_copy", strides=[0])
    assert e.value.status == gmlab.Status.INVALID_ARGUMENT
    assert e.value.message == "strides must be in 1..32, got 0"


def test_bad_params():
    with pytest.raises(gmlab.InvalidArgumentError):
        gmlab.resolve_params("stride_copy", "{not json")
    with pytest.raises(gmlab.InvalidArgumentError, match="params is not valid JSON"):
        gmlab.resolve_params("stride_copy", "{not json", strides=[1])
    with pytest.raises(gmlab.InvalidArgumentError, match="JSON object"):
        gmlab.resolve_params("stride_copy", "[1, 2]", strides=[1])
    with pytest.raises(gmlab.InvalidArgumentError):
        gmlab.resolve_params("stride_copy", "[1, 2]")
    with pytest.raises(gmlab.InvalidArgumentError):
        gmlab.resolve_params("stride_copy", no_such_parameter=1)
    with pytest.raises(TypeError, match="params must be a dict, a JSON str or None, got list"):
        gmlab.resolve_params("stride_copy", [1, 2])
    with pytest.raises(TypeError, match="params must hold only JSON values"):
        gmlab.resolve_params("stride_copy", strides=object())
    with pytest.raises(ValueError, match="must not contain a NUL"):
        gmlab.resolve_params("stride_copy", '{"strides": [1]}\0')
    with pytest.raises(gmlab.UnknownExperimentError):
        gmlab.resolve_params("no_such_experiment")
    with pytest.raises(TypeError, match="experiment must be a str"):
        gmlab.resolve_params(None)


def test_small_params_cover_the_registry_and_resolve():
    assert set(SMALL) == set(gmlab.experiments())
    for name, params in SMALL.items():
        resolved = gmlab.resolve_params(name, params)
        for key in params:
            assert key in resolved, (name, key)


def test_resolved_params_round_trip():
    r = gmlab.resolve_params("offset_copy", offsets="0,1,8")
    assert gmlab.resolve_params("offset_copy", json.dumps(r)) == r
