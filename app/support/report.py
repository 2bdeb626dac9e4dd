"""The diagnosis report: what support pastes into a ticket, in Markdown or HTML, in zh or en.

Why this module exists: a diagnosis is only useful to a customer when it reads well outside the
tool - in a ticket, an e-mail, a chat. `diagnose ... --report FILE.md|FILE.html` and the GUI's
report button render the same `SupportReport` with the same pure functions: the device, the
effective settings with their sources, every finding with its fix and its suggested change, what
CANN would delete at the next start (from a support bundle's cache measurement), and the
suggested files (op_cache.ini, env file, or the framework's snippet) in code blocks.

Suggested changes come from app/support/fixes.py, the one source of fixes (the report shows what
it gives; `suggested_changes`, `suggested_profile`, `suggested_exports` and `option_in_effect` are
importable from here as before).

Everything from a bundle is hostile until escaped: every text goes through `_md_text` /
`_md_code` (Markdown: HTML-significant characters become entities, Markdown punctuation is
escaped, code spans and fences are longer than any backtick run inside) or `html.escape`.

Public API:
    make_report(diagnosis, bundle=None) -> SupportReport
    SupportReport: diagnosis, bundle, changes, profile; .exports(lang) -> list[SuggestedExport];
                   .to_json(lang) -> dict (diagnosis.to_json plus bundle, cleanup, suggestions)
    suggested_changes, suggested_profile, suggested_exports, option_in_effect  (app/support/fixes.py)
    render_markdown(report_or_diagnosis, lang=None) -> str
    render_html(report_or_diagnosis, lang=None) -> str   (one self-contained page: a QTextBrowser
                                                          or any browser shows it as is)
    render_text(report_or_diagnosis, lang=None) -> str   (the terminal; control characters replaced)
    markdown_of_blocks(blocks, lang=None) / html_of_blocks(blocks, lang=None) -> str
                                                        (the same renderers for other reports' Blocks)
    report_format(path) -> "markdown" | "html"          (UsageError for another extension)
    write_report(path, report_or_diagnosis, lang=None) -> Path   (atomic)
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cann_config.app import __version__
from cann_config.app.catalog import load_catalog
from cann_config.app.device.availability import source_phrase
from cann_config.app.device.hostprobe import notes_message
from cann_config.app.device.table import DeviceInfo
from cann_config.app.errors import UsageError
from cann_config.app.findings import make_finding, severity_column
from cann_config.app.i18n import current_language, normalize_language, pick
from cann_config.app.io.formats import EXPORT_FORMATS
from cann_config.app.io.outputfiles import write_output
from cann_config.app.opcache.cleanup import percent_of_limit
from cann_config.app.profile import Profile
from cann_config.app.support.diagnosis import Diagnosis
from cann_config.app.support.fixes import (
    FixPlan,
    SuggestedChange,
    SuggestedExport,
    option_in_effect,
    plan_fixes,
    suggested_changes,
    suggested_exports,
    suggested_profile,
)
from cann_config.app.textsafe import terminal_text
from cann_config.app.textwidth import pad, table_lines, underline
from cann_config.app.units import human_bytes

if TYPE_CHECKING:  # pragma: no cover - typing only
    from cann_config.app.support.bundle import Bundle

REPORT_EXTENSIONS = {".md": "markdown", ".markdown": "markdown", ".html": "html", ".htm": "html"}
# The label of each source of an effective value (app.opcache.resolution.SOURCES); the fleet's too.
SOURCE_LABELS = {"op_cache.ini": "support-label-source-op_cache-ini", "env": "support-label-source-env",
                 "default": "support-label-source-default", "profile": "support-label-source-profile",
                 "script": "support-label-source-script"}
_VERSION_ROWS = (("support-label-version-toolkit", "toolkit_version", "toolkit_path"),
                 ("support-label-version-driver", "driver_version", "driver_path"),
                 ("support-label-version-compiler", "compiler_version", "compiler_path"),
                 ("support-label-version-opp", "opp_version", "opp_path"),
                 ("support-label-version-tfplugin", "tfplugin_version", "tfplugin_path"),
                 ("support-label-version-npu-bridge", "npu_bridge_version", None),
                 ("support-label-version-npu-device", "npu_device_version", None))


def _code_language(fmt: str) -> str:
    """The language of a code block showing an export (app.io.formats)."""
    spec = EXPORT_FORMATS.get(fmt)
    return spec.language if spec is not None else ""


def _t(code: str, lang: str, **params: Any) -> str:
    return pick(make_finding(code, **params).text, lang)


# Suggested changes: app/support/fixes.py (the one source; imported here for the report's users).
__all__ = ["SuggestedChange", "SuggestedExport", "SupportReport", "make_report", "option_in_effect",
           "render_html", "render_markdown", "render_text", "report_format", "suggested_changes",
           "suggested_exports", "suggested_profile", "write_report"]


@dataclass
class SupportReport:
    """A diagnosis with what the report adds: the bundle it came from and the suggested fixes."""

    diagnosis: Diagnosis
    bundle: Bundle | None = None
    changes: list[SuggestedChange] = field(default_factory=list)
    profile: Profile = field(default_factory=Profile)
    tool_version: str = __version__

    def versions(self) -> dict[str, str]:
        if self.bundle is not None:
            return self.bundle.installed_versions()
        return dict(self.diagnosis.installed_versions or {})

    def exports(self, lang: str | None = None) -> list[SuggestedExport]:
        """The files that apply the fixes shown: the checked ones (app.support.fixes.plan_fixes)."""
        plan = self.diagnosis.fix_plan
        if isinstance(plan, FixPlan) and plan.changes == self.changes:
            return plan.exports(lang)
        return suggested_exports(self.diagnosis, self.changes, self.profile, self.versions(), lang)

    def triage(self) -> Any:
        """The triage of the bundle's NPU memory error lines (`collect --log`), None without them
        (app/triage/bundled.py)."""
        if self.bundle is None or not self.bundle.memory_error_lines:
            return None
        from cann_config.app.triage.bundled import triage_bundle_lines

        return triage_bundle_lines(self.bundle.memory_error_lines, self.bundle.memory_error_log or self.bundle.source,
                                   self.bundle.environ)

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        """`diagnose --json` (docs/architecture.md#json-output) plus the bundle's facts and the suggested fixes."""
        data = self.diagnosis.to_json(lang)
        triage = self.triage()
        if self.bundle is not None:
            data["triage"] = triage.to_json(lang) if triage is not None else None
        data["bundle"] = self.bundle.metadata() if self.bundle is not None else None
        data["suggested_changes"] = [c.to_json() for c in self.changes]
        # null when nothing is to fix, as on every other path of `diagnose --json`
        data["suggested_profile"] = self.profile.to_json() if self.changes else None
        data["suggested_exports"] = [{"format": e.format, "text": e.text} for e in self.exports(lang)]
        return data


def make_report(diagnosis: Diagnosis, bundle: Bundle | None = None) -> SupportReport:
    """The report of `diagnosis`, with the fixes that pass their check (app.support.fixes.plan_fixes;
    a finding whose fix fails says why instead)."""
    versions = bundle.installed_versions() if bundle is not None else None
    plan = plan_fixes(diagnosis, versions)
    profile = plan.profile if plan.profile is not None else suggested_profile(diagnosis, [])
    return SupportReport(diagnosis, bundle, list(plan.changes), profile)


def _as_report(report: SupportReport | Diagnosis) -> SupportReport:
    return report if isinstance(report, SupportReport) else make_report(report)


# ---------------------------------------------------------------------------------------------
# The report as blocks (one structure, two renderers)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Text:
    """Inline text: prose, or a code span (identifiers, values, paths)."""

    text: str
    code: bool = False


Inline = Sequence[Text]


@dataclass(frozen=True)
class Block:
    kind: str  # "h1" "h2" "h3" "p" "kv" "table" "list" "finding" "code"
    parts: tuple[Any, ...] = ()


def _p(*parts: Text) -> Block:
    return Block("p", (tuple(parts),))


def _value_text(oid: str, value: Any) -> str:
    option = load_catalog().options.get(oid)
    if value == "":
        return '""'
    if option is not None and option.unit and isinstance(value, int) and value != -1:
        return f"{value} {option.unit}"
    return str(value)


def _where(file: str | None, line: int | None) -> str:
    if not file:
        return ""
    return file if line is None else f"{file}:{line}"


def _inputs(report: SupportReport, lang: str) -> list[Block]:
    d = report.diagnosis
    catalog = load_catalog()
    rows: list[tuple[str, Inline]] = []
    bundle = report.bundle
    if bundle is not None:
        unknown = _t("support-label-unknown", lang)
        rows.append((_t("support-label-bundle", lang),
                     [Text(_t("support-label-bundle-details", lang, source=bundle.source, created=bundle.created or unknown,
                              tool_version=bundle.tool_version or unknown,
                              version=bundle.format_version if bundle.format_version is not None else unknown))]))
        if bundle.hostname:
            rows.append((_t("support-label-hostname", lang), [Text(bundle.hostname, code=True)]))
    framework = (pick(catalog.frameworks[d.framework].name, lang)
                 if d.framework is not None and d.framework in catalog.frameworks
                 else _t("cache-label-framework-unknown", lang))
    rows.append((_t("cache-label-framework", lang), [Text(framework)]))
    if bundle is not None:
        env = _t("support-label-environment-bundle", lang)
    elif d.env_file is not None:
        env = _t("cache-label-environment-file", lang, path=d.env_file.source)
    else:
        env = _t("cache-label-environment-shell", lang)
    rows.append((_t("cache-label-environment", lang), [Text(env)]))
    if d.script:
        rows.append((_t("cache-label-script", lang), [Text(d.script, code=True)]))
    if d.ini is not None and not d.read_by_cann:
        ini_text = _t("cache-label-ini-not-read", lang, path=d.ini.source, cann_path=d.cann_ini_path or d.cache_dir.ini_path)
    elif d.ini is not None:
        code = "cache-label-ini-used" if d.ini.counts else "cache-label-ini-ignored"
        ini_text = _t(code, lang, path=d.ini.source)
    else:
        ini_text = _t("cache-label-ini-none", lang)
    rows.append((_t("cache-label-ini", lang), [Text(ini_text)]))
    cd = d.cache_dir
    rows.append((_t("support-label-cache-dir", lang), [Text(cd.value, code=True), Text(f" ({pick(cd.how, lang)})")]))
    return [Block("h2", (_t("support-label-inputs", lang),)), Block("kv", (tuple(rows),))]


def _device(report: SupportReport, lang: str) -> list[Block]:
    device = report.diagnosis.device or DeviceInfo()
    unknown = _t("support-label-unknown", lang)
    rows: list[tuple[str, Inline]] = [
        (_t("support-label-soc", lang), [Text(device.soc_version, code=True) if device.soc_version else Text(unknown)]),
        (_t("support-label-series", lang), [Text(device.series_name(lang) or unknown)]),
        (_t("support-label-how", lang), [Text(source_phrase(device.source, lang))]),
    ]
    if device.npus:
        chips = ", ".join(f"{c.npu}/{c.chip} {c.soc_version or '?'}" for c in device.npus[:64])
        more = " ..." if len(device.npus) > 64 else ""
        rows.append((_t("support-label-npus", lang), [Text(f"{len(device.npus)}: {chips}{more}")]))
    blocks = [Block("h2", (_t("support-label-device", lang),)), Block("kv", (tuple(rows),))]
    if device.notes:
        blocks.append(_p(Text(_t("support-label-notes", lang) + _colon(lang).strip())))
        blocks.append(Block("list", tuple((Text(note),) for note in device.notes)))
    return blocks


def _host(report: SupportReport, lang: str) -> list[Block]:
    bundle = report.bundle
    if bundle is None:
        return []
    not_found = _t("support-label-not-found", lang)
    rows: list[tuple[str, Inline]] = []
    for code, key, path_key in _VERSION_ROWS:
        version = bundle.versions.get(key)
        path = bundle.versions.get(path_key) if path_key else None
        parts = [Text(version, code=True)] if version else [Text(not_found)]
        if version and path:
            parts.append(Text(f" ({path})"))
        rows.append((_t(code, lang), parts))
    blocks = [Block("h2", (_t("support-label-versions", lang),)), Block("kv", (tuple(rows),)),
              Block("h2", (_t("support-label-environment", lang),))]
    if bundle.environ:
        blocks.append(Block("table", ((_t("support-label-variable", lang), _t("support-label-value", lang)),
                                      tuple(((Text(k, code=True),), (Text(v, code=True),))
                                            for k, v in bundle.environ.items()))))
    else:
        blocks.append(_p(Text(_t("support-label-none", lang))))
    return blocks


def _effective(report: SupportReport, lang: str) -> list[Block]:
    headers = (_t("support-label-option", lang), _t("support-label-value", lang), _t("support-label-source", lang),
               _t("support-label-decided", lang))
    rows = []
    for oid, eff in report.diagnosis.effective.items():
        source = _t(SOURCE_LABELS[eff.source], lang) if eff.source in SOURCE_LABELS else eff.source
        if eff.variable and eff.source == "env":
            source += f" ({eff.variable})"
        where = _where(eff.file, eff.line)
        detail = pick(eff.detail, lang) if eff.detail else ""
        rows.append(((Text(oid, code=True),), (Text(_value_text(oid, eff.value), code=True),), (Text(source),),
                     ((Text(where, code=True), Text(" ")) if where else ()) + (Text(detail),)))
    return [Block("h2", (_t("support-label-effective", lang),)), Block("table", (headers, tuple(rows)))]


def _findings(report: SupportReport, lang: str) -> list[Block]:
    blocks = [Block("h2", (_t("support-label-findings", lang),))]
    findings = report.diagnosis.findings
    if not findings:
        return [*blocks, _p(Text(_t("support-label-no-findings", lang)))]
    for f in findings:
        suggestion = ", ".join(f"{k} = {v}" for k, v in f.suggestion.items())
        blocks.append(Block("finding", (f.severity, _t(f"support-label-severity-{f.severity}", lang), f.code,
                                        f.where(), f.message(lang), f.fix_text(lang) or "",
                                        _t("support-label-fix", lang), suggestion,
                                        _t("support-label-suggestion", lang))))
    return blocks


def _cleanup(report: SupportReport, lang: str) -> list[Block]:
    blocks = [Block("h2", (_t("support-label-cleanup", lang),))]
    bundle = report.bundle
    cache = bundle.cache if bundle is not None and not bundle.cache_error else None
    doc = cache.document(lang) if cache is not None else None
    if cache is None or doc is None or not doc["socs"]:
        codes = [f for f in report.diagnosis.findings if f.code in ("scan-no-cache", "scan-stopped")]
        if codes:
            text = codes[0].message(lang)
        elif cache is not None and cache.exists:
            text = _t("support-label-cleanup-empty", lang, path=str(cache.kernel_cache) or _t("support-label-unknown", lang))
        else:
            text = _t("support-label-cleanup-none", lang)
        return [*blocks, _p(Text(text))]
    unknown = _t("support-label-unknown", lang)
    created = bundle.created if bundle is not None and bundle.created else unknown
    fs = doc["filesystem"] or {}
    free = human_bytes(fs["free_bytes"]) if fs.get("free_bytes") is not None else unknown
    blocks.append(_p(Text(_t("support-label-cleanup-intro", lang, created=created,
                             path=str(cache.kernel_cache) or unknown, fs_type=fs.get("type") or unknown, free=free))))
    headers = tuple(_t(c, lang) for c in ("support-label-cleanup-soc", "support-label-cleanup-files",
                                         "support-label-cleanup-used", "support-label-cleanup-limit",
                                         "support-label-cleanup-keep", "support-label-cleanup-delete",
                                         "support-label-cleanup-recent"))
    rows = []
    for name, soc in doc["socs"].items():
        pred = soc.get("cleanup")
        used = human_bytes((pred.get("used_bytes") if pred else None) or soc.get("cann_bytes") or 0)
        files = str(soc["files"]) if soc.get("files") is not None else unknown
        if pred is None:
            cells = [_t("support-label-cleanup-not-predicted", lang)] * 4
        elif not pred.get("ageing"):
            cells = [_t("support-label-cleanup-ageing-off", lang), "-", _t("support-label-cleanup-nothing", lang), "-"]
        else:
            percent = percent_of_limit(True, pred.get("used_bytes") or 0, pred.get("max_bytes")) or 0.0
            limit = f"{human_bytes(pred.get('max_bytes') or 0)} ({percent:.0f} %)"
            delete = (_t("support-label-cleanup-groups", lang, groups=pred.get("delete_groups") or 0,
                         size=human_bytes(pred.get("delete_bytes") or 0))
                      if pred.get("triggers") else _t("support-label-cleanup-nothing", lang))
            recent = (_t("support-label-cleanup-groups", lang, groups=pred.get("kept_recent_groups") or 0,
                         size=human_bytes(pred.get("kept_recent_bytes") or 0)) if pred.get("triggers") else "-")
            cells = [limit, human_bytes(pred.get("keep_threshold_bytes") or 0), delete, recent]
        rows.append(((Text(name, code=True),), (Text(files),), (Text(used),), *((Text(c),) for c in cells)))
    blocks.append(Block("table", (headers, tuple(rows))))
    return blocks


def _suggested(report: SupportReport, lang: str) -> list[Block]:
    blocks = [Block("h2", (_t("support-label-suggested", lang),))]
    if not report.changes:
        return [*blocks, _p(Text(_t("support-label-suggested-none", lang)))]
    blocks.append(_p(Text(_t("support-label-suggested-intro", lang))))
    headers = (_t("support-label-findings", lang), _t("support-label-option", lang), _t("support-label-value", lang),
               _t("support-label-apply-with", lang))
    def value(change: SuggestedChange) -> Text:
        if change.rewrite:  # the whole op_cache.ini, written anew below
            return Text(_t("support-label-rewrite", lang))
        return Text(_value_text(change.key, change.value), code=True)

    rows = tuple(((Text(c.code, code=True),), (Text(c.key, code=True),), (value(c),),
                  (Text(c.format, code=True),)) for c in report.changes)
    blocks.append(Block("table", (headers, rows)))
    for export in report.exports(lang):
        blocks.append(Block("h3", (_t("support-label-export", lang, format=export.format),)))
        blocks.append(Block("code", (_code_language(export.format), export.text)))
    return blocks


def _memory_errors(report: SupportReport, lang: str) -> list[Block]:
    """The bundle's NPU memory errors (collect --log), triaged as `cann-config triage` does."""
    if report.bundle is None:
        return []
    blocks = [Block("h2", (_t("triage-label-report-title", lang),))]
    triage = report.triage()
    if triage is None:
        return [*blocks, _p(Text(_t("triage-label-report-none", lang)))]
    log = report.bundle.memory_error_log or report.bundle.source
    for event in triage.events:
        device = "" if event.raw.device is None else _t("triage-label-device", lang, device=event.raw.device)
        blocks.append(Block("h3", (_t("triage-label-report-event", lang, at=event.raw.line, log=log, kind=event.kind,
                                      device=device, cause=event.cause),)))
        for f in event.findings:
            blocks.append(Block("finding", (f.severity, _t(f"support-label-severity-{f.severity}", lang), f.code,
                                            f.where(), f.message(lang), "", _t("support-label-fix", lang), "",
                                            _t("support-label-suggestion", lang))))
        for export in event.to_json(lang)["suggested"]["exports"][:1]:
            blocks.append(Block("code", (_code_language(export["format"]), export["text"])))
    return blocks


def _unreadable(report: SupportReport, lang: str) -> list[Block]:
    bundle = report.bundle
    if bundle is None or not bundle.unreadable:
        return []
    # what the collector tried is in the customer's language; said again in the reader's
    items = tuple((Text(what, code=True), Text(": " + (notes_message(why).text(lang) if what.startswith("npu-smi")
                                                       else why)))
                  for what, why in bundle.unreadable)
    return [Block("h2", (_t("support-label-unreadable", lang),)), Block("list", items)]


def report_blocks(report: SupportReport | Diagnosis, lang: str | None = None) -> list[Block]:
    """The report's content, independent of the output format."""
    report = _as_report(report)
    lang = normalize_language(lang or current_language())
    blocks = [Block("h1", (_t("support-label-report-title", lang),)),
              _p(Text(_t("support-label-report-intro", lang, version=report.tool_version)))]
    device = report.diagnosis.device
    if device is not None and (device.soc_version or device.series):
        blocks.append(_p(Text(_t("support-label-device", lang) + _colon(lang)), Text(device.label(lang))))
    for part in (_inputs, _device, _host, _effective, _findings, _cleanup, _suggested, _memory_errors, _unreadable):
        blocks.extend(part(report, lang))
    return blocks


# ---------------------------------------------------------------------------------------------
# Markdown
# ---------------------------------------------------------------------------------------------

_MD_ESCAPE = re.compile(r"[\\`*\[\]#~]|(?<!\w)_|_(?!\w)")


def _md_text(text: str) -> str:
    """Prose for Markdown: one line, HTML-significant characters as entities (ticket systems
    render inline HTML), Markdown punctuation that could start formatting escaped."""
    text = re.sub(r"\s+", " ", str(text))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_ESCAPE.sub(lambda m: "\\" + m.group(0), text)


def _md_code(text: str) -> str:
    """An inline code span that holds `text` literally (CommonMark: no HTML, no escapes inside)."""
    text = " ".join(str(text).split()) or " "
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_inline(parts: Inline) -> str:
    return "".join(_md_code(p.text) if p.code else _md_text(p.text) for p in parts)


def _md_cell(parts: Inline) -> str:
    # A pipe inside a code span still ends a table cell in GFM: escape it there too.
    return _md_inline(parts).replace("|", "\\|") or " "


def _md_fence(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}|~{3,}", text)), default=0)
    return "`" * max(3, longest + 1)


def _colon(lang: str | None) -> str:
    return "：" if normalize_language(lang or current_language()) == "zh_CN" else ": "


def render_markdown(report: SupportReport | Diagnosis, lang: str | None = None) -> str:
    """The report as Markdown (CommonMark + GFM tables), safe for any bundle content."""
    return markdown_of_blocks(report_blocks(report, lang), lang)


def markdown_of_blocks(blocks: Sequence[Block], lang: str | None = None) -> str:
    """Any report's blocks as Markdown (the fleet comparison renders its own blocks with it)."""
    out: list[str] = []
    colon = _colon(lang)
    for block in blocks:
        kind, parts = block.kind, block.parts
        if kind in ("h1", "h2", "h3"):
            out += ["#" * int(kind[1]) + " " + _md_text(parts[0]), ""]
        elif kind == "p":
            out += [_md_inline(parts[0]), ""]
        elif kind == "kv":
            out += [f"- **{_md_text(label)}{colon.strip()}** {_md_inline(value)}" for label, value in parts[0]] + [""]
        elif kind == "list":
            out += [f"- {_md_inline(item)}" for item in parts] + [""]
        elif kind == "table":
            headers, rows = parts
            out.append("| " + " | ".join(_md_text(h).replace("|", "\\|") or " " for h in headers) + " |")
            out.append("|" + "---|" * len(headers))
            out += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in rows]
            out.append("")
        elif kind == "finding":
            _, severity, code, where, message, fix, fix_label, suggestion, suggestion_label = parts
            head = f"- **{_md_text(severity)}** {_md_code(code)}" + (f" {_md_code(where)}" if where else "")
            out.append(head)
            out.append(f"  {_md_text(message)}")
            if fix:
                out.append(f"  *{_md_text(fix_label)}{colon.strip()}* {_md_text(fix)}")
            if suggestion:
                out.append(f"  *{_md_text(suggestion_label)}{colon.strip()}* {_md_code(suggestion)}")
            out.append("")
        elif kind == "code":
            language, text = parts
            fence = _md_fence(text)
            out += [fence + language, text.rstrip("\n"), fence, ""]
    # Values come from the customer's files: no control or bidi character reaches a reader's screen.
    return terminal_text("\n".join(out).rstrip("\n") + "\n", one_line=False)


