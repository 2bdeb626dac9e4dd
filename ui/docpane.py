"""The documentation pane (`docPane`): the full text of the option the user is looking at.

Built from the catalog entry alone — meaning, every value with its meaning, default (also the
framework's own default), unit and range, the devices that support it, the rules, where each
export target carries it, and the sources — so it stays readable when the option is disabled
(make xconfig's help pane), with the reason on top.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QTextOption
from PySide6.QtWidgets import QTextBrowser, QWidget

from cann_config.app.catalog import REQUIREMENT_NAMES, Catalog, Option, Value
from cann_config.app.device.table import load_device_table
from cann_config.app.i18n import pick
from cann_config.ui.qtprops import USER_ROLE, escape, rich_text, set_foreground

if TYPE_CHECKING:  # pragma: no cover - typing only
    from collections.abc import Sequence

    from PySide6.QtCore import QMimeData
    from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem

    from cann_config.app.findings import Finding

SEVERITY_COLOURS = {"error": "#b3261e", "warning": "#8a5a00", "info": "#31587a"}


translate = QCoreApplication.translate


BREAK = "\u200b"  # a zero-width space: a place a line may break, removed again from what is copied
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[._/][A-Za-z0-9]+)+")


def breakable(text: str) -> str:
    """`text` escaped for HTML, its dotted or underscored identifiers (memory_config.atomic_clean_policy,
    ge.exec.atomicCleanPolicy) given a break opportunity after each `.`, `_` and `/` and none inside a
    word, so a narrow pane wraps them at those boundaries instead of mid-word."""
    out, last = [], 0
    for match in _IDENTIFIER.finditer(text):
        out.append(escape(text[last:match.start()]))
        out.append(re.sub(r"([._/])", "\\1" + BREAK, escape(match.group())))
        last = match.end()
    out.append(escape(text[last:]))
    return "".join(out)


def _shown(value: Value) -> str:
    return translate("DocPane", "(not set)") if value == "" else str(value)


def severity_label(severity: str) -> str:
    labels = {"error": translate("DocPane", "Error"), "warning": translate("DocPane", "Warning"),
              "info": translate("DocPane", "Note")}
    return labels.get(severity, severity)


def severity_prefix(severity: str) -> str:
    """The severity label with the language's colon ("Error:", "错误：")."""
    return translate("DocPane", "%1:").replace("%1", severity_label(severity))


def findings_label(parent: QWidget, object_name: str) -> QLabel:
    """A page's label of its choices' findings (`memoryFindings`, `cacheFindings`,
    `deviceFindings`): rich text, wrapped, hidden until show_findings_label() has some."""
    from PySide6.QtWidgets import QLabel  # the pages that call this have it loaded already

    label = QLabel(parent)
    label.setObjectName(object_name)
    label.setWordWrap(True)
    rich_text(label)
    label.hide()
    return label


def show_findings_label(label: QLabel, findings: Sequence[Finding]) -> None:
    """The choices' findings in a page's label (`memoryFindings`, `cacheFindings`,
    `deviceFindings`): one line each, the severity word and the message in the severity's colour;
    the label's accessibleDescription() is the same lines as plain text; hidden while there is none."""
    lines = [f"<span style='color:{SEVERITY_COLOURS.get(f.severity, '#000')}'><b>{escape(severity_prefix(f.severity))}</b> "
             f"{escape(f.message())}</span>" for f in findings]
    label.setText("<br>".join(lines))
    label.setAccessibleDescription("\n".join(f"{severity_prefix(f.severity)} {f.message()}" for f in findings))
    label.setVisible(bool(findings))


def add_finding_item(findings_list: QListWidget, finding: Finding, *, fix_in_tooltip: bool = False) -> QListWidgetItem:
    """A finding as one line of a findings list, the same on every page: the severity word, the
    message, where it was found, its fix (on a second line, or as the tooltip), in the severity's
    colour, with the finding's code as the item's data."""
    where = finding.where()
    text = f"{severity_prefix(finding.severity)} {finding.message()}" + (f"  ({where})" if where else "")
    fix = finding.fix_text()
    if fix and not fix_in_tooltip:
        text += "\n  → " + fix
    from PySide6.QtWidgets import QListWidgetItem  # not needed before the first paint (ui/qtprops.py)

    item = QListWidgetItem(text, findings_list)
    if fix_in_tooltip:
        item.setToolTip(fix or "")
    set_foreground(item, SEVERITY_COLOURS.get(finding.severity, "#000"))
    item.setData(USER_ROLE, finding.code)
    return item


