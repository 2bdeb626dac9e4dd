"""NPU memory errors in a support bundle: what `collect --log FILE` takes from a log, and the
triage of what a bundle carries.

Why a module of its own: a log holds far more than support needs (paths, host names, tokens in
command lines). `collect` keeps only the lines of the last NPU memory errors, made safe to show
(control characters replaced) and with the value of every environment variable the bundle does
not keep removed, and says in `left_out` what it did not take; only when the user names the log.

The bundle's key (docs/architecture.md#json-output):

    "memory_errors": {"log": "<the path given>", "lines": [{"line": N, "text": "..."}],
                      "events": <how many errors the log has>, "kept_events": <how many are kept>}

Public API:
    MAX_KEPT_EVENTS
    memory_error_section(path, environ, kept) -> (section, left_out items)
    triage_bundle_lines(lines, source, environ) -> Triage     (event lines are the log's)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from cann_config.app.errors import Message
from cann_config.app.textsafe import inline_text
from cann_config.app.triage.analysis import Triage, triage_text
from cann_config.app.triage.events import find_events
from cann_config.app.triage.logfile import read_log

MAX_KEPT_EVENTS = 20
# Shorter values are too common to be secrets ("1", "/root"): the bundle's own rule.
_MIN_REDACTED_CHARS = 8


def _redact(text: str, environ: Mapping[str, str], kept: set[str]) -> str:
    secrets = sorted(((value, name) for name, value in environ.items()
                      if name not in kept and len(value.strip()) >= _MIN_REDACTED_CHARS),
                     key=lambda item: len(item[0]), reverse=True)
    for secret, name in secrets:
        if secret in text:
            text = text.replace(secret, f"<{name} removed>")
    return text


def memory_error_section(path: str, environ: Mapping[str, str],
                         kept: set[str]) -> tuple[dict[str, Any], list[dict[str, str]]]:
    """The bundle's `memory_errors` from the log at `path`: the lines of its last
    MAX_KEPT_EVENTS memory errors, sanitized; and the `left_out` items saying what was not taken.
    InputError (exit 2, naming the file) when the log cannot be read."""
    text, source = read_log(path)
    rows = text.splitlines()
    events = find_events(text)
    kept_events = events[-MAX_KEPT_EVENTS:]
    numbers: list[int] = []
    for event in kept_events:
        numbers += [n for n in range(event.line, event.line + event.span) if n not in numbers]
    lines = [{"line": n, "text": inline_text(_redact(rows[n - 1], environ, kept))} for n in numbers]
    section = {"log": source, "lines": lines, "events": len(events), "kept_events": len(kept_events)}
    left_out = [{"what": Message("triage-left-log-lines", count=len(rows) - len(lines), log=source).text(),
                 "why": Message("triage-left-log-lines-why").text()}]
    if len(events) > len(kept_events):
        left_out.append({"what": Message("triage-left-older-events", count=len(events) - len(kept_events)).text(),
                         "why": Message("triage-left-older-events-why", kept=MAX_KEPT_EVENTS).text()})
    return section, left_out


def triage_bundle_lines(lines: Sequence[tuple[int, str]], source: str, environ: Mapping[str, str] | None) -> Triage:
    """The triage of a bundle's kept log lines ((line number, text), in order), each event and
    finding with the line number it has in the customer's log."""
    return triage_text("\n".join(text for _, text in lines), source=source, environ=environ,
                       line_numbers=[n for n, _ in lines])
