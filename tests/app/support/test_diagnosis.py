"""diagnose(): the inputs gathered, the right op_cache.ini found, plain data out (JSON and text)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from cann_config.app.messages import message_table

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from cann_config.app.device.table import device_from_choice
from cann_config.app.errors import InputError
from cann_config.app.support.diagnosis import diagnose

DATA = Path(__file__).resolve().parents[2] / "data"
INI = DATA / "ini"
CLEAN = {"HOME": "/home/u"}


def codes(d):
    return [f.code for f in d.findings]


@pytest.fixture
def cache_base(tmp_path):
    kc = tmp_path / "cache" / "kernel_cache"
    kc.mkdir(parents=True)
    (kc / "op_cache.ini").write_bytes((INI / "template.ini").read_bytes())
    return tmp_path / "cache"


def test_json_has_the_shape_of_the_design(tmp_path):
    env = tmp_path / "job.env"
    env.write_text("export ASCEND_MAX_OP_CACHE_SIZE=1000\nexport ASCEND_CACHE_PATH=/data/cache\n")
    d = diagnose(ini_path=INI / "template.ini", env_file=env, device=device_from_choice("Ascend910B3"))
    data = d.to_json("en")
    assert {"device", "effective", "findings"} <= set(data)
    assert data["device"]["soc_version"] == "Ascend910B3" and data["device"]["series"] == "atlas-a2"
    for oid in ("max_op_cache_size", "remain_cache_size_ratio", "op_compiler_cache_mode", "op_compiler_cache_dir"):
        assert data["effective"][oid]["source"] in ("op_cache.ini", "env", "default", "profile")
        assert {"value", "source", "file", "line"} <= set(data["effective"][oid])
    assert data["effective"]["max_op_cache_size"] == {
        "value": 500, "source": "op_cache.ini", "file": str(INI / "template.ini"), "line": 6,
        "variable": "max_op_cache_size", "detail": data["effective"]["max_op_cache_size"]["detail"]}
    assert data["effective"]["op_compiler_cache_dir"]["value"] == "/data/cache"
    assert data["cache_dir"]["soc_dir"] == "/data/cache/kernel_cache/Ascend910B3"
    (overridden,) = [f for f in data["findings"] if f["code"] == "cache-env-overridden-by-ini"]
    assert set(overridden) >= {"severity", "code", "message", "file", "line"}
    assert (overridden["file"], overridden["line"]) == (str(env), 1)
    assert data["op_cache_ini"]["used_by_cann"] is True
    json.dumps(data)  # plain data all the way down


def test_json_keys_and_codes_do_not_change_with_the_language():
    d = diagnose(ini_path=INI / "foreign_section_before.ini", environ=CLEAN)
    en, zh = d.to_json("en"), d.to_json("zh_CN")
    assert [f["code"] for f in en["findings"]] == [f["code"] for f in zh["findings"]]
    assert en["findings"][0]["message"] != zh["findings"][0]["message"]
    assert set(en) == set(zh) and set(en["effective"]) == set(zh["effective"])


def test_errors_are_reported_first_and_counted():
    d = diagnose(ini_path=INI / "foreign_section_before.ini", environ=CLEAN)
    assert d.has_errors()
    assert d.findings[0].severity == "error" and d.findings[0].code == "cache-ini-foreign-section"
    assert not diagnose(ini_path=INI / "template.ini", environ=CLEAN).has_errors()


@pytest.mark.parametrize("suffix", ["", "kernel_cache"])
def test_cache_dir_finds_op_cache_ini_from_base_or_kernel_cache(cache_base, suffix):
    given = cache_base / suffix if suffix else cache_base
    d = diagnose(cache_dir=given, environ={"HOME": "/home/u", "ASCEND_CACHE_PATH": str(cache_base)})
    assert d.ini is not None and d.ini_path == cache_base / "kernel_cache" / "op_cache.ini"
    assert d.effective["max_op_cache_size"].source == "op_cache.ini"
    assert "cache-dir-given-differs" not in codes(d)


def test_cache_dir_without_op_cache_ini_says_so(tmp_path):
    d = diagnose(cache_dir=tmp_path, environ={"HOME": "/home/u"})
    assert d.ini is None and "cache-ini-not-found" in codes(d)
    # /home/u/atc_data is where CANN would look with this environment: say that it differs.
    assert "cache-dir-given-differs" in codes(d)


def test_explicit_ini_elsewhere_than_the_cache_dir_is_not_read_by_cann(cache_base):
    # Issue 24 item 5: CANN reads <cache dir>/kernel_cache/op_cache.ini only; the given file is
    # looked at (its own findings stay) but its sizes are not used.
    d = diagnose(ini_path=INI / "only_max.ini", cache_dir=cache_base, environ=CLEAN)
    assert d.ini_path == INI / "only_max.ini" and not d.read_by_cann
    assert "cache-ini-not-read" in codes(d) and "cache-ini-size-pair-incomplete" not in codes(d)
    assert d.cann_ini_path == cache_base / "kernel_cache" / "op_cache.ini" and d.ini_base_from == "--cache-dir"


def test_process_environment_is_used_without_an_env_file(tmp_path, monkeypatch):
    for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
                 "ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR", "ASCEND_WORK_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("ASCEND_REMAIN_CACHE_SIZE_RATIO", "75")
    kc = tmp_path / "atc_data" / "kernel_cache"
    kc.mkdir(parents=True)
    (kc / "op_cache.ini").write_bytes((INI / "only_max.ini").read_bytes())
    d = diagnose()
    assert d.ini_path == kc / "op_cache.ini" and d.ini is not None
    assert d.effective["remain_cache_size_ratio"].value == 75
    assert d.inputs["environment"] == "process"


def test_env_file_alone_is_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_MAX_OP_CACHE_SIZE", "123")
    env = tmp_path / "customer.env"
    env.write_text("export ASCEND_REMAIN_CACHE_SIZE_RATIO=60\n")
    d = diagnose(env_file=env)
    assert d.effective["max_op_cache_size"].value == 500  # not the support machine's 123
    assert d.effective["remain_cache_size_ratio"].value == 60
    assert d.ini is None and "cache-ini-not-found" not in codes(d)  # not looked for on this machine
    assert d.cache_dir.value == "$HOME/atc_data"


def test_script_settings_are_included_with_their_lines(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(
        "import os\n"
        "from npu_bridge.npu_init import *\n"
        'os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = "900"\n'
        "mem_config = MemoryConfig(atomic_clean_policy=1, static_memory_policy=2)\n"
        'config = NPURunConfig(memory_config=mem_config, op_compiler_cache_mode="force",\n'
        '                      op_compiler_cache_dir="/opt/cache")\n')
    d = diagnose(script=script, environ=CLEAN)
    assert d.framework == "tf1" and d.script == str(script)
    eff = d.effective
    assert (eff["max_op_cache_size"].value, eff["max_op_cache_size"].source, eff["max_op_cache_size"].line) == \
        (900, "script", 3)
    assert eff["static_memory_policy"].value == 2 and eff["static_memory_policy"].line == 4
    assert eff["op_compiler_cache_mode"].value == "force"
    assert eff["op_compiler_cache_dir"].value == "/opt/cache"
    assert "cache-mode-force-temporary" in codes(d)


def test_unusable_inputs_raise_one_line_input_errors(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        diagnose(ini_path=tmp_path, environ=CLEAN)
    with pytest.raises(InputError, match="cannot read"):
        diagnose(ini_path=tmp_path / "missing.ini", environ=CLEAN)
    with pytest.raises(InputError, match="cannot read"):
        diagnose(env_file=tmp_path / "missing.env")
    bad = tmp_path / "bad.py"
    bad.write_text("def (:\n")
    with pytest.raises(InputError):
        diagnose(script=bad, environ=CLEAN)


def test_text_report_in_both_languages(tmp_path):
    env = tmp_path / "job.env"
    env.write_text("export ASCEND_MAX_OP_CACHE_SIZE=abc\n")
    d = diagnose(ini_path=INI / "template_docs.ini", env_file=env, device=device_from_choice("Ascend310P3"))
    en = d.to_text("en")
    assert "Effective values:" in en and "Findings:" in en
    assert f"{INI / 'template_docs.ini'}:2" in en and f"{env}:1" in en
    assert "max_op_cache_size" in en and "500 MB" in en and "[default]" in en
    assert "kernel_cache/Ascend310P3" in en
    zh = d.to_text("zh_CN")
    assert "生效值" in zh and "发现的问题" in zh and "CANN 会忽略" in zh


def test_text_sends_no_control_character_to_the_terminal(tmp_path):
    """A hostile op_cache.ini and env file (ESC sequences, a carriage return, a line break in a
    path) are printed with the controls replaced and every value on its own line."""
    folder = tmp_path / "evil\x1b]0;owned\x07"
    folder.mkdir()
    ini = folder / "op_cache.ini"
    ini.write_bytes(b"[op_compiler_cache]\nadk_version=8.5.0\x1b[2J\nops_version=8.5.0\n"
                    b"max_op_cache_size=12\x1b[31m\nremain_cache_size_ratio=80\r\x1b[1A\n")
    env = tmp_path / "job.env"
    env.write_bytes(b"export ASCEND_CACHE_PATH='/data/\x1b[8mcache\nerror   fake-code'\n"
                    b"export ACL_OP_COMPILER_CACHE_MODE=enable\x9b31m\n")
    d = diagnose(ini_path=ini, env_file=env, device=device_from_choice("Ascend910B3"))
    for lang in ("en", "zh_CN"):
        text = d.to_text(lang)
        assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", text)
        assert "\ufffd]0;owned\ufffd" in text and "\ufffd[31m" in text
        # The line break inside the env value does not forge a finding line of its own.
        assert not any(line.startswith("error   fake-code") for line in text.splitlines())
        assert "/data/\ufffd[8mcache error fake-code" in text
        # 0x9b is not UTF-8: kept by the env file reader as a surrogate, printed as U+FFFD.
        assert "enable\ufffd31m" in text
        text.encode("utf-8")  # a strict UTF-8 terminal can print it


def test_message_table_of_the_cache_area_is_consistent():
    root = Path(__file__).resolve().parents[3]
    table = message_table()
    messages = tomllib.loads((root / "resources" / "messages" / "cache.toml").read_text(encoding="utf-8"))
    sources = "".join((root / "app" / f).read_text(encoding="utf-8") for f in (
        "opcache/ini.py", "io/envfile.py", "opcache/cachedir.py", "opcache/resolution.py", "opcache/ini_save.py",
        "support/diagnosis.py",
        "opcache/which_ini.py", "io/shellread.py",
        "io/importers.py"))
    used = set(re.findall(r"[\"'](cache-[a-z0-9-]+)[\"']", sources))
    assert used <= set(table), used - set(table)
    # Every message is used (labels are picked by name in diagnosis.py) ...
    assert set(messages) <= used, set(messages) - used
    # ... and no placeholder collides with make_finding's own keywords.
    for code, entry in messages.items():
        texts = [entry["en"], entry["zh"], *(entry.get("fix") or {}).values()]
        names = {n for t in texts for n in re.findall(r"(?<!\{)\{([a-z_]+)\}", t)}
        assert not names & {"file", "line", "severity", "suggestion"}, code


def fake_toolkit(root: Path, version: str) -> Path:
    """A CANN toolkit install as app.device.hostprobe finds it through ASCEND_TOOLKIT_HOME."""
    home = root / "toolkit"
    for rel, text in (("x86_64-linux/ascend_toolkit_install.info", f"version={version}\n"),
                      ("compiler/version.info", f"Version={version}\n"),
                      ("opp/version.info", f"Version={version}\n")):
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    return home


def where_cann_reads(tmp_path, monkeypatch, source):
    """Copy `source` to the op_cache.ini CANN reads on this host (ASCEND_CACHE_PATH set to a
    tmp dir) and return its path: a file elsewhere is not read (app.opcache.which_ini)."""
    base = tmp_path / "cache"
    (base / "kernel_cache").mkdir(parents=True, exist_ok=True)
    target = base / "kernel_cache" / "op_cache.ini"
    target.write_bytes(Path(source).read_bytes())
    monkeypatch.setenv("ASCEND_CACHE_PATH", str(base))
    return target


def test_this_hosts_cann_is_compared_with_the_version_lines(tmp_path, monkeypatch):
    """Without an env file the environment is this host's, and so is the installed CANN: an
    op_cache.ini written by CANN 8.5.0 on a host with 8.3.0 is emptied at the next start."""
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(fake_toolkit(tmp_path, "8.3.0")))
    monkeypatch.delenv("ASCEND_OPP_PATH", raising=False)
    ini = where_cann_reads(tmp_path, monkeypatch, INI / "template.ini")
    d = diagnose(ini_path=ini)
    differs = [f for f in d.findings if f.code == "cache-ini-version-differs"]
    assert [f.line for f in differs] == [3, 4] and "8.3.0" in differs[0].message("en")
    # The same file and host, CANN 8.5.0 installed: nothing to say.
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(fake_toolkit(tmp_path / "new", "8.5.0")))
    assert "cache-ini-version-differs" not in codes(diagnose(ini_path=ini))
    # {} asks for no check at all.
    monkeypatch.setenv("ASCEND_TOOLKIT_HOME", str(fake_toolkit(tmp_path, "8.3.0")))
    assert "cache-ini-version-differs" not in codes(diagnose(ini_path=INI / "template.ini", installed_versions={}))


def test_a_customers_env_file_is_not_checked_against_this_hosts_cann(tmp_path, monkeypatch):
    import cann_config.app.support.diagnosis as diagnosis_module

    def must_not_look(*args, **kwargs):
        raise AssertionError("this host's CANN was looked up for a customer's env file")

    monkeypatch.setattr(diagnosis_module, "installed_op_cache_versions", must_not_look)
    env = tmp_path / "job.env"
    env.write_text("export ASCEND_MAX_OP_CACHE_SIZE=1000\n")
    assert "cache-ini-version-differs" not in codes(diagnose(ini_path=INI / "template.ini", env_file=env))
    assert "cache-ini-version-differs" not in codes(diagnose(ini_path=INI / "template.ini", environ=CLEAN))
    # The caller's versions (a support bundle's) are used as given.
    given = diagnose(ini_path=INI / "template.ini", env_file=env,
                     installed_versions={"adk_version": "8.3.0", "ops_version": "8.5.0"})
    assert [f.line for f in given.findings if f.code == "cache-ini-version-differs"] == [3]


# -- scripts read as their authors meant them (issue: real training scripts) ---------------------


def test_a_run_time_cache_dir_is_never_a_default_and_no_default_ini_is_read(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / "atc_data" / "kernel_cache").mkdir(parents=True)
    # An op_cache.ini in the default place must not be taken for the one the job reads.
    (home / "atc_data" / "kernel_cache" / "op_cache.ini").write_bytes((INI / "template.ini").read_bytes())
    monkeypatch.setenv("HOME", str(home))
    for name in ("ASCEND_CACHE_PATH", "ACL_OP_COMPILER_CACHE_DIR", "ASCEND_MAX_OP_CACHE_SIZE"):
        monkeypatch.delenv(name, raising=False)
    script = tmp_path / "train.py"
    script.write_text("import os\nlocal_rank = int(os.environ['LOCAL_RANK'])\n"
                      "os.environ['ASCEND_CACHE_PATH'] = f'/tmp/ascend_cache_{local_rank}'\n")
    d = diagnose(script=script)
    eff = d.effective["op_compiler_cache_dir"]
    assert (eff.value, eff.source, eff.file, eff.line) == (None, "script", str(script), 3)
    assert d.ini is None and d.inputs["ini"] is None
    assert "cache-ini-not-found" not in codes(d) and "cache-dir-runtime" in codes(d)
    data = d.to_json("en")
    assert data["effective"]["op_compiler_cache_dir"]["value"] is None
    assert data["effective"]["op_compiler_cache_dir"]["runtime"] is True
    assert data["cache_dir"]["known"] is False and "atc_data" not in json.dumps(data["cache_dir"])
    for lang, words in (("en", "known only at run time"), ("zh_CN", "运行时")):
        text = d.to_text(lang)
        line = next(x for x in text.splitlines() if x.strip().startswith("op_compiler_cache_dir"))
        assert words in line and f"{script}:3" in line and "default" not in line
        assert "atc_data" not in text


def test_a_cache_dir_given_with_a_run_time_script_dir_is_read(tmp_path, cache_base):
    script = tmp_path / "train.py"
    script.write_text("import os\nos.environ['ASCEND_CACHE_PATH'] = args.cache\n")
    d = diagnose(script=script, environ=CLEAN, cache_dir=cache_base)
    assert d.ini is not None and "cache-dir-given-differs" not in codes(d)
    assert d.effective["max_op_cache_size"].source == "op_cache.ini"


def test_ge_use_static_memory_alone_in_a_script(tmp_path):
    script = tmp_path / "run_bert.py"
    script.write_text("import os\nfrom npu_bridge.npu_init import *\n"
                      "os.environ['GE_USE_STATIC_MEMORY'] = '1'\n"
                      "config = NPURunConfig(iterations_per_loop=100)\n")
    d = diagnose(script=script, environ=CLEAN)
    eff = d.effective["static_memory_policy"]
    assert (eff.value, eff.source, eff.file, eff.line, eff.variable) == (2, "env", str(script), 3,
                                                                          "GE_USE_STATIC_MEMORY")
    assert "(default)" not in d.to_text("en").split("static_memory_policy", 1)[1].splitlines()[0]
    (legacy,) = [f for f in d.findings if f.code == "cache-env-static-memory-legacy"]
    assert (legacy.file, legacy.line) == (str(script), 3)


def test_a_setdefault_does_not_replace_what_the_environment_sets(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import os\nos.environ.setdefault('ASCEND_MAX_OP_CACHE_SIZE', '2048')\n"
                      "os.environ.setdefault('GE_USE_STATIC_MEMORY', '3')\n")
    d = diagnose(script=script, environ={**CLEAN, "ASCEND_MAX_OP_CACHE_SIZE": "700", "GE_USE_STATIC_MEMORY": "2"})
    assert (d.effective["max_op_cache_size"].value, d.effective["max_op_cache_size"].source) == (700, "env")
    assert d.effective["static_memory_policy"].value == 2
    d = diagnose(script=script, environ=CLEAN)
    assert (d.effective["max_op_cache_size"].value, d.effective["max_op_cache_size"].line) == (2048, 2)
    assert d.effective["static_memory_policy"].value == 3


def test_set_option_in_a_script_is_pytorch_and_wins_over_the_shell(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import torch\nimport torch_npu\n\ndef init():\n    option = {}\n"
                      "    option['ACL_OP_COMPILER_CACHE_MODE'] = 'disable'\n    torch.npu.set_option(option)\n")
    d = diagnose(script=script, environ={**CLEAN, "ACL_OP_COMPILER_CACHE_MODE": "enable"})
    assert d.framework == "pytorch"
    eff = d.effective["op_compiler_cache_mode"]
    assert (eff.value, eff.file, eff.line) == ("disable", str(script), 7)
    assert "cache-env-overridden-by-profile" in codes(d) and "cache-mode-disabled" in codes(d)


def test_allocator_variable_set_at_run_time_is_run_time_not_default(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("import os\nimport torch_npu\nos.environ['PYTORCH_NPU_ALLOC_CONF'] = args.alloc_conf\n")
    d = diagnose(script=script, environ={**CLEAN, "PYTORCH_NPU_ALLOC_CONF": "expandable_segments:False"})
    eff = d.effective["npu_alloc_expandable_segments"]
    assert (eff.value, eff.source, eff.line, eff.runtime) == (None, "script", 3, True)
