"""Suggested fixes are checked by the same rules before they are shown (issue 24 item 4).

For every fixture (each op_cache.ini and env file in tests/data) and every support bundle: apply
every suggested export as written (op-cache-ini into kernel_cache/op_cache.ini, env-bash lines into
the job's environment) and diagnose again (app.support.fixes.recheck). No error a fix was offered
for is left, and no warning appears that was not there before. The report, `diagnose --json` and
the wizard show these same fixes (they all call app.support.fixes).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cann_config.app.cli import main
from cann_config.app.support.bundle import load_bundle
from cann_config.app.support.diagnosis import diagnose
from cann_config.app.support.fixes import recheck
from cann_config.app.support.report import make_report

DATA = Path(__file__).resolve().parents[2] / "data"
VERSIONS = {"adk_version": "8.5.0", "ops_version": "8.5.0"}
HOME = {"HOME": "/home/u"}
BUNDLES = sorted(p.name for p in (DATA / "bundles").glob("*.json") if p.name not in ("truncated.json",))
INIS = sorted(p.name for p in (DATA / "ini").glob("*.ini"))
ENVS = sorted(p.name for p in (DATA / "env").iterdir() if p.is_file())


def fixed_codes(report):
    return {c.code for c in report.changes}


def assert_fixes_hold(diagnosis, report, versions):
    exports = report.exports("en")
    after = recheck(diagnosis, exports, versions=versions)
    fixed = fixed_codes(report)
    left = [f for f in after.findings if f.severity == "error" and f.code in fixed]
    assert not left, [(f.code, f.message("en")) for f in left]
    before = {f.code for f in diagnosis.findings if f.severity in ("error", "warning")}
    new = [f for f in after.findings if f.severity == "warning" and f.code not in before]
    assert not new, [(f.code, f.message("en")) for f in new]
    return after


@pytest.mark.parametrize("name", BUNDLES)
def test_every_bundles_fixes_leave_no_fixed_error_and_no_new_warning(name):
    try:
        bundle = load_bundle(DATA / "bundles" / name)
    except Exception:  # noqa: BLE001 - a bundle the reader refuses has no fixes to check
        pytest.skip("refused by the reader")
    for framework in (None, "pytorch"):
        diagnosis = bundle.diagnosis(framework=framework)
        report = make_report(diagnosis, bundle)
        assert_fixes_hold(diagnosis, report, bundle.installed_versions() or None)


@pytest.mark.parametrize("name", INIS)
def test_every_ini_fixtures_fixes_hold(name):
    from cann_config.app.opcache.ini import read_op_cache_ini

    ini = read_op_cache_ini(DATA / "ini" / name)
    diagnosis = diagnose(op_cache_ini=ini, ini_path=DATA / "ini" / name, environ=HOME, installed_versions=VERSIONS)
    assert_fixes_hold(diagnosis, make_report(diagnosis), VERSIONS)


@pytest.mark.parametrize("name", ENVS)
def test_every_env_fixtures_fixes_hold(name):
    diagnosis = diagnose(env_file=DATA / "env" / name, environ=HOME, framework="pytorch", installed_versions={})
    assert_fixes_hold(diagnosis, make_report(diagnosis), None)


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
