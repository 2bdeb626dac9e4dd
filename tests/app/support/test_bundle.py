"""Support bundles: what `collect` gathers (and never gathers), reading any bundle without a
traceback, and the same diagnosis from a bundle as from the same files read directly."""

import base64
import copy
import importlib.metadata
import json
import os
import shlex
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cann_config.app.catalog import load_catalog
from cann_config.app.errors import InputError
from cann_config.app.i18n import set_language
from cann_config.app.opcache.cleanup import cache_findings, predict_cleanup
from cann_config.app.opcache.measurement import empties_findings, next_start_empties
from cann_config.app.opcache.scanner import scan_to_end
from cann_config.app.support.bundle import (
    BUNDLE_FORMAT,
    BUNDLE_VERSION,
    CACHE_BUNDLE_KEYS,
    MAX_BUNDLE_BYTES,
    MAX_TEXT_CHARS,
    TOP_KEYS,
    bundle_from_json,
    bundle_variables,
    default_bundle_name,
    dumps_bundle,
    load_bundle,
    write_bundle,
)
from cann_config.app.support.collect_host import collect_bundle, tf_adapter_versions
from cann_config.app.support.diagnosis import diagnose
from cann_config.app.support.report import make_report, render_html, render_markdown, render_text

ROOT = Path(__file__).resolve().parents[3]
NPU_SMI = ROOT / "tests" / "data" / "npu-smi"
BUNDLES = ROOT / "tests" / "data" / "bundles"
NOW = 1_700_000_000
SECRET = "hunter2-do-not-send"


@pytest.fixture(autouse=True)
def _english():
    set_language("en")


class FakeNpuSmi:
    """Answers npu-smi command lines (without the program path) from a table."""

    def __init__(self, answers):
        self.answers = answers
        self.calls = []

    def __call__(self, argv, *, capture_output, text, timeout):
        self.calls.append((list(argv), timeout))
        answer = self.answers.get(" ".join(argv[1:]), FileNotFoundError)
        if answer is subprocess.TimeoutExpired:
            raise subprocess.TimeoutExpired(argv, timeout)
        if isinstance(answer, type):
            raise answer(2, "fake")
        if isinstance(answer, tuple):
            return SimpleNamespace(returncode=answer[0], stdout=answer[1], stderr=answer[2])
        return SimpleNamespace(returncode=0, stdout=answer, stderr="")


def fake_distributions(found):
    def version(name):
        if name in found:
            return found[name]
        raise importlib.metadata.PackageNotFoundError(name)
    return version


