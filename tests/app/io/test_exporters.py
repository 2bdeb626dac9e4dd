"""The exports run as pasted and say exactly what the Profile chose.

Python exports are executed against the stand-in CANN modules in tests/data/stubs (real
signatures, real TF2 value checks) and what the stand-ins received is compared with the
Profile; env files are sourced by a real bash (and fish when it is installed) and the resulting
environment is compared byte for byte, with hostile paths. The expected CANN names are written
out here from docs/cann/memory.md#export-targets, not taken from the catalog, so a wrong catalog entry fails.
"""

from __future__ import annotations

import ast
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cann_config.app.catalog import load_catalog
from cann_config.app.io.exporters import FORMATS, check_choices, export_text, format_fits
from cann_config.app.io.exporters.quoting import bash_word, fish_word, python_str, shown
from cann_config.app.profile import Profile

STUBS = Path(__file__).resolve().parents[2] / "data" / "stubs"

# docs/cann/memory.md#export-targets.
MEMORY_CONFIG = ("atomic_clean_policy", "static_memory_policy", "variable_use_1g_huge_page",
                 "memory_optimization_policy")
RUN_CONFIG = ("op_compiler_cache_mode", "op_compiler_cache_dir")
PARAMETER_MAP = {"atomic_clean_policy": "i", "static_memory_policy": "i", "variable_use_1g_huge_page": "i",
                 "memory_optimization_policy": "s", "op_compiler_cache_mode": "s", "op_compiler_cache_dir": "s"}
TF2_PATHS = {"atomic_clean_policy": "memory_config", "static_memory_policy": "memory_config",
             "variable_use_1g_huge_page": "memory_config", "op_compiler_cache_mode": "", "op_compiler_cache_dir": ""}
GE_NAMES = {"static_memory_policy": "ge.exec.staticMemoryPolicy", "atomic_clean_policy": "ge.exec.atomicCleanPolicy",
            "variable_use_1g_huge_page": "ge.variableUse1gHugePage",
            "memory_optimization_policy": "ge.exec.memoryOptimizationPolicy",
            "op_compiler_cache_mode": "ge.op_compiler_cache_mode", "op_compiler_cache_dir": "ge.op_compiler_cache_dir"}
# docs/cann/env-vars.md: the env vars, by framework.
ENV_NAMES = {
    "pytorch": {"op_compiler_cache_mode": "ACL_OP_COMPILER_CACHE_MODE", "op_compiler_cache_dir": "ACL_OP_COMPILER_CACHE_DIR",
                "max_op_cache_size": "ASCEND_MAX_OP_CACHE_SIZE", "remain_cache_size_ratio": "ASCEND_REMAIN_CACHE_SIZE_RATIO"},
    "other": {"op_compiler_cache_dir": "ASCEND_CACHE_PATH", "max_op_cache_size": "ASCEND_MAX_OP_CACHE_SIZE",
              "remain_cache_size_ratio": "ASCEND_REMAIN_CACHE_SIZE_RATIO"},
}

HOSTILE_PATHS = [
    "/data/cache with spaces",
    "/tmp/it's \"quoted\"",
    "/tmp/$HOME/${USER}/$(touch PWNED)/`touch PWNED`",
    "/tmp/line1\nline2",
    "/数据/算子缓存",
    "C:\\back\\slash\\",
    "/tab\there",
    "/a'\\''b",
    "-leading-dash",
    "/glob/*?[a]{b,c}~",
    "/semi;colon|pipe&and>redir<",
    "/percent%s%n!bang#hash",
    "/ctl\x1b[31mred\x07",
    "/bidi\u202egnp.sh",
    "/cr\rend",
    " /leading space",
    "/emoji\U0001f600",
    "\\x41\\n literal escapes",
    "$'x' \"$(id)\"",
    "/x\nimport os; os.system('touch PWNED')",
]


