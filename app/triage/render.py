"""The triage as text, in the reader's language: what `cann-config triage` prints and the wizard's
"Paste an error" dialog shows (one rendering, so both say the same).

Public API:
    render_text(triage, lang) -> str
    budget_text(budget, lang) -> list[str]
    suggested_options(env) -> {option id: value}     the catalog options a suggestion sets (Apply)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cann_config.app.errors import Message
from cann_config.app.findings import Finding, severity_word
from cann_config.app.textsafe import terminal_text


def _t(code: str, lang: str, **params: Any) -> str:
    return Message(code, **params).text(lang)


def _finding_line(f: Finding, lang: str) -> str:
    return f"  {severity_word(f.severity, lang)}: {f.message(lang)}"


def budget_text(budget: Any, lang: str) -> list[str]:
    """The HBM budget as lines of text (the JSON is budget.to_json())."""
    from cann_config.app.triage.analysis import shown_size

    unknown = _t("triage-label-unknown", lang)

    def size(n: int | None) -> str:
        return unknown if n is None else shown_size(n)

    line = _t("triage-label-budget", lang, total=size(budget.total), framework=size(budget.framework_bytes),
              hccl=size(budget.hccl_bytes), per=size(budget.hccl_per_communicator), buffsize=budget.hccl_buffsize_mb,
              source=_t(f"triage-label-source-{budget.hccl_source}", lang),
              communicators=unknown if budget.communicators is None else budget.communicators,
              p2p=size(budget.p2p_bytes), left=size(budget.left))
    lines = [line]
    if budget.unknown:
        lines.append(_t("triage-label-budget-unknown", lang, names=", ".join(budget.unknown)))
    return lines


def render_text(result: Any, lang: str) -> str:
    """The triage as a terminal reads it, in `lang`."""
    out: list[str] = []
    if result.events:
        out.append(_t("triage-label-summary", lang, count=len(result.events), source=result.source))
    for event in result.events:
        device = "" if event.raw.device is None else _t("triage-label-device", lang, device=event.raw.device)
        out.append("")
        out.append(_t("triage-label-event", lang, line=event.raw.line, kind=event.kind, device=device,
                      cause=event.cause))
        out += [_finding_line(f, lang) for f in event.findings]
        exports = event.to_json(lang)["suggested"]["exports"]
        if exports:
            out.append(_t("triage-label-suggested", lang, format=exports[0]["format"]))
            out += ["    " + x for x in exports[0]["text"].rstrip("\n").splitlines()]
        else:
            out.append("  " + _t("triage-label-no-change", lang))
    if result.findings:
        out.append("")
        out += [_finding_line(f, lang) for f in result.findings]
    if result.events or result.budget.total is not None:
        out.append("")
        out += budget_text(result.budget, lang)
    return terminal_text("\n".join(out).lstrip("\n"), one_line=False) + "\n"


def suggested_options(env: Mapping[str, str]) -> dict[str, Any]:
    """The catalog options a suggested environment sets (PYTORCH_NPU_ALLOC_CONF's keys), for the
    wizard's Apply: option id -> value."""
    from cann_config.app.allocconf import VARIABLE, parse_alloc_conf

    conf = env.get(VARIABLE)
    return dict(parse_alloc_conf(conf).values) if conf else {}

