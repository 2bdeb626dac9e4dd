"""Launch scripts read the way bash runs them (issue 25): each rule of app/io/shellread.py through
`parse_env_text`, and the whole chain through `cann-config diagnose --env-file ... --json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cann_config.app.cli import main
from cann_config.app.io.envfile import load_env_file, parse_env_text

SHELL = Path(__file__).resolve().parents[2] / "data" / "shell"


def codes(env):
    return sorted(f.code for f in env.findings)


def test_default_if_unset_is_its_own_state():
    env = parse_env_text('export PYTORCH_NPU_ALLOC_CONF="${PYTORCH_NPU_ALLOC_CONF:-expandable_segments:True}"\n'
                         "export ASCEND_MAX_OP_CACHE_SIZE=${CACHE:-1000}\n: ${ASCEND_REMAIN_CACHE_SIZE_RATIO:=60}\n",
                         "run.sh")
    assert env.values == {"PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True", "ASCEND_MAX_OP_CACHE_SIZE": "1000",
                          "ASCEND_REMAIN_CACHE_SIZE_RATIO": "60"}
    assert env.inherited == {"PYTORCH_NPU_ALLOC_CONF": "PYTORCH_NPU_ALLOC_CONF", "ASCEND_MAX_OP_CACHE_SIZE": "CACHE",
                             "ASCEND_REMAIN_CACHE_SIZE_RATIO": "ASCEND_REMAIN_CACHE_SIZE_RATIO"}
    assert codes(env).count("shell-default-if-unset") == 3
    # With the launching environment known, its value is taken, plainly.
    known = parse_env_text("export ASCEND_MAX_OP_CACHE_SIZE=${CACHE:-1000}\n", "run.sh", base={"CACHE": "7"})
    assert known.values == {"ASCEND_MAX_OP_CACHE_SIZE": "7"} and known.inherited == {}


def test_a_prefix_onto_the_launcher_is_the_jobs_setting():
    text = ("PYTORCH_NPU_ALLOC_CONF='expandable_segments:True' \\\nASCEND_MAX_OP_CACHE_SIZE=800 \\\n"
            "  nohup accelerate launch --num_processes 8 train.py > log 2>&1 &\n"
            "ASCEND_CACHE_PATH=/x echo started\n")
    env = parse_env_text(text, "run.sh")
    assert env.values == {"PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True", "ASCEND_MAX_OP_CACHE_SIZE": "800"}
    assert env.launcher == {"PYTORCH_NPU_ALLOC_CONF": "accelerate", "ASCEND_MAX_OP_CACHE_SIZE": "accelerate"}
    assert [(f.code, f.line) for f in env.findings if f.code == "cache-envfile-command-prefix"] == [
        ("cache-envfile-command-prefix", 4)]
    for launcher in ("python -m x", "torchrun --nproc_per_node 8 t.py", "deepspeed t.py", "msrun t.py",
                     "mpirun -n 8 python t.py", "bash train.sh", "env python3.10 t.py", "numactl -C 0-7 python t.py"):
        assert parse_env_text(f"ASCEND_MAX_OP_CACHE_SIZE=9 {launcher}\n", "r.sh").values == {
            "ASCEND_MAX_OP_CACHE_SIZE": "9"}, launcher


@pytest.mark.parametrize("text", [
    'if [ "$A3" = 1 ]; then export ASCEND_MAX_OP_CACHE_SIZE=2000; fi\n',
    'if [ "$A3" = 1 ]; then export ASCEND_MAX_OP_CACHE_SIZE=2000; else export ASCEND_MAX_OP_CACHE_SIZE=800; fi\n',
    "case $DEVICE in a3) ASCEND_MAX_OP_CACHE_SIZE=2000;; *) ASCEND_MAX_OP_CACHE_SIZE=800;; esac\n",
    "[ -d /data ] && export ASCEND_MAX_OP_CACHE_SIZE=2000\n",
    "test -n \"$X\" || export ASCEND_MAX_OP_CACHE_SIZE=2000\n",
    "for i in 1 2; do export ASCEND_MAX_OP_CACHE_SIZE=2000; done\n",
])
def test_run_time_branches_are_conditional(text):
    env = parse_env_text(text, "run.sh")
    assert "ASCEND_MAX_OP_CACHE_SIZE" not in env.values
    branches = env.runtime["ASCEND_MAX_OP_CACHE_SIZE"].branches
    assert "2000" in [v for _, v in branches] and len(branches) >= 2
    assert codes(env) == ["shell-conditional-value"]


def test_the_same_value_on_every_branch_is_plain_and_a_later_line_wins():
    env = parse_env_text("if [ -n \"$X\" ]; then A=1; else A=1; fi\nif [ -n \"$X\" ]; then B=1; fi\nexport B=2\n", "r.sh")
    assert env.values == {"A": "1", "B": "2"} and env.runtime == {}


def test_a_bash_valid_line_never_hides_the_rest():
    text = 'x="a=b"\n[[ $x =~ ^a ]] && x=${x#*"${BASH_REMATCH[0]}"}\nexport ASCEND_MAX_OP_CACHE_SIZE=1000\n'
    env = parse_env_text(text, "run.sh")
    assert env.values["ASCEND_MAX_OP_CACHE_SIZE"] == "1000"
    assert not [f for f in env.findings if f.code == "shell-unreadable-line"]
    broken = parse_env_text("export A=1\nif then fi ((\nexport ASCEND_MAX_OP_CACHE_SIZE=1000\n", "run.sh")
    assert broken.values["ASCEND_MAX_OP_CACHE_SIZE"] == "1000"
    assert [(f.code, f.line) for f in broken.findings if f.code == "shell-unreadable-line"] == [
        ("shell-unreadable-line", 2)]


def test_eval_bash_c_and_heredocs_get_findings_never_values():
    text = ('eval "export ASCEND_CACHE_PATH=/x"\nbash -c "export ACL_OP_COMPILER_CACHE_MODE=disable; python t.py"\n'
            "cat > e.env <<EOF\nASCEND_MAX_OP_CACHE_SIZE=1\nEOF\npython - <<'PY'\nimport os\nPY\n")
    env = parse_env_text(text, "run.sh")
    assert env.values == {}
    assert [(f.code, f.line) for f in env.findings] == [
        ("shell-eval-variable", 1), ("shell-eval-variable", 2), ("shell-heredoc-variable", 3)]
    assert "ASCEND_CACHE_PATH" in env.findings[0].message("en")


def test_dollar_text_is_unknown_everywhere(capsys):
    env = parse_env_text("export ASCEND_CACHE_PATH=$A/$B\nexport ASCEND_MAX_OP_CACHE_SIZE=$(cat /etc/size)\n", "r.sh")
    assert env.values == {} and set(env.runtime) == {"ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE"}


def test_source_is_read_beside_the_script_or_reported(tmp_path):
    (tmp_path / "env").mkdir()
    (tmp_path / "env" / "cache.sh").write_text("export ASCEND_MAX_OP_CACHE_SIZE=700\n", encoding="utf-8")
    script = tmp_path / "run.sh"
    script.write_text('DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)\nsource "$DIR/env/cache.sh"\n'
                      ". ./missing.sh\nsource $UNKNOWN/x.sh\nsource /usr/local/Ascend/cann/set_env.sh\n",
                      encoding="utf-8")
    env = load_env_file(script)
    assert env.values == {"ASCEND_MAX_OP_CACHE_SIZE": "700"}
    assert env.files["ASCEND_MAX_OP_CACHE_SIZE"] == str(tmp_path / "env" / "cache.sh")
    assert env.lines["ASCEND_MAX_OP_CACHE_SIZE"] == 1
    found = [(f.code, f.line) for f in env.findings if f.code.startswith("shell-source")]
    assert found == [("shell-source-read", 2), ("shell-source-missing", 3), ("shell-source-unknown", 4),
                     ("shell-source-set-env", 5)]
    loop = tmp_path / "loop.sh"
    loop.write_text(". ./loop.sh\nexport A=1\n", encoding="utf-8")
    assert load_env_file(loop).values == {"A": "1"}  # a file that sources itself ends, with a finding


def test_set_a_exports_and_functions_run_where_called():
    env = parse_env_text("set -a\nASCEND_MAX_OP_CACHE_SIZE=1\nset +a\nASCEND_REMAIN_CACHE_SIZE_RATIO=2\n"
                         "setup() {\n  export ACL_OP_COMPILER_CACHE_MODE=disable\n  local X=1\n}\n"
                         "unused() { export ASCEND_CACHE_PATH=/never; }\nsetup\n", "r.sh")
    assert env.values == {"ASCEND_MAX_OP_CACHE_SIZE": "1", "ASCEND_REMAIN_CACHE_SIZE_RATIO": "2",
                          "ACL_OP_COMPILER_CACHE_MODE": "disable"}
    assert env.exported == {"ASCEND_MAX_OP_CACHE_SIZE", "ACL_OP_COMPILER_CACHE_MODE"}
    assert codes(env) == ["cache-envfile-not-exported"]


def test_subshells_and_pipelines_leave_nothing():
    env = parse_env_text("(export A=1)\necho x | B=2 read y\n{ C=3; }\n", "r.sh")
    assert env.values == {"C": "3"}


def run_json(capsys, *args):
    code = main(["diagnose", "--json", *args])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_diagnose_json_carries_the_states(capsys):
    _, data = run_json(capsys, "--env-file", str(SHELL / "issue_cases.sh"))
    eff = data["effective"]
    for oid in ("npu_alloc_expandable_segments", "npu_alloc_max_split_size_mb", "npu_alloc_page_size"):
        assert eff[oid]["inherited"] is True and eff[oid]["inherited_from"] == "PYTORCH_NPU_ALLOC_CONF", oid
    assert eff["npu_alloc_expandable_segments"]["value"] is True
    ratio = eff["remain_cache_size_ratio"]
    assert ratio["value"] is None and ratio["runtime"] is True and ratio["source"] == "env" and ratio["line"] == 8
    assert eff["max_op_cache_size"] == {**eff["max_op_cache_size"], "value": 1000, "line": 12}
    assert "inherited" not in eff["max_op_cache_size"]
    mode = eff["op_compiler_cache_mode"]
    assert (mode["value"], mode["line"], mode["source"]) == ("enable", 18, "env")  # the prefix onto accelerate
    found = {(f["code"], f["line"]) for f in data["findings"]}
    assert {("shell-eval-variable", 13), ("shell-heredoc-variable", 14), ("shell-source-read", 5),
            ("shell-source-set-env", 4)} <= found


def test_a_cache_dir_known_only_at_run_time_is_not_known(capsys, tmp_path):
    script = tmp_path / "run.sh"
    script.write_text("export ASCEND_CACHE_PATH=$A/$B\nexport ASCEND_MAX_OP_CACHE_SIZE=${CACHE:-1000}\n",
                      encoding="utf-8")
    _, data = run_json(capsys, "--env-file", str(script))
    assert data["cache_dir"]["known"] is False
    assert data["effective"]["op_compiler_cache_dir"]["runtime"] is True
    size = data["effective"]["max_op_cache_size"]
    assert (size["value"], size["inherited"], size["inherited_from"]) == (1000, True, "CACHE")
    main(["diagnose", "--env-file", str(script), "--lang", "en"])
    text = capsys.readouterr().out
    assert "1000 MB (unless the launching environment sets CACHE)" in text


def test_non_ascii_that_crashed_the_bash_grammar_is_read_in_a_live_process(tmp_path):
    """tree-sitter-bash 0.25.1 segfaulted on this text; a child process shows a crash as a signal."""
    import subprocess
    import sys

    env_file = tmp_path / "odd.env"
    env_file.write_text("{\U000771a8k\U000d6963\nexport ASCEND_CACHE_PATH=/data/缓存\U0001f600\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "cann_config.app", "diagnose", "--env-file", str(env_file),
                           "--json", "--lang", "en"], capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    import json

    data = json.loads(done.stdout)
    assert data["effective"]["op_compiler_cache_dir"]["value"] == "/data/缓存\U0001f600"


def test_what_the_corpus_found():
    """Cases the launch-script corpus (tests/data/shell/corpus/) showed read wrong, as bash reads them."""
    # `unset A=1` is "not a valid identifier" to bash: nothing is unset, no odd name is listed
    env = parse_env_text("export A=1\nunset ATB_LOG_TO_FILE=1 B\n", "r.sh")
    assert env.values == {"A": "1"} and env.unset == {"B"}
    # `${1:-d}` is the script's first argument, not a variable of the launching environment
    env = parse_env_text("export ASCEND_MAX_OP_CACHE_SIZE=${1:-1000}\nexport B=${X:-$(cat f)}\n", "r.sh")
    assert env.runtime["ASCEND_MAX_OP_CACHE_SIZE"].expression == "${1:-1000}" and env.inherited == {}
    assert env.runtime["B"].expression == "${X:-$(cat f)}"
    # left alone on one way (the launching environment's value), unset on the other: not "unset"
    env = parse_env_text('if [ "$V" = 2.0 ]; then export X; else unset X; fi\n', "r.sh")
    assert env.unset == set() and env.runtime["X"].branches == (('[ "$V" = 2.0 ]', None), ("otherwise", None))
    # `${A:=d}` after a branch is taken on each way: one value on both is plain
    env = parse_env_text('A=1\nif [ -n "$Y" ]; then A=""; fi\n: ${A:=1}\nB=${A:-2}\n', "r.sh")
    assert env.values["A"] == "1" and env.values["B"] == "1" and "A" not in env.runtime
    # a prefix onto the launcher is the job's; the shell after it does not hold it
    env = parse_env_text("B=1 torchrun t.py\nC=${B:-none}\n", "r.sh")
    assert env.values == {"B": "1", "C": "none"} and env.launcher == {"B": "torchrun"} and env.inherited == {"C": "B"}
    # ... and does not export it in the shell: a later plain assignment is not exported
    env = parse_env_text("ASCEND_CACHE_PATH=/a torchrun t.py\nASCEND_CACHE_PATH=/b\n", "r.sh")
    assert env.values == {"ASCEND_CACHE_PATH": "/b"} and env.exported == set()
    assert "cache-envfile-not-exported" in codes(env)
    job = parse_env_text("ASCEND_CACHE_PATH=/a torchrun t.py\n", "r.sh")
    assert job.exported == {"ASCEND_CACHE_PATH"}  # the job's environment has it


def test_what_generated_scripts_found():
    """Cases the bash oracle (tests/app/io/test_shellread_oracle.py) showed read wrong."""
    # a function's `local` variable and what the function assigns to it never reach the script
    env = parse_env_text("setup() {\n  local B=9\n  B=1\n  export C=$B\n}\nsetup\n", "r.sh")
    assert env.values == {"C": "1"}
    # bash refuses to assign or unset a readonly variable (and goes on)
    env = parse_env_text("readonly A=1\nA=2\nunset A\nexport A=3\ndeclare -x B=1\n", "r.sh")
    assert env.values == {"A": "1", "B": "1"} and env.exported == {"A", "B"}
    # an `elif` condition is a condition (tree-sitter-bash gives it no field), not a statement of the arm
    env = parse_env_text('if [ -n "$Y" ]; then A=1\nelif [ -z "$Z" ]; then A=2\nfi\n', "r.sh")
    assert env.runtime["A"].branches == (('[ -n "$Y" ]', "1"), ('[ -z "$Z" ]', "2"), ("otherwise", None))
    # a `for` loop's variable keeps its last word; what a second turn changes depends on the turns
    env = parse_env_text('A=1\nfor i in 1 2; do\n  A="$A/x"\n  export B=$i\ndone\n', "r.sh")
    assert env.runtime["i"].branches == (("for i in 1 2; do runs", "2"), ("the loop does not run", None))
    assert env.runtime["A"].branches == (("for i in 1 2; do runs", None), ("the loop does not run", "1"))
    assert env.runtime["B"].branches == (("for i in 1 2; do runs", None), ("the loop does not run", None))
