"""A value that differs by run-time branch is said in the reader's language, by the shell and the
Python reader alike (app/io/envbranches.py), and stays plain English text in JSON."""

from __future__ import annotations

import json
import pickle

from cann_config.app.cli import main
from cann_config.app.errors import Bilingual, Message
from cann_config.app.io.envbranches import describe_branches, unless_inherited

SCRIPT = """\
if [ "$RANK" = 0 ]; then export ASCEND_MAX_OP_CACHE_SIZE=2000; else export ASCEND_MAX_OP_CACHE_SIZE=800; fi
"""
PYTHON = """\
import os
if int(os.environ.get("RANK", "0")) == 0:
    os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = "2000"
"""


def test_branches_in_both_languages():
    text = describe_branches([('[ "$R" = 0 ]', "2000"), ("otherwise", "800")])
    assert text == '2000 when [ "$R" = 0 ]; 800 otherwise'
    assert text.text("zh_CN") == '[ "$R" = 0 ] 时为 2000；否则为 800'
    unset = describe_branches([("x == 1", "5"), ("otherwise", None)])
    assert (str(unset), unset.text("zh_CN")) == ("5 when x == 1; not set here otherwise", "x == 1 时为 5；否则此处不设置")
    assert describe_branches([("a", None), ("otherwise", "1")]).text("zh_CN") == "a 时此处不设置；否则为 1"
    assert describe_branches([]) == ""


def test_a_branch_inside_a_branch_keeps_both_languages():
    inner = unless_inherited("7", "X")
    outer = describe_branches([("c", inner), ("otherwise", "8")])
    assert str(outer) == "7 (unless the launching environment sets X) when c; 8 otherwise"
    assert outer.text("zh_CN") == "c 时为 7（除非启动环境已设置 X）；否则为 8"


def test_bilingual_is_a_str_that_pickles_and_renders_in_messages():
    text = Bilingual("en words", "中文")
    assert isinstance(text, str) and json.dumps(text) == '"en words"'
    back = pickle.loads(pickle.dumps(text))
    assert (str(back), back.zh) == ("en words", "中文")
    message = Message("shell-conditional-value", name="V", branches=text)
    assert "中文" in message.text("zh_CN") and "en words" in message.text("en")


def test_diagnose_says_the_branches_in_chinese(tmp_path, capsys):
    shell, script = tmp_path / "run.sh", tmp_path / "train.py"
    shell.write_text(SCRIPT)
    script.write_text(PYTHON)
    assert main(["--lang", "zh_CN", "diagnose", "--env-file", str(shell)]) in (0, 1)
    out = capsys.readouterr().out
    assert '[ "$RANK" = 0 ] 时为 2000；否则为 800' in out and " when " not in out and "otherwise" not in out
    assert main(["--lang", "zh_CN", "diagnose", "--script", str(script)]) in (0, 1)
    out = capsys.readouterr().out
    assert 'int(os.environ.get("RANK", "0")) == 0 时为 2000；否则此处不设置' in out and "otherwise" not in out


def test_json_keeps_the_english_expression_in_any_language(tmp_path, capsys):
    shell = tmp_path / "run.sh"
    shell.write_text(SCRIPT)
    main(["--lang", "zh_CN", "diagnose", "--json", "--env-file", str(shell)])
    data = json.loads(capsys.readouterr().out)
    entry = data["effective"]["max_op_cache_size"]
    assert entry["runtime"] is True and entry["expression"] == '2000 when [ "$RANK" = 0 ]; 800 otherwise'
    assert "时为" in entry["detail"]
