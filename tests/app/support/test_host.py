"""The Host (app/support/host.py) and the one measurement (app/opcache/measurement.py), through
the commands: `scan --json` and `diagnose --json` on a live host carry the same cache object, and
"the next start empties <SoC dir> (N MB)" is said wherever the cache is shown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cann_config.app.cli import main
from cann_config.app.support.host import host_from_bundle_file, this_host
from tests.app.support.test_diagnosis import fake_toolkit

DATA = Path(__file__).resolve().parents[2] / "data"
TEMPLATE = DATA / "ini" / "template.ini"  # adk_version=8.5.0, ops_version=8.5.0, 500 MB / 80 %
SOC = "Ascend910B3"


@pytest.fixture(autouse=True)
def _quiet_environment(monkeypatch, tmp_path):
    for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
                 "ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR", "ASCEND_WORK_PATH", "ASCEND_OPP_PATH",
                 "ASCEND_HOME_PATH", "GE_USE_STATIC_MEMORY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def live_cache(tmp_path, monkeypatch, *, installed: str = "8.3.0", ini: Path | None = TEMPLATE) -> Path:
    """A host whose CANN is `installed`, whose op_cache.ini (where CANN reads it) is `ini`, and whose
    cache holds 3 MiB in SoC dir Ascend910B3."""
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(fake_toolkit(tmp_path, installed)))
    base = tmp_path / "cache"
    soc = base / "kernel_cache" / SOC
    soc.mkdir(parents=True)
    for i in range(3):
        (soc / f"k{i}.o").write_bytes(b"x" * (1 << 20))
    if ini is not None:
        (base / "kernel_cache" / "op_cache.ini").write_bytes(ini.read_bytes())
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(base))
    return soc


def run_json(capsys, *args):
    code = main([*args, "--json", "--lang", "en"])
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def without_time(cache: dict) -> dict:
    """The measurement less what moves between two runs (the time taken, the free space), its
    findings by code and place (cache-ini-version-differs names the SoC dir when --device is given)."""
    data = {k: v for k, v in cache.items() if k not in ("elapsed_seconds", "filesystem", "findings")}
    data["findings"] = [(f["severity"], f["code"], f["file"], f["line"]) for f in cache["findings"]]
    return data


def test_diagnose_on_a_live_host_carries_scans_measurement(capsys, tmp_path, monkeypatch):
    soc = live_cache(tmp_path, monkeypatch)
    _, scanned = run_json(capsys, "scan")
    code, diagnosed = run_json(capsys, "diagnose", "--device", SOC)
    assert code == 0
    assert without_time(diagnosed["cache"]) == without_time(scanned)
    assert scanned["socs"][SOC]["empties_at_next_start"] == {"reason": "versions-differ", "bytes": 3 << 20}
    assert scanned["next_start_empties"]["socs"] == [SOC]
    for doc in (scanned, diagnosed):
        (empties,) = [f for f in doc["findings"] if f["code"] == "cache-next-start-empties-versions"]
        assert empties["severity"] == "warning"
        assert str(soc) in empties["message"] and "3 MB" in empties["message"]
        assert "8.3.0" in empties["message"]


def test_no_empties_when_the_versions_match_or_the_file_does_not_count(capsys, tmp_path, monkeypatch):
    live_cache(tmp_path, monkeypatch, installed="8.5.0")
    _, scanned = run_json(capsys, "scan")
    assert scanned["next_start_empties"] is None
    assert scanned["socs"][SOC]["empties_at_next_start"] is None
    assert "cache-next-start-empties-versions" not in [f["code"] for f in scanned["findings"]]


def test_mode_force_empties_the_dir_in_scan_and_diagnose(capsys, tmp_path, monkeypatch):
    live_cache(tmp_path, monkeypatch, installed="8.5.0")
    monkeypatch.setenv("ACL_OP_COMPILER_CACHE_MODE", "force")
    _, scanned = run_json(capsys, "scan")
    _, diagnosed = run_json(capsys, "diagnose")
    assert scanned["next_start_empties"]["reason"] == "force"
    for doc in (scanned, diagnosed):
        assert "cache-next-start-empties-force" in [f["code"] for f in doc["findings"]]


def test_text_outputs_say_the_next_start_empties_the_dir(capsys, tmp_path, monkeypatch):
    soc = live_cache(tmp_path, monkeypatch)
    for command in ("scan", "diagnose"):
        main([command, "--lang", "en"])
        out, _ = capsys.readouterr()
        assert "the next compiler start empties this directory (3 MB)" in out, command
        assert f"The next compiler start on {SOC} empties {soc} (3 MB)" in out, command


def test_an_env_file_measures_nothing_here(capsys, tmp_path, monkeypatch):
    """A customer's env file read on a support machine: this machine's cache is not theirs."""
    live_cache(tmp_path, monkeypatch)
    env = tmp_path / "job.env"
    env.write_text("export ASCEND_MAX_OP_CACHE_SIZE=400\n")
    _, diagnosed = run_json(capsys, "diagnose", "--env-file", str(env))
    assert "cache" not in diagnosed


def test_a_bundle_says_its_next_start_empties_the_soc_dir(capsys):
    """a2-910b3.json: op_cache.ini written by CANN 8.3.0, the host has 8.5.0 installed."""
    bundle = DATA / "bundles" / "a2-910b3.json"
    host = host_from_bundle_file(bundle)
    assert host.is_remote and host.device is not None and host.device.soc_version == SOC
    found = [f for f in host.diagnosis().findings if f.code == "cache-next-start-empties-versions"]
    assert [f.severity for f in found] == ["warning"]
    assert f"{SOC}" in found[0].message("en")
    code, data = run_json(capsys, "diagnose", "--bundle", str(bundle))
    assert "cache-next-start-empties-versions" in [f["code"] for f in data["findings"]]


def test_this_host_builds_from_the_given_environment(tmp_path):
    host = this_host(environ={"HOME": str(tmp_path)})
    assert host.kind == "this-host" and not host.is_remote and host.installed_versions == {}


def test_fleet_names_each_findings_node_and_shows_the_files_version_lines(capsys):
    a2, a3 = DATA / "bundles" / "a2-910b3.json", DATA / "bundles" / "a3-910-9392.json"
    code, data = run_json(capsys, "fleet", str(a2), str(a3))
    assert code == 1  # a2-910b3 has an error finding
    by_node = {(f["node"], f["code"]) for f in data["node_findings"]}
    assert ("a2-910b3", "cache-next-start-empties-versions") in by_node
    assert ("a2-910b3", "cache-ini-size-pair-incomplete") in by_node
    assert not any(node == "a3-910-9392" and code.startswith("cache-next-start") for node, code in by_node)
    (node,) = [n for n in data["nodes"] if n["name"] == "a2-910b3"]
    assert {f["code"] for f in node["findings"]} == {c for n, c in by_node if n == "a2-910b3"}
    rows = {r["key"]: r for r in data["rows"]}
    assert [c["value"] for c in rows["op_cache.ini adk_version"]["cells"]] == ["8.3.0", "8.5.0"]
    assert [c["value"] for c in rows["adk_version"]["cells"]] == ["8.5.0", "8.5.0"]
    main(["fleet", str(a2), str(a3), "--lang", "en"])
    out, _ = capsys.readouterr()
    assert "a2-910b3: warning cache-next-start-empties-versions: The next compiler start on Ascend910B3 empties" in out


def test_a_bundle_carries_scans_document_and_reads_it_back(capsys, tmp_path, monkeypatch):
    """Issue 24 item 2: the bundle's `cache` is the one measurement's document (`scan --json`'s,
    for the same inputs), read back into the same CacheMeasurement: `diagnose --bundle --json`'s
    `cache` and the text per SoC dir are scan's."""
    from cann_config.app.support.bundle import CACHE_BUNDLE_KEYS, dumps_bundle, load_bundle
    from cann_config.app.support.collect_host import collect_bundle

    live_cache(tmp_path, monkeypatch)  # installed 8.3.0, the file says 8.5.0: the next start empties it
    code, scanned = run_json(capsys, "scan")
    assert scanned["next_start_empties"]["socs"] == [SOC]
    data = collect_bundle(scan_seconds=60)
    recorded = data["cache"]
    assert set(recorded) == set(scanned) | set(CACHE_BUNDLE_KEYS)
    # a bundle's own per SoC dir: the jsons' times in aggregate form (no file list)
    assert recorded["socs"][SOC].pop("atimes")["now"] > 0
    assert without_time({k: v for k, v in recorded.items() if k not in CACHE_BUNDLE_KEYS}) == without_time(scanned)
    path = tmp_path / "b.json"
    path.write_bytes(dumps_bundle(data))
    bundle = load_bundle(path)
    assert bundle.cache_layout == "measurement"
    assert not [f for f in bundle.findings if f.code.startswith(("support-bundle-cache", "support-bundle-wrong",
                                                                 "support-bundle-missing", "support-bundle-unknown"))]
    code, diagnosed = run_json(capsys, "diagnose", "--bundle", str(path))
    assert without_time(diagnosed["cache"]) == without_time(scanned)
    live = this_host().diagnosis().measurement
    assert bundle.measurement(bundle.diagnosis().effective).soc_lines("en") == live.soc_lines("en")
    assert "the next compiler start empties this directory (3 MB)" in " ".join(live.soc_lines("en"))


