"""The wizard's session state (app/session.py), Qt-free: the decisions that depend on which host is
looked at come from the Host, never from a page asking "is a bundle open?"."""

from __future__ import annotations

import re
from pathlib import Path

from cann_config.app.session import Session
from cann_config.app.support.bundle import load_bundle

ROOT = Path(__file__).resolve().parents[2]
A2 = ROOT / "tests" / "data" / "bundles" / "a2-910b3.json"


def test_this_host_by_default(tmp_path):
    session = Session(environ={"HOME": str(tmp_path), "ASCEND_MAX_OP_CACHE_SIZE": "400"})
    assert not session.is_remote and session.bundle is None
    assert session.can_scan and session.can_save_ini
    assert session.environ["ASCEND_MAX_OP_CACHE_SIZE"] == "400"
    assert session.host.kind == "this-host"
    assert session.host_diagnosis() is None and session.recorded_cache() is None
    assert session.versions_to_check() is None  # the cache page checks versions when saving
    assert session.cache_dir_option("/data/mine") == "/data/mine"


def test_a_bundle_makes_the_host_the_customers():
    bundle = load_bundle(A2)
    session = Session(environ={"ASCEND_MAX_OP_CACHE_SIZE": "9999", "SECRET": "x"})
    session.open_bundle(bundle)
    assert session.is_remote and session.bundle is bundle and session.host.name
    assert not session.can_scan and not session.can_save_ini
    assert session.environ == bundle.environ  # this machine's variables no longer count
    assert session.ini is bundle.op_cache_ini and session.ini_from_bundle()
    assert session.known_versions() == bundle.installed_versions() == session.versions_to_check()
    assert session.cache_dir_option("/here") == ""  # the customer set no option: their ASCEND_CACHE_PATH decides
    diagnosis = session.host_diagnosis()
    assert diagnosis is session.host_diagnosis()  # asked once per framework and device
    assert diagnosis.effective["max_op_cache_size"].value == 1
    assert "cache-next-start-empties-versions" in [f.code for f in session.recorded_cache_findings(diagnosis.effective)]
    assert session.report_diagnosis(None) is diagnosis


# Where "is a bundle open?" is about the window, not about CANN: create_wizard and `cann-config
# gui --bundle` open the file given, the report dialog names its file after the bundle's.
WINDOW_ONLY = {"ui/__init__.py", "ui/gui_command.py", "ui/report_dialog.py"}


def test_no_ui_module_decides_about_cann_by_asking_whether_a_bundle_is_open():
    """Every ui/ module asks the Session / Host (issue 24: no `if bundle is not None` deciding what is
    shown about CANN); "bundle is (not) None" stays only where the window handles the bundle file."""
    checked = [p for p in sorted((ROOT / "ui").rglob("*.py")) if str(p.relative_to(ROOT)) not in WINDOW_ONLY]
    assert ROOT / "ui" / "pages" / "device.py" in checked and ROOT / "ui" / "triage_dialog.py" in checked
    branch = re.compile(r"bundle\)? is (not )?None")
    found = [f"{p.relative_to(ROOT)}:{n}" for p in checked for n, line in enumerate(p.read_text().splitlines(), 1)
             if branch.search(line)]
    assert not found, found


def test_whose_host_and_whose_job_environment_the_session_says(tmp_path):
    here = Session(environ={"HOME": str(tmp_path), "PYTORCH_NPU_ALLOC_CONF": "max_split_size_mb:64"})
    assert here.remote_source is None
    assert here.job_environ() is None  # this computer's shell is not the job's
    bundle = load_bundle(A2)
    there = Session(environ={"SECRET": "x"})
    there.open_bundle(bundle)
    assert there.remote_source == bundle.source
    assert there.job_environ() == bundle.environ


def test_each_page_gets_the_choices_findings_that_go_when_its_choices_go():
    from cann_config.app.device.table import device_from_choice
    from cann_config.app.profile import Profile

    def pages(framework, options, device=None):
        session = Session(Profile(framework=framework, device=device, options=options),
                          device_from_choice(device) if device else None)
        return {page: [(f.severity, f.code) for f in found] for page, found in session.page_findings().items()}

    refused = [("error", "export-choice-refused")]
    # 1 GB huge pages on an Ascend310P3: the device's finding and its option's page's.
    assert pages("pytorch", {"npu_alloc_page_size": "1g"}, "Ascend310P3") == {
        "device": refused, "memory": refused, "cache": []}
    assert pages("pytorch", {"npu_alloc_page_size": "1g"}, "Ascend910B3") == {"device": [], "memory": [], "cache": []}
    # A cache mode MindSpore does not take: the cache page's.
    assert pages("mindspore", {"op_compiler_cache_mode": "force"}) == {"device": [], "memory": [], "cache": refused}
    # Two memory choices torch_npu refuses together: the memory page's.
    assert pages("pytorch", {"npu_alloc_expandable_segments": True, "npu_alloc_max_split_size_mb": 64}) == {
        "device": [], "memory": [("error", "torchnpu-alloc-expandable-conflict")], "cache": []}
    # A catalog note on a value (force empties the cache) is its row's, not repeated.
    assert pages("pytorch", {"op_compiler_cache_mode": "force"}) == {"device": [], "memory": [], "cache": []}