def put(path: Path, data: bytes, atime: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if atime is not None:
        os.utime(path, (atime, atime))


def kernel(soc: Path, name: str, size: int, atime: int) -> None:
    """One cached kernel as CANN writes it: a json naming its binary, and the binary."""
    put(soc / f"{name}.o", b"k" * size)
    put(soc / f"{name}.json", json.dumps({"binFileName": name, "binFileSuffix": ".o"}).encode(), atime)


A2_INI = (b"[op_compiler_cache]\nadk_version=8.3.0\nops_version=8.3.0\n"
          b"#\xe9\x99\x90\xe5\x88\xb6 MB\nmax_op_cache_size=1\n")


def make_host(tmp_path, *, answers=None, npu_smi=True, ini: bytes | None = A2_INI, env=None, socs=True):
    """A fake Atlas A2 host: npu-smi (answers from the device fixtures), CANN 8.5.0 version files,
    the CANN TF Adapter package, a cache over its 1 MB limit, and secrets in the environment."""
    root = tmp_path / "root"
    if npu_smi:
        put(root / "usr/local/sbin/npu-smi", b"")
    toolkit = root / "usr/local/Ascend/ascend-toolkit/latest"
    put(toolkit / "x86_64-linux/ascend_toolkit_install.info", b"version=8.5.0\n")
    put(toolkit / "compiler/version.info", b"Version=8.5.0\n")
    put(toolkit / "opp/version.info", b"Version=8.5.0\n")
    put(root / "usr/local/Ascend/driver/version.info", b"Version=24.1.0\n")
    put(root / "usr/local/Ascend/tfplugin/latest/ascend_tfplugin_install.info", b"version=8.5.0\n")
    home = tmp_path / "home" / "alice"
    home.mkdir(parents=True)
    base = tmp_path / "data" / "ascend_cache"
    kernel_cache = base / "kernel_cache"
    kernel_cache.mkdir(parents=True)
    if ini is not None:
        put(kernel_cache / "op_cache.ini", ini)
    if socs:
        soc = kernel_cache / "Ascend910B3"
        for i in range(3):
            kernel(soc / "kernel_meta", f"old_{i}", 400_000, NOW - 10_000 + i)
        kernel(soc, "recent", 300_000, NOW - 60)
    environ = {"PATH": "", "HOME": str(home), "ASCEND_CACHE_PATH": str(base), "ASCEND_MAX_OP_CACHE_SIZE": "1",
               "ASCEND_REMAIN_CACHE_SIZE_RATIO": "0", "AWS_SECRET_ACCESS_KEY": SECRET,
               "LD_LIBRARY_PATH": "/usr/local/Ascend/driver/lib64", "HTTPS_PROXY": f"http://u:{SECRET}@proxy:8080"}
    environ.update(env or {})
    if answers is None:
        answers = {"info": (NPU_SMI / "a2-910b3.txt").read_text(),
                   "info -m": (NPU_SMI / "mapping-910b4.txt").read_text()}
    runner = FakeNpuSmi(answers)
    return SimpleNamespace(root=root, environ=environ, runner=runner, kernel_cache=kernel_cache, home=home)


def collect(host, **kwargs):
    kwargs.setdefault("distribution_version", fake_distributions({"npu_bridge": "1.15.0"}))
    return collect_bundle(environ=host.environ, root=host.root, runner=host.runner, now=NOW, **kwargs)


# ---------------------------------------------------------------------------------------------
# What goes in, what never does
# ---------------------------------------------------------------------------------------------


def test_variables_come_from_the_catalog_plus_a_few_cann_reads():
    names = set(bundle_variables())
    catalog = load_catalog()
    for option in catalog.options.values():
        assert set(option.targets.env.values()) <= names
        if option.legacy_env:
            assert option.legacy_env in names
    assert {"ASCEND_CACHE_PATH", "ASCEND_WORK_PATH", "ASCEND_OPP_PATH", "HOME", "GE_USE_STATIC_MEMORY",
            "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO", "ACL_OP_COMPILER_CACHE_MODE",
            "ACL_OP_COMPILER_CACHE_DIR", "PYTORCH_NPU_ALLOC_CONF", "PYTORCH_ALLOC_CONF",
            "MS_ALLOC_CONF", "MS_COMPILER_CACHE_ENABLE", "MS_COMPILER_CACHE_PATH"} == names


def test_collect_on_an_a2_host(tmp_path):
    host = make_host(tmp_path)
    data = collect(host)
    assert (data["format"], data["version"]) == (BUNDLE_FORMAT, BUNDLE_VERSION)
    assert set(data) == set(TOP_KEYS)
    assert data["host"] == {}  # no host name unless asked
    assert data["npu_smi"]["info"].startswith("+---")
    assert "NPU ID" in data["npu_smi"]["mapping"]
    versions = data["versions"]
    assert (versions["toolkit_version"], versions["driver_version"], versions["adk_version"],
            versions["ops_version"]) == ("8.5.0", "24.1.0", "8.5.0", "8.5.0")
    assert (versions["tfplugin_version"], versions["npu_bridge_version"], versions["npu_device_version"]) == (
        "8.5.0", "1.15.0", None)
    assert set(data["environment"]) == {"HOME", "ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE",
                                        "ASCEND_REMAIN_CACHE_SIZE_RATIO"}
    assert data["op_cache_ini"]["text"] == A2_INI.decode("utf-8")
    cache = data["cache"]
    assert cache["exists"] is True and cache["stopped"] is False and cache["error"] is None
    limits = cache["limits"]
    assert (limits["max_op_cache_size"]["value"], limits["remain_cache_size_ratio"]["value"]) == (1, 0)
    assert limits["max_op_cache_size"]["source"] == "env"
    soc = cache["socs"]["Ascend910B3"]
    assert soc["files"] == 8
    assert soc["cann_bytes"] == 3 * 400_000 + 300_000 + sum(
        len(p.read_bytes()) for p in host.kernel_cache.rglob("*.json"))
    prediction = soc["cleanup"]
    # Ratio 0 keeps nothing: every group older than 30 minutes goes, the recent one stays.
    assert prediction["triggers"] and prediction["delete_groups"] == 3 and prediction["kept_recent_groups"] == 1
    assert not prediction["target_reached"]
    assert data["unreadable"] == []
    # Only counts: no file of the cache is named anywhere in the bundle.
    text = dumps_bundle(data).decode("utf-8")
    assert "old_0" not in text and "recent.o" not in text
    assert SECRET not in text and "LD_LIBRARY_PATH" not in text and "HTTPS_PROXY" not in text


def test_the_hostname_only_when_asked(tmp_path):
    data = collect(make_host(tmp_path), include_hostname=True)
    assert data["host"]["hostname"]
    assert bundle_from_json(data).hostname == data["host"]["hostname"]


def test_bundle_reads_back_as_the_host(tmp_path):
    host = make_host(tmp_path)
    bundle = bundle_from_json(json.loads(dumps_bundle(collect(host))), "b.json")
    assert bundle.findings == []
    assert (bundle.device.soc_version, bundle.device.series, bundle.device.source) == (
        "Ascend910B3", "atlas-a2", "bundle")
    assert bundle.op_cache_ini is not None and bundle.op_cache_ini.original == A2_INI
    assert bundle.environ["ASCEND_REMAIN_CACHE_SIZE_RATIO"] == "0"
    assert bundle.installed_versions() == {"adk_version": "8.5.0", "ops_version": "8.5.0"}
    summary = bundle.summary("en")
    assert "Ascend910B3" in summary and "8.5.0" in summary and "9 files" in summary  # 8 in the SoC dir, and op_cache.ini


def test_a3_host_keeps_the_board_queries(tmp_path):
    answers = {"info": (NPU_SMI / "a3-910-9392.txt").read_text(),
               "info -t board -i 0 -c 0": (NPU_SMI / "a3-board-0-0.txt").read_text()}
    data = collect(make_host(tmp_path, answers=answers))
    assert [(b["npu"], b["chip"]) for b in data["npu_smi"]["boards"]] == [(0, 0)]
    # npu-smi info -m was not answered: said so, and the rest is still there.
    assert [u["what"] for u in data["unreadable"]] == ["npu-smi info -m"]
    bundle = bundle_from_json(data)
    assert (bundle.device.soc_version, bundle.device.series) == ("Ascend910_9392", "atlas-a3")


def test_no_ascend_device_is_said_cleanly(tmp_path):
    host = make_host(tmp_path, npu_smi=False)
    data = collect(host)
    assert data["npu_smi"]["info"] is None and data["npu_smi"]["boards"] == []
    assert data["unreadable"][0]["what"] == "npu-smi info"
    assert "npu-smi was not found" in data["unreadable"][0]["why"]
    assert host.runner.calls == []
    bundle = bundle_from_json(data)
    assert bundle.device.soc_version is None and bundle.device.source == "bundle"
    assert [f.code for f in bundle.findings] == ["support-bundle-no-npu-smi"]
    assert "no Ascend device found" in bundle.summary("en")


def test_a_hung_npu_smi_is_cut_off(tmp_path):
    host = make_host(tmp_path, answers={"info": subprocess.TimeoutExpired})
    data = collect(host, npu_smi_timeout=1.0)
    assert data["npu_smi"]["info"] is None
    assert all(timeout <= 1.0 for _, timeout in host.runner.calls)
    assert "did not answer" in data["unreadable"][0]["why"]


def test_this_machine_without_ascend(tmp_path):
    """The real host probe on this machine (no npu-smi anywhere)."""
    env = {"PATH": str(tmp_path), "HOME": str(tmp_path)}
    data = collect_bundle(environ=env, scan_seconds=5)
    bundle = bundle_from_json(data)
    assert bundle.device.soc_version is None
    assert data["cache"]["exists"] is False and data["op_cache_ini"]["exists"] is False
    assert {f.code for f in bundle.diagnosis().findings} >= {"support-bundle-no-npu-smi", "cache-ini-not-found",
                                                               "scan-no-cache"}


def test_an_ini_that_is_not_utf8_travels_as_base64(tmp_path):
    raw = b"[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n#\xcf\xde\xd6\xc6 GBK\nmax_op_cache_size=800\n" \
          b"remain_cache_size_ratio=70\r\n"
    data = collect(make_host(tmp_path, ini=raw))
    assert data["op_cache_ini"]["text"] is None
    assert base64.b64decode(data["op_cache_ini"]["base64"]) == raw
    bundle = bundle_from_json(data)
    assert bundle.op_cache_ini.original == raw
    effective = bundle.diagnosis().effective
    assert (effective["max_op_cache_size"].value, effective["remain_cache_size_ratio"].value) == (800, 70)


def test_an_unreadable_ini_is_recorded(tmp_path):
    host = make_host(tmp_path, ini=None)
    (host.kernel_cache / "op_cache.ini").mkdir()
    data = collect(host)
    assert data["op_cache_ini"]["exists"] is True and "directory" in data["op_cache_ini"]["error"]
    assert any("op_cache.ini" in u["what"] for u in data["unreadable"])
    assert "support-bundle-ini-unreadable" in [f.code for f in bundle_from_json(data).findings]


def test_no_home_no_default_cache(tmp_path):
    host = make_host(tmp_path)
    for name in ("HOME", "ASCEND_CACHE_PATH"):
        del host.environ[name]
    data = collect(host)
    assert data["op_cache_ini"]["path"] is None and data["op_cache_ini"]["error"]
    assert data["cache"]["error"]


def test_the_scan_is_bounded_and_says_partial(tmp_path):
    data = collect(make_host(tmp_path), scan_seconds=0)
    cache = data["cache"]
    assert cache["stopped"] is True and cache["time_limit_seconds"] == 0
    assert all(soc["cleanup"] is None for soc in cache["socs"].values())
    codes = [f.code for f in bundle_from_json(data).diagnosis().findings]
    assert "scan-stopped" in codes and "scan-over-limit" not in codes


def test_the_cleanup_prediction_is_bounded_too(tmp_path):
    """The walk finishes, then the prediction reads kernel jsons until the limit: a clock that
    moves one second per look runs out after the first json."""
    ticks = iter(range(1000, 10_000))
    data = collect(make_host(tmp_path), scan_seconds=2, clock=lambda: float(next(ticks)))
    cache = data["cache"]
    assert cache["stopped"] is False and cache["totals"]["files"] == 9
    assert cache["socs"]["Ascend910B3"]["cleanup"] is None
    bundle = bundle_from_json(data)
    codes = [f.code for f in bundle.diagnosis().findings]
    assert "support-cleanup-stopped" in codes and "scan-over-limit" not in codes
    assert "not predicted" in render_markdown(make_report(bundle.diagnosis(), bundle), "en")


def test_tf_adapter_version_files_and_metadata(tmp_path):
    put(tmp_path / "home/u/Ascend/tfplugin/latest/ascend_tfplugin_install.info", b"Version = 7.0.RC1\n")
    found = tf_adapter_versions(tmp_path, {"HOME": "/home/u"}, fake_distributions({"npu_device": "0.1"}))
    assert found["tfplugin_version"] == "7.0.RC1" and found["tfplugin_path"].endswith("ascend_tfplugin_install.info")
    assert (found["npu_bridge_version"], found["npu_device_version"]) == (None, "0.1")


def test_write_is_atomic_and_named_by_date(tmp_path):
    data = collect(make_host(tmp_path))
    target = tmp_path / "out.json"
    target.write_text("old")
    write_bundle(data, target)
    assert json.loads(target.read_text())["format"] == BUNDLE_FORMAT
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out.json")] == []
    assert default_bundle_name(NOW).startswith("cann-config-bundle-2023") and default_bundle_name(NOW).endswith(".json")


# ---------------------------------------------------------------------------------------------
# Diagnosing a bundle = diagnosing the same files
# ---------------------------------------------------------------------------------------------


def write_env_file(path: Path, environ) -> Path:
    path.write_text("".join(f"export {k}={shlex.quote(v)}\n" for k, v in environ.items()), encoding="utf-8")
    return path


def comparable(diag, ini_source):
    """Effective values and findings with the place each file happens to live at left out."""
    effective = {oid: (e.value, e.source, e.variable) for oid, e in diag.effective.items()}
    findings = sorted((f.severity, f.code, f.line if f.file == ini_source else None,
                       f.message("en").replace(ini_source, "<ini>"), tuple(sorted(f.suggestion.items())))
                      # the versions info: the bundle's measurement says it as the empties warning
                      # (one finding per cause, app.opcache.measurement.one_finding_per_cause)
                      for f in diag.findings if not f.code.startswith(("support-", "scan-", "cache-next-start-",
                                                                        "cache-ini-version-differs"))
                      # where the copied file lives here (app/opcache/which_ini.py): the place left out
                      and f.code != "cache-ini-taken-as-read")
    return effective, findings


@pytest.mark.parametrize("fixture", ["a2-910b3.json", "a3-910-9392.json", "newer-version.json"])
def test_same_effective_values_and_findings_as_the_files(tmp_path, fixture):
    bundle = load_bundle(BUNDLES / fixture)
    from_bundle = bundle.diagnosis()
    ini_file = None
    if bundle.op_cache_ini is not None:
        ini_file = tmp_path / "op_cache.ini"
        ini_file.write_bytes(bundle.op_cache_ini.original)
    env_file = write_env_file(tmp_path / "job.env", bundle.environ)
    direct = diagnose(ini_path=ini_file, env_file=env_file, device=bundle.device,
                      installed_versions=bundle.installed_versions() or None)
    # The env file itself gives no findings: everything below is about the configuration.
    assert direct.env_file.findings == []
    effective_b, findings_b = comparable(from_bundle, bundle.op_cache_ini.source if bundle.op_cache_ini else "-")
    effective_d, findings_d = comparable(direct, str(ini_file))
    assert effective_b == effective_d
    if bundle.op_cache_ini is None and bundle.ini_exists is False:
        findings_b = [f for f in findings_b if f[1] != "cache-ini-not-found"]
    assert findings_b == findings_d
    assert findings_b  # these bundles have something to say


def test_the_a2_fixture_diagnosis(tmp_path):
    bundle = load_bundle(BUNDLES / "a2-910b3.json")
    diag = bundle.diagnosis()
    codes = {f.code for f in diag.findings}
    assert {"cache-ini-size-pair-incomplete", "cache-env-ratio-zero", "cache-next-start-empties-versions",
            "scan-over-limit", "scan-cleanup-short-recent"} <= codes
    assert "cache-ini-version-differs" not in codes  # one finding per cause: the warning names the versions
    assert diag.effective["max_op_cache_size"].source == "env"
    assert diag.inputs["environment"] == "bundle"
    profile = bundle.suggested_profile()
    # The customer's values, with the fixes: the ratio suggestion wins over the env's 0.
    assert profile.options["remain_cache_size_ratio"] == 50 and profile.options["max_op_cache_size"] == 1
    assert profile.device == "Ascend910B3"


def test_another_framework_here_notes_the_limits_the_prediction_used():
    bundle = load_bundle(BUNDLES / "a2-910b3.json")
    bundle.environ["ASCEND_MAX_OP_CACHE_SIZE"] = "2000"
    codes = [f.code for f in bundle.diagnosis().findings]
    assert "support-cleanup-other-limits" in codes


@pytest.mark.parametrize("max_mb", ["1", "2147483647"])
def test_a_bundle_and_a_local_scan_of_the_same_cache_say_the_same(tmp_path, max_mb):
    """One rule set: `scan` (and the wizard's gauge) on a cache tree, and `diagnose --bundle`
    (and the wizard's bundle view) on a bundle collected from that tree, give the same cleanup
    findings - code, severity and wording in both languages."""
    host = make_host(tmp_path, env={"ASCEND_MAX_OP_CACHE_SIZE": max_mb})
    soc = host.kernel_cache / "Ascend910B3"
    put(soc / "broken.json", b"{not json", NOW - 20_000)  # a group of itself, oldest
    os.symlink("kernel_meta", soc / "link")
    put(soc / "theirs.bin", b"x" * 10)
    os.chown(soc / "theirs.bin", 4321, 4321)  # another user's file: a shared cache
    bundle = bundle_from_json(collect(host))
    from_bundle = bundle.cache_findings(bundle.diagnosis().effective)
    usage = scan_to_end(host.kernel_cache)
    max_now = int(max_mb)
    local = cache_findings(usage, {name: predict_cleanup(s, max_now, 0, NOW) for name, s in usage.socs.items()}, max_now)
    # The host's op_cache.ini has other versions than its CANN: the next start empties the SoC
    # dir, judged by the one rule (app.opcache.measurement) from the walk's own sizes here.
    empties = next_start_empties(bundle.op_cache_ini, bundle.installed_versions(), "enable")
    assert empties is not None
    local += empties_findings(empties, {n: (str(s.path), s.cann_bytes) for n, s in usage.socs.items()}, None)

    def said(findings):
        return [(f.code, f.severity, f.message("en"), f.message("zh")) for f in findings]

    assert said(from_bundle) == said(local)
    codes = {f.code for f in local}
    assert {"scan-symlinks", "scan-other-users"} <= codes
    # Over the limit, the prediction reads the jsons (and meets the broken one); under it, not.
    over = max_mb == "1"
    assert {"scan-over-limit", "scan-cleanup-short-recent", "scan-json-unparsed"} <= codes if over else \
        "scan-limit-above-free" in codes and "scan-over-limit" not in codes


@pytest.mark.parametrize(("mounts", "saved"), [("tmpfs / tmpfs rw,relatime 0 0", True),
                                               ("srv:/c / nfs4 rw,vers=4.2 0 0", False)])
def test_a_bundle_carries_what_the_atime_re_check_needs(tmp_path, monkeypatch, mounts, saved):
    """The host's prediction follows its mount's atime flags; the bundle records the rule and
    the groups CANN's own read saves (no file list), and diagnose says what scan says."""
    from cann_config.app.opcache import scanner

    monkeypatch.setattr(scanner, "_read_mounts", lambda: mounts + "\n")
    host = make_host(tmp_path)
    data = collect(host)
    pred = data["cache"]["socs"]["Ascend910B3"]["cleanup"]
    assert pred["atime_rule"] == ("relatime" if saved else "nfs")
    assert (pred["read_saved_groups"] == 3) is saved and "delete" not in pred
    bundle = bundle_from_json(json.loads(json.dumps(data)))
    from_bundle = bundle.cache_findings(bundle.diagnosis().effective)
    usage = scan_to_end(host.kernel_cache)
    local = cache_findings(usage, {name: predict_cleanup(s, 1, 0, NOW) for name, s in usage.socs.items()}, 1)
    # the cleanup findings (`scan-*`); the bundle adds others (the next start emptying the SoC dir)
    assert [(f.code, f.message("en")) for f in from_bundle if f.code.startswith("scan-")] == \
        [(f.code, f.message("en")) for f in local]
    codes = {f.code for f in local}
    assert ("scan-cleanup-atime-refresh" in codes) is saved
    assert ("scan-cleanup-atime-not-confirmed" in codes) is not saved


def test_cache_findings_from_the_numbers():
    data = json.loads((BUNDLES / "a2-910b3.json").read_text())
    data["cache"]["free_bytes"] = 1024
    data["cache"]["fs_type"] = "nfs"
    data["cache"]["nfs_lock_problem"] = "nfsv3"
    pred = data["cache"]["socs"]["Ascend910B3"]["prediction"]
    pred.update(triggers=False, target_bytes=0, delete_groups=0, delete_bytes=0)
    found = {f.code: f for f in bundle_from_json(data).diagnosis().findings}
    assert {"scan-limit-above-free", "scan-nfs-v3-locks"} <= set(found)
    assert "scan-over-limit" not in found  # under the limit: CANN deletes nothing
    # A bundle of an older format did not record the mount's details: said as unknown, not guessed.
    assert "(?, nfs, ?)" in found["scan-nfs-v3-locks"].message("en")
    data["cache"].update(mount_point="/mnt/share", mount_options="rw,vers=3")
    message = {f.code: f for f in bundle_from_json(data).diagnosis().findings}["scan-nfs-v3-locks"].message("en")
    assert "(/mnt/share, nfs, rw,vers=3)" in message


# ---------------------------------------------------------------------------------------------
# Reading what others wrote: newer, older, edited, truncated, hostile
# ---------------------------------------------------------------------------------------------


def codes_of(bundle):
    return [f.code for f in bundle.findings]


def test_newer_version_is_read_as_far_as_understood():
    bundle = load_bundle(BUNDLES / "newer-version.json")
    codes = codes_of(bundle)
    assert "support-bundle-version-newer" in codes and "support-bundle-unknown-key" in codes
    assert "support-bundle-env-ignored" in codes
    assert "AWS_SECRET_ACCESS_KEY" not in bundle.environ
    assert bundle.device.soc_version == "Ascend910B3"
    assert bundle.op_cache_ini is not None  # base64 in this one


def test_older_and_invalid_versions():
    data = json.loads((BUNDLES / "a2-910b3.json").read_text())
    data["version"] = 0
    assert "support-bundle-version-invalid" in codes_of(bundle_from_json(data))
    data["version"] = "1"
    assert "support-bundle-version-invalid" in codes_of(bundle_from_json(data))
    del data["version"]
    assert "support-bundle-version-invalid" in codes_of(bundle_from_json(data))


def test_edited_bundle_gives_findings_not_a_traceback():
    bundle = load_bundle(BUNDLES / "edited-wrong-types.json")
    codes = codes_of(bundle)
    assert codes.count("support-bundle-wrong-type") >= 5
    assert "support-bundle-missing-key" in codes
    report = make_report(bundle.diagnosis(), bundle)
    assert "support-bundle-wrong-type" in render_markdown(report, "en")


def test_missing_sections_are_named():
    bundle = bundle_from_json({"format": BUNDLE_FORMAT, "version": 1})
    missing = [f for f in bundle.findings if f.code == "support-bundle-missing-key"]
    assert {"'npu_smi'", "'versions'", "'environment'", "'op_cache_ini'", "'cache'"} <= {
        f.message("en").split()[4] for f in missing}
    # What each part held is said in the reader's language too.
    assert any("（已安装的版本）" in f.message("zh_CN") for f in missing)
    diag = bundle.diagnosis()
    assert diag.effective["max_op_cache_size"].value == 500
    assert "support-cache-none" in [f.code for f in diag.findings]


def test_huge_strings_are_refused_with_a_finding():
    data = json.loads((BUNDLES / "a2-910b3.json").read_text())
    data["npu_smi"]["info"] = "x" * (MAX_TEXT_CHARS + 1)
    data["environment"]["ASCEND_CACHE_PATH"] = "/" + "a" * 5000
    data["op_cache_ini"]["text"] = "#" * (2 << 20)
    bundle = bundle_from_json(data)
    assert codes_of(bundle).count("support-bundle-too-large") == 3
    assert "ASCEND_CACHE_PATH" not in bundle.environ and bundle.op_cache_ini is None
    # The mapping is still there: the device comes from it.
    assert bundle.device.soc_version == "Ascend910B4"


def test_too_many_entries_are_cut():
    data = json.loads((BUNDLES / "a2-910b3.json").read_text())
    data["unreadable"] = [{"what": f"w{i}", "why": "y"} for i in range(1000)]
    bundle = bundle_from_json(data)
    assert "support-bundle-too-many" in codes_of(bundle) and len(bundle.unreadable) == 200


@pytest.mark.parametrize("content,reason", [
    (b"", "not valid JSON"),
    (b"{\"format\": \"cann-config-bundle\", \"version\": 1, \"npu_smi\": {\"info\": \"+---", "not valid JSON"),
    (b"[1, 2]", "JSON array"),
    (b"\"cann-config-bundle\"", "JSON string"),
    (b"{\"format\": \"cann-config-profile\", \"version\": 1}", "'format' is 'cann-config-profile'"),
    (b"{\"version\": 1}", "'format' is missing"),
    (b"\xff\xfe{}", "not UTF-8"),
    (b"[" * 100_000 + b"]" * 100_000, "nested more than 64 levels deep"),
    (b'{"format": "cann-config-bundle", "version": 1, "x": ' + b"9" * 100_000 + b"}", "more than 40 digits"),
])
def test_not_a_bundle_is_one_clear_error(tmp_path, content, reason):
    path = tmp_path / "bundle.json"
    path.write_bytes(content)
    with pytest.raises(InputError) as caught:
        load_bundle(path)
    message = caught.value.one_line()
    assert message.startswith(str(path)) and reason in message and "\n" not in message


def test_truncated_fixture_and_other_unusable_files(tmp_path):
    with pytest.raises(InputError, match="not valid JSON"):
        load_bundle(BUNDLES / "truncated.json")
    with pytest.raises(InputError, match="directory"):
        load_bundle(tmp_path)
    with pytest.raises(InputError, match="cannot read"):
        load_bundle(tmp_path / "missing.json")
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(MAX_BUNDLE_BYTES + 1)
    with pytest.raises(InputError, match="larger than"):
        load_bundle(big)


JSON_LEAVES = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
               | st.floats(allow_nan=False) | st.text(max_size=30))
