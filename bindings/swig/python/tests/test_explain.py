"""gmlab.explain: documents loaded and checked, arguments checked, and the
gmlab command started and read (a stand-in command here: no GPU needed)."""

import json
import os
import stat

import pytest

from gmlab import explain

DOC = {
    "schema": "gmlab.explain/1.1",
    "device": {"name": "NVIDIA H200"},
    "kernels": [{"rank": 1, "name": "scale_strided(float const*, float*, int, int)", "short_name": "scale_strided",
                 "total_ms": 1.67, "counted": True,
                 "findings": [{"rule": "uncoalesced_global", "title": "uncoalesced or strided global access",
                               "cost": {"found": True, "text": "on this GPU stride 4 reaches 28 % of stride 1's bandwidth"},
                               "gain_ms": 1.2}]}],
    "run": {"figures": {}, "findings": [{"rule": "pageable_transfers", "title": "host transfers from pageable memory",
                                          "cost": {"found": False}, "gain_ms": None}]},
    "summary": {"findings": 2, "estimated_gain_ms": 1.2},
}


def test_load_reads_findings_kernels_and_rules(tmp_path):
    path = tmp_path / "e.json"
    path.write_text(json.dumps(DOC))
    e = explain.load(path)
    assert e.device == "NVIDIA H200"
    assert e.rules() == {"uncoalesced_global", "pageable_transfers"}
    assert e.findings()[0][0].startswith("scale_strided")
    assert e.findings()[1][0] is None
    assert e.estimated_gain_ms == 1.2


def test_a_pattern_present_but_not_limiting_is_listed_and_not_counted():
    gemm = {"rank": 2, "name": "sm90_xmma_gemm", "short_name": "sm90_xmma_gemm", "total_ms": 3.0, "counted": True,
            "findings": [{"rule": "uncoalesced_global", "gain_ms": None, "limiting": False,
                          "not_limiting": "the compute units are 85 % busy"}]}
    e = explain.loads(json.dumps(dict(DOC, kernels=DOC["kernels"] + [gemm])))
    assert len(e.findings()) == 3
    assert len(e.limiting_findings()) == 2
    assert "finding(s)" in str(e) and ": 2 finding(s)" in str(e)
    assert "uncoalesced_global (present, not limiting)" in str(e)
    assert "uncoalesced_global (present, not limiting)" in e._repr_html_()


COPY_KERNEL = ("void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<"
               "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() const::"
               "{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, ...)::{lambda(int)#1}>"
               "(int, ...)")


def test_what_is_printed_names_kernels_by_their_short_name():
    kernel = dict(DOC["kernels"][0], name=COPY_KERNEL, short_name="elementwise_kernel<direct_copy_kernel_cuda>")
    e = explain.loads(json.dumps(dict(DOC, kernels=[kernel])))
    for shown in (repr(e), str(e)):
        assert "elementwise_kernel<direct_copy_kernel_cuda>" in shown
        assert COPY_KERNEL not in shown
    page = e._repr_html_()
    assert "elementwise_kernel&lt;direct_copy_kernel_cuda&gt;" in page
    assert "uncoalesced_global" in page and "1.67" in page
    assert e.findings()[0][0] == COPY_KERNEL  # the document keeps the whole name


def test_a_document_without_short_names_shows_the_whole_name():
    kernel = {k: v for k, v in DOC["kernels"][0].items() if k != "short_name"}
    e = explain.loads(json.dumps(dict(DOC, schema="gmlab.explain/1.0", kernels=[kernel])))
    assert explain.kernel_name(e.kernels[0]) == "scale_strided(float const*, float*, int, int)"
    assert "#1 scale_strided(float const*, float*, int, int): 1.67 ms, uncoalesced_global" in str(e)


def test_a_run_document_is_not_an_explanation():
    with pytest.raises(ValueError, match="not a gmlab explanation"):
        explain.loads(json.dumps({"schema": "gmlab.run/1.3", "results": []}))
    with pytest.raises(ValueError, match="without 'run'"):
        explain.loads(json.dumps({k: v for k, v in DOC.items() if k != "run"}))


