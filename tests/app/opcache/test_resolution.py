"""Every precedence case and every invalid value of the op cache settings, decided as CANN does."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cann_config.app.io.envfile import parse_env_text
from cann_config.app.opcache.ini import parse_op_cache_ini
from cann_config.app.opcache.resolution import Setting, c_atoi, resolve_settings
from cann_config.app.profile import Profile

HEAD = "[op_compiler_cache]\nadk_version=8.5.0\nops_version=8.5.0\n"


def ini(body: str | None, head: str = HEAD):
    if body is None:
        return None
    return parse_op_cache_ini((head + body).encode(), "op_cache.ini")


def resolve(body=None, env=None, settings=None, framework="tf1", **kwargs):
    return resolve_settings(ini=ini(body) if isinstance(body, str) or body is None else body,
                            environ={"HOME": "/h", **(env or {})}, settings=settings, framework=framework, **kwargs)


def codes(resolution):
    return sorted(f.code for f in resolution.findings)


INI_OK = "max_op_cache_size=800\nremain_cache_size_ratio=70\n"

# (ini body or None, env, settings) -> (max, max source, ratio, ratio source, finding codes that must be there)
SIZE_CASES = {
    # -- precedence --
    "defaults": (None, {}, {}, 500, "default", 50, "default", []),
    "env max": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "800"}, {}, 800, "env", 50, "default", []),
    "env ratio": (None, {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "70"}, {}, 500, "default", 70, "env", []),
    "ini wins over env": (INI_OK, {"ASCEND_MAX_OP_CACHE_SIZE": "100", "ASCEND_REMAIN_CACHE_SIZE_RATIO": "10"}, {},
                          800, "op_cache.ini", 70, "op_cache.ini",
                          ["cache-env-overridden-by-ini", "cache-env-overridden-by-ini"]),
    "ini wins over profile": (INI_OK, {}, {"max_op_cache_size": 900}, 800, "op_cache.ini", 70, "op_cache.ini",
                              ["cache-profile-overridden-by-ini"]),
    "profile wins over env": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "100"}, {"max_op_cache_size": 900},
                              900, "profile", 50, "default", ["cache-env-overridden-by-profile"]),
    "ini needs both values": ("max_op_cache_size=800\n", {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "60"}, {},
                              500, "default", 60, "env", ["cache-ini-size-pair-incomplete"]),
    "ini ratio alone": ("remain_cache_size_ratio=70\n", {}, {}, 500, "default", 50, "default",
                        ["cache-ini-size-pair-incomplete"]),
    "ini without versions is ignored": (None, {}, {}, 500, "default", 50, "default", []),
    # -- invalid ini values: both fall back to env/default --
    "ini max 0": ("max_op_cache_size=0\nremain_cache_size_ratio=70\n", {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "40"}, {},
                  500, "default", 40, "env", ["cache-ini-max-invalid"]),
    "ini max -2": ("max_op_cache_size=-2\nremain_cache_size_ratio=70\n", {}, {}, 500, "default", 50, "default",
                   ["cache-ini-max-invalid"]),
    "ini max not a number": ("max_op_cache_size=abc\nremain_cache_size_ratio=70\n", {}, {}, 500, "default", 50,
                             "default", ["cache-ini-value-not-number"]),
    "ini max quoted": ('max_op_cache_size="800"\nremain_cache_size_ratio=70\n', {}, {}, 500, "default", 50,
                       "default", ["cache-ini-value-not-number"]),
    "ini max too big": ("max_op_cache_size=99999999999\nremain_cache_size_ratio=70\n", {}, {}, 500, "default", 50,
                        "default", ["cache-ini-value-out-of-range"]),
    "ini max INT_MAX": ("max_op_cache_size=2147483647\nremain_cache_size_ratio=70\n", {}, {}, 2147483647,
                        "op_cache.ini", 70, "op_cache.ini", []),
    "ini ratio 0": ("max_op_cache_size=800\nremain_cache_size_ratio=0\n", {}, {}, 500, "default", 50, "default",
                    ["cache-ini-ratio-invalid"]),
    "ini ratio 101": ("max_op_cache_size=800\nremain_cache_size_ratio=101\n", {}, {}, 500, "default", 50, "default",
                      ["cache-ini-ratio-invalid"]),
    "ini ratio -5": ("max_op_cache_size=800\nremain_cache_size_ratio=-5\n", {}, {}, 500, "default", 50, "default",
                     ["cache-ini-ratio-invalid"]),
    "ini ratio 100": ("max_op_cache_size=800\nremain_cache_size_ratio=100\n", {}, {}, 800, "op_cache.ini", 100,
                      "op_cache.ini", []),
    "ini numeric prefix": ("max_op_cache_size=800MB\nremain_cache_size_ratio=70 # keep\n", {}, {}, 800,
                           "op_cache.ini", 70, "op_cache.ini", ["cache-ini-numeric-prefix"]),
    "ini ageing off": ("max_op_cache_size=-1\nremain_cache_size_ratio=70\n", {}, {}, -1, "op_cache.ini", 70,
                       "op_cache.ini", ["cache-ageing-off"]),
    # -- invalid env values --
    "env max not a number": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "abc"}, {}, 500, "default", 50, "default",
                             ["cache-env-max-not-number"]),
    "env max 0": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "0"}, {}, 500, "default", 50, "default",
                  ["cache-env-max-invalid"]),
    "env max -2": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "-2"}, {}, 500, "default", 50, "default",
                   ["cache-env-max-invalid"]),
    "env max INT_MAX": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "2147483647"}, {}, 2147483647, "env", 50, "default", []),
    "env max INT_MAX + 1": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "2147483648"}, {}, 500, "default", 50, "default",
                            ["cache-env-max-not-number"]),
    "env max INT_MAX - 1": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "2147483646"}, {}, 2147483646, "env", 50,
                            "default", []),
    "env max too big": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "99999999999"}, {}, 500, "default", 50, "default",
                        ["cache-env-max-not-number"]),
    "env max 500MB": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "600MB"}, {}, 600, "env", 50, "default",
                      ["cache-env-numeric-prefix"]),
    "env max trimmed": (None, {"ASCEND_MAX_OP_CACHE_SIZE": " \t600 "}, {}, 600, "env", 50, "default", []),
    "env max empty": (None, {"ASCEND_MAX_OP_CACHE_SIZE": ""}, {}, 500, "default", 50, "default", []),
    "env ageing off": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "-1", "ASCEND_REMAIN_CACHE_SIZE_RATIO": "abc"}, {},
                       -1, "env", 0, "env", ["cache-ageing-off", "cache-env-ratio-unused"]),
    "env ratio not a number reads 0": (None, {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "abc"}, {}, 500, "default", 0,
                                       "env", ["cache-env-ratio-zero"]),
    "env ratio 0": (None, {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "0"}, {}, 500, "default", 0, "env",
                    ["cache-env-ratio-zero"]),
    "env ratio 101": (None, {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "101"}, {}, 500, "default", 50, "default",
                      ["cache-env-ratio-invalid"]),
    "env ratio -1": (None, {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "-1"}, {}, 500, "default", 50, "default",
                     ["cache-env-ratio-invalid"]),
    "env ratio 100": (None, {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "100"}, {}, 500, "default", 100, "env", []),
    "env ratio 60%": (None, {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "60%"}, {}, 500, "default", 60, "env",
                      ["cache-env-numeric-prefix"]),
    "env ratio overflow wraps": (None, {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "4294967346"}, {}, 500, "default", 50,
                                 "env", []),
    # -- invalid profile/script values --
    "profile max 0": (None, {"ASCEND_MAX_OP_CACHE_SIZE": "700"}, {"max_op_cache_size": 0}, 700, "env", 50,
                      "default", ["cache-option-invalid"]),
}


@pytest.mark.parametrize("case", sorted(SIZE_CASES))
def test_size_limit_and_ratio(case):
    body, env, settings, max_value, max_source, ratio_value, ratio_source, must = SIZE_CASES[case]
    if case == "ini without versions is ignored":
        r = resolve_settings(ini=ini(INI_OK, head="[op_compiler_cache]\n"), environ={"HOME": "/h"}, framework="tf1")
        must = ["cache-ini-values-ignored"]
    else:
        r = resolve(body, env, settings)
    got = r.effective["max_op_cache_size"], r.effective["remain_cache_size_ratio"]
    assert (got[0].value, got[0].source, got[1].value, got[1].source) == (max_value, max_source, ratio_value, ratio_source)
    found = codes(r)
    for code in must:
        assert found.count(code) >= must.count(code), (code, found)
    assert r.ini_used is (max_source == "op_cache.ini")


def test_ini_values_carry_file_and_line():
    r = resolve(INI_OK)
    max_e = r.effective["max_op_cache_size"]
    assert (max_e.file, max_e.line) == ("op_cache.ini", 4)
    assert max_e.to_json("en") == {"value": 800, "source": "op_cache.ini", "file": "op_cache.ini", "line": 4,
                                   "variable": "max_op_cache_size", "detail": max_e.detail["en"]}


def test_env_values_carry_the_env_file_line():
    envfile = parse_env_text("# x\nexport ASCEND_MAX_OP_CACHE_SIZE=abc\n", "job.env")
    r = resolve_settings(ini=None, environ=envfile.environ(), env_file=envfile, framework="tf1")
    (finding,) = [f for f in r.findings if f.code == "cache-env-max-not-number"]
    assert (finding.file, finding.line, finding.severity) == ("job.env", 2, "error")
    assert r.effective["max_op_cache_size"].variable == "ASCEND_MAX_OP_CACHE_SIZE"


def test_c_atoi():
    assert c_atoi("42") == (42, True, False)
    assert c_atoi("  -7x") == (-7, True, True)
    assert c_atoi("abc") == (0, False, True)
    assert c_atoi("") == (0, False, False)
    assert c_atoi("4294967346")[0] == 50  # (int) of the long: low 32 bits (glibc, 64-bit host)
    assert c_atoi("99999999999999999999999")[0] == -1  # strtol saturates at LONG_MAX


# -- cache mode ---------------------------------------------------------------------------------

MODE_CASES = {
    "no framework": (None, {}, {}, "enable", "default", []),
    "tf1 default": ("tf1", {}, {}, "enable", "default", []),
    "ge default": ("ge", {}, {}, "enable", "default", []),
    "atc default": ("atc", {}, {}, "disable", "default", ["cache-mode-disabled"]),
    "acl default": ("acl", {}, {}, "disable", "default", ["cache-mode-disabled"]),
    "pytorch default": ("pytorch", {}, {}, "enable", "default", []),
    "tf1 force": ("tf1", {}, {"op_compiler_cache_mode": "force"}, "force", "profile", ["cache-mode-force-temporary"]),
    "tf1 invalid": ("tf1", {}, {"op_compiler_cache_mode": "Enable"}, "Enable", "profile", ["cache-option-invalid"]),
    "torch env": ("pytorch", {"ACL_OP_COMPILER_CACHE_MODE": "disable"}, {}, "disable", "env", ["cache-mode-disabled"]),
    "torch env invalid": ("pytorch", {"ACL_OP_COMPILER_CACHE_MODE": "DISABLE"}, {}, "enable", "env",
                          ["cache-env-mode-invalid"]),
    "torch env beats profile": ("pytorch", {"ACL_OP_COMPILER_CACHE_MODE": "enable"},
                                {"op_compiler_cache_mode": "force"}, "enable", "env",
                                ["cache-profile-overridden-by-env"]),
    "torch env ignored by tf1": ("tf1", {"ACL_OP_COMPILER_CACHE_MODE": "disable"}, {}, "enable", "default",
                                 ["cache-env-torch-only"]),
    "torch env makes it pytorch": (None, {"ACL_OP_COMPILER_CACHE_MODE": "force"}, {}, "force", "env",
                                   ["cache-framework-assumed-pytorch", "cache-mode-force-temporary"]),
}


@pytest.mark.parametrize("case", sorted(MODE_CASES))
def test_cache_mode(case):
    framework, env, settings, value, source, must = MODE_CASES[case]
    r = resolve(None, env, settings, framework=framework)
    mode = r.effective["op_compiler_cache_mode"]
    assert (mode.value, mode.source) == (value, source)
    assert set(must) <= set(codes(r))


# -- cache dir ----------------------------------------------------------------------------------


def test_cache_dir_sources():
    r = resolve(None, {}, {"op_compiler_cache_dir": Setting("/opt/c", "train.py", 12)})
    d = r.effective["op_compiler_cache_dir"]
    assert (d.value, d.source, d.file, d.line) == ("/opt/c", "profile", "train.py", 12)
    assert r.cache_dir.ini_path.as_posix() == "/opt/c/kernel_cache/op_cache.ini"
    envfile = parse_env_text("export ASCEND_CACHE_PATH=/shared\n", "job.env")
    r = resolve_settings(ini=None, environ=envfile.environ(), env_file=envfile, framework="ge")
    d = r.effective["op_compiler_cache_dir"]
    assert (d.value, d.source, d.file, d.line, d.variable) == ("/shared", "env", "job.env", 1, "ASCEND_CACHE_PATH")
    d = resolve(None, {}).effective["op_compiler_cache_dir"]
    assert (d.value, d.source) == ("/h/atc_data", "default")


def test_torch_dir_env_beats_a_profile_value():
    r = resolve(None, {"ACL_OP_COMPILER_CACHE_DIR": "/t"}, {"op_compiler_cache_dir": "/p"}, framework="pytorch")
    assert r.effective["op_compiler_cache_dir"].value == "/t"
    assert "cache-profile-overridden-by-env" in codes(r)


# -- memory options and GE_USE_STATIC_MEMORY ----------------------------------------------------


def test_memory_options_found_are_reported_with_their_source():
    r = resolve(None, {}, {"static_memory_policy": Setting(2, "train.py", 5), "atomic_clean_policy": 1})
    assert r.effective["static_memory_policy"].to_json()["line"] == 5
    assert r.effective["atomic_clean_policy"].source == "profile"
    assert "variable_use_1g_huge_page" not in r.effective


def test_ge_use_static_memory_with_static_memory_policy_is_a_warning():
    r = resolve(None, {"GE_USE_STATIC_MEMORY": "1"}, {"static_memory_policy": 2})
    (finding,) = [f for f in r.findings if f.code == "cache-env-static-memory-conflict"]
    assert finding.severity == "warning"
    alone = resolve(None, {"GE_USE_STATIC_MEMORY": "1"}, {})
    assert "cache-env-static-memory-legacy" in codes(alone)


def test_profile_supplies_framework_and_choices():
    profile = Profile(framework="atc", options={"op_compiler_cache_mode": "enable"})
    r = resolve_settings(ini=None, environ={"HOME": "/h"}, profile=profile)
    assert r.framework == "atc"
    assert r.effective["op_compiler_cache_mode"].source == "profile"


def test_version_lines_compared_with_the_installed_cann():
    r = resolve(INI_OK, installed_versions={"adk_version": "9.0.0", "ops_version": "8.5.0"},
                soc_version="Ascend910B3")
    (finding,) = [f for f in r.findings if f.code == "cache-ini-version-differs"]
    assert finding.line == 2 and "/h/atc_data/kernel_cache/Ascend910B3" in finding.message("en")


def test_effective_covers_the_four_cache_options_in_catalog_order():
    r = resolve(None)
    assert list(r.effective) == ["op_compiler_cache_mode", "op_compiler_cache_dir", "max_op_cache_size",
                                 "remain_cache_size_ratio"]


def test_unknown_framework_is_refused():
    with pytest.raises(ValueError, match="unknown framework"):
        resolve_settings(ini=None, environ={}, framework="mxnet")


# -- properties ---------------------------------------------------------------------------------

_values = st.one_of(st.text(max_size=12), st.sampled_from(["500", "-1", "0", "101", "abc", " 7 ", "2147483647",
                                                           "enable", "Enable", "~/c", "/c d", ""]))
_env_names = st.sampled_from(["ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO", "ASCEND_CACHE_PATH",
                              "ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR", "ASCEND_WORK_PATH",
                              "GE_USE_STATIC_MEMORY", "HOME"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=200).filter(lambda b: b"\x00" not in b),
       st.dictionaries(_env_names, _values.filter(lambda v: "\x00" not in v), max_size=6),
       st.sampled_from([None, "tf1", "tf2", "pytorch", "atc", "ge", "acl"]))
def test_any_ini_and_environment_resolve_without_crashing(data, env, framework):
    r = resolve_settings(ini=parse_op_cache_ini(data, "fuzz.ini"), environ=env, framework=framework)
    assert {"max_op_cache_size", "remain_cache_size_ratio", "op_compiler_cache_mode",
            "op_compiler_cache_dir"} <= set(r.effective)
    for eff in r.effective.values():
        assert eff.source in ("op_cache.ini", "env", "default", "profile")
    assert r.effective["max_op_cache_size"].value == -1 or r.effective["max_op_cache_size"].value >= 1
    assert 0 <= r.effective["remain_cache_size_ratio"].value <= 100
    for finding in r.findings:
        assert finding.message("en") and finding.message("zh_CN")


# -- GE_USE_STATIC_MEMORY: what GE runs with (the union of the two) ------------------------------


@pytest.mark.parametrize("env, option, merged", [
    ("1", None, 2), ("2", None, 2), ("3", None, 3), ("4", None, 4), ("0", None, 0),
    ("3", 2, 4), ("2", 3, 4), ("1", 2, None), ("2", 4, None), ("3", 3, None),
])
def test_ge_use_static_memory_is_merged_as_ge_does(env, option, merged):
    from cann_config.app.opcache.resolution import EnvOrigin

    settings = {} if option is None else {"static_memory_policy": Setting(option, "train.py", 9)}
    r = resolve_settings(ini=None, environ={"HOME": "/h", "GE_USE_STATIC_MEMORY": env}, settings=settings,
                         env_origins={"GE_USE_STATIC_MEMORY": EnvOrigin("train.py", 3)})
    eff = r.effective.get("static_memory_policy")
    if merged is None:
        # The option alone decides (or nothing is expanded): no merged value in its place.
        assert eff is None if option is None else (eff.value, eff.source, eff.line) == (option, "profile", 9)
    else:
        assert (eff.value, eff.source, eff.file, eff.line, eff.variable) == (
            merged, "env", "train.py", 3, "GE_USE_STATIC_MEMORY")
        assert "GE merges" in eff.to_json("en")["detail"] and "GE 源码" in eff.to_json("zh_CN")["detail"]
    if option is not None:
        conflict = next(f for f in r.findings if f.code == "cache-env-static-memory-conflict")
        assert "must not be combined" in conflict.message("en") and "merges" in conflict.message("en")


def test_ge_use_static_memory_is_not_merged_for_torch_npu():
    r = resolve_settings(ini=None, environ={"HOME": "/h", "GE_USE_STATIC_MEMORY": "1"}, framework="pytorch")
    assert "static_memory_policy" not in r.effective
    assert "cache-env-static-memory-legacy" in codes(r)


# -- values known only at run time ------------------------------------------------------------


def test_run_time_values_are_never_replaced_by_a_default():
    from cann_config.app.opcache.resolution import EnvOrigin

    def runtime(line, variable=None, over_env=True):
        return Setting(None, "train.py", line, variable, over_env, True, "args.x")

    r = resolve_settings(ini=None, environ={"HOME": "/h", "ASCEND_MAX_OP_CACHE_SIZE": "700"}, settings={
        "op_compiler_cache_mode": runtime(2), "op_compiler_cache_dir": runtime(3, "ASCEND_CACHE_PATH"),
        "max_op_cache_size": runtime(4, "ASCEND_MAX_OP_CACHE_SIZE"), "static_memory_policy": runtime(5)},
        env_origins={"GE_USE_STATIC_MEMORY": EnvOrigin("train.py", 6, True, "flags.mem")})
    for oid, line in (("op_compiler_cache_mode", 2), ("op_compiler_cache_dir", 3), ("max_op_cache_size", 4),
                      ("static_memory_policy", 5)):
        eff = r.effective[oid]
        assert (eff.value, eff.source, eff.file, eff.line, eff.runtime) == (None, "script", "train.py", line, True)
        assert eff.to_json("en")["runtime"] is True and eff.to_json("en")["value"] is None
        assert "known only at run time" in eff.to_json("en")["detail"]
        assert "运行时" in eff.to_json("zh_CN")["detail"]
    assert r.effective["remain_cache_size_ratio"].source == "default"  # not set by anything
    assert not r.cache_dir.known and r.cache_dir.value == "${ASCEND_CACHE_PATH}"
    assert "cache-dir-runtime" in codes(r)
    assert "atc_data" not in str(r.cache_dir.ini_path)


def test_a_run_time_policy_merged_with_a_known_variable_is_still_run_time():
    from cann_config.app.opcache.resolution import EnvOrigin

    r = resolve_settings(ini=None, environ={"HOME": "/h", "GE_USE_STATIC_MEMORY": "2"},
                         settings={"static_memory_policy": Setting(None, "t.py", 4, None, False, True, "a.p")},
                         env_origins={"GE_USE_STATIC_MEMORY": EnvOrigin("t.py", 2)})
    assert r.effective["static_memory_policy"].runtime
    # ... unless the union is 4 whatever the other value is.
    r = resolve_settings(ini=None, environ={"HOME": "/h", "GE_USE_STATIC_MEMORY": "4"},
                         settings={"static_memory_policy": Setting(None, "t.py", 4, None, False, True, "a.p")})
    assert r.effective["static_memory_policy"].value == 4


def test_the_script_sets_torch_npu_variables_after_the_shell():
    # set_option / the script's own os.environ beat the shell's ACL_* variables (docs/cann/torch-npu.md).
    env = {"HOME": "/h", "ACL_OP_COMPILER_CACHE_MODE": "enable", "ACL_OP_COMPILER_CACHE_DIR": "/shell"}
    r = resolve_settings(ini=None, environ=env, framework="pytorch", settings={
        "op_compiler_cache_mode": Setting("disable", "t.py", 3, "ACL_OP_COMPILER_CACHE_MODE", True),
        "op_compiler_cache_dir": Setting("/script", "t.py", 3, "ACL_OP_COMPILER_CACHE_DIR", True)})
    assert r.effective["op_compiler_cache_mode"].value == "disable"
    assert r.effective["op_compiler_cache_dir"].value == "/script"
    assert codes(r).count("cache-env-overridden-by-profile") == 2
    # A script's ASCEND_CACHE_PATH does not beat torch_npu's own variable from the shell.
    r = resolve_settings(ini=None, environ=env, framework="pytorch", settings={
        "op_compiler_cache_dir": Setting("/generic", "t.py", 3, "ASCEND_CACHE_PATH", True)})
    assert r.effective["op_compiler_cache_dir"].value == "/shell"
