"""The environment a Python script leaves, checked against Python itself (issue 25 item 4/5).

The shell reader is checked against bash (tests/app/io/test_envfile.py); its Python twin is
checked against the interpreter: generated scripts that only touch os.environ (assignments,
setdefault, values read back with a default, removals, a run-time `if`, a function called under
`if __name__ == "__main__":`) run in a child `python -I -S` once per launching environment -
without and with each variable the script reads, with the run-time flag off and on - and the
reader's state of each variable (app/io/scripts.py EnvState) must give what the run left in
every one of them: a plain value in all, a default-if-unset the launching value when there is
one, a conditional the value of the way through the run took.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cann_config.app.io.scripts import UNKNOWN, EnvState, read_script

TWINS = Path(__file__).resolve().parents[2] / "data" / "scripts" / "twins"

# Runs each scenario's environment through the script in a fresh interpreter and prints what
# os.environ holds afterwards (the script only touches os.environ).
RUNNER = """\
import json, os, sys
job = json.load(sys.stdin)
code = compile(job["script"], "generated.py", "exec")
out = []
for scenario in job["scenarios"]:
    os.environ.clear()
    os.environ.update(scenario)
    exec(code, {"__name__": "__main__"})
    out.append(dict(os.environ))
print(json.dumps(out))
"""

NAMES = ("A", "B", "C")
FLAG_TEST = 'os.environ.get("FLAG") == "1"'
# a loop that runs once when the flag is on, never when it is off
LOOP = 'for _ in range(int(os.environ.get("FLAG", "0"))):'
LOOP_RUNS = 'for _ in range(int(os.environ.get("FLAG", "0"))) runs'


def run_python(script: str, scenarios: list[dict[str, str]]) -> list[dict[str, str]]:
    done = subprocess.run([sys.executable, "-I", "-S", "-c", RUNNER], input=json.dumps(
        {"script": script, "scenarios": scenarios}), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def states(script: str) -> dict[str, EnvState]:
    return read_script(ast.parse(script), script, "generated.py").env_state


SKIP = object()


def predicted(state: EnvState | None, name: str, scenario: dict[str, str]) -> object:
    """What the reader's state says `name` holds after the run under `scenario` (None: unset)."""
    launching = scenario.get(name)
    if state is None:
        return launching
    if state.unset:
        return None
    if state.branches:
        # every `if` tests the flag: a way through is "COND, otherwise, ..." (nested arms)
        on = scenario.get("FLAG") == "1"
        ways = [way for label, way in state.branches if all((part in (FLAG_TEST, LOOP_RUNS)) == on
                                                             for part in parts_of(label))]
        assert len(ways) == 1, state.branches
        return predicted(ways[0], name, scenario)
    if state.value is UNKNOWN:
        # allowed only where the ways through are too many to list
        assert state.expression.startswith("one of "), f"a run-time value in a script of literals: {state}"
        return SKIP
    if state.inherited:
        inherited = scenario.get(state.inherited)
        if inherited is not None and (inherited != "" or not state.empty_too):
            return inherited
    return state.value


def parts_of(label: str) -> list[str]:
    """The conditions of a nested way through ("COND, otherwise, ..."); they hold commas themselves."""
    known = (FLAG_TEST, LOOP_RUNS, "otherwise", "the loop does not run")
    parts = []
    while label:
        part = next((k for k in known if label.startswith(k)), None)
        assert part is not None, label
        parts.append(part)
        label = label[len(part):].removeprefix(", ")
    return parts


def scenarios_for(script: str) -> list[dict[str, str]]:
    """Every launching environment that matters: each variable unset or set, the flag off or on."""
    out = []
    for present in itertools.product((False, True), repeat=len(NAMES)):
        for flag in (False, True):
            scenario = {n: f"launch-{n}" for n, p in zip(NAMES, present, strict=True) if p}
            if flag:
                scenario["FLAG"] = "1"
            out.append(scenario)
    return out


def check(script: str) -> None:
    found = states(script)
    scenarios = scenarios_for(script)
    results = run_python(script, scenarios)
    for scenario, result in zip(scenarios, results, strict=True):
        for name in NAMES:
            expected = result.get(name)
            got = predicted(found.get(name), name, scenario)
            if got is SKIP:
                continue
            assert got == expected, (f"{name} under {scenario}: reader {got!r} ({found.get(name)}), "
                                     f"python {expected!r}\n{script}")