KEYS = st.sampled_from([*TOP_KEYS, "info", "mapping", "boards", "npu", "chip", "text", "command", "stderr", "notes",
                        "path", "exists", "base64", "error", "socs", "prediction", "limits", "what", "why",
                        "hostname", *bundle_variables(), "max_op_cache_size", "files", "cann_bytes", "ageing",
                        "triggers", "Ascend910B3"]) | st.text(max_size=8)
JSON_VALUES = st.recursive(JSON_LEAVES, lambda children: st.lists(children, max_size=4)
                           | st.dictionaries(KEYS, children, max_size=5), max_leaves=25)


def survive(data):
    """Read, diagnose and report: InputError is the only failure allowed."""
    try:
        bundle = bundle_from_json(data, "fuzz.json")
    except InputError:
        return
    report = make_report(bundle.diagnosis(), bundle)
    for lang in ("en", "zh_CN"):
        render_markdown(report, lang)
        render_html(report, lang)
        render_text(report, lang)
        json.dumps(report.to_json(lang))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(JSON_VALUES, st.dictionaries(KEYS, JSON_VALUES, max_size=8).map(
    lambda d: {**d, "format": BUNDLE_FORMAT})))
def test_random_json_never_gives_a_traceback(data):
    survive(data)


A2_DATA = json.loads((BUNDLES / "a2-910b3.json").read_text(encoding="utf-8"))


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*prefix, i))


