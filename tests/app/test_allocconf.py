"""torch_npu's PYTORCH_NPU_ALLOC_CONF: the parser's findings, and the same rules with the same
severity in diagnose (env file, script), the bundle and the exports."""

from __future__ import annotations

import json

import pytest

from cann_config.app.allocconf import (
    alloc_conf_text,
    both_variables_finding,
    check_alloc_values,
    chosen_variable,
    format_value,
    parse_alloc_conf,
)
from cann_config.app.cli import main
from cann_config.app.io.exporters import check_choices
from cann_config.app.profile import Profile


def codes(text: str) -> list[tuple[str, str]]:
    return [(f.code, f.severity) for f in parse_alloc_conf(text, file="job.env", line=3).findings]


@pytest.mark.parametrize("text,expected", [
    ("expandable_segments:True", []),
    ("expandable_segments:true", [("torchnpu-alloc-wrong-case", "error")]),
    ("expandable_segments:yes", [("torchnpu-alloc-bad-value", "error")]),
    ("max_split_size_mb:20", [("torchnpu-alloc-out-of-range", "error")]),
    ("max_split_size_mb:64MB", [("torchnpu-alloc-number-prefix", "warning")]),
    ("max_split_size_mb:MB", [("torchnpu-alloc-bad-value", "error")]),
    ("garbage_collection_threshold:0.5x", [("torchnpu-alloc-number-prefix", "warning")]),
    ("base_addr_aligned_kb:8kb", [("torchnpu-alloc-bad-value", "error")]),
    ("garbage_collection_threshold:1.0", [("torchnpu-alloc-out-of-range", "error")]),
    ("garbage_collection_threshold:0", [("torchnpu-alloc-out-of-range", "error")]),
    ("page_size:2m", [("torchnpu-alloc-page-size-value", "error")]),
    ("page_size:1G", [("torchnpu-alloc-page-size-value", "error")]),
    ("base_addr_aligned_kb:17", [("torchnpu-alloc-out-of-range", "error")]),
    ("base_addr_aligned_kb:8", [("torchnpu-alloc-base-addr-no-effect", "warning")]),
    ("expandable_segments:True,base_addr_aligned_kb:8", []),
    ("Expandable_Segments:True", [("torchnpu-alloc-unknown-key", "error")]),
    ("expandable_segments:True,max_split_size_mb:64", [("torchnpu-alloc-expandable-conflict", "error")]),
    ("expandable_segments:True, garbage_collection_threshold:0.6", [("torchnpu-alloc-expandable-conflict", "error")]),
    ("segment_size_mb:40", [("torchnpu-alloc-key-not-checked", "info")]),
    ("max_split_size_mb", [("torchnpu-alloc-malformed", "error")]),
    ("max_split_size_mb:", [("torchnpu-alloc-missing-value", "error")]),
    ("", []),
])
def test_each_rule_of_torch_npus_parser_is_one_finding(text, expected):
    assert codes(text) == expected
    for finding in parse_alloc_conf(text, file="job.env", line=3).findings:
        assert (finding.file, finding.line) == ("job.env", 3)
        assert finding.message("en") and finding.message("zh_CN") != finding.message("en")


def test_values_are_read_as_torch_npu_reads_them():
    parsed = parse_alloc_conf(" expandable_segments : False , max_split_size_mb:128,"
                              "garbage_collection_threshold:.5,page_size:1g")
    assert parsed.values == {"npu_alloc_expandable_segments": False, "npu_alloc_max_split_size_mb": 128,
                             "npu_alloc_garbage_collection_threshold": 0.5, "npu_alloc_page_size": "1g"}
    assert parsed.usable
    # A later key overwrites an earlier one, as in torch_npu.
    assert parse_alloc_conf("max_split_size_mb:64,max_split_size_mb:256").values == {"npu_alloc_max_split_size_mb": 256}


def test_writing_is_the_chosen_keys_in_one_order():
    values = {"npu_alloc_base_addr_aligned_kb": 8, "npu_alloc_expandable_segments": True,
              "npu_alloc_page_size": "", "npu_alloc_garbage_collection_threshold": 0.25}
    assert alloc_conf_text(values) == "expandable_segments:True,garbage_collection_threshold:0.25,base_addr_aligned_kb:8"
    assert format_value(False) == "False" and format_value(1e-05) == "1e-05"
    assert parse_alloc_conf(alloc_conf_text(values)).values == {k: v for k, v in values.items() if v != ""}


def test_both_variables_are_an_error_on_current_torch_npu_and_say_what_older_releases_read():
    environ = {"PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True", "PYTORCH_ALLOC_CONF": "max_split_size_mb:64"}
    assert chosen_variable(environ) == ("PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True")
    assert chosen_variable({"PYTORCH_ALLOC_CONF": "x:1"}) == ("PYTORCH_ALLOC_CONF", "x:1")
    assert chosen_variable({}) is None
    finding = both_variables_finding(environ)
    assert finding.severity == "error"
    # docs/cann/torch-npu.md#both-variables: the check since the v26.2.0 line, and what v7.3.x does
    assert "please set only one of them" in finding.message("en")
    assert "v26.2.0" in finding.message("en") and "2.14.0" in finding.message("en")
    assert "v7.3.x and older read only PYTORCH_NPU_ALLOC_CONF" in finding.message("en")
    assert "v7.3.x" in finding.message("zh_CN") and "please set only one of them" in finding.message("zh_CN")
    assert "unset PYTORCH_ALLOC_CONF" in finding.fix_text("en") and "unset PYTORCH_ALLOC_CONF" in finding.fix_text("zh_CN")
    assert " wins" not in finding.message("en") and "uses PYTORCH_NPU_ALLOC_CONF" not in finding.message("en")
    assert both_variables_finding({"PYTORCH_ALLOC_CONF": "x"}) is None