def test_a_bundle_carries_counts_never_file_lists(tmp_path, monkeypatch):
    """Issue 30 item 1: unreadable entries travel as a count and the first one the finding names."""
    from cann_config.app.opcache import measurement
    from cann_config.app.support.bundle import bundle_from_json
    from cann_config.app.support.collect_host import collect_bundle

    soc = live_cache(tmp_path, monkeypatch)
    real = measurement.measure_cache

    def with_unreadable(*args, **kwargs):  # as a walk meets them without root (tests run as root here)
        measured = real(*args, **kwargs)
        measured.usage.unreadable = [(str(soc / f"locked{i}"), "Permission denied") for i in range(3)]
        return measured

    monkeypatch.setattr(measurement, "measure_cache", with_unreadable)
    cache = collect_bundle(scan_seconds=60)["cache"]
    assert cache["unreadable_count"] == 3 and cache["unreadable"] == [
        {"path": str(soc / "locked0"), "reason": "Permission denied"}]
    bundle = bundle_from_json({"format": "cann-config-bundle", "version": 1, "cache": cache})
    (finding,) = [f for f in bundle.cache_findings({}) if f.code == "scan-unreadable"]
    assert "3" in finding.message("en") and "locked0" in finding.message("en")


def test_one_finding_per_cause_through_diagnose_json(capsys, tmp_path, monkeypatch):
    """Issue 24 item 4: version lines that differ and "the next start empties" are one cause: one
    warning naming the SoC dir, its size and both versions; the info is said only where no SoC dir
    would lose anything (no cache yet)."""
    soc = live_cache(tmp_path, monkeypatch)  # the file: 8.5.0 twice; installed: 8.3.0
    code, data = run_json(capsys, "diagnose")
    codes = [f["code"] for f in data["findings"]]
    assert "cache-ini-version-differs" not in codes and codes.count("cache-next-start-empties-versions") == 1
    (warning,) = [f for f in data["findings"] if f["code"] == "cache-next-start-empties-versions"]
    assert warning["severity"] == "warning" and warning["file"] == str(soc) and "3 MB" in warning["message"]
    assert "adk_version=8.5.0, ops_version=8.5.0" in warning["message"]
    assert "adk_version=8.3.0, ops_version=8.3.0" in warning["message"]
    assert [d["key"] for d in data["cache"]["next_start_empties"]["differs"]] == ["adk_version", "ops_version"]
    # the same in scan's findings
    _, scanned = run_json(capsys, "scan")
    assert [f["code"] for f in scanned["findings"]].count("cache-ini-version-differs") == 0
    # nothing cached yet: nothing to empty, so the info says what the next start does
    for path in soc.iterdir():
        path.unlink()
    _, data = run_json(capsys, "diagnose")
    codes = [f["code"] for f in data["findings"]]
    assert "cache-next-start-empties-versions" not in codes and codes.count("cache-ini-version-differs") == 2