@pytest.mark.parametrize("kwargs, message", [
    ({"kernels": 0}, "kernels=0"),
    ({"launch_count": 0}, "launch_count=0"),
    ({"launch_skip": -1}, "launch_skip=-1"),
    ({"passes": 3}, "passes=3"),
    ({"measure": "yes"}, "measure='yes'"),
    ({"replay": "app"}, "replay='app'"),
    ({"lines": "yes"}, "lines='yes'"),
])
def test_run_checks_its_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        explain.run(["true"], **kwargs)
    with pytest.raises(ValueError, match="non-empty list"):
        explain.run("python3 train.py")


def fake_gmlab(tmp_path, body):
    script = tmp_path / "gmlab"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_run_passes_the_options_and_reads_the_document(tmp_path):
    # A stand-in for gmlab: records its arguments, writes the document to --json's file.
    args_file = tmp_path / "args"
    doc_file = tmp_path / "doc.json"
    doc_file.write_text(json.dumps(DOC))
    exe = fake_gmlab(tmp_path, 'echo "$@" > %s\ncp %s "$3"\nexit 3\n' % (args_file, doc_file))
    e = explain.run(["./prog", "--fixed"], kernels=2, kernel_regex="scale", passes=2, measure=True,
                    replay="application", lines=True, gmlab=exe)
    assert e.exit_code == 3
    assert e.rules() == {"uncoalesced_global", "pageable_transfers"}
    args = args_file.read_text().split()
    assert args[0] == "explain" and args[1] == "--json"
    assert args[args.index("--kernels") + 1] == "2"
    assert args[args.index("--passes") + 1] == "2"
    assert args[args.index("--kernel-regex") + 1] == "scale"
    assert "--measure" in args and "--no-measure" not in args
    assert args[args.index("--replay") + 1] == "application"
    assert "--lines" in args
    assert args[-3:] == ["--", "./prog", "--fixed"]


def test_run_without_a_document_raises_with_the_exit_code(tmp_path):
    exe = fake_gmlab(tmp_path, 'echo "gmlab explain: program not found: ./nope" >&2\nexit 20\n')
    with pytest.raises(explain.ExplainError) as err:
        explain.run(["./nope"], gmlab=exe)
    assert err.value.exit_code == 20
    assert "program not found" in str(err.value)


def test_session_asks_gmlab_for_its_variables_and_counts_first_launches(tmp_path):
    args_file = tmp_path / "args"
    exe = fake_gmlab(tmp_path, 'echo "$@" > %s\nprintf "GMLAB_EXPLAIN_METRICS=a,b\\nGMLAB_EXPLAIN_COUNT_TOP=10\\n'
                     'GMLAB_EXPLAIN_INJECTION=%s\\n"\n' % (args_file, tmp_path / "missing.so"))
    env = explain._session_env(exe, 3, "scale")
    args = args_file.read_text().split()
    assert args[:2] == ["explain", "--session-env"]
    assert args[args.index("--kernels") + 1] == "3" and args[args.index("--kernel-regex") + 1] == "scale"
    assert env["GMLAB_EXPLAIN_METRICS"] == "a,b"
    assert env["GMLAB_EXPLAIN_COUNT_TOP"] == "0"  # a notebook cell runs its kernels once


def test_session_that_cannot_attach_says_what_to_run_instead(tmp_path):
    exe = fake_gmlab(tmp_path, 'printf "GMLAB_EXPLAIN_INJECTION=%s\\n"\n' % (tmp_path / "missing.so"))
    before = dict(os.environ)
    with pytest.raises(explain.ExplainError) as err:
        with explain.session(gmlab=exe):
            pass
    assert err.value.exit_code == 26
    assert "cannot be loaded" in str(err.value)
    assert dict(os.environ) == before  # nothing of the session is left in the environment


def test_session_bad_arguments_and_gmlab_refusal(tmp_path):
    with pytest.raises(ValueError):
        with explain.session(kernels=0, gmlab=fake_gmlab(tmp_path, "exit 0\n")):
            pass
    exe = fake_gmlab(tmp_path, 'echo "gmlab explain: the injection library was not found" >&2\nexit 26\n')
    with pytest.raises(explain.ExplainError) as err:
        with explain.session(gmlab=exe):
            pass
    assert err.value.exit_code == 26 and "injection library" in str(err.value)
