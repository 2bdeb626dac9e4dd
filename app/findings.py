"""Findings: what the assistant has to tell the user about a configuration.

A finding has a severity (`error`, `warning`, `info`), a stable code that never changes with
the language, a message in zh and en, and where it applies (file and line). The texts come
from the message tables (app/messages.py, resources/messages/*.toml), keyed by the code.

`diagnose --json` prints findings as {"severity", "code", "message", "file", "line"} (docs/architecture.md#json-output).
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from cann_config.app.errors import localized_params
from cann_config.app.i18n import pick
from cann_config.app.messages import SEVERITY_ORDER, message_table


class Finding(NamedTuple):
    severity: str
    code: str
    text: Mapping[str, str]
    file: str | None = None
    line: int | None = None
    fix: Mapping[str, str] | None = None
    # A change that would resolve the finding, as option id -> value, for "apply the fix".
    suggestion: Mapping[str, Any] = {}

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


def _render(template: Mapping[str, str], params: Mapping[str, Any]) -> dict[str, str]:
    # A parameter that is a Message (an error's reason, say) is rendered in each language too.
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


def severity_word(severity: str, lang: str | None = None) -> str:
    """`error`, `warning`, `info` as text output prints them in `lang` (JSON keeps the token)."""
    return pick(message_table()[f"core-severity-{severity}"].text, lang)


def severity_column(lang: str | None = None) -> int:
    """The display width of the widest severity word in `lang`: the width of that column."""
    from cann_config.app.textwidth import display_width

    return max(display_width(severity_word(s, lang)) for s in SEVERITY_ORDER)


def has_errors(findings: Iterable[Finding]) -> bool:
    return any(f.severity == "error" for f in findings)