def test_a_missing_op_cache_ini_empties_the_soc_dir_at_the_next_start(capsys, tmp_path, monkeypatch):
    """Issue 24 item 2: CANN creates a missing op_cache.ini at the next start with the cache
    enabled, and creating it empties the SoC dir (docs/cann/op-cache.md#version-lines): scan,
    diagnose, a bundle of the host and the Host say so, once per cause."""
    from cann_config.app.support.bundle import dumps_bundle
    from cann_config.app.support.collect_host import collect_bundle

    soc = live_cache(tmp_path, monkeypatch, installed="8.5.0", ini=None)
    ini = str(soc.parent / "op_cache.ini")
    _, scanned = run_json(capsys, "scan")
    assert {k: scanned["next_start_empties"][k] for k in ("reason", "file", "socs")} == {
        "reason": "ini-missing", "file": ini, "socs": [SOC]}
    assert scanned["socs"][SOC]["empties_at_next_start"] == {"reason": "ini-missing", "bytes": 3 << 20}
    code, diagnosed = run_json(capsys, "diagnose")
    codes = [f["code"] for f in diagnosed["findings"]]
    assert "cache-ini-not-found" not in codes  # one finding per cause
    (warning,) = [f for f in diagnosed["findings"] if f["code"] == "cache-next-start-empties-ini-missing"]
    assert warning["severity"] == "warning" and warning["file"] == str(soc)
    assert ini in warning["message"] and "3 MB" in warning["message"] and "--add-versions" in warning["fix"]
    assert without_time(diagnosed["cache"]) == without_time(scanned)
    text = "\n".join(this_host().diagnosis().measurement.soc_lines("en"))
    assert "the next compiler start empties this directory (3 MB): op_cache.ini is missing" in text
    # the same host as a bundle
    path = tmp_path / "b.json"
    path.write_bytes(dumps_bundle(collect_bundle(scan_seconds=60)))
    _, from_bundle = run_json(capsys, "diagnose", "--bundle", str(path))
    assert "cache-next-start-empties-ini-missing" in [f["code"] for f in from_bundle["findings"]]
    assert "cache-ini-not-found" not in [f["code"] for f in from_bundle["findings"]]
    assert from_bundle["cache"]["next_start_empties"]["reason"] == "ini-missing"
    # no cache at all (mode disable): nothing is emptied
    monkeypatch.setenv("ACL_OP_COMPILER_CACHE_MODE", "disable")
    _, scanned = run_json(capsys, "scan")
    assert scanned["next_start_empties"] is None


