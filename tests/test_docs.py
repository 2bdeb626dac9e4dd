"""The project's own CANN documentation (docs/) is what code comments cite, and it stays whole.

Comments explain a CANN rule by citing a page under docs/ (docs/cann/README.md). These tests fail
when a tracked file cites a reference that is not part of the repository, when a cited docs/
page or #anchor does not exist, when a link between the docs pages is broken, and when the
rule-to-module table of docs/architecture.md names a module or function the code no longer has.
"""

from __future__ import annotations

import importlib
import re
import shutil
import subprocess
import unicodedata
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# Written in pieces so that this file does not cite them itself.
OUTSIDE_REFERENCES = re.compile("|".join((r"\.\./" + "shared", "cann" + "-facts", r"\bDESIGN" + r"\.md")))
# A citation in code: docs/<path>.md, optionally with #anchor (docs/cann/op-cache.md#precedence).
CITATION = re.compile(r"(?<![\w/.])docs/([\w./-]+?\.md)(#[\w-]+)?")
# A repository name right before a docs/ path: the path is in that repository, not in ours.
UPSTREAM = re.compile(r"[\w.-]+/[\w.-]+`?\s+`?$")
# A link in a Markdown page: [text](target).
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
EXPLICIT_ANCHOR = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")


def tracked_files() -> list[Path]:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the tracked files are unknown")
    out = subprocess.run([git, "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    return [ROOT / name for name in out.decode("utf-8", "surrogateescape").split("\0") if name]


def text_of(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except (IsADirectoryError, FileNotFoundError):
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", "replace")


def slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces to -."""
    text = re.sub(r"`|\*\*|__|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    kept = "".join(ch for ch in text if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


@cache
def anchors(page: Path) -> frozenset[str]:
    found: set[str] = set()
    counts: dict[str, int] = {}
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        found.update(EXPLICIT_ANCHOR.findall(line))
        match = HEADING.match(line)
        if match:
            base = slug(match.group(2))
            n = counts.get(base, 0)
            counts[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return frozenset(found)


def test_slug_follows_github():
    assert slug("Size limit and keep ratio") == "size-limit-and-keep-ratio"
    assert slug("The `GE_USE_STATIC_MEMORY` union") == "the-ge_use_static_memory-union"
    assert slug("How CANN reads op_cache.ini") == "how-cann-reads-op_cacheini"
    assert slug("MindSpore, GE options and ATC") == "mindspore-ge-options-and-atc"


def test_no_tracked_file_cites_a_reference_outside_the_repository():
    offenders = []
    for path in tracked_files():
        text = text_of(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE_REFERENCES.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "cite a page under docs/ instead:\n" + "\n".join(offenders)


def test_every_cited_docs_page_and_anchor_exists():
    cited = 0
    broken = []
    for path in tracked_files():
        if path.is_relative_to(DOCS):
            continue  # the pages link to each other relatively; see the next test
        text = text_of(path)
        if text is None:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            for match in CITATION.finditer(line):
                if UPSTREAM.search(line, 0, match.start()):
                    continue  # a page of an upstream repository: "hicann/ge docs/zh/..."
                cited += 1
                page = DOCS / match.group(1)
                where = f"{path.relative_to(ROOT)}:{number}: docs/{match.group(1)}{match.group(2) or ''}"
                if not page.is_file():
                    broken.append(where + " (no such page)")
                elif match.group(2) and match.group(2)[1:] not in anchors(page):
                    broken.append(where + " (no such anchor)")
    assert cited > 40  # the code does cite the docs; a regex that matches nothing would pass vacuously
    assert not broken, "\n".join(broken)


def test_links_between_docs_pages_resolve():
    pages = sorted(DOCS.rglob("*.md"))
    assert DOCS / "architecture.md" in pages and DOCS / "cann" / "README.md" in pages
    broken = []
    for page in pages:
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            for target in LINK.findall(line):
                if re.match(r"[a-z]+:", target):
                    continue  # an external address
                name, _, anchor = target.partition("#")
                dest = (page.parent / name).resolve() if name else page
                where = f"{page.relative_to(ROOT)}:{number}: {target}"
                if not dest.exists():
                    broken.append(where + " (no such file)")
                elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    broken.append(where + " (no such anchor)")
    assert not broken, "\n".join(broken)


def test_every_cann_page_is_in_the_index():
    index = (DOCS / "cann" / "README.md").read_text(encoding="utf-8")
    listed = set(LINK.findall(index))
    missing = [p.name for p in (DOCS / "cann").glob("*.md") if p.name != "README.md" and p.name not in listed]
    assert not missing


def rule_table() -> list[tuple[str, str]]:
    """(rule, implemented-in cell) of each row of the architecture page's rule-to-module table."""
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    section = text.split("## Rule to module", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and not set(cells[0]) <= set("-: ") and cells[0] != "rule":
            rows.append((cells[0], cells[2]))
    return rows


def test_rule_table_names_modules_and_functions_that_exist():
    rows = rule_table()
    assert len(rows) >= 20
    broken = []
    checked = 0
    for rule, cell in rows:
        for group in cell.split(";"):
            names = re.findall(r"`([^`]+)`", group)
            if not names or "/" not in names[0]:
                continue
            if "*" in names[0]:
                if not list(ROOT.glob(names[0])):
                    broken.append(f"{rule}: nothing matches {names[0]}")
                continue
            path = ROOT / names[0]
            if not path.is_file():
                broken.append(f"{rule}: {names[0]} does not exist")
                continue
            if path.suffix != ".py":
                continue  # data files: the names in parentheses are keys, not definitions
            source = path.read_text(encoding="utf-8")
            for name in names[1:]:
                last = name.split(".")[-1]
                defined = re.search(rf"^\s*(?:def|class)\s+{re.escape(last)}\b|^{re.escape(last)}\s*[:=]", source, re.M)
                checked += 1
                if not defined:
                    broken.append(f"{rule}: {names[0]} defines no {name}")
    assert checked >= 20
    assert not broken, "\n".join(broken)


def test_names_in_the_architecture_page_exist_in_the_core():
    """Every `app.<module>[.<name>]` the data flows and contracts name can be imported."""
    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    dotted = set(re.findall(r"(?<![\w/.])app(?:\.[A-Za-z_]\w*)+", text))
    dotted = {name for name in dotted if name.rsplit(".", 1)[1] not in ("py", "md", "toml")}
    assert len(dotted) >= 15
    missing = []
    for name in sorted(dotted):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module("cann_config." + ".".join(parts[:cut]))
            except ModuleNotFoundError:
                continue
            for attr in parts[cut:]:
                obj = getattr(obj, attr, None)
            if obj is None:
                missing.append(name)
            break
        else:
            missing.append(name)
    assert not missing, "docs/architecture.md names what the core does not have: " + ", ".join(missing)


def test_the_export_formats_table_is_the_registry():
    """docs/architecture.md#export-formats lists app/io/formats.py's rows as they are."""
    from cann_config.app.io.formats import EXPORT_FORMATS

    text = (DOCS / "architecture.md").read_text(encoding="utf-8")
    section = text.split("### Export formats", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    expected = []
    for f in EXPORT_FORMATS.values():
        frameworks = ", ".join(f"`{x}`" for x in f.frameworks) if f.frameworks else "all"
        expected.append(f"| `{f.id}` | {f.language} | `{f.file_name}` | {f.carrier} | {frameworks} | `{f.writer}` "
                        f"| `{f.reader}` |")
    assert rows == expected
