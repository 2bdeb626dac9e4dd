"""Env files read as a POSIX shell would assign them, checked against bash itself where it exists."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cann_config.app.errors import InputError
from cann_config.app.io.envfile import load_env_file, parse_env_text

ENV_DIR = Path(__file__).resolve().parents[2] / "data" / "env"
BASH = shutil.which("bash")


def codes(env):
    return sorted(f.code for f in env.findings)


@pytest.mark.parametrize("text, expected", [
    ("export A=1", {"A": "1"}),
    ("A=1", {"A": "1"}),
    ('export A="x y"', {"A": "x y"}),
    ("export A='$HOME \"q\"'", {"A": '$HOME "q"'}),
    ("export A=a\\ b", {"A": "a b"}),
    ("export A=1 B=2", {"A": "1", "B": "2"}),
    ("A=1 B=2", {"A": "1", "B": "2"}),
    ("export A=1; export B=$A/x", {"A": "1", "B": "1/x"}),
    ('export A=1\nexport B="${A}0"', {"A": "1", "B": "10"}),
    ("export A=${UNSET:-5}", {"A": "5"}),
    ("export A=1\nexport B=${A:+set}", {"A": "1", "B": "set"}),
    ("export A=1 # MB", {"A": "1"}),
    ("export A=x#y", {"A": "x#y"}),
    ("export A=a\\\nb", {"A": "ab"}),
    ('export A="line1\nline2"\nexport B=2', {"A": "line1\nline2", "B": "2"}),
    ("export A=$'a\\tb'", {"A": "a\tb"}),
    ('export A="a\\"b\\$c"', {"A": 'a"b$c'}),
    ("declare -x A=1", {"A": "1"}),
    ("readonly A=1", {"A": "1"}),
    ('export "A=1"', {"A": "1"}),
    ("export A=1\nunset A", {}),
    ("export A=1\nexport A=2", {"A": "2"}),
    ("", {}),
    ("# only a comment", {}),
])
def test_values_as_a_shell_assigns_them(text, expected):
    assert parse_env_text(text, "t.env").values == expected


def test_lines_and_exports_are_recorded():
    env = parse_env_text("# c\nexport ASCEND_CACHE_PATH=/c\nASCEND_MAX_OP_CACHE_SIZE=800\nexport X=1\n", "t.env")
    assert env.lines == {"ASCEND_CACHE_PATH": 2, "ASCEND_MAX_OP_CACHE_SIZE": 3, "X": 4}
    assert env.exported == {"ASCEND_CACHE_PATH", "X"}
    (finding,) = env.findings
    assert (finding.code, finding.line) == ("cache-envfile-not-exported", 3)
    # Exported later by name: no finding.
    later = parse_env_text("ASCEND_MAX_OP_CACHE_SIZE=800\nexport ASCEND_MAX_OP_CACHE_SIZE\n", "t.env")
    assert later.exported == {"ASCEND_MAX_OP_CACHE_SIZE"} and later.findings == []
    # Variables CANN does not read are not worth a finding.
    assert parse_env_text("FOO=1\n", "t.env").findings == []


def test_unknown_references_are_known_only_at_run_time():
    env = parse_env_text("export ASCEND_CACHE_PATH=$HOME/cache\n", "t.env")
    assert "ASCEND_CACHE_PATH" not in env.values
    assert env.runtime["ASCEND_CACHE_PATH"].expression == "$HOME/cache"
    assert codes(env) == ["shell-runtime-value"]
    based = parse_env_text("export ASCEND_CACHE_PATH=$HOME/cache\n", "t.env", base={"HOME": "/home/u"})
    assert based.values["ASCEND_CACHE_PATH"] == "/home/u/cache" and based.findings == []


def test_nothing_is_ever_executed():
    env = parse_env_text("export ASCEND_MAX_OP_CACHE_SIZE=$(rm -rf /tmp/x)\nexport B=`id`\n", "t.env")
    assert env.values == {}
    assert {n: r.expression for n, r in env.runtime.items()} == {"ASCEND_MAX_OP_CACHE_SIZE": "$(rm -rf /tmp/x)",
                                                                  "B": "`id`"}
    assert codes(env) == ["cache-envfile-command-substitution"] * 2 + ["shell-runtime-value"]


def test_a_command_prefix_is_the_commands_and_the_job_is_the_launchers():
    env = parse_env_text("ASCEND_CACHE_PATH=/x echo hi\nif [ -d /x ]; then :\nfi\necho hi | cat\n", "t.env")
    assert env.values == {}
    assert codes(env) == ["cache-envfile-command-prefix"]
    job = parse_env_text("ASCEND_CACHE_PATH=/x python train.py\n", "t.env")
    assert job.values == {"ASCEND_CACHE_PATH": "/x"} and job.launcher == {"ASCEND_CACHE_PATH": "python"}
    assert codes(job) == ["shell-launcher-prefix"]


def test_an_unreadable_line_is_skipped_and_the_rest_is_read():
    env = parse_env_text('export A=1\nexport B="open\nexport C=3\n', "t.env")
    assert env.values == {"A": "1", "C": "3"}
    (finding,) = env.findings
    assert (finding.code, finding.line) == ("shell-unreadable-line", 2)


def test_reassignment_is_reported_with_both_lines():
    env = parse_env_text("export ASCEND_MAX_OP_CACHE_SIZE=800\nexport ASCEND_MAX_OP_CACHE_SIZE=900\n", "t.env")
    (finding,) = env.findings
    assert finding.line == 2 and "line 1" in finding.message("en")


def test_golden_env_files():
    env = load_env_file(ENV_DIR / "cache.env")
    assert env.values == {"ASCEND_CACHE_PATH": "/data/ascend_cache", "ASCEND_MAX_OP_CACHE_SIZE": "2000",
                          "ASCEND_REMAIN_CACHE_SIZE_RATIO": "80", "ACL_OP_COMPILER_CACHE_MODE": "enable",
                          "ASCEND_WORK_PATH": "/tmp/work"}
    assert codes(env) == ["cache-envfile-not-exported"]
    crlf = load_env_file(ENV_DIR / "crlf.env")
    assert crlf.values == {"ASCEND_MAX_OP_CACHE_SIZE": "800\r", "ASCEND_CACHE_PATH": "/data/cache\r"}
    assert codes(crlf) == ["cache-envfile-crlf"]
    bom = load_env_file(ENV_DIR / "bom.env")
    assert bom.values == {"ASCEND_REMAIN_CACHE_SIZE_RATIO": "60"}  # the shell does not run line 1
    assert codes(bom) == ["cache-envfile-bom"]
    sh = load_env_file(ENV_DIR / "set_env_like.sh")
    assert sh.values["ASCEND_OPP_PATH"] == "/usr/local/Ascend/ascend-toolkit/latest/opp"
    assert sh.runtime["ASCEND_MAX_OP_CACHE_SIZE"].expression == "$(cat /etc/size)"
    assert sh.runtime["ASCEND_CACHE_PATH"].branches == (("[ -d /data ]", "/data/cache"), ("otherwise", None))
    assert {"shell-source-set-env", "shell-conditional-value", "cache-envfile-command-substitution"} <= set(codes(sh))


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("name", ["cache.env", "crlf.env", "bom.env"])
def test_golden_files_agree_with_bash(name):
    path = ENV_DIR / name
    env = load_env_file(path)
    text = path.read_bytes().decode("utf-8")  # not read_text: that would turn CRLF into LF
    assert env.values == _bash_values(text, sorted(env.values) + ["ASCEND_MAX_OP_CACHE_SIZE"])


def test_unusable_env_files(tmp_path):
    with pytest.raises(InputError, match="is a directory"):
        load_env_file(tmp_path)
    with pytest.raises(InputError, match="cannot read"):
        load_env_file(tmp_path / "missing.env")
    junk = tmp_path / "junk.env"
    junk.write_bytes(b"export A=1\n\x00\x01")
    with pytest.raises(InputError) as info:
        load_env_file(junk)
    assert info.value.line == 2


def test_invalid_utf8_is_read_with_a_finding(tmp_path):
    path = tmp_path / "gbk.env"
    path.write_bytes("# 缓存\n".encode("gbk") + b"export ASCEND_MAX_OP_CACHE_SIZE=800\n")
    env = load_env_file(path)
    assert env.values == {"ASCEND_MAX_OP_CACHE_SIZE": "800"}
    assert codes(env) == ["cache-envfile-invalid-utf8"]


# ---------------------------------------------------------------------------------------------
# Properties
# ---------------------------------------------------------------------------------------------


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_random_text_never_crashes(text):
    env = parse_env_text(text, "random.env")
    for finding in env.findings:
        assert finding.message("en") and finding.message("zh_CN")


def _bash_values(text: str, names: list[str], base: dict[str, str] | None = None) -> dict[str, str]:
    script = text + "\n" + "".join(
        f'if [ "${{{n}+x}}" = x ]; then printf "%s\\0%s\\0" {n} "${n}"; fi\n' for n in names)
    result = subprocess.run([BASH, "--norc", "--noprofile", "-c", script], capture_output=True, env=base or {},
                            timeout=30)
    parts = result.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]
    return dict(zip(parts[::2], parts[1::2], strict=True))


NAMES = ["A", "B", "C"]
_word_chars = st.text(alphabet="abc/._-:=", min_size=1, max_size=6)
_piece = st.one_of(
    _word_chars,
    _word_chars.map(lambda s: f"'{s} x'"),
    _word_chars.map(lambda s: f'"{s} x"'),
    st.sampled_from(NAMES).map(lambda n: f"${{{n}}}"),  # braces: a following letter must not join the name
    st.sampled_from(NAMES).map(lambda n: f'"${{{n}}}y"'),
    st.sampled_from(NAMES).map(lambda n: f"${{{n}:-d}}"),
    st.just("\\ "),
)
_line = st.one_of(
    st.tuples(st.sampled_from(["", "export "]), st.sampled_from(NAMES), st.lists(_piece, max_size=3),
              st.sampled_from(["", " # c", "; X=1"])).map(lambda t: f"{t[0]}{t[1]}={''.join(t[2])}{t[3]}"),
    st.sampled_from(["# comment", "", "unset A", "export B"]),
)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line, max_size=6))
def test_assignments_agree_with_bash(lines):
    text = "\n".join(lines) + "\n"
    base = {"A": "a0", "B": "b0 z", "C": ""}
    ours = parse_env_text(text, "gen.env", base=base).environ(base)
    assert ours == _bash_values(text, NAMES + ["X"], base)


def test_expansion_that_doubles_forty_times_stops_with_one_line():
    from cann_config.app.errors import InputError

    text = "export A=/x\n" + "export A=$A$A\n" * 40
    with pytest.raises(InputError, match=r"grow beyond 128 KiB") as info:
        parse_env_text(text, "job.env")
    assert str(info.value).startswith("job.env:18: ")  # line n expands to 2**n characters
    many = "export B=" + "x" * 1000 + "\nexport C=" + "$B" * 200 + "\n"  # 200 KB on one line
    with pytest.raises(InputError, match="grow beyond"):
        parse_env_text(many, "job.env")


def test_long_values_below_the_limit_are_kept():
    env = parse_env_text("export A=" + "x" * 60000 + "\nexport B=$A$A\n", "job.env")
    assert len(env.values["B"]) == 120000
