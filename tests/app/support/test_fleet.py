"""`cann-config fleet`: bundles from three fake hosts, compared."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from cann_config.app.cli import main
from cann_config.app.support.fleet import compare_bundles
from cann_config.app.textwidth import display_width

DATA = Path(__file__).resolve().parents[2] / "data" / "bundles"


def _base() -> dict:
    data = json.loads((DATA / "a2-910b3.json").read_text(encoding="utf-8"))
    # A healthy node: a used op_cache.ini with the installed versions, no size variables.
    data["environment"] = {"ASCEND_CACHE_PATH": "/data/ascend_cache", "HOME": "/home/alice"}
    data["op_cache_ini"]["text"] = ("[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"
                                    "max_op_cache_size=2048\nremain_cache_size_ratio=80\n")
    return data


@pytest.fixture
def three_hosts(tmp_path):
    """host-a and host-b alike except the toolkit version; host-c's op_cache.ini has a different
    size and its environment a different cache mode."""
    folder = tmp_path / "bundles"
    folder.mkdir()
    a = _base()
    b = copy.deepcopy(a)
    b["versions"]["toolkit_version"] = "8.5.1"
    c = copy.deepcopy(a)
    c["op_cache_ini"]["text"] = c["op_cache_ini"]["text"].replace("max_op_cache_size=2048", "max_op_cache_size=4096")
    for name, data in (("host-a", a), ("host-b", b), ("host-c", c)):
        (folder / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    return folder


def test_exactly_the_differing_rows_are_marked(three_hosts):
    comparison = compare_bundles([three_hosts])
    assert [n.name for n in comparison.nodes] == ["host-a", "host-b", "host-c"]
    assert {r.key for r in comparison.rows if r.differs} == {"toolkit_version", "max_op_cache_size"}
    assert {"device", "adk_version", "ops_version", "remain_cache_size_ratio", "op_compiler_cache_dir",
            "op_compiler_cache_mode"} <= {r.key for r in comparison.rows if not r.differs}
    row = comparison.row("max_op_cache_size")
    assert row.cells == [{"value": 2048, "source": "op_cache.ini"}, {"value": 2048, "source": "op_cache.ini"},
                         {"value": 4096, "source": "op_cache.ini"}]
    assert not comparison.failed


def test_a_source_difference_alone_is_marked(three_hosts):
    """The same value from the environment on one node and from op_cache.ini on the others means
    that node's file is not used: worth a mark."""
    data = json.loads((three_hosts / "host-c.json").read_text())
    data["op_cache_ini"]["text"] = "[op_compiler_cache]\nmax_op_cache_size=2048\n"
    data["environment"]["ASCEND_MAX_OP_CACHE_SIZE"] = "2048"
    (three_hosts / "host-c.json").write_text(json.dumps(data))
    comparison = compare_bundles(sorted(three_hosts.glob("*.json")))
    row = comparison.row("max_op_cache_size")
    assert row.differs and [c["source"] for c in row.cells] == ["op_cache.ini", "op_cache.ini", "env"]
    assert len({repr(v) for v in row.values}) == 1