def enumerated_profiles(framework: str, device: str | None = "Ascend910B3") -> list[Profile]:
    """Every value of every enumerated option the framework takes, one at a time, plus combinations
    and hostile cache directories."""
    catalog = load_catalog()
    fw = catalog.frameworks[framework]
    profiles = [Profile(framework=framework, device=device)]
    for oid in fw.options:
        option = catalog.options[oid]
        for doc in option.values + option.special:
            profiles.append(Profile(framework=framework, device=device, options={oid: doc.value}))
    if "static_memory_policy" in fw.options:
        profiles.append(Profile(framework=framework, device=device, options={
            "atomic_clean_policy": 1, "static_memory_policy": 4, "variable_use_1g_huge_page": 2,
            "op_compiler_cache_mode": "force", "op_compiler_cache_dir": "/srv/cache"}))
    profiles.append(Profile(framework=framework, device=device, options={
        "max_op_cache_size": 2048, "remain_cache_size_ratio": 80, "op_compiler_cache_mode": "disable"}))
    for path in HOSTILE_PATHS:
        profiles.append(Profile(framework=framework, device=device, options={"op_compiler_cache_dir": path}))
    return profiles


def changed(profile: Profile) -> dict:
    catalog = load_catalog()
    return {oid: v for oid, v in profile.values(catalog).items() if v != catalog.default_for(oid, profile.framework)}


def run_snippets(tmp_path: Path, texts: list[str]) -> list[dict]:
    paths = []
    for index, text in enumerate(texts):
        path = tmp_path / f"snippet_{index}.py"
        path.write_text(text, encoding="utf-8")
        paths.append(str(path))
    env = {**os.environ, "PYTHONPATH": str(STUBS), "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run([sys.executable, str(STUBS / "run_snippets.py"), *paths], capture_output=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def source_env(shell: str, tmp_path: Path, text: str, name: str = "env") -> dict[str, str]:
    """The environment after sourcing `text` in a clean `shell`, as exact bytes decoded UTF-8."""
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8"))
    if shell == "bash":
        argv = ["bash", "--norc", "--noprofile", "-c", 'source "$1" && env -0', "_", str(path)]
    else:
        argv = ["fish", "--no-config", "-c", "source $argv[1]; and env -0", str(path)]
    done = subprocess.run(argv, capture_output=True, cwd=tmp_path, timeout=60,
                          env={"PATH": os.environ["PATH"], "HOME": str(tmp_path), "LC_ALL": "C.UTF-8"})
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    out = {}
    for item in done.stdout.split(b"\0"):
        if b"=" in item:
            key, _, value = item.partition(b"=")
            out[key.decode()] = value.decode("utf-8", "surrogateescape")
    return out


SHELLS = ["bash", pytest.param("fish", marks=pytest.mark.skipif(shutil.which("fish") is None,
                                                                 reason="fish is not installed"))]


# ---------------------------------------------------------------------------------------------
# Quoting
# ---------------------------------------------------------------------------------------------


@given(st.text())
def test_python_literal_evaluates_to_the_value_and_stays_on_one_printable_line(value):
    literal = python_str(value)
    assert ast.literal_eval(literal) == value
    assert literal.isprintable()


def test_python_literal_keeps_chinese_readable_and_escapes_invisible_characters():
    assert python_str("/数据/缓存") == '"/数据/缓存"'
    assert python_str("a\u202eb") == '"a\\u202eb"'
    assert python_str('say "hi"\\') == '"say \\"hi\\"\\\\"'
    assert shown("a\nb") == '"a\\nb"' and shown(3) == "3"


@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\0")))
def test_shell_words_never_contain_a_raw_line_break(value):
    for word in (bash_word(value), fish_word(value)):
        assert "\n" not in word and "\r" not in word


@pytest.mark.parametrize("shell", SHELLS)
def test_shell_words_give_back_the_same_bytes(shell, tmp_path):
    rng = random.Random(20260205)
    alphabet = "ab /\\'\"$`!#;&|<>(){}[]*?~%\n\t\r\x1b\x07é数据\u202e\u3000\U0001f600-=:,."
    values = list(HOSTILE_PATHS) + ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 24))) for _ in range(150)]
    assign = (lambda n, v: f"export {n}={bash_word(v)}") if shell == "bash" else (lambda n, v: f"set -gx {n} {fish_word(v)}")
    text = "\n".join(assign(f"V_{i}", v) for i, v in enumerate(values)) + "\n"
    env = source_env(shell, tmp_path, text)
    for i, value in enumerate(values):
        assert env[f"V_{i}"] == value, (i, value)
    assert not (tmp_path / "PWNED").exists()