# -- generated scripts ---------------------------------------------------------------------------

values = st.sampled_from(["v1", "v2", "x:y,z", ""])
names = st.sampled_from(NAMES)


@st.composite
def statements(draw) -> str:
    name, other, value = draw(names), draw(names), draw(values)
    kind = draw(st.sampled_from(["assign", "setdefault", "get", "getenv", "or", "pop", "update", "copy"]))
    return {
        "assign": f'os.environ["{name}"] = "{value}"',
        "setdefault": f'os.environ.setdefault("{name}", "{value}")',
        "get": f'os.environ["{name}"] = os.environ.get("{other}", "{value}")',
        "getenv": f'os.environ["{name}"] = os.getenv("{other}", "{value}")',
        "or": f'os.environ["{name}"] = os.environ.get("{other}") or "{value}"',
        "pop": f'os.environ.pop("{name}", None)',
        "update": f'os.environ.update({{"{name}": "{value}"}})',
        "copy": f'x = os.environ.get("{other}", "{value}")\nos.environ["{name}"] = x',
    }[kind]


def indent(lines: list[str], by: str = "    ") -> list[str]:
    return [by + piece for line in lines for piece in line.split("\n")]


@st.composite
def scripts(draw) -> str:
    lines = ["import os"]
    function: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        shape = draw(st.sampled_from(["plain", "plain", "if", "if-else", "loop", "guard", "function"]))
        if shape == "plain":
            lines.append(draw(statements()))
        elif shape in ("if", "if-else"):
            lines.append(f"if {FLAG_TEST}:")
            lines += indent(draw(st.lists(statements(), min_size=1, max_size=3)))
            if shape == "if-else":
                lines.append("else:")
                lines += indent(draw(st.lists(statements(), min_size=1, max_size=3)))
        elif shape == "guard":
            # the twin of : ${X=d} / ${X:=d}: a default-if-unset
            name, value = draw(names), draw(values)
            test = draw(st.sampled_from([f'"{name}" not in os.environ', f'os.environ.get("{name}") is None',
                                         f'not os.environ.get("{name}")', f'not os.getenv("{name}")',
                                         f'not "{name}" in os.environ']))
            lines += [f"if {test}:", f'    os.environ["{name}"] = "{value}"']
        elif shape == "loop":
            lines.append(LOOP)
            lines += indent(draw(st.lists(statements(), min_size=1, max_size=2)))
        else:
            function = draw(st.lists(statements(), min_size=1, max_size=3))
            if draw(st.booleans()):
                # an early return: the rest of the function runs only with the flag off
                function.insert(draw(st.integers(0, len(function))), f"if {FLAG_TEST}:\n    return")
    if function:
        lines[1:1] = ["def setup():", *indent(function)]
        lines += ['if __name__ == "__main__":', "    setup()"]
    return "\n".join(lines) + "\n"


@settings(max_examples=int(os.environ.get("ORACLE_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scripts())
def test_generated_scripts_leave_what_python_leaves(script):
    check(script)


# -- hand-written cases ---------------------------------------------------------------------------


def test_the_straight_line_twin_fixture_agrees_with_python():
    check((TWINS / "defaults_only_os.py").read_text(encoding="utf-8"))


def test_a_default_read_back_from_a_variable_the_script_set_is_that_value():
    check(textwrap.dedent("""\
        import os
        os.environ["B"] = "v1"
        os.environ["A"] = os.environ.get("B", "v2")
        os.environ.pop("B", None)
        os.environ.setdefault("B", "v3")
        os.environ["C"] = os.environ.get("C") or "v4"
        """))


def test_a_branch_then_a_setdefault_agrees_with_python():
    check(textwrap.dedent(f"""\
        import os
        if {FLAG_TEST}:
            os.environ["A"] = "v1"
        os.environ.setdefault("A", "v2")
        os.environ.setdefault("B", "")
        os.environ["C"] = os.environ.get("B") or "v3"
        """))
