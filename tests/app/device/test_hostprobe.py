"""Host probing: npu-smi is run within one time budget, failures say what was tried, versions are read."""

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from cann_config.app.device import hostprobe
from cann_config.app.device.hostprobe import find_npu_smi, installed_versions, probe_host, run_command
from cann_config.app.i18n import current_language, set_language

DATA = Path(__file__).resolve().parents[2] / "data" / "npu-smi"
NO_PATH = {"PATH": ""}


@pytest.fixture(autouse=True)
def _english():
    before = current_language()
    set_language("en")
    yield
    set_language(before)


def fixture(name):
    return (DATA / name).read_text()


class FakeNpuSmi:
    """Answers npu-smi command lines from a table; records every call and its timeout."""

    def __init__(self, answers):
        self.answers = answers
        self.calls = []

    def __call__(self, argv, *, capture_output, text, timeout):
        assert capture_output and text
        self.calls.append((list(argv), timeout))
        key = " ".join(argv[1:])
        answer = self.answers.get(key, FileNotFoundError)
        if isinstance(answer, type) and issubclass(answer, BaseException):
            if answer is subprocess.TimeoutExpired:
                raise subprocess.TimeoutExpired(argv, timeout)
            raise answer(2, "fake")
        if isinstance(answer, tuple):
            return SimpleNamespace(returncode=answer[0], stdout=answer[1], stderr=answer[2])
        return SimpleNamespace(returncode=0, stdout=answer, stderr="")


@pytest.fixture
def host(tmp_path):
    """A fake `/` where the driver installed npu-smi (not on PATH, as for a non-root user)."""
    sbin = tmp_path / "usr" / "local" / "sbin"
    sbin.mkdir(parents=True)
    (sbin / "npu-smi").write_text("")
    return tmp_path


def test_a2_host(host):
    runner = FakeNpuSmi({"info": fixture("a2-910b3.txt")})
    probe = probe_host(runner=runner, root=host, environ=NO_PATH)
    assert (probe.device.soc_version, probe.device.series, probe.device.source) == ("Ascend910B3", "atlas-a2", "npu-smi")
    assert len(probe.device.npus) == 8
    assert probe.raw["npu-smi info"].startswith("+---")
    assert len(runner.calls) == 1 and runner.calls[0][0][1:] == ["info"]
    assert 0 < runner.calls[0][1] <= 5.0  # the call gets what is left of the 5 s budget
    assert any("read 8 NPU chip(s)" in t for t in probe.tried)


def test_a3_host_runs_the_board_query(host):
    runner = FakeNpuSmi({"info": fixture("a3-910-9392.txt"),
                         "info -t board -i 0 -c 0": fixture("a3-board-0-0.txt")})
    probe = probe_host(runner=runner, root=host, environ=NO_PATH)
    assert (probe.device.soc_version, probe.device.series) == ("Ascend910_9392", "atlas-a3")
    assert [c[0][1:] for c in runner.calls] == [["info"], ["info", "-t", "board", "-i", "0", "-c", "0"]]
    assert "npu-smi info -t board -i 0 -c 0" in probe.raw


def test_950_board_query_has_no_chip(host):
    runner = FakeNpuSmi({"info": fixture("950pr.txt"), "info -t board -i 0": fixture("950pr-board-0.txt")})
    assert probe_host(runner=runner, root=host, environ=NO_PATH).device.soc_version == "Ascend950PR_9579"


def test_board_query_that_times_out_leaves_the_soc_unknown_and_says_why(host):
    runner = FakeNpuSmi({"info": fixture("a3-910-9392.txt"), "info -t board -i 0 -c 0": subprocess.TimeoutExpired})
    device = probe_host(runner=runner, root=host, environ=NO_PATH).device
    assert device.soc_version is None and len(device.npus) == 4
    assert any("did not answer within the 5 s limit" in n for n in device.notes)
    assert any("board query" in n for n in device.notes)