def test_an_ini_cann_does_not_read_leaves_the_prediction_to_the_file_cann_reads(capsys, tmp_path, monkeypatch):
    """`diagnose --ini FILE` naming a file CANN does not read (app/opcache/which_ini.py): whether
    the next start empties the SoC dir is decided by CANN's own BASE/kernel_cache/op_cache.ini and
    its version lines, as `scan` decides it, never by the named file."""
    soc = live_cache(tmp_path, monkeypatch, installed="8.3.0")  # CANN's file says 8.5.0: it empties
    cann_ini = soc.parent / "op_cache.ini"
    other = tmp_path / "elsewhere" / "op_cache.ini"
    other.parent.mkdir()
    other.write_text("[op_compiler_cache]\nadk_version=8.3.0\nops_version=8.3.0\n", encoding="utf-8")
    _, scanned = run_json(capsys, "scan")
    code, diagnosed = run_json(capsys, "diagnose", "--ini", str(other), "--device", SOC)
    assert code == 0 and diagnosed["op_cache_ini"]["read_by_cann"] is False
    empties = diagnosed["cache"]["next_start_empties"]
    assert empties is not None and empties["reason"] == "versions-differ" and empties["file"] == str(cann_ini)
    assert empties == scanned["next_start_empties"]
    assert diagnosed["cache"]["socs"][SOC]["empties_at_next_start"] == {"reason": "versions-differ", "bytes": 3 << 20}
    (warning,) = [f for f in diagnosed["findings"] if f["code"] == "cache-next-start-empties-versions"]
    assert "8.3.0" in warning["message"] and str(soc) in warning["message"]
    # The other way round: CANN's file matches the installed CANN, the named one does not: nothing is emptied.
    other.write_text("[op_compiler_cache]\nadk_version=7.0.0\nops_version=7.0.0\n", encoding="utf-8")
    cann_ini.write_text("[op_compiler_cache]\nadk_version=8.3.0\nops_version=8.3.0\n", encoding="utf-8")
    _, diagnosed = run_json(capsys, "diagnose", "--ini", str(other), "--device", SOC)
    assert diagnosed["cache"]["next_start_empties"] is None
    assert "cache-next-start-empties-versions" not in [f["code"] for f in diagnosed["findings"]]