def test_the_same_rule_has_the_same_severity_in_the_exports():
    values = {"npu_alloc_expandable_segments": True, "npu_alloc_max_split_size_mb": 64}
    [conflict] = check_alloc_values(values)
    exported = [f for f in check_choices(Profile(framework="pytorch", options=values)) if f.code == conflict.code]
    assert [(f.code, f.severity) for f in exported] == [(conflict.code, "error")]
    warned = check_choices(Profile(framework="pytorch", options={"npu_alloc_base_addr_aligned_kb": 4}))
    assert ("torchnpu-alloc-base-addr-no-effect", "warning") in [(f.code, f.severity) for f in warned]


# ---------------------------------------------------------------------------------------------
# diagnose and the bundle
# ---------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _no_allocator_variables(monkeypatch, tmp_path):
    for name in ("PYTORCH_NPU_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "ASCEND_CACHE_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def diagnose_json(capsys, *args):
    code = main(["diagnose", *args, "--json", "--lang", "en"])
    return code, json.loads(capsys.readouterr().out)


def test_diagnose_env_file_carries_the_allocator_with_its_source(capsys, tmp_path):
    env = tmp_path / "job.env"
    env.write_text("export HOME=/home/u\nexport PYTORCH_NPU_ALLOC_CONF='expandable_segments:True,page_size:1g'\n"
                   "PYTORCH_ALLOC_CONF=max_split_size_mb:64\n", encoding="utf-8")
    code, data = diagnose_json(capsys, "--env-file", str(env), "--device", "Ascend910B3")
    effective = data["effective"]
    assert effective["npu_alloc_expandable_segments"] == {
        "value": True, "source": "env", "file": str(env), "line": 2, "variable": "PYTORCH_NPU_ALLOC_CONF",
        "detail": "from PYTORCH_NPU_ALLOC_CONF"}
    assert effective["npu_alloc_page_size"]["value"] == "1g"
    assert effective["npu_alloc_max_split_size_mb"]["source"] == "default"  # PYTORCH_ALLOC_CONF is not read
    found = {f["code"]: f for f in data["findings"]}
    both = found["torchnpu-alloc-both-variables"]
    assert (both["severity"], both["file"], both["line"]) == ("error", str(env), 2)
    assert "please set only one of them" in both["message"] and "unset PYTORCH_ALLOC_CONF" in both["fix"]
    assert found["npu-alloc-page-size-training-only"]["severity"] == "warning"
    assert code == 1  # current torch_npu stops the job: an error finding, exit 1
    # The same file on a device without 1 GB pages: an error, as the wizard and exports refuse it.
    code, data = diagnose_json(capsys, "--env-file", str(env), "--device", "Ascend310P3")
    assert code == 1
    assert [(f["severity"], f["line"]) for f in data["findings"] if f["code"] == "devices-unsupported-series"] == [
        ("error", 2)]


def test_diagnose_script_reads_the_allocator_and_refuses_what_torch_npu_refuses(capsys, tmp_path):
    script = tmp_path / "train.py"
    script.write_text('import os\nos.environ.setdefault("PYTORCH_NPU_ALLOC_CONF", "expandable_segments:true")\n'
                      "import torch_npu\n", encoding="utf-8")
    code, data = diagnose_json(capsys, "--script", str(script))
    assert code == 1
    [wrong] = [f for f in data["findings"] if f["code"] == "torchnpu-alloc-wrong-case"]
    assert (wrong["severity"], wrong["line"], wrong["file"]) == ("error", 2, str(script))
    assert data["framework"] == "pytorch"
    script.write_text('import os\nos.environ["PYTORCH_NPU_ALLOC_CONF"] = "max_split_size_mb:512"\n', encoding="utf-8")
    code, data = diagnose_json(capsys, "--script", str(script))
    assert code == 0
    assert data["effective"]["npu_alloc_max_split_size_mb"]["value"] == 512
    assert data["effective"]["npu_alloc_max_split_size_mb"]["line"] == 2


def test_the_bundle_records_both_variables_and_diagnoses_them(tmp_path):
    from cann_config.app.support.bundle import bundle_from_json
    from tests.app.support.test_bundle import collect, make_host

    host = make_host(tmp_path, env={"PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True,max_split_size_mb:64",
                                    "PYTORCH_ALLOC_CONF": "page_size:1g"})
    data = collect(host)
    assert data["environment"]["PYTORCH_NPU_ALLOC_CONF"] == "expandable_segments:True,max_split_size_mb:64"
    assert data["environment"]["PYTORCH_ALLOC_CONF"] == "page_size:1g"
    assert "AWS_SECRET_ACCESS_KEY" not in data["environment"]
    diagnosis = bundle_from_json(json.loads(json.dumps(data))).diagnosis(framework="pytorch")
    found = {(f.code, f.severity) for f in diagnosis.findings}
    assert {("torchnpu-alloc-expandable-conflict", "error"), ("torchnpu-alloc-both-variables", "error")} <= found
    assert diagnosis.effective["npu_alloc_max_split_size_mb"].value == 64
