"""Findings: what the assistant has to tell the user about a configuration.

A finding has a severity (`error`, `warning`, `info`), a stable code that never changes with
the language, a message in zh and en, and where it applies (file and line). Message templates
are data, in `resources/messages/*.toml` (one file per area of the core), keyed by code:

    [ini-foreign-section]
    severity = "error"
    en = "Section [{section}] makes CANN ignore the whole file."
    zh = "..."
    fix.en = "..."     # optional: the suggested fix, same placeholders
    fix.zh = "..."

`diagnose --json` prints findings as {"severity", "code", "message", "file", "line"} (docs/architecture.md#json-output).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from cann_config.app.i18n import pick
from cann_config.app.resources import resource

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


class MessageTableError(Exception):
    """A message file is malformed or defines a code twice."""


@dataclass(frozen=True)
class MessageTemplate:
    code: str
    severity: str
    text: Mapping[str, str]
    fix: Mapping[str, str] | None = None


@dataclass(frozen=True)
class Finding:
    severity: str
    code: str
    text: Mapping[str, str]
    file: str | None = None
    line: int | None = None
    fix: Mapping[str, str] | None = None
    # A change that would resolve the finding, as option id -> value, for "apply the fix".
    suggestion: Mapping[str, Any] = field(default_factory=dict)

    def message(self, lang: str | None = None) -> str:
        return pick(self.text, lang)

    def fix_text(self, lang: str | None = None) -> str | None:
        return pick(self.fix, lang) if self.fix else None

    def where(self) -> str:
        if self.file is None:
            return ""
        return self.file if self.line is None else f"{self.file}:{self.line}"

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "severity": self.severity,
            "code": self.code,
            "message": self.message(lang),
            "file": self.file,
            "line": self.line,
        }
        if self.fix:
            data["fix"] = self.fix_text(lang)
        if self.suggestion:
            data["suggestion"] = dict(self.suggestion)
        return data


def _parse_messages(text: str, source: str) -> dict[str, MessageTemplate]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise MessageTableError(f"{source}: not valid TOML: {exc}") from None
    templates = {}
    for code, entry in data.items():
        if not isinstance(entry, dict) or set(entry) - {"severity", "en", "zh", "fix"}:
            raise MessageTableError(f"{source}: [{code}]: expected severity, en, zh and optional fix")
        if entry.get("severity") not in SEVERITY_ORDER or not entry.get("en") or not entry.get("zh"):
            raise MessageTableError(f"{source}: [{code}]: needs a severity and texts in en and zh")
        fix = entry.get("fix")
        if fix is not None and not (isinstance(fix, dict) and fix.get("en") and fix.get("zh")):
            raise MessageTableError(f"{source}: [{code}]: fix needs en and zh")
        templates[code] = MessageTemplate(code, entry["severity"], {"en": entry["en"], "zh": entry["zh"]}, fix)
    return templates


@cache
def message_file(area: str) -> Mapping[str, MessageTemplate]:
    """The message templates of one file, resources/messages/<area>.toml, by code: a caller that
    needs one area's texts (the device phrases of the window's first page) parses only that one."""
    source = f"resources/messages/{area}.toml"
    return _parse_messages(resource("messages", f"{area}.toml").read_text(encoding="utf-8"), source)


@lru_cache(maxsize=1)
def message_table() -> Mapping[str, MessageTemplate]:
    """Every message template in resources/messages/, by code."""
    table: dict[str, MessageTemplate] = {}
    folder = resource("messages")
    for node in sorted(folder.iterdir(), key=lambda n: n.name):
        if not node.name.endswith(".toml"):
            continue
        source = f"resources/messages/{node.name}"
        for code, template in message_file(node.name[:-len(".toml")]).items():
            if code in table:
                raise MessageTableError(f"{source}: code {code!r} is already defined in another message file")
            table[code] = template
    return table


def _render(template: Mapping[str, str], params: Mapping[str, Any]) -> dict[str, str]:
    # A parameter that is a Message (an error's reason, say) is rendered in each language too.
    from cann_config.app.errors import localized_params

    return {lang: text.format_map(localized_params(params, "zh_CN" if lang == "zh" else "en"))
            for lang, text in template.items()}


def make_finding(code: str, *, file: str | None = None, line: int | None = None,
                 suggestion: Mapping[str, Any] | None = None, severity: str | None = None,
                 **params: Any) -> Finding:
    """A finding from the message table; `params` fill the template's {placeholders}."""
    template = message_table()[code]
    return Finding(
        severity=severity or template.severity,
        code=code,
        text=_render(template.text, params),
        file=file,
        line=line,
        fix=_render(template.fix, params) if template.fix else None,
        suggestion=dict(suggestion or {}),
    )


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """Errors first, then warnings, then info; within a severity by file and line."""
    return sorted(findings, key=lambda f: (SEVERITY_ORDER[f.severity], f.file or "", f.line or 0))


def unique_findings(findings: Iterable[Finding]) -> list[Finding]:
    """The findings in order, each (code, file, line, text) only once."""
    seen: set[tuple[str, str | None, int | None, str]] = set()
    result = []
    for f in findings:
        key = (f.code, f.file, f.line, f.text.get("en", ""))
        if key not in seen:
            seen.add(key)
            result.append(f)
    return result


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)