# ---------------------------------------------------------------------------------------------
# The Python exports, executed
# ---------------------------------------------------------------------------------------------


def expected_tf1_estimator(profile: Profile) -> tuple[dict, dict]:
    c = changed(profile)
    memory = {k: c[k] for k in MEMORY_CONFIG if k in c}
    run = {k: c[k] for k in RUN_CONFIG if k in c}
    return memory, run


def test_stand_ins_check_like_the_real_modules(tmp_path):
    """The stand-ins reject what the real modules reject, so a passing export means something."""
    snippets = [
        "from npu_bridge.npu_init import *\nMemoryConfig(use_huge_pages=1)\n",
        "from npu_bridge.npu_init import *\nNPURunConfig(op_compiler_cache_folder='x')\n",
        "import npu_device as npu\nnpu.global_options().memory_config.static_memory_policy = '2'\n",
        "import npu_device as npu\nnpu.global_options().memory_config.static_memory_policy = 5\n",
        "import npu_device as npu\nnpu.global_options().memory_config.memory_optimization_policy = 'BalanceMode'\n",
        "import npu_device as npu\nnpu.global_options().op_compiler_cache_mode = 'Enable'\n",
        "import tensorflow as tf\nc = tf.ConfigProto()\no = c.graph_options.rewrite_options.custom_optimizers.add()\n"
        "o.parameter_map['op_compiler_cache_dir'].s = '/not/bytes'\n",
        "import tensorflow as tf\nc = tf.ConfigProto()\no = c.graph_options.rewrite_options.custom_optimizers.add()\n"
        "o.parameter_map['static_memory_policy'].i = '2'\n",
        "import npu_device as npu\nnpu.open().as_default()\nnpu.global_options().memory_config.static_memory_policy = 2\n",
    ]
    results = run_snippets(tmp_path, snippets)
    errors = [r["error"] for r in results]
    assert errors[0].startswith("TypeError") and errors[1].startswith("TypeError")
    assert errors[2].startswith("TypeError") and errors[3].startswith("ValueError")
    assert errors[4].startswith("ValueError") and errors[5].startswith("ValueError")
    assert errors[6].startswith("TypeError") and errors[7].startswith("TypeError")
    # Options set after npu.open() never reach the device.
    assert errors[8] is None and results[8]["events"][0]["options"]["static_memory_policy"] == "0"


@pytest.mark.parametrize("changed_only", [False, True])
def test_tf1_exports_run_and_pass_exactly_the_choices(tmp_path, changed_only):
    profiles = enumerated_profiles("tf1")
    texts = []
    for profile in profiles:
        for fmt in ("tf1-estimator", "tf1-session"):
            result = export_text(profile, fmt, changed_only=changed_only, lang="en")
            assert not result.refused, (profile, fmt)
            texts.append(result.text)
    results = run_snippets(tmp_path, texts)
    assert not (tmp_path / "PWNED").exists()
    for index, profile in enumerate(profiles):
        estimator, session = results[2 * index], results[2 * index + 1]
        assert estimator["error"] is None and session["error"] is None, (profile, estimator["error"], session["error"])
        memory, run = expected_tf1_estimator(profile)
        made = {obj["type"]: obj for obj in estimator["objects"]}
        assert made["MemoryConfig"]["kwargs"] == memory, profile
        run_kwargs = dict(made["NPURunConfig"]["kwargs"])
        assert run_kwargs.pop("memory_config") == {"type": "MemoryConfig", "kwargs": memory}
        session_config = run_kwargs.pop("session_config")
        assert session_config["type"] == "ConfigProto" and session_config["allow_soft_placement"] is True
        assert run_kwargs == run, profile

        (proto,) = session["objects"]
        rewrite = proto["rewrite_options"]
        assert rewrite["remapping"] == 2 and rewrite["memory_optimization"] == 2  # RewriterConfig.OFF
        (optimizer,) = rewrite["custom_optimizers"]
        assert optimizer["name"] == "NpuOptimizer"
        wanted = {}
        for oid, value in changed(profile).items():
            if oid in PARAMETER_MAP:
                field = PARAMETER_MAP[oid]
                wanted[oid] = {"i": value} if field == "i" else {"s": {"bytes": value.encode("utf-8").hex()}}
        assert optimizer["parameter_map"] == wanted, profile