A2_PATHS = [p for p in _paths(A2_DATA) if p]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(A2_PATHS), JSON_VALUES), min_size=1, max_size=3))
def test_a_damaged_real_bundle_never_gives_a_traceback(edits):
    data = copy.deepcopy(A2_DATA)
    for path, value in edits:
        node = data
        try:
            for key in path[:-1]:
                node = node[key]
            node[path[-1]] = value
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit removed this path
    survive(data)


# --- what never leaves the host (issue 15) -----------------------------------------------------


def test_an_ini_symlink_is_recorded_not_followed(tmp_path):
    host = make_host(tmp_path, ini=None)
    secret_file = tmp_path / "credentials"
    secret_file.write_text(f"[default]\naws_secret_access_key={SECRET}\n")
    (host.kernel_cache / "op_cache.ini").symlink_to(secret_file)
    data = collect(host)
    section = data["op_cache_ini"]
    assert section["symlink"] == str(secret_file) and section["text"] is None and section["base64"] is None
    assert "symbolic link" in section["error"]
    assert any(item["what"].endswith("op_cache.ini") for item in data["left_out"])
    assert SECRET not in dumps_bundle(data).decode("utf-8")
    # Read back: the ini is missing with the reason, nothing else breaks.
    bundle = bundle_from_json(json.loads(dumps_bundle(data)))
    assert bundle.op_cache_ini is None and "support-bundle-ini-unreadable" in codes_of(bundle)


