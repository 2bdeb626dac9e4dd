"""Suggested fixes are checked by the same rules before they are shown (issue 24 item 4).

For every fixture under tests/data that `diagnose` reads (each op_cache.ini, env file, launch
script and Python script, every support bundle, alone and as a fleet node) the fixes every view
shows (app.support.fixes.plan_fixes) are applied as written (op-cache-ini into
kernel_cache/op_cache.ini, env-bash lines into the job's environment, a framework snippet's values
as the script's) and diagnosed again (app.support.fixes.recheck): no error is left (but one whose
finding says why no fix is offered), and no warning appears that was not there before. A fix that fails is not offered:
its finding says why ("No single fix: ..."). The report, `diagnose --json` and the wizard show
these same fixes (they all call app.support.fixes).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cann_config.app.cli import main
from cann_config.app.errors import InputError
from cann_config.app.support.bundle import load_bundle
from cann_config.app.support.diagnosis import diagnose
from cann_config.app.support.fixes import plan_fixes, recheck
from cann_config.app.support.host import FLEET_NODE, host_from_bundle
from cann_config.app.support.report import make_report, render_text

DATA = Path(__file__).resolve().parents[2] / "data"
VERSIONS = {"adk_version": "8.5.0", "ops_version": "8.5.0"}
HOME = {"HOME": "/home/u"}
BUNDLES = sorted(p.name for p in (DATA / "bundles").glob("*.json") if p.name not in ("truncated.json",))
INIS = sorted(str(p.relative_to(DATA / "ini")) for p in (DATA / "ini").rglob("*.ini"))
ENVS = sorted(str(p.relative_to(DATA)) for folder in ("env", "shell") for p in (DATA / folder).iterdir() if p.is_file())
SCRIPTS = sorted(str(p.relative_to(DATA)) for p in (DATA / "scripts").rglob("*.py"))
NO_FIX = "No single fix"


def assert_fixes_hold(diagnosis, versions=None):
    """The property: the fixes shown, applied as written, leave no error but those without a fix
    and bring no new warning; each finding whose fix failed says why."""
    before = {f.code for f in diagnosis.findings if f.severity in ("error", "warning")}
    plan = plan_fixes(diagnosis, versions)
    after = recheck(diagnosis, plan.exports("en"), versions=plan.versions, changes=plan.changes)
    # No error is left, but one whose finding says why no fix is offered ("No single fix: ...").
    said_why = {new_finding.code for _old, new_finding in plan.refused}
    left = [f for f in after.findings if f.severity == "error" and f.code not in said_why]
    assert not left, [(f.code, f.message("en")) for f in left]
    new = [f for f in after.findings if f.severity == "warning" and f.code not in before]
    assert not new, [(f.code, f.message("en")) for f in new]
    for old, new_finding in plan.refused:
        assert new_finding in diagnosis.findings and old not in diagnosis.findings
        assert new_finding.fix_text("en").startswith(NO_FIX) and not new_finding.suggestion
    # The suggested profile is the configuration after the fixes (what the wizard applies).
    if plan.profile is not None and after is not None:
        for oid, effective in after.effective.items():
            if effective.source in ("op_cache.ini", "env") and not effective.runtime and oid in plan.profile.options:
                assert plan.profile.options[oid] == effective.value, oid
    return plan


@pytest.mark.parametrize("name", BUNDLES)
@pytest.mark.parametrize("framework", [None, "pytorch", "vllm-ascend", "mindspore", "tf1"])
def test_every_bundles_fixes_hold(name, framework):
    try:
        bundle = load_bundle(DATA / "bundles" / name)
    except InputError:
        pytest.skip("refused by the reader")
    for kind in ("bundle", FLEET_NODE):
        diagnosis = host_from_bundle(bundle, kind=kind).diagnosis(framework=framework)
        assert_fixes_hold(diagnosis)
        report = make_report(diagnosis, bundle)
        assert [e.text for e in report.exports("en")] == [e.text for e in plan_fixes(diagnosis).exports("en")]


@pytest.mark.parametrize("name", INIS)
def test_every_ini_fixtures_fixes_hold(name):
    from cann_config.app.opcache.ini import read_op_cache_ini

    ini = read_op_cache_ini(DATA / "ini" / name)
    diagnosis = diagnose(op_cache_ini=ini, ini_path=DATA / "ini" / name, environ=HOME, installed_versions=VERSIONS)
    assert_fixes_hold(diagnosis)


@pytest.mark.parametrize("name", ENVS)
@pytest.mark.parametrize("framework", [None, "pytorch", "vllm-ascend"])
def test_every_env_and_launch_scripts_fixes_hold(name, framework):
    diagnosis = diagnose(env_file=DATA / name, environ=HOME, framework=framework, installed_versions={})
    assert_fixes_hold(diagnosis)


@pytest.mark.parametrize("name", SCRIPTS)
def test_every_scripts_fixes_hold(name):
    try:
        diagnosis = diagnose(script=DATA / name, environ=HOME, installed_versions={})
    except InputError:
        pytest.skip("refused by the reader (exit 2)")
    assert_fixes_hold(diagnosis)


# -- a fix that fails its check is not offered ---------------------------------------------------


TINY_IGNORED = b"[op_compiler_cache]\nmax_op_cache_size=10\nremain_cache_size_ratio=80\n"


def test_a_fix_that_brings_a_new_warning_is_not_offered_and_the_finding_says_why(capsys, tmp_path):
    """Adding the version lines to a file CANN ignores would make its 10 MB count: a new
    cache-limit-tiny warning. The fix is not offered anywhere; the finding says why."""
    ini = tmp_path / "op_cache.ini"
    ini.write_bytes(TINY_IGNORED)
    diagnosis = diagnose(ini_path=ini, environ=HOME, installed_versions=VERSIONS)
    plan = assert_fixes_hold(diagnosis)
    assert not plan.changes and plan.profile is None and not plan.exports("en")
    ((old, said),) = plan.refused
    assert old.code == said.code == "cache-ini-missing-versions"
    assert "cache-limit-tiny" in said.fix_text("en") and "adk_version=8.5.0" in said.fix_text("en")
    assert said.fix_text("zh_CN").startswith("没有单一的修复")
    # The report says the same and suggests no file.
    text = render_text(make_report(diagnose(ini_path=ini, environ=HOME, installed_versions=VERSIONS)), "en")
    assert NO_FIX in text and "Suggested op-cache-ini" not in text
    # So do `diagnose --bundle` (text and JSON) for a customer's host with that file.
    bundle = json.loads((DATA / "bundles" / "ignored-ini.json").read_text(encoding="utf-8"))
    bundle["op_cache_ini"]["text"] = TINY_IGNORED.decode()
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(bundle), encoding="utf-8")
    code, data = diagnose_json(capsys, "--bundle", str(path))
    assert code == 1
    assert data["suggested_exports"] == [] and data["suggested_changes"] == [] and data["suggested_profile"] is None
    (finding,) = [f for f in data["findings"] if f["code"] == "cache-ini-missing-versions"]
    assert finding["fix"].startswith(NO_FIX) and "cache-limit-tiny" in finding["fix"] and "suggestion" not in finding
    main(["diagnose", "--lang", "en", "--bundle", str(path)])
    out = capsys.readouterr().out
    assert "Fix: No single fix: applying the suggested change (adk_version=8.5.0, ops_version=8.5.0)" in out
    assert "Suggested op-cache-ini" not in out


def test_the_ignored_file_of_issue_24_keeps_the_customers_sizes_everywhere(capsys):
    """The issue's bundle: op_cache.ini without version lines (600/80), the environment 400/50.
    diagnose --json and the report suggest adding the version lines and keeping 600/80, and the
    suggested profile (what the wizard's Apply opens) holds the same 600/80."""
    path = DATA / "bundles" / "ignored-ini.json"
    code, data = diagnose_json(capsys, "--bundle", str(path))
    (ini,) = [e for e in data["suggested_exports"] if e["format"] == "op-cache-ini"]
    assert ini["text"] == ("[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
                           "max_op_cache_size=600\nremain_cache_size_ratio=80\n")
    options = data["suggested_profile"]["options"]
    assert (options["max_op_cache_size"], options["remain_cache_size_ratio"]) == (600, 80)
    bundle = load_bundle(path)
    report = make_report(host_from_bundle(bundle).diagnosis(), bundle)
    assert [e.text for e in report.exports("en") if e.format == "op-cache-ini"] == [ini["text"]]


# -- through the command line --------------------------------------------------------------------


def diagnose_json(capsys, *args):
    code = main(["diagnose", "--json", "--lang", "en", *args])
    return code, json.loads(capsys.readouterr().out)


def test_both_allocator_variables_come_with_the_unset_fix_everywhere(capsys, tmp_path):
    env = tmp_path / "job.env"
    env.write_text("export HOME=/home/u\nexport PYTORCH_NPU_ALLOC_CONF=max_split_size_mb:64\n"
                   "export PYTORCH_ALLOC_CONF=max_split_size_mb:32\n")
    code, data = diagnose_json(capsys, "--env-file", str(env), "--framework", "pytorch")
    assert code == 1
    [export] = [e for e in data["suggested_exports"] if e["format"] == "env-bash"]
    assert "\nunset PYTORCH_ALLOC_CONF\n" in export["text"]
    assert any(c.get("unset") and c["variable"] == "PYTORCH_ALLOC_CONF" for c in data["suggested_changes"])
    # Applied as written, the error is gone and nothing new is warned about.
    diagnosis = diagnose(env_file=env, framework="pytorch")
    after = recheck(diagnosis, make_report(diagnosis).exports("en"))
    assert "torchnpu-alloc-both-variables" not in {f.code for f in after.findings}
    # The report shows the same lines.
    report = tmp_path / "r.md"
    main(["diagnose", "--lang", "en", "--env-file", str(env), "--framework", "pytorch", "--report", str(report)])
    capsys.readouterr()
    assert "unset PYTORCH_ALLOC_CONF" in report.read_text(encoding="utf-8")


def test_no_fix_keeps_expandable_segments_beside_max_split(capsys, tmp_path):
    env = tmp_path / "job.env"
    env.write_text("export HOME=/home/u\nexport PYTORCH_NPU_ALLOC_CONF=expandable_segments:True,max_split_size_mb:64\n")
    code, data = diagnose_json(capsys, "--env-file", str(env), "--framework", "pytorch")
    assert code == 1
    options = data["suggested_profile"]["options"]
    assert not (options.get("npu_alloc_expandable_segments") is True and "npu_alloc_max_split_size_mb" in options)
    [export] = [e for e in data["suggested_exports"] if e["format"] == "env-bash"]
    assert "expandable_segments:True" not in export["text"]
    diagnosis = diagnose(env_file=env, framework="pytorch")
    after = recheck(diagnosis, make_report(diagnosis).exports("en"))
    assert not [f for f in after.findings if f.severity == "error"]


# -- op_cache.ini's form ----------------------------------------------------------------------------


def kernel_cache_with(tmp_path, name):
    base = tmp_path / "base"
    (base / "kernel_cache").mkdir(parents=True)
    (base / "kernel_cache" / "op_cache.ini").write_bytes((DATA / "ini" / name).read_bytes())
    return base


@pytest.mark.parametrize("name", ["bom_header.ini", "cr_only.ini", "foreign_section_after.ini", "indented_section.ini"])
def test_a_file_cann_ignores_for_its_form_is_written_anew_with_its_values(capsys, tmp_path, monkeypatch, name):
    """A BOM, CR-only line ends, a foreign section, no section header: CANN ignores the file and the
    tool's writer refuses to edit it, so the fix is the file written anew with the customer's values
    and version lines; applied, no error is left."""
    base = kernel_cache_with(tmp_path, name)
    monkeypatch.setenv("HOME", str(tmp_path))
    code, data = diagnose_json(capsys, "--cache-dir", str(base))
    assert code == 1
    errors = {f["code"] for f in data["findings"] if f["severity"] == "error"}
    assert {c["finding"] for c in data["suggested_changes"]} == errors
    assert all(c["rewrite"] and c["format"] == "op-cache-ini" for c in data["suggested_changes"])
    (ini,) = data["suggested_exports"]
    assert ini["text"].startswith("#") and "\n[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n" in ini["text"]
    assert "\ufeff" not in ini["text"] and "\r" not in ini["text"] and "zz_notes" not in ini["text"]
    # Applied as written, CANN reads it: no error is left.
    (base / "kernel_cache" / "op_cache.ini").write_text(ini["text"], encoding="utf-8")
    code, after = diagnose_json(capsys, "--cache-dir", str(base))
    assert code == 0 and not [f for f in after["findings"] if f["severity"] == "error"]
    assert after["op_cache_ini"]["used_by_cann"]


def test_a_quoted_size_is_written_as_the_number_in_place(capsys, tmp_path, monkeypatch):
    base = kernel_cache_with(tmp_path, "quoted_value.ini")
    monkeypatch.setenv("HOME", str(tmp_path))
    code, data = diagnose_json(capsys, "--cache-dir", str(base))
    assert code == 1
    assert [(c["finding"], c["option"], c["value"]) for c in data["suggested_changes"]] == [
        ("cache-ini-value-not-number", "max_op_cache_size", 800)]
    (ini,) = data["suggested_exports"]
    original = (DATA / "ini" / "quoted_value.ini").read_text(encoding="utf-8")
    assert ini["text"] == original.replace('max_op_cache_size="800"', "max_op_cache_size=800")


# -- this host ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", INIS)
def test_every_ini_fixture_on_a_live_host_holds(tmp_path, monkeypatch, name):
    """The same property on this host, as `diagnose` sees it (app.support.host.this_host): the
    fixture is the op_cache.ini CANN reads, CANN 8.5.0 is installed, the cache is measured."""
    from cann_config.app.support.host import this_host
    from tests.app.support.test_diagnosis import fake_toolkit

    for variable in ("ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO", "ACL_OP_COMPILER_CACHE_MODE",
                     "ACL_OP_COMPILER_CACHE_DIR", "ASCEND_WORK_PATH", "ASCEND_OPP_PATH", "ASCEND_HOME_PATH"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(fake_toolkit(tmp_path, "8.5.0")))
    base = tmp_path / "cache"
    (base / "kernel_cache").mkdir(parents=True)
    (base / "kernel_cache" / "op_cache.ini").write_bytes((DATA / "ini" / name).read_bytes())
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(base))
    diagnosis = this_host().diagnosis()
    assert diagnosis.installed_versions == VERSIONS
    plan = assert_fixes_hold(diagnosis)
    assert diagnosis.fix_plan is plan  # the Host planned them: every view shows these


