"""The script corpus: training scripts in the shapes real model-zoo code takes (written for this
test, tests/data/scripts/corpus/), each beside the settings a careful reader lists for it
(`<name>.expected.json`). Per script the test counts what the importer got right, missed, got
wrong or invented, prints the table, and requires everything right.

Expected file: {"framework": ID or null,
                "settings": {option id: {"value": v, "line": n} | {"unknown": true, "line": n}},
                "environment": [[NAME, value or null (known only at run time), line], ...]}
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cann_config.app.io.importers import import_script

CORPUS = Path(__file__).resolve().parents[2] / "data" / "scripts" / "corpus"
SCRIPTS = sorted(CORPUS.glob("*.py"))


def expected_of(script: Path) -> dict:
    return json.loads(script.with_name(script.stem + ".expected.json").read_text(encoding="utf-8"))


def read_items(script: Path) -> dict[str, object]:
    """What the importer lists for `script`, in the expected file's terms: id -> (value, line)."""
    imported = import_script(script.read_text(encoding="utf-8"), str(script))
    items: dict[str, object] = {"framework": imported.framework}
    for oid, (value, line) in imported.settings.items():
        items[f"setting:{oid}"] = (value, line)
    for oid, line in imported.unknown.items():
        items[f"setting:{oid}"] = ("<run time>", line)
    for e in imported.environment:
        items[f"env:{e.name}@{e.line}"] = (e.value if e.known else "<run time>", e.line)
    return items


def expected_items(script: Path) -> dict[str, object]:
    data = expected_of(script)
    items: dict[str, object] = {"framework": data["framework"]}
    for oid, spec in data["settings"].items():
        items[f"setting:{oid}"] = ("<run time>" if spec.get("unknown") else spec["value"], spec["line"])
    for name, value, line in data["environment"]:
        items[f"env:{name}@{line}"] = ("<run time>" if value is None else value, line)
    return items


def compare(expected: dict[str, object], actual: dict[str, object]) -> dict[str, list[str]]:
    verdict: dict[str, list[str]] = {"right": [], "missed": [], "wrong": [], "invented": []}
    for key, value in expected.items():
        if key not in actual:
            verdict["missed"].append(f"{key}={value!r}")
        elif actual[key] == value:
            verdict["right"].append(key)
        else:
            verdict["wrong"].append(f"{key}: expected {value!r}, read {actual[key]!r}")
    verdict["invented"] = [f"{k}={v!r}" for k, v in actual.items() if k not in expected]
    return verdict


def test_the_corpus_has_scripts_of_every_kind():
    frameworks = {expected_of(s)["framework"] for s in SCRIPTS}
    assert {"tf1", "tf2", "pytorch", "ge"} <= frameworks
    for script in SCRIPTS:
        assert script.with_name(script.stem + ".expected.json").is_file(), script


def test_every_script_is_read_as_a_careful_reader_reads_it():
    table = []
    failed = False
    for script in SCRIPTS:
        verdict = compare(expected_items(script), read_items(script))
        counts = {k: len(v) for k, v in verdict.items()}
        table.append(f"{script.name:<34} right {counts['right']:>2}  missed {counts['missed']:>2}  "
                     f"wrong {counts['wrong']:>2}  invented {counts['invented']:>2}")
        for kind in ("missed", "wrong", "invented"):
            for item in verdict[kind]:
                failed = True
                table.append(f"    {kind}: {item}")
    print("\n".join(table))
    assert not failed, "\n" + "\n".join(table)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_expected_lines_point_at_the_setting(script):
    """The expected files themselves: every line named holds the variable or key named there."""
    lines = script.read_text(encoding="utf-8").splitlines()
    for name, _value, line in expected_of(script)["environment"]:
        assert name in lines[line - 1], (script.name, name, line)