def test_a_fifo_in_place_of_the_ini_is_not_opened(tmp_path):
    host = make_host(tmp_path, ini=None)
    os.mkfifo(host.kernel_cache / "op_cache.ini")
    data = collect(host)
    assert "FIFO" in data["op_cache_ini"]["error"] and data["op_cache_ini"]["text"] is None


def test_values_of_left_out_variables_are_removed_from_npu_smi_output(tmp_path):
    info = (NPU_SMI / "a2-910b3.txt").read_text()
    answers = {"info": (0, info + f"AWS_SECRET_ACCESS_KEY={SECRET}\n", f"proxy http://u:{SECRET}@proxy:8080\n"),
               "info -m": (NPU_SMI / "mapping-910b4.txt").read_text()}
    data = collect(make_host(tmp_path, answers=answers))
    text = dumps_bundle(data).decode("utf-8")
    assert SECRET not in text and "<AWS_SECRET_ACCESS_KEY removed>" in data["npu_smi"]["info"]
    assert data["npu_smi"]["info"].startswith("+---")  # the table itself is untouched
    whats = [item["what"] for item in data["left_out"]]
    assert any("npu-smi" in w for w in whats) and any("environment variables" in w for w in whats)
    assert bundle_from_json(data).left_out == [(i["what"], i["why"]) for i in data["left_out"]]