# ---------------------------------------------------------------------------------------------
# HTML
# ---------------------------------------------------------------------------------------------

_CSS = """
body { font-family: system-ui, "Noto Sans CJK SC", "Microsoft YaHei", sans-serif; max-width: 70em;
       margin: 2em auto; padding: 0 1em; line-height: 1.45; color: #1d1d1d; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; margin-top: 1.6em; }
h3 { font-size: 1.05em; }
table { border-collapse: collapse; margin: .5em 0; } th, td { border: 1px solid #ccc; padding: .25em .5em;
       text-align: left; vertical-align: top; } th { background: #f2f2f2; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; background: #f4f4f4; padding: 0 .2em;
       overflow-wrap: anywhere; }
pre { background: #f4f4f4; padding: .75em; overflow-x: auto; } pre code { padding: 0; }
dl.kv { display: grid; grid-template-columns: max-content auto; gap: .2em 1em; } dl.kv dt { font-weight: 600; }
dl.kv dd { margin: 0; }
ul.findings { list-style: none; padding-left: 0; } ul.findings li { border-left: 4px solid #999;
       padding: .3em .7em; margin: .5em 0; background: #fafafa; }
li.error { border-left-color: #c62828 !important; } li.warning { border-left-color: #ef8f00 !important; }
li.info { border-left-color: #1565c0 !important; }
.severity { font-weight: 700; } .fix { margin-top: .2em; }
"""


