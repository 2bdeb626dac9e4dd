"""The message tables (resources/messages/*.toml) against the code that uses them: every code
that app/ names exists, in both languages, with the same placeholders in en and zh, so no text
can fail to render (or lose a value) in one of the languages."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from cann_config.app.findings import make_finding
from cann_config.app.messages import message_table

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
MESSAGES = ROOT / "resources" / "messages"
# The first argument of the calls that look a code up in the tables: make_finding, the errors'
# from_code, app.errors.Message, and the modules' small text helpers (device_text, text_of,
# _label, _text, _t, a reader's add/finding).
CALL = re.compile(r"\b(?:make_finding|from_code|Message|device_texts?|text_of|_t|_label|_text|add|finding)"
                  r"\(\s*[\"']([a-z0-9-]+)[\"']")
CODE = re.compile(r"^(?:core|cache|cli|device|devices|export|import|scan|support|torchnpu)-[a-z0-9-]+$")
PLACEHOLDER = re.compile(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)(?:![rsa])?(?::[^{}]*)?\}")


def used_codes() -> dict[str, set[str]]:
    """Code -> the files of app/ that name it as a string literal in one of the calls above."""
    used: dict[str, set[str]] = {}
    for path in sorted((ROOT / "app").rglob("*.py")):
        for match in CALL.finditer(path.read_text(encoding="utf-8")):
            if CODE.fullmatch(match.group(1)):
                used.setdefault(match.group(1), set()).add(str(path.relative_to(ROOT)))
    return used


OWN_KEYWORDS_USERS = set(re.findall(r"\b(?:make_finding|from_code)\(\s*[\"']([a-z0-9-]+)[\"']",
                                    "".join(p.read_text(encoding="utf-8") for p in (ROOT / "app").rglob("*.py"))))


def entries() -> list[tuple[str, str, dict]]:
    return [(node.name, code, entry) for node in sorted(MESSAGES.glob("*.toml"))
            for code, entry in tomllib.loads(node.read_text(encoding="utf-8")).items()]


def placeholders(text: str) -> set[str]:
    # A few export texts take the reason in each language as {reason_en} / {reason_zh}.
    return {re.sub(r"_(en|zh)$", "_LANG", name) for name in PLACEHOLDER.findall(text)}


def test_the_scan_finds_the_codes_of_errors_and_findings():
    used = used_codes()
    # One of each kind of call, so a change of the pattern cannot make the next test vacuous.
    for code in ("core-profile-unknown-key", "devices-error-info-no-table", "cache-ini-foreign-section",
                 "core-input-cannot-read", "support-bundle-unknown-key", "devices-probe-not-found"):
        assert code in used, code
    assert len(used) > 200


def test_every_code_named_in_app_is_in_the_tables():
    table = message_table()
    missing = {code: sorted(files) for code, files in used_codes().items() if code not in table}
    assert not missing


def test_every_message_has_both_languages_with_the_same_placeholders():
    wrong = []
    for source, code, entry in entries():
        texts = [(entry.get("en"), entry.get("zh"))]
        if entry.get("fix"):
            texts.append((entry["fix"].get("en"), entry["fix"].get("zh")))
        for en, zh in texts:
            if not en or not zh or placeholders(en) != placeholders(zh):
                wrong.append(f"{source}: [{code}]")
        if code in OWN_KEYWORDS_USERS:
            # make_finding and from_code take these themselves: a placeholder of that name could
            # never be filled.
            names = set().union(*(placeholders(en) for en, _ in texts))
            if names & {"file", "line", "severity", "suggestion"}:
                wrong.append(f"{source}: [{code}] uses a keyword of make_finding/from_code")
    assert not wrong


def test_error_lines_are_single_lines_in_both_languages():
    """Exit-2 reasons are printed as one line: no template may bring its own line break."""
    for source, code, entry in entries():
        if entry["severity"] == "error":
            assert "\n" not in entry["en"] and "\n" not in entry["zh"], f"{source}: [{code}]"


def test_a_message_parameter_is_rendered_in_each_language_of_a_finding():
    from cann_config.app.errors import Message

    finding = make_finding("import-invalid-value", option="x", reason=Message("import-reason-not-utf8"))
    assert finding.message("en") == "x: the bytes are not UTF-8"
    assert finding.message("zh_CN") == "x 的取值无效：这些字节不是 UTF-8 编码"


def test_each_message_file_read_alone_is_its_part_of_the_whole_table():
    from cann_config.app.messages import message_file
    from cann_config.app.resources import resource

    areas = sorted(n.name[:-5] for n in resource("messages").iterdir() if n.name.endswith(".toml"))
    assert "devices" in areas
    table = message_table()
    parts = [message_file(area) for area in areas]
    assert sum(len(part) for part in parts) == len(table)
    for part in parts:
        assert all(table[code] == template for code, template in part.items())


def test_naming_a_device_reads_the_devices_messages_alone():
    import subprocess

    code = ("from cann_config.app.device.availability import device_phrase\n"
            "from cann_config.app.device.table import device_from_choice\n"
            "from cann_config.app import messages\n"
            "print(device_phrase(device_from_choice('Ascend910B3', source='manual'), 'en'))\n"
            "print(messages.message_table.cache_info().currsize, messages.message_file.cache_info().currsize)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    phrase, sizes = done.stdout.strip().splitlines()
    assert "Ascend910B3" in phrase and "chosen by hand" in phrase
    assert sizes == "0 1"


def test_the_compiled_message_tables_are_those_of_the_toml_files():
    """app/message_data.py (what the commands read at start-up) is `make messages`'s output for
    the message files as they are, and gives the same templates as parsing them."""
    from pathlib import Path

    from cann_config.app import messages

    compiled = Path(messages.__file__).with_name("message_data.py").read_text(encoding="utf-8")
    assert compiled == messages.compile_messages(), "run `make messages`"
    assert messages._compiled() is not None
    for area, data in messages._sources():
        parsed = messages._parse_messages(data.decode("utf-8"), area)
        assert messages.message_file(area) == parsed


def test_an_edited_message_file_is_parsed_until_compiled_again(monkeypatch):
    from cann_config.app import messages

    sources = messages._sources()
    area, data = sources[0]
    edited = data.replace(b'en = "', b'en = "EDITED ', 1)
    monkeypatch.setattr(messages, "_sources", lambda: [(area, edited), *sources[1:]])
    messages._compiled.cache_clear()
    try:
        assert messages._compiled() is None  # the digest no longer matches: the TOML is parsed
    finally:
        messages._compiled.cache_clear()


def test_a_code_defined_in_two_message_files_is_refused_naming_the_second(monkeypatch):
    import pytest

    from cann_config.app import messages

    areas = {"alpha": {"x-one": ("info", "One", "一", None)},
             "beta": {"x-two": ("info", "Two", "二", None), "x-one": ("error", "Again", "再", None)}}
    monkeypatch.setattr(messages, "_compiled", lambda: areas)
    messages.message_table.cache_clear()
    try:
        with pytest.raises(messages.MessageTableError, match=r"beta\.toml: code 'x-one' is already defined"):
            messages.message_table()
        monkeypatch.setattr(messages, "_compiled", lambda: {"alpha": areas["alpha"], "beta": {"x-two": areas["beta"]["x-two"]}})
        messages.message_table.cache_clear()
        table = messages.message_table()
        assert sorted(table) == ["x-one", "x-two"] and table["x-two"].text == {"en": "Two", "zh": "二"}
        assert "x-three" not in table and table.get("x-three") is None
    finally:
        messages.message_table.cache_clear()