def _targets_rows(option: Option, catalog: Catalog) -> list[tuple[str, str]]:
    t = option.targets
    rows = []
    if t.memory_config:
        rows.append((translate("DocPane", "TF1 MemoryConfig keyword"), t.memory_config))
    if t.npu_run_config:
        rows.append((translate("DocPane", "TF1 NPURunConfig keyword"), t.npu_run_config))
    if t.parameter_map:
        rows.append((translate("DocPane", "TF1 session parameter_map"),
                     f'parameter_map["{t.parameter_map.key}"].{t.parameter_map.field}'))
    if t.tf2:
        rows.append((translate("DocPane", "TF2 npu.global_options()"), t.tf2))
    if t.ge:
        rows.append((translate("DocPane", "GE option"), t.ge))
    if t.atc:
        rows.append((translate("DocPane", "ATC flag"), t.atc))
    if t.acl:
        rows.append((translate("DocPane", "AscendCL option"), t.acl))
    for fid, var in t.env.items():
        who = translate("DocPane", "other frameworks") if fid == "*" else pick(catalog.frameworks[fid].name)
        rows.append((translate("DocPane", "Environment variable (%1)").replace("%1", who), var))
    if t.ini:
        rows.append((translate("DocPane", "op_cache.ini key"), t.ini))
    if t.alloc_conf:
        rows.append((translate("DocPane", "PYTORCH_NPU_ALLOC_CONF key (torch_npu)"), f"{t.alloc_conf}:…"))
    if option.legacy_env:
        rows.append((translate("DocPane", "Legacy environment variable (do not combine)"), option.legacy_env))
    return rows


