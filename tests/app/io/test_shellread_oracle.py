"""bash as the oracle for app/io/shellread.py beyond straight-line files (issue 25): generated
launch scripts with run-time branches, default-if-unset, unsets and prefixes onto the launcher,
checked by tests/bashoracle.py (each condition forced both ways; each default with and without
the inherited value; each prefix as the launched command sees it). The corpus and the fixtures
are checked the same way in test_shellread_corpus.py; straight-line files in test_envfile.py."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cann_config.app.io.envfile import EnvFile, parse_env_text
from tests.bashoracle import BASH, check_file

pytestmark = pytest.mark.skipif(BASH is None, reason="bash is not installed")

NAMES = ["A", "B", "C"]
_value = st.sampled_from(["1", "x", "a b", "", "/data/c", "expandable_segments:True"]).map(lambda v: f'"{v}"')
_source = st.sampled_from(["A", "B", "Y", "Z", "1"])  # "1": a positional parameter, not the environment
_rhs = st.one_of(
    _value,
    st.sampled_from(NAMES).map(lambda n: f'"${{{n}}}"'),
    st.tuples(_source, st.sampled_from([":-", "-"]), _value).map(lambda t: f'"${{{t[0]}{t[1]}{t[2][1:-1]}}}"'),
    st.tuples(_source, _value).map(lambda t: f'"${{{t[0]}:-{t[1][1:-1]}}}/x"'),
)
_simple = st.one_of(
    st.tuples(st.sampled_from(["", "export "]), st.sampled_from(NAMES), _rhs).map(lambda t: f"{t[0]}{t[1]}={t[2]}"),
    st.tuples(st.sampled_from(NAMES), _value).map(lambda t: f": ${{{t[0]}:={t[1][1:-1]}}}"),
    st.sampled_from(NAMES).map(lambda n: f"unset {n}"),
    st.sampled_from(NAMES).map(lambda n: f"export {n}"),
)
_condition = st.sampled_from(['[ -n "$Y" ]', '[ "$A" = 1 ]', "[ -d /nonexistent-oracle ]", "[ -z \"${Z-}\" ]"])
_line = st.one_of(
    _simple,
    st.tuples(_condition, _simple).map(lambda t: f"if {t[0]}; then\n  {t[1]}\nfi"),
    st.tuples(_condition, _simple, _simple).map(lambda t: f"if {t[0]}; then\n  {t[1]}\nelse\n  {t[2]}\nfi"),
    st.tuples(_condition, st.sampled_from(["&&", "||"]), _simple).map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
    st.tuples(st.sampled_from(NAMES), _value, st.sampled_from(["torchrun t.py", "python -m x", "echo hi"])).map(
        lambda t: f"{t[0]}={t[1]} {t[2]}"),
    st.tuples(_simple, _simple).map(lambda t: f'case "${{Y-}}" in\n  a) {t[0]};;\n  *) {t[1]};;\nesac'),
    st.tuples(_simple, _simple).map(lambda t: f"setup() {{\n  {t[0]}\n  local B=9\n  {t[1]}\n}}\nsetup"),
    st.sampled_from(["set -a", "set +a", "set -o allexport"]),
    st.tuples(_simple).map(lambda t: f"for i in 1 2; do\n  {t[0]}\ndone"),
    st.tuples(_simple).map(lambda t: f"while false; do {t[0]}; done"),
    st.tuples(st.sampled_from(NAMES), st.sampled_from(["$(echo x)", "`date`", "$((1+2))", "~/x", "${A}${B}"])).map(
        lambda t: f"export {t[0]}={t[1]}"),
    st.tuples(st.sampled_from(NAMES), _value).map(lambda t: f"{t[0]}+={t[1]}"),
    st.tuples(st.sampled_from(NAMES), _value).map(lambda t: f"(export {t[0]}={t[1]})"),
    st.tuples(st.sampled_from(NAMES), _value).map(lambda t: f"{{ export {t[0]}={t[1]}; }}"),
    st.tuples(st.sampled_from(["declare -x", "readonly", "typeset -x"]), st.sampled_from(NAMES), _value).map(
        lambda t: f"{t[0]} {t[1]}={t[2]}"),
    st.tuples(_condition, _simple, _simple).map(
        lambda t: f"if {t[0]}; then\n  if [ -n \"$Z\" ]; then {t[1]}; fi\nelif [ -z \"$A\" ]; then\n  {t[2]}\nfi"),
)


def oracle(text: str) -> list[str]:
    with tempfile.TemporaryDirectory(prefix="shellread_oracle_") as tmp:
        path = Path(tmp) / "run.sh"
        path.write_text(text, encoding="utf-8")

        def read(content: str, base: dict[str, str]) -> EnvFile:
            return parse_env_text(content, str(path), base)

        return check_file(path, read)


@settings(max_examples=int(__import__("os").environ.get("ORACLE_EXAMPLES", 80)), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_line, min_size=1, max_size=6))
def test_generated_launch_scripts_agree_with_bash(lines):
    text = "\n".join(lines) + "\n"
    assert oracle(text) == [], text


@pytest.mark.parametrize("text", [
    'if [ -n "$Y" ]; then export A=1; else export A=2; fi\n',
    '[ "$A" = 1 ] && export B=x || export B=y\n',
    "export A=${Y:-5}\nexport B=\"${Z-d}/x\"\n: ${C:=7}\n",
    "export A=${1:-5}\n",  # the script's first argument, never an environment variable named 1
    'if [ -n "$Y" ]; then export A; else unset A; fi\n',  # untouched on one way, unset on the other
    "export A=1\nunset A=1 B\n",  # `unset A=1`: not a valid identifier, nothing unset
    "B=2 A=1 torchrun --nproc_per_node 8 t.py\n",
    # a readonly B: `B="1"` abandons the call (bash never reaches `export B`); the builtins fail alone
    'readonly B="1"\nsetup() {\n  B="1"\n  local B=9\n  export B\n}\nsetup\n',
    'readonly B="1"\nsetup() {\n  local B=9\n  export B\n}\nsetup\n',  # no local B: the script's B exported
    'readonly B=1\n{ B=2; export A=1; }; export C=1\nexport D=2\n',  # the whole line abandoned
    'readonly B=1\nB=2; export A=1\nexport D=2\n',
    'readonly B=1\n(B=2; export A=1); export C=1\n',  # a subshell just ends
    'readonly B=""\n: ${B:=z}; export A=1\nexport C=1\n',
    'readonly B=1\nif [ -n "$Y" ]; then B=2; else B=3; fi; export A=1\nexport C=1\n',
])
def test_the_cases_the_corpus_found_agree_with_bash(text):
    assert oracle(text) == []


def test_the_oracle_catches_a_reader_that_is_wrong():
    """A reader that takes the first branch as plain, the default as plain, or forgets an unset is
    caught: the oracle is not a rubber stamp."""
    with tempfile.TemporaryDirectory(prefix="shellread_oracle_") as tmp:
        path = Path(tmp) / "run.sh"
        path.write_text('if [ -n "$Y" ]; then export A=1; else export A=2; fi\nexport B=${Z:-5}\n'
                        "export C=3\nunset C\n", encoding="utf-8")

        def wrong(content: str, base: dict[str, str]) -> EnvFile:
            env = parse_env_text(content, str(path), base)
            env.runtime.pop("A", None)
            env.values["A"] = "1"  # the then-branch, as if it always ran
            if "B" in env.inherited:
                env.values["B"] = "6"  # a default that bash never gives
            env.unset.discard("C")
            env.values["C"] = "3"  # the unset forgotten
            return env

        problems = check_file(path, wrong)
    assert any(p.startswith("A:") for p in problems)
    assert any(p.startswith("B:") for p in problems)
    assert any(p.startswith("C:") for p in problems)
