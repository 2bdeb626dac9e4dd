"""Reading settings back: scripts with ast (never run), env files, op_cache.ini, profiles; and
every export reads back as the choices it was made from."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cann_config.app.errors import InputError
from cann_config.app.io.exporters import export_text
from cann_config.app.io.exporters.quoting import fish_word
from cann_config.app.io.importers import (
    import_env_settings,
    import_fish_env,
    import_ini_settings,
    import_profile_text,
    import_script,
    import_text,
)
from cann_config.app.profile import Profile
from tests.app.io.test_exporters import HOSTILE_PATHS

SCRIPTS = Path(__file__).resolve().parents[2] / "data" / "scripts"


def read(name: str):
    path = SCRIPTS / name
    return import_script(path.read_text(encoding="utf-8"), str(path))


def codes(imported) -> list[tuple[str, int | None]]:
    return [(f.code, f.line) for f in imported.findings]


# ---------------------------------------------------------------------------------------------
# Scripts
# ---------------------------------------------------------------------------------------------


def test_estimator_script_settings_with_lines_and_the_module_constant_dir():
    imported = read("train_estimator.py")
    assert imported.framework == "tf1"
    # op_compiler_cache_dir comes from CACHE_DIR, a module constant assigned once (line 9): a
    # reader sees its value inside main(); the option wins over ASCEND_CACHE_PATH (line 12).
    assert imported.settings == {
        "atomic_clean_policy": (1, 20), "static_memory_policy": (2, 20), "memory_optimization_policy": ("", 21),
        "op_compiler_cache_mode": ("force", 27), "op_compiler_cache_dir": ("/data/op_cache", 28),
        "max_op_cache_size": (2048, 10), "remain_cache_size_ratio": (80, 11),
    }
    # os.environ.setdefault at line 11: the launching environment's ASCEND_REMAIN_CACHE_SIZE_RATIO wins
    assert codes(imported) == [("import-default-if-unset", 11), ("import-set-twice", 28)]
    assert imported.unknown == {}
    assert imported.origins["op_compiler_cache_dir"].via == "NPURunConfig"
    assert imported.origins["remain_cache_size_ratio"].how == "setdefault"
    assert imported.origins["remain_cache_size_ratio"].inherited == "ASCEND_REMAIN_CACHE_SIZE_RATIO"
    assert all(f.file and f.file.endswith("train_estimator.py") for f in imported.findings)


def test_session_script_reads_i_and_s_fields_and_flags_the_wrong_one():
    imported = read("train_session.py")
    assert imported.values() == {"static_memory_policy": 4, "variable_use_1g_huge_page": 1,
                                 "memory_optimization_policy": "MemoryPriority", "op_compiler_cache_mode": "enable",
                                 "op_compiler_cache_dir": "/home/test/kernel_cache"}
    assert imported.line_of("op_compiler_cache_dir") == 14
    assert codes(imported) == [("import-wrong-field", 15)]
    assert imported.findings[0].severity == "error"


def test_tf2_script_through_variables():
    imported = read("train_tf2.py")
    assert imported.framework == "tf2"
    assert imported.settings == {"static_memory_policy": (3, 10), "variable_use_1g_huge_page": (2, 11),
                                 "op_compiler_cache_dir": ("/cache/数据", 14)}
    # TF2 raises TypeError for "1" where an int is expected; the mode comes from sys.argv.
    assert codes(imported) == [("import-invalid-value", 12), ("import-dynamic-value", 13)]
    assert "takes an integer" in imported.findings[0].message("en")


def test_ge_options_dict_and_subscript():
    imported = read("mindspore_ge.py")
    assert imported.framework == "ge"
    assert imported.settings == {"atomic_clean_policy": (1, 8), "static_memory_policy": (2, 7),
                                 "op_compiler_cache_dir": ("/ge/cache", 12)}
    assert codes(imported) == [("import-ge-value-not-string", 8), ("import-dynamic-value", 9)]


def test_importing_never_runs_the_script(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    imported = read("side_effects.py")
    assert imported.values() == {"static_memory_policy": 1}
    assert not (tmp_path / "PWNED").exists()


def test_a_syntax_error_is_an_input_error_naming_file_and_line():
    path = SCRIPTS / "broken_script.txt"
    with pytest.raises(InputError) as caught:
        import_script(path.read_text(encoding="utf-8"), str(path))
    assert caught.value.line in (4, 5)
    assert caught.value.one_line().startswith(f"{path}:{caught.value.line}: not valid Python")
    with pytest.raises(InputError):
        import_script("x = 1\0", "nul.py")


def test_unknown_keywords_positional_arguments_and_spread_are_findings():
    text = ("from npu_bridge.npu_init import *\n"
            "a = MemoryConfig(1, static_memory_policy=7)\n"
            "b = MemoryConfig(huge_pages=1, **extra)\n"
            "c = NPURunConfig(iterations_per_loop=10, op_compiler_cache_mode='sometimes')\n")
    imported = import_script(text, "t.py")
    assert imported.values() == {}
    assert codes(imported) == [("import-positional-arguments", 2), ("import-invalid-value", 2),
                               ("import-unknown-keyword", 3), ("import-dynamic-value", 3),
                               ("import-invalid-value", 4)]


def test_environment_assignments_in_a_script():
    text = ("import os\n"
            "os.environ['ACL_OP_COMPILER_CACHE_DIR'] = '/torch/cache'\n"
            "os.environ['ASCEND_CACHE_PATH'] = '/generic'\n"
            "os.environ.update({'ASCEND_MAX_OP_CACHE_SIZE': '-1', 'OTHER': 'x'})\n"
            "os.putenv('ACL_OP_COMPILER_CACHE_MODE', 'disable')\n"
            "os.environ['ASCEND_REMAIN_CACHE_SIZE_RATIO'] = 90\n"
            "os.environ['GE_USE_STATIC_MEMORY'] = '1'\n"
            "ge = {'ge.exec.staticMemoryPolicy': '2'}\n")
    imported = import_script(text, "env.py")
    # The framework's own variable beats ASCEND_CACHE_PATH (docs/cann/env-vars.md).
    assert imported.values() == {"static_memory_policy": 2, "op_compiler_cache_mode": "disable",
                                 "op_compiler_cache_dir": "/torch/cache", "max_op_cache_size": -1}
    found = codes(imported)
    assert ("import-invalid-value", 6) in found  # os.environ values must be strings
    assert ("import-legacy-env", 7) in found  # GE_USE_STATIC_MEMORY together with static_memory_policy
    assert ("import-set-twice", 2) in found


# ---------------------------------------------------------------------------------------------
# Env files, fish, op_cache.ini, profiles
# ---------------------------------------------------------------------------------------------


def test_env_file_settings():
    from cann_config.app.io.envfile import parse_env_text

    envfile = parse_env_text("export ASCEND_MAX_OP_CACHE_SIZE=1000\nexport ACL_OP_COMPILER_CACHE_MODE=force\n"
                             "export ASCEND_REMAIN_CACHE_SIZE_RATIO=500MB\n", "env.sh")
    imported = import_env_settings(envfile)
    assert imported.settings == {"max_op_cache_size": (1000, 1), "op_compiler_cache_mode": ("force", 2)}
    assert imported.framework == "pytorch"
    assert codes(imported) == [("import-invalid-value", 3)]


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0")))
def test_fish_words_read_back(value):
    imported = import_fish_env(f"set -gx ASCEND_CACHE_PATH {fish_word(value)}\n", "env.fish")
    assert imported.values() == {"op_compiler_cache_dir": value}


def test_fish_expansions_are_findings_not_guesses():
    text = ("# comment\nset -gx ASCEND_CACHE_PATH $HOME/cache\nset -e ASCEND_MAX_OP_CACHE_SIZE\n"
            "set --global --export ASCEND_MAX_OP_CACHE_SIZE 700; set -gx ASCEND_REMAIN_CACHE_SIZE_RATIO \"6\"'0'\n"
            "set -gx ACL_OP_COMPILER_CACHE_MODE (cat mode)\n")
    imported = import_fish_env(text, "env.fish")
    assert imported.settings == {"max_op_cache_size": (700, 4), "remain_cache_size_ratio": (60, 4)}
    assert codes(imported) == [("import-shell-expansion", 2), ("import-shell-expansion", 5)]


def test_ini_settings_as_cann_reads_them():
    from cann_config.app.opcache.ini import parse_op_cache_ini

    ini = parse_op_cache_ini(b"[op_compiler_cache]\nadk_version=1\nops_version=1\nmax_op_cache_size=500MB\n"
                             b"remain_cache_size_ratio=x\n", "op_cache.ini")
    imported = import_ini_settings(ini)
    assert imported.settings == {"max_op_cache_size": (500, 4)}
    assert codes(imported) == [("import-invalid-value", 5)]


def test_profile_text_errors_name_the_key():
    with pytest.raises(InputError, match="unknown key 'colour'"):
        import_profile_text('{"format": "cann-config-profile", "version": 1, "colour": 1}', "p.json")
    with pytest.raises(InputError, match="p.json:1"):
        import_profile_text("{", "p.json")
    head = '{"format": "cann-config-profile", "version": 1, "framework": "tf1", '
    with pytest.raises(InputError, match="options.static_memory_policy: static_memory_policy must be one of"):
        import_profile_text(head + '"options": {"static_memory_policy": 7}}', "p.json")
    with pytest.raises(InputError, match="options: unknown option 'huge_pages'"):
        import_profile_text(head + '"options": {"huge_pages": 1}}', "p.json")
    with pytest.raises(InputError, match="takes an integer"):
        import_profile_text(head + '"options": {"max_op_cache_size": "500"}}', "p.json")
    imported = import_profile_text(head + '"device": "Ascend910B3", "options": {"max_op_cache_size": 9}}', "p.json")
    assert imported.settings == {"max_op_cache_size": (9, None)} and imported.framework == "tf1"


# ---------------------------------------------------------------------------------------------
# Hostile paths read back (every format's round trip: tests/app/io/test_formats.py)
# ---------------------------------------------------------------------------------------------


def test_hostile_paths_read_back_from_every_format():
    for path in HOSTILE_PATHS:
        for framework, fmt in (("tf1", "tf1-estimator"), ("tf1", "tf1-session"), ("tf2", "tf2"),
                               ("ge", "ge-options"), ("pytorch", "env-fish"), ("tf1", "profile")):
            profile = Profile(framework=framework, options={"op_compiler_cache_dir": path})
            imported = import_text(export_text(profile, fmt).text, fmt, "x")
            assert imported.values()["op_compiler_cache_dir"] == path, (fmt, path)


def test_script_and_fish_files_are_read_through_the_shared_reader(tmp_path):
    from cann_config.app.errors import InputError
    from cann_config.app.io.importers import import_fish_file, import_script_file

    script = tmp_path / "train.py"
    script.write_text("mem = MemoryConfig(static_memory_policy=2)\n", encoding="utf-8")
    assert import_script_file(script).settings["static_memory_policy"][0] == 2
    fish = tmp_path / "cache.fish"
    fish.write_text("set -gx ASCEND_MAX_OP_CACHE_SIZE 800\n", encoding="utf-8")
    assert import_fish_file(fish).settings["max_op_cache_size"][0] == 800
    with pytest.raises(InputError, match="is a directory"):
        import_script_file(tmp_path)
    (tmp_path / "bin.py").write_bytes(b"x = 1\x00\n")
    with pytest.raises(InputError, match=str(tmp_path / "bin.py")):
        import_script_file(tmp_path / "bin.py")


@pytest.mark.parametrize("text", [
    "x=1" + "+1" * 50000 + "\n",  # the parser's recursion limit
    "x = " + "-" * 100000 + "1\n",
])
def test_scripts_too_deep_for_python_are_one_line(text):
    from cann_config.app.errors import InputError
    from cann_config.app.io.importers import import_script

    with pytest.raises(InputError, match="nested or chained too deeply") as info:
        import_script(text, "train.py")
    assert str(info.value).startswith("train.py: ")


def test_an_integer_too_large_to_print_is_a_finding():
    from cann_config.app.io.importers import import_script

    huge = "0x" + "f" * 20000
    for text in (f"import os\nos.environ['ASCEND_MAX_OP_CACHE_SIZE'] = {huge}\n",
                 f'custom_op.parameter_map["static_memory_policy"].i = {huge}\n'):
        imported = import_script(text, "train.py")
        messages = [f.message("en") for f in imported.findings]
        assert any("integer of 80000 bits" in m for m in messages), messages
        assert imported.settings == {}