def option_html(option: Option, catalog: Catalog, *, current: Value | None = None,
                framework: str | None = None, reason: str | None = None) -> str:
    """The documentation of one option as HTML, in the current language."""
    parts = [f"<h3>{escape(pick(option.title))}</h3>", f"<p><code>{breakable(option.id)}</code>"]
    if not option.documented:
        undocumented = escape(translate("DocPane", "Undocumented"))
        parts.append(f" &nbsp;<b style='color:{SEVERITY_COLOURS['warning']}'>{undocumented}</b>")
    if option.advanced:
        advanced = escape(translate("DocPane", "Advanced"))
        parts.append(f" &nbsp;<i>{advanced}</i>")
    parts.append("</p>")
    if reason:
        label = escape(translate("DocPane", "Not available:"))
        parts.append(f"<p style='background:#fdecea;color:{SEVERITY_COLOURS['error']};padding:4px'>"
                     f"<b>{label}</b> {escape(reason)}</p>")
    parts.append(f"<p>{breakable(pick(option.doc))}</p>")
    default = option.default
    fw_default = catalog.default_for(option.id, framework) if framework else default
    if option.values or option.special:
        heading = escape(translate("DocPane", "Values"))
        parts.append(f"<p><b>{heading}</b></p><table cellspacing='0' cellpadding='3'>")
        for doc in option.values + option.special:
            marks = []
            if doc.value == fw_default:
                marks.append(translate("DocPane", "default"))
            if current is not None and doc.value == current:
                marks.append(translate("DocPane", "chosen"))
            separator = translate("DocPane", ", ", "list separator")
            mark = f" <i>({escape(separator.join(marks))})</i>" if marks else ""
            weight = "bold" if current is not None and doc.value == current else "normal"
            parts.append(f"<tr><td valign='top' style='font-weight:{weight}'><code>{escape(_shown(doc.value))}</code></td>"
                         f"<td>{escape(pick(doc.text))}{mark}</td></tr>")
        parts.append("</table>")
    facts = [escape(translate("DocPane", "Default: %1")).replace("%1", f"<code>{escape(_shown(default))}</code>")]
    if fw_default != default and framework:
        facts.append(escape(translate("DocPane", "for %1: %2").replace("%1", pick(catalog.frameworks[framework].name))
                            .replace("%2", _shown(fw_default))))
    if option.unit:
        facts.append(escape(translate("DocPane", "Unit: %1").replace("%1", option.unit)))
    if option.min is not None or option.max is not None:
        low, high = "(" if option.min_exclusive else "[", ")" if option.max_exclusive else "]"
        facts.append(escape(translate("DocPane", "Range: %1").replace("%1", f"{low}{option.min}, {option.max}{high}")))
    if option.requires:
        needs = ", ".join(f"{REQUIREMENT_NAMES[key]} ≥ {version}" for key, version in option.requires.items())
        facts.append(escape(translate("DocPane", "Needs: %1").replace("%1", needs)))
    parts.append("<p>" + " &nbsp;·&nbsp; ".join(facts) + "</p>")
    table = load_device_table()
    if option.series is None:
        label, names = translate("DocPane", "Devices:"), translate("DocPane", "every Ascend device")
    else:
        label = translate("DocPane", "Supported only on:")
        names = translate("DocPane", "; ", "separator of device series").join(pick(table.series[sid].name) for sid in option.series)
    parts.append(f"<p><b>{escape(label)}</b> {escape(names)}</p>")
    if option.notes:
        heading = escape(translate("DocPane", "Rules"))
        parts.append(f"<p><b>{heading}</b></p><ul>")
        for note in option.notes:
            colour = SEVERITY_COLOURS.get(note.severity, "#000")
            said = escape(severity_prefix(note.severity))
            parts.append(f"<li><span style='color:{colour}'>{said}</span> {breakable(pick(note.text))}</li>")
        parts.append("</ul>")
    rows = _targets_rows(option, catalog)
    if rows:
        heading = escape(translate("DocPane", "Where it is set"))
        parts.append(f"<p><b>{heading}</b></p><table cellspacing='0' cellpadding='2'>")
        for label, name in rows:
            parts.append(f"<tr><td>{escape(label)}</td><td><code>{breakable(name)}</code></td></tr>")
        parts.append("</table>")
    if option.sources:
        sources = breakable(translate("DocPane", "Sources: %1").replace("%1", "; ".join(option.sources)))
        parts.append(f"<p style='color:#555'><small>{sources}</small></p>")
    return "".join(parts)


class DocPane(QTextBrowser):
    """Shows the documentation of the option in focus (or a page's own help)."""

    def __init__(self, catalog: Catalog, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("docPane")
        self.catalog = catalog
        self.setOpenExternalLinks(False)
        # Lines break at spaces and at the break opportunities `breakable` puts into identifiers,
        # never inside a word.
        self.setWordWrapMode(QTextOption.WrapMode.WordWrap)
        self.shown_option: str | None = None
        self._page_help = ""

    def show_option(self, option: Option, *, current: Value | None = None, framework: str | None = None,
                    availability: Any = None) -> None:
        self._page_help = ""
        reason = None
        if availability is not None and not availability.enabled and availability.reason:
            reason = pick(availability.reason)
        self.shown_option = option.id
        self.setHtml(option_html(option, self.catalog, current=current, framework=framework, reason=reason))

    def toPlainText(self) -> str:  # noqa: N802 - Qt name
        """The text as a reader would copy it: identifiers without their break opportunities."""
        return super().toPlainText().replace(BREAK, "")

    def createMimeDataFromSelection(self) -> QMimeData:  # noqa: N802 - Qt override
        """A copied identifier is the identifier: without the break opportunities."""
        from PySide6.QtCore import QMimeData

        data = QMimeData()
        data.setText(self.textCursor().selection().toPlainText().replace(BREAK, ""))
        return data

    def show_help(self, html: str) -> None:
        """A page's own help, shown until an option is focused. The same help again is not laid
        out again (the window sets the first page's help before it is shown, and QWizard says
        the page is current once it is)."""
        if self.shown_option is None and html == self._page_help:
            return
        self.shown_option = None
        self._page_help = html
        self.setHtml(html)