def test_cli_table_exit_status_and_same(three_hosts, capsys):
    assert main(["fleet", str(three_hosts), "--lang", "en"]) == 0
    out = capsys.readouterr().out
    marked = [line.split()[1] for line in out.splitlines() if line.startswith("≠")]
    assert marked == ["toolkit_version", "max_op_cache_size"]
    assert main(["fleet", str(three_hosts), "--same", "remain_cache_size_ratio", "--lang", "en"]) == 0
    capsys.readouterr()
    assert main(["fleet", str(three_hosts), "--same", "max_op_cache_size", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["failed"] is True and [f["code"] for f in data["findings"]] == ["fleet-same-differs"]
    assert "host-c=4096" in data["findings"][0]["message"]
    assert [r["key"] for r in data["rows"] if r["differs"]] == ["toolkit_version", "max_op_cache_size"]


def test_a_node_with_an_error_finding_fails(three_hosts, capsys):
    # The fixture's own bundle: version lines that differ from the installed CANN, an invalid ratio.
    assert main(["fleet", str(three_hosts), str(DATA / "a2-910b3.json"), "--json"]) == 1
    nodes = json.loads(capsys.readouterr().out)["nodes"]
    assert [n["errors"] > 0 for n in nodes] == [False, False, False, True]


@pytest.mark.parametrize("args,needle", [
    (["fleet", "missing.json"], "missing.json"),
    (["fleet", str(DATA / "truncated.json")], "truncated.json:"),
    (["fleet", "EMPTY"], "no support bundles"),
    (["fleet", str(DATA / "a2-910b3.json"), "--same", "nonsense"], "nonsense"),
    (["fleet", str(DATA / "a2-910b3.json"), "--report", "x.txt"], "x.txt"),
])
def test_unusable_input_is_exit_2_with_one_line(tmp_path, capsys, args, needle, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "EMPTY").mkdir()
    assert main([*args, "--lang", "en"]) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1
    assert not (tmp_path / "x.txt").exists()


def test_reports_in_markdown_and_html(three_hosts, tmp_path, capsys):
    md, page = tmp_path / "fleet.md", tmp_path / "fleet.html"
    assert main(["fleet", str(three_hosts), "--report", str(md), "--lang", "zh_CN"]) == 0
    assert main(["fleet", str(three_hosts), "--report", str(page), "--lang", "en"]) == 0
    text = md.read_text(encoding="utf-8")
    assert text.startswith("# 集群比较：3 个节点")
    rows = [line for line in text.splitlines() if line.startswith("| ≠")]
    assert len(rows) == 2 and "`4096 (op_cache.ini)`" in rows[1]
    html = page.read_text(encoding="utf-8")
    assert html.count("<td>≠</td>") == 2 and "<code>host-c</code>" not in html


def test_cjk_columns_line_up(three_hosts, capsys):
    assert main(["fleet", str(three_hosts), "--lang", "zh_CN"]) == 0
    lines = capsys.readouterr().out.splitlines()
    table = [line for line in lines if "host-" in line or "op_compiler_cache_mode" in line or "设备" in line]
    starts = {display_width(line[:line.index("host-a" if "host-a" in line else "enable" if "enable" in line
                                              else "Ascend")]) for line in table}
    assert len(starts) == 1, table
    assert display_width("设置") == 4 and display_width("abc") == 3


def test_the_same_bundle_named_three_times_gives_three_distinct_columns(three_hosts, capsys):
    a = str(three_hosts / "host-a.json")
    assert main(["fleet", a, a, a, "--json", "--lang", "en"]) in (0, 1)
    names = [n["name"] for n in json.loads(capsys.readouterr().out)["nodes"]]
    assert len(set(names)) == 3, names


def test_a_host_name_with_a_pipe_keeps_the_markdown_table_whole(three_hosts, tmp_path, capsys):
    odd = three_hosts / "a|b.json"
    odd.write_text((three_hosts / "host-a.json").read_text(encoding="utf-8"), encoding="utf-8")
    report = tmp_path / "fleet.md"
    main(["fleet", str(odd), str(three_hosts / "host-b.json"), "--report", str(report), "--lang", "en"])
    capsys.readouterr()
    table = [line for line in report.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    # Every row, the header included, has as many unescaped cell separators as the others.
    counts = {len(re.findall(r"(?<!\\)\|", line)) for line in table}
    assert len(counts) == 1, table[:3]
    assert "a\\|b" in table[0]


def test_a_fleet_keeps_only_what_it_compares(three_hosts):
    comparison = compare_bundles([three_hosts])
    for node in comparison.nodes:
        assert not hasattr(node, "bundle") and not hasattr(node, "diagnosis")
        assert set(vars(node)) == {"name", "source", "device", "versions", "ini_versions", "effective", "findings",
                                   "home"}


def test_a_path_that_differs_only_by_home_is_noise_hidden_unless_all(tmp_path, capsys):
    """The default cache dir $HOME/atc_data of users alice and bob is not a difference worth a mark;
    /data/x against /data/y is."""
    folder = tmp_path / "bundles"
    folder.mkdir()
    for name, home, cache in (("n1", "/home/alice", None), ("n2", "/home/bob/", None), ("n3", "/home/carol", None)):
        data = _base()
        data["environment"] = {"HOME": home} if cache is None else {"HOME": home, "ASCEND_CACHE_PATH": cache}
        (folder / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    assert main(["fleet", str(folder), "--json"]) == 0
    rows = {r["key"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    assert rows["op_compiler_cache_dir"]["differs"] and rows["op_compiler_cache_dir"]["noise"]
    assert [c["value"] for c in rows["op_compiler_cache_dir"]["cells"]] == [
        "/home/alice/atc_data", "/home/bob//atc_data", "/home/carol/atc_data"]  # as CANN composes it
    assert main(["fleet", str(folder), "--lang", "en"]) == 0
    text = capsys.readouterr().out
    assert "op_compiler_cache_dir " not in text and "0 of" in text
    assert "1 row(s) that differ only by each node's home directory are hidden (op_compiler_cache_dir; --all" in text
    assert main(["fleet", str(folder), "--lang", "en", "--all"]) == 0
    shown = [line for line in capsys.readouterr().out.splitlines() if "op_compiler_cache_dir " in line]
    assert len(shown) == 1 and not shown[0].startswith("≠") and "/home/bob//atc_data" in shown[0]
    # A real difference stays one: another node's ASCEND_CACHE_PATH.
    data = _base()
    data["environment"] = {"HOME": "/home/dave", "ASCEND_CACHE_PATH": "/data/other"}
    (folder / "n4.json").write_text(json.dumps(data), encoding="utf-8")
    row = compare_bundles([folder]).row("op_compiler_cache_dir")
    assert row.differs and not row.noise