@pytest.mark.parametrize("changed_only", [False, True])
def test_tf2_export_sets_the_options_before_open(tmp_path, changed_only):
    profiles = enumerated_profiles("tf2")
    results = run_snippets(tmp_path, [export_text(p, "tf2", changed_only=changed_only).text for p in profiles])
    assert not (tmp_path / "PWNED").exists()
    for profile, result in zip(profiles, results, strict=True):
        assert result["error"] is None, (profile, result["error"])
        opened, default = result["events"]
        assert opened["kind"] == "open" and default["kind"] == "as_default"
        options = opened["options"]
        values = profile.values()
        for oid in TF2_PATHS:
            if oid == "op_compiler_cache_dir" and values[oid] == "":
                assert oid not in options
            else:
                # npu_device hands every option to the device as a string.
                assert options[oid] == str(values[oid]), (profile, oid)
        assert "memory_optimization_policy" not in options


def test_ge_options_is_a_dict_of_strings(tmp_path):
    profiles = enumerated_profiles("ge")
    results = run_snippets(tmp_path, [export_text(p, "ge-options").text for p in profiles])
    for profile, result in zip(profiles, results, strict=True):
        assert result["error"] is None
        wanted = {GE_NAMES[oid]: str(v) for oid, v in changed(profile).items() if oid in GE_NAMES}
        assert result["data"]["ge_options"] == wanted, profile


# ---------------------------------------------------------------------------------------------
# The env files, sourced
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("framework", ["tf1", "tf2", "pytorch", "ge", "atc", "acl"])
def test_env_files_set_exactly_the_chosen_variables(shell, framework, tmp_path):
    fmt = "env-bash" if shell == "bash" else "env-fish"
    names = ENV_NAMES["pytorch" if framework == "pytorch" else "other"]
    all_names = set(ENV_NAMES["pytorch"].values()) | set(ENV_NAMES["other"].values())
    for index, profile in enumerate(enumerated_profiles(framework)):
        for changed_only in (False, True):
            result = export_text(profile, fmt, changed_only=changed_only)
            assert not result.refused
            env = source_env(shell, tmp_path, result.text, f"env_{index}")
            wanted = {names[oid]: str(v) for oid, v in changed(profile).items() if oid in names}
            got = {k: v for k, v in env.items() if k in all_names}
            assert got == wanted, (framework, profile)
    assert not (tmp_path / "PWNED").exists()


def test_env_file_explains_each_variable_and_its_scope():
    profile = Profile(framework="pytorch", options={"max_op_cache_size": 1000, "op_compiler_cache_dir": "/c"})
    text = export_text(profile, "env-bash", lang="en").text
    assert "export ASCEND_MAX_OP_CACHE_SIZE=1000" in text
    assert "export ACL_OP_COMPILER_CACHE_DIR='/c'" in text
    assert "current user only" in text
    assert "wins over ASCEND_CACHE_PATH" in text
    zh = export_text(profile, "env-bash", lang="zh_CN").text
    assert "仅对当前用户生效" in zh


