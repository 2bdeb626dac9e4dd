"""The CLI's shape: --help, --version, `options`, exit codes, and that the core needs no PySide6."""

import json
import os
import subprocess
import sys
from pathlib import Path

from cann_config.app import __version__
from cann_config.app.catalog import load_catalog
from cann_config.app.cli import main

ROOT = Path(__file__).resolve().parents[3]


def run_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "cann_config.app", *args], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, **(env or {})}, timeout=60)


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
    assert __version__ in capsys.readouterr().out


def test_options_table_lists_every_option(capsys):
    assert main(["options", "--lang", "en"]) == 0
    out = capsys.readouterr().out
    for oid in ("atomic_clean_policy", "static_memory_policy", "variable_use_1g_huge_page",
                "memory_optimization_policy", "op_compiler_cache_mode", "op_compiler_cache_dir",
                "max_op_cache_size", "remain_cache_size_ratio"):
        assert oid in out
    assert "not supported when several graphs execute concurrently" in out


def test_options_table_in_chinese(capsys):
    assert main(["options", "--lang", "zh_CN"]) == 0
    assert "多张图并发执行时不支持 2 和 4" in capsys.readouterr().out


def test_options_json_has_every_value_in_both_languages(capsys):
    assert main(["options", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data["options"]) == list(load_catalog().options)
    for option in data["options"].values():
        for value in option["values"]:
            assert value["en"] and value["zh"]
    assert [v["value"] for v in data["options"]["static_memory_policy"]["values"]] == [0, 1, 2, 3, 4]


def test_bad_usage_exits_2_with_one_line(capsys):
    assert main(["options", "--no-such-flag"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("cann-config: ") and "--no-such-flag" in err


def test_bad_language_exits_2(capsys):
    assert main(["options", "--lang", "fr"]) == 2
    assert "zh_CN or en" in capsys.readouterr().err


def test_options_json_runs_where_pyside6_cannot_be_imported(tmp_path):
    # A module finder that refuses PySide6 and shiboken6, as on a bare server.
    blocker = tmp_path / "sitecustomize.py"
    blocker.write_text(
        "import sys\n"
        "class _Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('PySide6', 'shiboken6'):\n"
        "            raise ImportError('PySide6 is blocked for this test')\n"
        "sys.meta_path.insert(0, _Block())\n")
    env = {"PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"}
    check = run_cli("options", "--json", env=env)
    assert check.returncode == 0, check.stderr
    assert list(json.loads(check.stdout)["options"]) == list(load_catalog().options)
    probe = subprocess.run([sys.executable, "-c", "import PySide6"], capture_output=True, env={**os.environ, **env})
    assert probe.returncode != 0  # the blocker really blocks


def test_python_dash_m_app_prints_help_or_runs():
    result = run_cli("--help")
    assert result.returncode == 0 and "options" in result.stdout


def test_lang_before_or_after_the_subcommand(capsys):
    for argv in (["--lang", "zh_CN", "options"], ["options", "--lang", "zh_CN"]):
        assert main(argv) == 0
        assert "多张图并发执行时不支持 2 和 4" in capsys.readouterr().out
    # The subcommand's own --lang wins over the global one.
    assert main(["--lang", "zh_CN", "options", "--lang", "en"]) == 0
    assert "not supported when several graphs execute concurrently" in capsys.readouterr().out


def imported_modules(*args):
    """Every module a fresh interpreter has imported after `cann-config ARGS`."""
    code = ("import contextlib, io, sys\n"
            "from cann_config.app.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n"
            f"        main({list(args)!r})\n"
            "    except SystemExit:\n"
            "        pass\n"
            "print(' '.join(sorted(sys.modules)))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    return set(result.stdout.split())


def imported_app_modules(*args):
    """The cann_config.app modules a fresh interpreter has imported after `cann-config ARGS`."""
    return {m for m in imported_modules(*args) if m == "cann_config.app" or m.startswith("cann_config.app.")}


# `--help` imports the dispatcher and what it needs to report a failure in the user's language
# (the errors and the message table's module, which reads the table only when a text is shown);
# no command module. Subpackages' __init__ modules hold only their docstring.
HELP_MODULES = {"cann_config.app", "cann_config.app.cli", "cann_config.app.errors", "cann_config.app.i18n",
                "cann_config.app.messages", "cann_config.app.cli.helptext"}


def test_top_level_help_imports_no_command_module():
    """The command table lists every command by its summary without importing one (tests/bench/bench_cli.py)."""
    found = imported_modules("--help")
    assert {m for m in found if m.startswith("cann_config.app")} == HELP_MODULES
    # Nor what reading a data file takes: the TOML parser, importlib.resources, dataclasses.
    assert not found & {"tomllib", "importlib.resources", "dataclasses"}


def test_help_lists_every_command_of_the_table(capsys):
    from cann_config.app.cli import COMMANDS

    try:
        main(["--help"])
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    for name, command in COMMANDS.items():
        assert name in out and " ".join(command.summary.split()[:4]) in " ".join(out.split())


def test_a_command_imports_its_own_module_only():
    found = imported_app_modules("options", "--json")
    assert {m for m in found if m.startswith("cann_config.app.cli.cmd_")} == {"cann_config.app.cli.cmd_options"}
    found = imported_app_modules("export", "--help")
    assert {m for m in found if m.startswith("cann_config.app.cli.cmd_")} == {"cann_config.app.cli.cmd_export"}


def test_options_json_imports_the_catalog_and_nothing_else():
    found = imported_app_modules("options", "--json")
    core = found - HELP_MODULES - {"cann_config.app.cli.cmd_options"}
    assert core <= {"cann_config.app.catalog", "cann_config.app.resources", "cann_config.app.device",
                    "cann_config.app.device.table", "cann_config.app.textwidth", "cann_config.app.datafiles",
                    "cann_config.app.data_compiled",
                    # the formats each framework takes (`exports`): the format registry, a table of constants
                    "cann_config.app.io", "cann_config.app.io.formats"} and "cann_config.app.catalog" in core


# What only running a command (npu-smi) or writing a file needs: shutil (which brings bz2 and
# lzma), subprocess and tempfile. Reading, checking and listing import none of them; argparse's
# formatter would import shutil for the terminal width (app/cli/helptext.py measures it itself).
# (diagnose reads the installed versions from their files, app/device/versions.py, not through
# the device probe's module, which runs npu-smi.) Nor hashlib, which only names a written file's
# lock. Nor the TOML parser: the catalog and the device table come from their compiled copy
# (app/datafiles.py; tests/app/test_datafiles.py checks it is current).
WRITE_OR_RUN_MODULES = {"shutil", "subprocess", "tempfile", "bz2", "lzma", "difflib", "tomllib", "hashlib"}


def test_reading_commands_import_nothing_for_running_writing_or_parsing_toml(tmp_path):
    (tmp_path / "kernel_cache").mkdir()
    for args in (("--help",), ("options", "--json"), ("diagnose", "--json", "--ini", "tests/data/ini/template.ini"),
                 ("scan", "--cache-dir", str(tmp_path))):
        assert not imported_modules(*args) & WRITE_OR_RUN_MODULES, args
    # A diagnosis without --script reads no script (nor the exporters the script reader uses for
    # the fleet formats); without detection it reads no npu-smi output.
    found = imported_app_modules("diagnose", "--json", "--ini", "tests/data/ini/template.ini")
    assert not {m for m in found if m.startswith(("cann_config.app.io.exporters", "cann_config.app.io.importers",
                                                  "cann_config.app.io.scripts", "cann_config.app.device.npusmi",
                                                  "cann_config.app.device.hostprobe", "cann_config.app.profile"))}


def test_options_diagnose_and_scan_compile_no_source(tmp_path):
    """No compile() at run time (issue 16): the first one of a process builds every AST node type
    (~3 ms). typing compiles each annotation given as a string - a NamedTuple field in a module with
    `from __future__ import annotations`, a TypeVar bound given by name. (A module whose bytecode is
    not cached is compiled from its bytes by the import system: not counted.)"""
    code = ("import builtins, contextlib, io\n"
            "calls = []\n"
            "real = builtins.compile\n"
            "def compile(source, *args, **kwargs):\n"
            "    if isinstance(source, str):\n"
            "        calls.append(source[:60])\n"
            "    return real(source, *args, **kwargs)\n"
            "builtins.compile = compile\n"
            "from cann_config.app.cli import main\n"
            "for args in (['options', '--json'], ['diagnose', '--json', '--ini', 'tests/data/ini/template.ini'],\n"
            f"             ['scan', '--cache-dir', {str(tmp_path)!r}]):\n"
            "    with contextlib.redirect_stdout(io.StringIO()):\n"
            "        main(args)\n"
            "print(calls)\n")
    (tmp_path / "kernel_cache").mkdir()
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_options_and_diagnose_import_no_dataclasses():
    """Their records are NamedTuples and plain classes (issue 16): `dataclasses` brings `inspect`
    (ast, dis, tokenize) and every @dataclass compiles its methods at import (tests/bench/bench_cli.py)."""
    for args in (("options", "--json"), ("diagnose", "--json", "--ini", "tests/data/ini/template.ini")):
        assert not imported_modules(*args) & {"dataclasses", "inspect"}, args


def test_lazy_choices_still_check_and_list_the_catalogs_values(capsys):
    from cann_config.app.catalog import load_catalog
    from cann_config.app.io.exporters import FORMATS

    assert main(["diagnose", "--framework", "tf3"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'tf3'" in err and all(repr(fid) in err for fid in load_catalog().frameworks)
    assert main(["export", "tf9"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'tf9'" in err and all(repr(fmt) in err for fmt in FORMATS)
    try:
        main(["export", "--help"])
    except SystemExit:
        pass
    shown = " ".join(capsys.readouterr().out.split())
    assert "one of: " + ", ".join(FORMATS) in shown and "one of: " + ", ".join(load_catalog().frameworks) in shown


def test_collect_help_names_the_bundles_default_time_limit(capsys):
    from cann_config.app.cli import cmd_collect
    from cann_config.app.support.collect_host import DEFAULT_SCAN_SECONDS

    assert cmd_collect.SCAN_SECONDS_SHOWN == DEFAULT_SCAN_SECONDS
    try:
        main(["collect", "--help"])
    except SystemExit:
        pass
    assert f"(default {DEFAULT_SCAN_SECONDS:g})" in " ".join(capsys.readouterr().out.split())
