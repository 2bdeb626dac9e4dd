"""The wizard's "open script" (ui/fileimport.py) states a script's default-if-unset and run-time
branches as it states a launch script's (issue 25 item 5): in the import list, with the line."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QListWidget

TWINS = Path(__file__).resolve().parents[1] / "data" / "scripts" / "twins"


def shown_imports(wizard) -> list[str]:
    imports = wizard.findChild(QListWidget, "importList")
    return [imports.item(i).text().strip() for i in range(imports.count())]


def test_a_default_if_unset_is_taken_and_said_to_be_one(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    script = TWINS / "defaults.py"
    assert wizard.open_file(str(script))
    assert wizard.controller.profile.options["max_op_cache_size"] == 1000
    shown = "\n".join(shown_imports(wizard))
    assert "ASCEND_MAX_OP_CACHE_SIZE is 1000 only if the launching environment does not already set " \
           "ASCEND_MAX_OP_CACHE_SIZE" in shown, shown
    assert f"{script}:7" in shown


def test_a_run_time_branch_is_listed_never_taken(make_wizard):
    wizard = make_wizard(device="Ascend910B3")
    script = TWINS / "branches.py"
    assert wizard.open_file(str(script))
    assert "op_compiler_cache_dir" not in wizard.controller.profile.options
    assert wizard.controller.profile.options["max_op_cache_size"] == 2048
    shown = "\n".join(shown_imports(wizard))
    assert "ASCEND_CACHE_PATH depends on a condition known only at run time: /data/rank0_cache when " \
           "args.local_rank == 0; not set here otherwise." in shown, shown