# ---------------------------------------------------------------------------------------------
# op_cache.ini and profile
# ---------------------------------------------------------------------------------------------


def test_new_op_cache_ini_has_both_sizes_and_says_the_versions_are_missing():
    from cann_config.app.opcache.ini import parse_op_cache_ini

    result = export_text(Profile(options={"max_op_cache_size": 1000}), "op-cache-ini")
    ini = parse_op_cache_ini(result.data, "new")
    values = {k: e.value for k, e in ini.values_as_cann_reads().items()}
    assert values == {"max_op_cache_size": "1000", "remain_cache_size_ratio": "50"}
    assert "cache-ini-save-without-versions" in {f.code for f in result.findings}
    with_versions = export_text(Profile(options={"max_op_cache_size": 1000}), "op-cache-ini",
                                ini_versions={"adk_version": "8.5.0", "ops_version": "8.5.0"})
    ini = parse_op_cache_ini(with_versions.data, "new")
    assert ini.counts
    codes = {f.code for f in with_versions.findings}
    assert "cache-ini-save-without-versions" not in codes and "cache-ini-versions-added" in codes


def test_existing_op_cache_ini_changes_only_the_chosen_value():
    from cann_config.app.opcache.ini import parse_op_cache_ini

    original = ("#注释\r\n[op_compiler_cache]\r\nadk_version=8.5.0\r\nops_version=8.5.0\r\n"
                "max_op_cache_size = 700 # mine\r\nremain_cache_size_ratio=60\r\n").encode()
    ini = parse_op_cache_ini(original, "op_cache.ini")
    assert export_text(Profile(), "op-cache-ini", existing_ini=ini).data == original
    assert export_text(Profile(options={"max_op_cache_size": 700}), "op-cache-ini", existing_ini=ini).data == original
    changed_data = export_text(Profile(options={"remain_cache_size_ratio": 80}), "op-cache-ini", existing_ini=ini).data
    assert changed_data == original.replace(b"remain_cache_size_ratio=60", b"remain_cache_size_ratio=80")


def test_profile_export_reads_back_as_the_same_profile():
    from cann_config.app.profile import profile_from_json

    profile = Profile(framework="tf2", device="atlas-a2", options={"static_memory_policy": 2,
                                                                   "op_compiler_cache_dir": "/数据/$x"})
    full = profile_from_json(json.loads(export_text(profile, "profile").text))
    assert full.values() == profile.values() and full.device == "atlas-a2" and full.framework == "tf2"
    only = profile_from_json(json.loads(export_text(profile, "profile", changed_only=True).text))
    assert dict(only.options) == {"static_memory_policy": 2, "op_compiler_cache_dir": "/数据/$x"}


# ---------------------------------------------------------------------------------------------
# Comments, refusals, modes, determinism
# ---------------------------------------------------------------------------------------------


def test_each_set_option_has_its_catalog_comment_in_the_chosen_language():
    profile = Profile(device="Ascend910B3", options={"static_memory_policy": 2, "variable_use_1g_huge_page": 1})
    en = export_text(profile, "tf1-estimator", lang="en").text
    assert "# ! 2 and 4 are not supported when several graphs execute concurrently." in en
    assert "older adapters have no variable_use_1g_huge_page and raise TypeError" in en
    assert "Static-shape memory expansion" in en
    zh = export_text(profile, "tf1-estimator", lang="zh_CN").text
    assert "多张图并发执行时不支持 2 和 4" in zh and "静态 shape 内存扩展" in zh
    assert "Static-shape" not in zh