def _h(text: object) -> str:
    return html.escape(str(text), quote=True)


def _html_inline(parts: Inline) -> str:
    return "".join(f"<code>{_h(p.text)}</code>" if p.code else _h(p.text) for p in parts)


def render_html(report: SupportReport | Diagnosis, lang: str | None = None) -> str:
    """The report as one self-contained HTML page (inline CSS, no scripts, no external files);
    every text is escaped."""
    lang = normalize_language(lang or current_language())
    return html_of_blocks(report_blocks(report, lang), lang)


def html_of_blocks(blocks: Sequence[Block], lang: str | None = None) -> str:
    """Any report's blocks as one self-contained HTML page."""
    lang = normalize_language(lang or current_language())
    title = blocks[0].parts[0] if blocks and blocks[0].kind == "h1" else "cann-config"
    out = ["<!DOCTYPE html>", f'<html lang="{"zh-CN" if lang == "zh_CN" else "en"}">', "<head>",
           '<meta charset="utf-8">', '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{_h(title)}</title>", f"<style>{_CSS}</style>", "</head>", "<body>"]
    in_findings = False
    colon = _colon(lang)
    for block in blocks:
        kind, parts = block.kind, block.parts
        if kind != "finding" and in_findings:
            out.append("</ul>")
            in_findings = False
        if kind in ("h1", "h2", "h3"):
            out.append(f"<{kind}>{_h(parts[0])}</{kind}>")
        elif kind == "p":
            out.append(f"<p>{_html_inline(parts[0])}</p>")
        elif kind == "kv":
            out.append('<dl class="kv">' + "".join(f"<dt>{_h(label)}</dt><dd>{_html_inline(value)}</dd>"
                                                  for label, value in parts[0]) + "</dl>")
        elif kind == "list":
            out.append("<ul>" + "".join(f"<li>{_html_inline(item)}</li>" for item in parts) + "</ul>")
        elif kind == "table":
            headers, rows = parts
            out.append("<table><thead><tr>" + "".join(f"<th>{_h(h)}</th>" for h in headers) + "</tr></thead><tbody>")
            out += ["<tr>" + "".join(f"<td>{_html_inline(cell)}</td>" for cell in row) + "</tr>" for row in rows]
            out.append("</tbody></table>")
        elif kind == "finding":
            if not in_findings:
                out.append('<ul class="findings">')
                in_findings = True
            severity_id, severity, code, where, message, fix, fix_label, suggestion, suggestion_label = parts
            item = [f'<li class="{_h(severity_id)}"><span class="severity">{_h(severity)}</span> <code>{_h(code)}</code>']
            if where:
                item.append(f" <code>{_h(where)}</code>")
            item.append(f"<div>{_h(message)}</div>")
            if fix:
                item.append(f'<div class="fix"><em>{_h(fix_label)}{colon}</em>{_h(fix)}</div>')
            if suggestion:
                item.append(f'<div class="fix"><em>{_h(suggestion_label)}{colon}</em><code>{_h(suggestion)}</code></div>')
            out.append("".join(item) + "</li>")
        elif kind == "code":
            language, text = parts
            css = f' class="language-{_h(language)}"' if language else ""
            out.append(f"<pre><code{css}>{_h(text)}</code></pre>")
    if in_findings:
        out.append("</ul>")
    out += ["</body>", "</html>"]
    return terminal_text("\n".join(out) + "\n", one_line=False)


# ---------------------------------------------------------------------------------------------
# Plain text (the terminal)
# ---------------------------------------------------------------------------------------------

# A hostile bundle must not drive the terminal (escape sequences) of the support engineer who
# prints it: every text goes through app.textsafe.terminal_text.
_plain = terminal_text


def _plain_inline(parts: Inline) -> str:
    return "".join(_plain(p.text) for p in parts)


def render_text(report: SupportReport | Diagnosis, lang: str | None = None) -> str:
    """The report for a terminal (what `diagnose --bundle` prints); control characters from a
    bundle are replaced, so printing it cannot send escape sequences to the terminal."""
    out: list[str] = []
    colon = _colon(lang)
    for block in report_blocks(report, lang):
        kind, parts = block.kind, block.parts
        if kind == "h1":
            title = _plain(parts[0])
            out += [title, underline(title, "="), ""]
        elif kind in ("h2", "h3"):
            title = _plain(parts[0])
            out += [title, underline(title, "-" if kind == "h2" else "~")]
        elif kind == "p":
            out += [_plain_inline(parts[0]), ""]
        elif kind == "kv":
            out += [f"  {_plain(label)}{colon}{_plain_inline(value)}" for label, value in parts[0]] + [""]
        elif kind == "list":
            out += [f"  - {_plain_inline(item)}" for item in parts] + [""]
        elif kind == "table":
            headers, rows = parts
            cells = [[_plain(h) for h in headers]] + [[_plain_inline(c) for c in row] for row in rows]
            # aligned by display width: Chinese headers and values take two cells a character
            out += table_lines(cells, header=True) + [""]
        elif kind == "finding":
            _, severity, code, where, message, fix, fix_label, suggestion, suggestion_label = parts
            out.append(f"  {pad(_plain(severity), severity_column(lang))}  {_plain(code)}"
                       + (f"  {_plain(where)}" if where else ""))
            out.append(f"      {_plain(message)}")
            if fix:
                out.append(f"      {_plain(fix_label)}{colon}{_plain(fix)}")
            if suggestion:
                out.append(f"      {_plain(suggestion_label)}{colon}{_plain(suggestion)}")
            out.append("")
        elif kind == "code":
            _, text = parts
            out += ["    " + line for line in _plain(text, one_line=False).rstrip("\n").split("\n")] + [""]
    return "\n".join(out).rstrip("\n") + "\n"


# ---------------------------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------------------------


def report_format(path: str | os.PathLike[str]) -> str:
    """"markdown" or "html" from the file name; UsageError for any other extension."""
    suffix = Path(path).suffix.lower()
    if suffix not in REPORT_EXTENSIONS:
        raise UsageError.from_code("support-error-report-extension", path=str(path),
                                   extensions=", ".join(REPORT_EXTENSIONS))
    return REPORT_EXTENSIONS[suffix]


def write_report(path: str | os.PathLike[str], report: SupportReport | Diagnosis, lang: str | None = None,
                 *, force: bool = False) -> Path:
    """Render the report in the format its file name says and write it through the one writer
    (app.io.outputfiles: atomic, regular files only, a read-only file only with `force`)."""
    fmt = report_format(path)
    text = render_markdown(report, lang) if fmt == "markdown" else render_html(report, lang)
    write_output(path, text.encode("utf-8", "replace"), force=force)
    return Path(path)