def test_old_bundles_without_left_out_still_read(data_dir):
    for path in sorted((data_dir / "bundles").glob("*.json")):
        if path.name in ("truncated.json",):
            continue
        bundle = load_bundle(path)
        assert bundle.left_out == [] and not any("left_out" in f.message("en") for f in bundle.findings)


# ---------------------------------------------------------------------------------------------
# The cache: the one measurement's document, and the layout of older bundles
# ---------------------------------------------------------------------------------------------


def test_an_old_layout_bundle_reads_into_the_one_measurement():
    """a2-910b3.json was written before the bundle's cache was the measurement's document (issue
    24 item 1): read into the same CacheMeasurement, what it never recorded said once."""
    from cann_config.app.opcache.measurement import CacheMeasurement

    bundle = load_bundle(BUNDLES / "a2-910b3.json")
    assert bundle.cache_layout == "old" and isinstance(bundle.cache, CacheMeasurement)
    (note,) = [f for f in bundle.findings if f.code == "support-bundle-cache-old-layout"]
    assert note.severity == "info" and "socs.*.hard_links" in note.message("en") and "0.1.0" in note.message("en")
    measured = bundle.cache
    assert (measured.max_mb, measured.ratio, measured.exists, measured.stopped) == (1, 0, True, False)
    soc = measured.to_json()["socs"]["Ascend910B3"]
    assert (soc["files"], soc["cann_bytes"], soc["hard_links"]) == (8, 1500189, None)
    assert (soc["cleanup"]["delete_groups"], soc["cleanup"]["delete_bytes"], soc["cleanup"]["percent_of_limit"]) == (
        3, 1200141, 143.1)
    assert measured.soc_lines("en") == [
        "Ascend910B3: 8 files, 1.4 MB apparent, 1.5 MB on disk; CANN counts 1.4 MB, 143 % of the limit",
        "    next compiler start: CANN targets 1.4 MB, deletes 3 groups (1.1 MB), keeps 1 groups used in the last 30 min"]