@pytest.mark.parametrize("fmt", ["tf1-estimator", "tf1-session", "env-bash", "env-fish", "profile", "op-cache-ini"])
def test_huge_pages_on_310p_are_refused_not_dropped(fmt):
    profile = Profile(device="Ascend310P3", options={"variable_use_1g_huge_page": 1, "static_memory_policy": 2})
    versions = {"adk_version": "8.5.0", "ops_version": "8.5.0"} if fmt == "op-cache-ini" else None
    result = export_text(profile, fmt, lang="en", ini_versions=versions)
    assert result.refused
    errors = [f for f in result.findings if f.severity == "error"]
    assert len(errors) == 1 and "Ascend310P3" in errors[0].message("en")
    if fmt.startswith("tf1"):
        ast.parse(result.text)  # still a whole, valid snippet around the comment
    if fmt not in ("profile", "op-cache-ini"):
        refused = [line for line in result.text.splitlines() if "variable_use_1g_huge_page" in line]
        assert refused and all(line.lstrip().startswith("#") for line in refused)
        assert any("left out" in line and "Ascend310P3" in line for line in refused)


def test_memory_options_for_pytorch_are_refused_with_the_reason():
    profile = Profile(framework="pytorch", options={"static_memory_policy": 2, "max_op_cache_size": 900})
    result = export_text(profile, "env-bash", lang="en")
    assert result.refused
    assert "# static_memory_policy = 2 left out:" in result.text
    assert "export ASCEND_MAX_OP_CACHE_SIZE=900" in result.text
    assert any(f.code == "export-choice-refused" for f in check_choices(profile))


def test_a_choice_the_format_cannot_carry_points_to_the_one_that_can():
    result = export_text(Profile(options={"static_memory_policy": 2}), "env-bash", lang="en")
    assert not result.refused
    assert "# static_memory_policy = 2 is not set by this export; see the tf1-estimator / tf1-session export." in result.text
    assert any(f.code == "export-not-carried" and f.severity == "warning" for f in result.findings)
    atc = export_text(Profile(framework="atc", options={"op_compiler_cache_mode": "force"}), "env-bash", lang="en")
    assert '--op_compiler_cache_mode="force"' in atc.text


def test_full_mode_shows_defaults_commented_out_and_changed_only_leaves_them_out():
    profile = Profile(options={"static_memory_policy": 2})
    full = export_text(profile, "tf1-session").text
    assert '# custom_op.parameter_map["atomic_clean_policy"].i = 0' in full
    assert 'custom_op.parameter_map["static_memory_policy"].i = 2' in full
    short = export_text(profile, "tf1-session", changed_only=True).text
    assert "atomic_clean_policy" not in short
    assert 'custom_op.parameter_map["static_memory_policy"].i = 2' in short


def test_a_format_for_another_framework_is_explained_not_written():
    result = export_text(Profile(framework="pytorch"), "tf2", lang="en")
    assert result.refused and result.text.startswith("# Nothing to export")
    assert [f.code for f in result.findings] == ["export-format-framework"]
    assert not format_fits("tf2", "pytorch") and format_fits("env-bash", "pytorch")


def test_same_profile_same_bytes():
    a = Profile(device="Ascend910B3", options={"static_memory_policy": 2, "op_compiler_cache_dir": "/x y",
                                               "max_op_cache_size": 10})
    b = Profile(device="Ascend910B3", options={"max_op_cache_size": 10, "op_compiler_cache_dir": "/x y",
                                               "static_memory_policy": 2})
    for fmt in FORMATS:
        if not format_fits(fmt, "tf1"):
            continue
        assert export_text(a, fmt).data == export_text(a, fmt).data == export_text(b, fmt).data, fmt


def test_a_value_in_a_comment_can_never_become_code():
    path = "/x\nimport os; os.system('touch PWNED')"
    for fmt in ("tf1-estimator", "tf1-session"):
        text = export_text(Profile(device="Ascend310P3", options={"op_compiler_cache_dir": path,
                                                                  "variable_use_1g_huge_page": 1}), fmt).text
        tree = ast.parse(text)
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "system"]
        assert not calls
        assert all(not line.startswith("import os") for line in text.splitlines())


def test_unknown_format_is_a_value_error():
    with pytest.raises(ValueError, match="unknown export format"):
        export_text(Profile(), "yaml")