@pytest.mark.parametrize("answer,words", [
    (FileNotFoundError, "npu-smi was not found"),
    (PermissionError, "permission denied"),
    (subprocess.TimeoutExpired, "did not answer within the 5 s limit"),
    ((9, "", "dcmi module initialize failed. ret is -8005\n"), "exited with status 9: dcmi module initialize failed"),
    ((126, "", ""), "permission denied"),
    ((0, "dcmi module initialize failed. ret is -8005\n", ""), "cannot read"),
])
def test_failures_are_reported_not_raised(host, answer, words):
    probe = probe_host(runner=FakeNpuSmi({"info": answer}), root=host, environ=NO_PATH)
    assert probe.device.soc_version is None and probe.device.series is None and probe.device.source == "none"
    assert any(words in t for t in probe.tried), probe.tried
    assert any(words in n for n in probe.device.notes)
    assert any("No device is known" in n for n in probe.device.notes)


def test_failed_command_output_is_kept_for_the_bundle(host):
    probe = probe_host(runner=FakeNpuSmi({"info": (9, "partial", "boom")}), root=host, environ=NO_PATH)
    assert probe.raw == {"npu-smi info": "partial", "npu-smi info [stderr]": "boom"}


def test_the_budget_is_shared_and_a_late_command_is_skipped(host, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(hostprobe.time, "monotonic", lambda: clock[0])
    inner = FakeNpuSmi({"info": fixture("a3-910-9392.txt"), "info -t board -i 0 -c 0": fixture("a3-board-0-0.txt")})

    def slow(argv, **kwargs):
        clock[0] += 4.7  # the first command used almost the whole budget
        return inner(argv, **kwargs)

    probe = probe_host(runner=slow, root=host, environ=NO_PATH)
    assert len(inner.calls) == 1
    assert any("was skipped" in t and "5 s" in t for t in probe.tried)
    assert probe.device.soc_version is None


def test_npu_smi_is_found_in_sbin_when_not_on_path(host):
    runner = FakeNpuSmi({"info": fixture("310b4.txt")})
    probe_host(runner=runner, root=host, environ=NO_PATH)
    assert runner.calls[0][0][0] == str(host / "usr" / "local" / "sbin" / "npu-smi")


def test_find_npu_smi_path_first_then_the_drivers_places(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    on_path = bin_dir / "npu-smi"
    on_path.write_text("#!/bin/sh\n")
    on_path.chmod(0o755)
    assert find_npu_smi({"PATH": str(bin_dir)}) == on_path
    # Under a test root, only the driver's places count, in their order.
    root = tmp_path / "root"
    assert find_npu_smi({"PATH": str(bin_dir)}, root) is None
    for place in ("usr/bin", "usr/local/sbin"):
        (root / place).mkdir(parents=True)
        (root / place / "npu-smi").write_text("")
    assert find_npu_smi(NO_PATH, root) == root / "usr/local/sbin/npu-smi"


def test_the_bundle_runs_npu_smi_info_m_with_the_probes_npu_smi(host):
    """app.support.collect_host finds npu-smi with find_npu_smi, so `npu-smi info -m` runs the same binary."""
    from cann_config.app.support.collect_host import collect_bundle

    runner = FakeNpuSmi({"info": fixture("310b4.txt"), "info -m": ""})
    collect_bundle(environ=NO_PATH, root=host, runner=runner, scan_seconds=0)
    binaries = {call[0][0] for call in runner.calls}
    assert binaries == {str(host / "usr" / "local" / "sbin" / "npu-smi")}
    assert ["info", "-m"] in [list(call[0][1:]) for call in runner.calls]


def test_without_npu_smi_nothing_is_run(tmp_path):
    runner = FakeNpuSmi({"info": fixture("310b4.txt")})
    probe = probe_host(runner=runner, root=tmp_path, environ=NO_PATH)
    assert runner.calls == [] and probe.device.soc_version is None
    assert any("npu-smi was not found" in t and "/usr/local/sbin" in t for t in probe.tried)


def test_run_command_kills_a_hung_child():
    with pytest.raises(subprocess.TimeoutExpired):
        run_command([sys.executable, "-c", "import time; time.sleep(60)"], timeout=0.3)


def test_run_command_returns_text():
    result = run_command([sys.executable, "-c", "print('npu'); import sys; sys.exit(3)"], timeout=30)
    assert (result.returncode, result.stdout.strip()) == (3, "npu")


def _script_npu_smi(root: Path, body: str) -> None:
    sbin = root / "usr" / "local" / "sbin"
    sbin.mkdir(parents=True)
    script = sbin / "npu-smi"
    script.write_text(f"#!{sys.executable}\n{body}\n")
    script.chmod(0o755)


def test_real_runner_with_a_scripted_npu_smi(tmp_path):
    _script_npu_smi(tmp_path, f"import sys\nif sys.argv[1:] == ['info']:\n    print(open({str(DATA / '310p3-duo.txt')!r}).read())")
    probe = probe_host(root=tmp_path, environ=NO_PATH)
    assert (probe.device.soc_version, len(probe.device.npus)) == ("Ascend310P3", 4)
    assert probe.to_json()["device"]["soc_version"] == "Ascend310P3"


def test_real_runner_with_a_hung_npu_smi(tmp_path):
    _script_npu_smi(tmp_path, "import time\ntime.sleep(60)")
    probe = probe_host(timeout=0.5, root=tmp_path, environ=NO_PATH)
    assert probe.device.soc_version is None
    assert any("did not answer within the 0.5 s limit" in t for t in probe.tried)


# --- versions ----------------------------------------------------------------------------------


def write(root: Path, path: str, content: str) -> Path:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content)
    return target


def test_versions_of_a_classic_toolkit(tmp_path):
    toolkit = "/usr/local/Ascend/ascend-toolkit/latest"
    write(tmp_path, f"{toolkit}/x86_64-linux/ascend_toolkit_install.info",
          "package_name=Ascend-cann-toolkit\nversion=8.0.0\ninnerversion=V100R001C20\n")
    write(tmp_path, f"{toolkit}/compiler/version.info", "Version=7.5.0.1.129\n")
    write(tmp_path, f"{toolkit}/opp/version.info", "Version=8.0.0.alpha\n")
    write(tmp_path, "/usr/local/Ascend/driver/version.info", "Version=24.1.0\nascendhal_version=7.35.23\n")
    v = installed_versions(tmp_path, {})
    assert (v["toolkit_version"], v["driver_version"], v["compiler_version"], v["opp_version"]) == (
        "8.0.0", "24.1.0", "7.5.0.1.129", "8.0.0.alpha")
    assert v["driver_path"].endswith("driver/version.info")
    assert (v["adk_version"], v["ops_version"]) == ("7.5.0.1.129", "8.0.0.alpha")  # as op_cache.ini names them


def test_ascend_opp_path_wins_for_ops_version(tmp_path):
    write(tmp_path, "/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info", "version=8.0.0\n")
    write(tmp_path, "/usr/local/Ascend/ascend-toolkit/latest/opp/version.info", "Version=1\n")
    write(tmp_path, "/opt/custom/opp/version.info", "Version=2\n")
    assert installed_versions(tmp_path, {"ASCEND_OPP_PATH": "/opt/custom/opp"})["opp_version"] == "2"


def test_cann9_install_dir(tmp_path):
    (tmp_path / "usr/local/Ascend/cann-9.0.0").mkdir(parents=True)
    v = installed_versions(tmp_path, {})
    assert v["toolkit_version"] == "9.0.0" and v["toolkit_path"].endswith("cann-9.0.0")
    write(tmp_path, "/usr/local/Ascend/cann/aarch64-linux/ascend_toolkit_install.info", "version=9.0.1\n")
    assert installed_versions(tmp_path, {})["toolkit_version"] == "9.0.1"


def test_install_path_of_the_cann_info_file_and_home(tmp_path):
    write(tmp_path, "/etc/Ascend/ascend_cann_install.info", "Install_Path=/opt/ascend\n")
    write(tmp_path, "/opt/ascend/ascend-toolkit/latest/x86_64-linux/ascend_toolkit_install.info", "version=8.1.RC1\n")
    assert installed_versions(tmp_path, {})["toolkit_version"] == "8.1.RC1"
    other = tmp_path / "other"
    write(other, "/home/u/Ascend/cann/x86_64-linux/ascend_toolkit_install.info", "version=8.5.0\n")
    assert installed_versions(other, {"HOME": "/home/u"})["toolkit_version"] == "8.5.0"


def test_nothing_installed(tmp_path):
    assert set(installed_versions(tmp_path, {}).values()) == {None}


def test_probe_reports_versions(host):
    write(host, "/usr/local/Ascend/driver/version.info", "Version=24.1.0\n")
    probe = probe_host(runner=FakeNpuSmi({}), root=host, environ=NO_PATH)
    assert probe.driver_version == "24.1.0" and probe.toolkit_version is None


def test_what_was_tried_can_be_said_again_in_another_language(host):
    """The wizard's banner says what was tried in the window's language, also after a switch:
    the probe keeps message codes, not finished text."""
    runner = FakeNpuSmi({"info": "garbage\n"})
    probe = probe_host(runner=runner, root=host, environ=NO_PATH)
    assert [step.code for step in probe.steps] == ["devices-probe-unreadable"]
    english, chinese = probe.tried_text("en"), probe.tried_text("zh_CN")
    assert english[0].startswith("npu-smi info printed something this tool cannot read: not npu-smi info output")
    # The reason inside (an NpuSmiError) is rendered in the same language.
    assert chinese[0].startswith("npu-smi info 的输出无法识别：不是 npu-smi info 的输出")
    assert probe.tried == english  # finished text in the language of the moment of detection
    set_language("zh_CN")
    assert probe.to_json()["tried"] == chinese
    assert probe.to_json().keys() == {"device", "toolkit_version", "driver_version", "tried", "raw", "versions"}


def test_a_probe_built_from_finished_text_keeps_it():
    from cann_config.app.device.hostprobe import HostProbe
    from cann_config.app.device.table import DeviceInfo

    probe = HostProbe(device=DeviceInfo(), tried=["npu-smi was not found"])
    assert probe.tried_text("zh_CN") == ["npu-smi was not found"] == probe.tried


def test_a_failure_without_output_says_so_in_each_language(host):
    probe = probe_host(runner=FakeNpuSmi({"info": (3, "", "")}), root=host, environ=NO_PATH)
    assert probe.tried_text("en") == ["npu-smi info exited with status 3: no output"]
    assert probe.tried_text("zh_CN") == ["npu-smi info 退出状态为 3：没有输出"]


# --- bounded output and a minimal environment (issue 15) ---------------------------------------


def test_the_real_runner_stops_a_command_that_prints_too_much(tmp_path):
    from cann_config.app.device.hostprobe import OutputTooLarge, run_command

    with pytest.raises(OutputTooLarge):
        run_command(["yes", "NPU"], timeout=20, max_output=1 << 16)
    result = run_command(["sh", "-c", "head -c 1000 /dev/zero"], timeout=20, max_output=1 << 16)
    assert result.returncode == 0 and len(result.stdout) == 1000


def test_a_probe_of_an_endless_npu_smi_says_so(tmp_path):
    _script_npu_smi(tmp_path, "import sys\nwhile True:\n    sys.stdout.write('NPU     Name\\n' * 1000)")
    probe = probe_host(timeout=5, root=tmp_path, environ=NO_PATH)
    assert probe.device.soc_version is None and probe.raw == {}
    assert any("printed more than 1024 KiB" in t for t in probe.tried)


def test_npu_smi_gets_only_the_variables_it_needs():
    from cann_config.app.device.hostprobe import command_environment, run_command

    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LD_LIBRARY_PATH": "/usr/local/Ascend/driver/lib64",
           "ASCEND_HOME_PATH": "/usr/local/Ascend", "AWS_SECRET_ACCESS_KEY": "s3cr3t", "https_proxy": "http://u:p@x"}
    assert command_environment(env) == {k: env[k] for k in ("PATH", "LANG", "LD_LIBRARY_PATH", "ASCEND_HOME_PATH")}
    printed = run_command(["env"], timeout=20, env=env).stdout
    assert "AWS_SECRET_ACCESS_KEY" not in printed and "https_proxy" not in printed and "ASCEND_HOME_PATH" in printed
