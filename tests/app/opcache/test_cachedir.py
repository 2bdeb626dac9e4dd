"""Where CANN keeps the op cache: option › ASCEND_CACHE_PATH › $HOME/atc_data, per framework."""

from __future__ import annotations

from pathlib import Path

import pytest

from cann_config.app.opcache.cachedir import kernel_cache_of, option_name, resolve_cache_dir


def codes(resolution):
    return sorted(f.code for f in resolution.findings)


@pytest.mark.parametrize("framework, option, environ, base, source, variable", [
    # the framework's option wins over everything
    ("tf1", "/opt/cache", {"ASCEND_CACHE_PATH": "/env", "HOME": "/h"}, "/opt/cache", "option", "op_compiler_cache_dir"),
    ("tf2", "/opt/cache", {}, "/opt/cache", "option", "npu.global_options().op_compiler_cache_dir"),
    ("ge", "/opt/cache", {}, "/opt/cache", "option", "ge.op_compiler_cache_dir"),
    ("atc", "/opt/cache", {}, "/opt/cache", "option", "--op_compiler_cache_dir"),
    ("acl", "/opt/cache", {}, "/opt/cache", "option", "ACL_OP_COMPILER_CACHE_DIR (aclCompileOpt)"),
    # torch_npu: its env var, then ASCEND_CACHE_PATH
    ("pytorch", "", {"ACL_OP_COMPILER_CACHE_DIR": "/torch", "ASCEND_CACHE_PATH": "/env"}, "/torch", "env",
     "ACL_OP_COMPILER_CACHE_DIR"),
    ("pytorch", "", {"ASCEND_CACHE_PATH": "/env", "HOME": "/h"}, "/env", "env", "ASCEND_CACHE_PATH"),
    # ACL_OP_COMPILER_CACHE_DIR in the environment means nothing to the other frameworks
    ("tf1", "", {"ACL_OP_COMPILER_CACHE_DIR": "/torch", "ASCEND_CACHE_PATH": "/env"}, "/env", "env",
     "ASCEND_CACHE_PATH"),
    # then the default, whatever ASCEND_WORK_PATH says
    ("ge", "", {"HOME": "/home/u", "ASCEND_WORK_PATH": "/work"}, "/home/u/atc_data", "default", "HOME"),
    (None, "", {"HOME": "/home/u"}, "/home/u/atc_data", "default", "HOME"),
    # CANN trims spaces and tabs from environment values; an empty value counts as unset
    ("tf1", "", {"ASCEND_CACHE_PATH": " \t/env\t ", "HOME": "/h"}, "/env", "env", "ASCEND_CACHE_PATH"),
    ("tf1", "", {"ASCEND_CACHE_PATH": "  ", "HOME": "/h"}, "/h/atc_data", "default", "HOME"),
])
def test_precedence(framework, option, environ, base, source, variable):
    r = resolve_cache_dir(framework, option, environ)
    assert (r.value, r.source, r.variable) == (base, source, variable)
    assert r.kernel_cache == Path(base) / "kernel_cache"
    assert r.ini_path == Path(base) / "kernel_cache" / "op_cache.ini"
    assert r.soc_dir("Ascend910_9382") == Path(base) / "kernel_cache" / "Ascend910_9382"
    assert r.how["en"] and r.how["zh"]


def test_work_path_does_not_move_the_cache():
    r = resolve_cache_dir("tf1", "", {"HOME": "/h", "ASCEND_WORK_PATH": "/work"})
    assert codes(r) == ["cache-dir-work-path"]
    assert "/h/atc_data" in r.findings[0].message("en")
    assert resolve_cache_dir("tf1", "", {"HOME": "/h", "ASCEND_WORK_PATH": "/w", "ASCEND_CACHE_PATH": "/c"}).findings == ()


def test_unknown_home_is_shown_as_a_placeholder():
    r = resolve_cache_dir("tf1", "", {})
    assert r.value == "$HOME/atc_data" and not r.home_known
    assert codes(r) == ["cache-dir-home-unknown"]
    assert resolve_cache_dir("tf1", "", {}, home="/root").value == "/root/atc_data"


@pytest.mark.parametrize("value, code", [
    ("~/cache", "cache-dir-tilde"),
    ("/data/my cache", "cache-dir-invalid-chars"),
    ("/data/cache+1", "cache-dir-invalid-chars"),
    ("/data/缓存", None),  # non-ASCII is accepted by CANN's IsStrValid
    ("/data/a-b_c.d", None),
])
def test_path_characters_canns_check_may_refuse(value, code):
    r = resolve_cache_dir("tf1", value, {"HOME": "/home/u"})
    assert codes(r) == ([code] if code else [])
    if code == "cache-dir-tilde":
        assert "/home/u/cache" in r.findings[0].fix_text("en")
    if code:
        assert r.findings[0].severity == "warning"  # inferred from the source, not documented


def test_relative_and_doubled_kernel_cache():
    assert codes(resolve_cache_dir("tf1", "cache", {})) == ["cache-dir-relative"]
    r = resolve_cache_dir("tf1", "/home/test/kernel_cache", {})
    assert codes(r) == ["cache-dir-doubled-kernel-cache"]
    assert r.kernel_cache == Path("/home/test/kernel_cache/kernel_cache")
    assert dict(r.findings[0].suggestion) == {"op_compiler_cache_dir": "/home/test"}


def test_unexpanded_variables_are_not_called_invalid():
    r = resolve_cache_dir("tf1", "", {"ASCEND_CACHE_PATH": "$HOME/cache"})
    assert r.findings == ()


def test_kernel_cache_of_accepts_base_or_kernel_cache():
    assert kernel_cache_of("/data") == Path("/data/kernel_cache")
    assert kernel_cache_of("/data/kernel_cache") == Path("/data/kernel_cache")
    assert kernel_cache_of(Path("/data/kernel_cache/")) == Path("/data/kernel_cache")


def test_soc_dirs_lists_existing_directories(tmp_path):
    kc = tmp_path / "kernel_cache"
    (kc / "Ascend910B3").mkdir(parents=True)
    (kc / "Ascend310P3").mkdir()
    (kc / "op_cache.ini").write_text("[op_compiler_cache]\n")
    r = resolve_cache_dir("tf1", str(tmp_path), {})
    assert [p.name for p in r.soc_dirs()] == ["Ascend310P3", "Ascend910B3"]
    assert resolve_cache_dir("tf1", str(tmp_path / "none"), {}).soc_dirs() == []


def test_option_names_per_framework():
    assert option_name("pytorch") == "ACL_OP_COMPILER_CACHE_DIR"
    assert option_name(None) == "op_compiler_cache_dir"


def test_to_json_is_language_neutral_apart_from_how():
    r = resolve_cache_dir("tf1", "", {"ASCEND_CACHE_PATH": "/c"})
    en, zh = r.to_json("en"), r.to_json("zh_CN")
    assert en["how"] != zh["how"]
    assert {k: v for k, v in en.items() if k != "how"} == {k: v for k, v in zh.items() if k != "how"}


def test_the_characters_refused_in_a_cache_dir_are_those_cann_refuses():
    # IsStrValid: ASCII letters and digits, '.', '-', '_', '/', and any byte >= 0x80.
    import string

    from cann_config.app.opcache.cachedir import _BAD_PATH_CHAR

    allowed = set(string.ascii_letters + string.digits + "._/-")
    for code in list(range(0x100)) + [0x7FF, 0x4E2D, 0xFFFF, 0x10FFFF]:
        char = chr(code)
        assert bool(_BAD_PATH_CHAR.fullmatch(char)) == (code < 0x80 and char not in allowed), hex(code)