def test_the_removals_are_said_in_each_env_format_and_only_while_they_hold():
    # fixes2 item 1: the lines that remove a variable, as env-bash (the report's), env-fish and torch-npu say them.
    from cann_config.app.io.exporters import export_text
    from cann_config.app.profile import Profile
    from cann_config.app.support.fixes import with_removals

    environ = {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "0", "PYTORCH_NPU_ALLOC_CONF": "max_split_size_mb:64",
               "PYTORCH_ALLOC_CONF": "max_split_size_mb:128"}
    plan = plan_fixes(diagnose(environ=environ, framework="pytorch"))
    removed = plan.removals()
    assert [r.variable for r in removed] == ["ASCEND_REMAIN_CACHE_SIZE_RATIO", "PYTORCH_ALLOC_CONF"]
    (bash,) = [e.text for e in plan.exports("en") if e.format == "env-bash"]
    assert bash.endswith(with_removals("", "env-bash", removed, plan.export_profile, "en"))
    assert "unset ASCEND_REMAIN_CACHE_SIZE_RATIO\n" in bash and "unset PYTORCH_ALLOC_CONF\n" in bash
    fish = with_removals("set -gx A 1\n", "env-fish", removed, plan.export_profile, "en")
    assert fish.startswith("set -gx A 1\n") and fish.count("set -e ") == 2
    profile = Profile(framework="pytorch", options={"remain_cache_size_ratio": 50})
    code = export_text(profile, "torch-npu", lang="en").text
    lines = with_removals(code, "torch-npu", removed, profile, "en").splitlines()
    pops = [i for i, line in enumerate(lines) if line.startswith("os.environ.pop(")]
    assert len(pops) == 2 and max(pops) < lines.index("import torch")
    # another ratio chosen since: its variable is no longer removed (the export sets it)
    other = Profile(framework="pytorch", options={"remain_cache_size_ratio": 60})
    assert with_removals("", "env-bash", removed, other, "en").count("unset ") == 1
    assert with_removals("x\n", "op-cache-ini", removed, profile, "en") == "x\n"