def test_the_new_layout_is_scans_document_and_fits_its_shape(tmp_path):
    """A collected cache is the measurement's document; read back it gives no finding and the same
    document (CacheMeasurement.recorded(...).to_json() == what was written)."""
    data = json.loads(dumps_bundle(collect(make_host(tmp_path))))
    bundle = bundle_from_json(data)
    assert bundle.cache_layout == "measurement" and bundle.findings == []
    written = {k: v for k, v in data["cache"].items() if k not in CACHE_BUNDLE_KEYS}
    recorded = bundle.cache.to_json()
    assert {k: v for k, v in recorded.items() if k != "findings"} == {k: v for k, v in written.items() if k != "findings"}
    # with the limits' findings as the diagnosis resolves them, the findings are the host's too
    from cann_config.app.support.host import host_from_bundle

    assert host_from_bundle(bundle).diagnosis().cache == written


def test_a_bundle_carries_the_jsons_times_in_aggregate_form(tmp_path):
    """Issue 30 item 1: what the atime re-check rests on travels as counts, never as file names."""
    import time

    host = make_host(tmp_path)
    soc = host.kernel_cache / "Ascend910B3"
    # Read after its last change: an atime later than its mtime and than its ctime (which utime
    # sets to the real now), so an atime in the real future.
    later = int(time.time()) + 1000
    kernel(soc, "read", 1000, NOW - 5000)
    os.utime(soc / "read.json", (later, NOW - 5000))
    data = collect(host)
    atimes = data["cache"]["socs"]["Ascend910B3"]["atimes"]
    assert atimes == {"jsons": 5, "oldest_atime": NOW - 10_000, "newest_atime": later, "older_than_30_min": 3,
                      "older_than_a_day": 0, "read_after_change": 1, "now": NOW}
    bundle = bundle_from_json(json.loads(dumps_bundle(data)))
    assert bundle.findings == [] and bundle.cache.to_json()["socs"]["Ascend910B3"]["atimes"] == atimes
