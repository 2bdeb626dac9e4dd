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


def test_no_page_decides_about_cann_by_asking_whether_a_bundle_is_open():
    """The cache page, the memory and export pages, the gauge, the wizard and its controller ask
    the Session / Host; "bundle is (not) None" stays only where a bundle file itself is handled
    (opening it, naming it, the device page's bundle panel)."""
    checked = [*(ROOT / "ui" / "pages" / "cache_panels").glob("*.py"), ROOT / "ui" / "pages" / "memory.py",
               ROOT / "ui" / "pages" / "export.py", ROOT / "ui" / "pages" / "export_preview.py",
               ROOT / "ui" / "gauge.py", ROOT / "ui" / "wizard.py", ROOT / "ui" / "controller.py"]
    branch = re.compile(r"bundle\)? is (not )?None")
    found = [f"{p.relative_to(ROOT)}:{n}" for p in checked for n, line in enumerate(p.read_text().splitlines(), 1)
             if branch.search(line)]
    assert not found, found
