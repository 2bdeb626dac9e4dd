"""`cann-config fleet BUNDLE_OR_DIR ...`: compare what each node of a cluster runs, from its bundle.

    cann-config fleet BUNDLE_OR_DIR ... [--same ID ...] [--json] [--report FILE.md|FILE.html]

A node is a support bundle (`cann-config collect`; `cann-config export ansible-collect` fetches one
per host as bundles/<host>.json); a directory stands for every *.json in it. The table and its
rules are app.support.fleet's.

Exit status (docs/architecture.md, "Exit status"): 0 when no node has an error finding and every
`--same` setting agrees; 1 otherwise; 2 for bad usage or an input that is not a bundle (one line
naming it).
"""

from __future__ import annotations

import argparse
import json
import sys

from cann_config.app.i18n import current_language
from cann_config.app.io.exporters.files import write_export
from cann_config.app.support.fleet import compare_bundles
from cann_config.app.support.report import report_format
from cann_config.app.textsafe import json_text, terminal_text

DESCRIPTION = ("One table of the device, the CANN versions and every effective setting with its source, per "
               "node (a support bundle; a directory: all *.json in it). Rows that differ between nodes are "
               "marked. Exit 1 when a node has an error finding or a --same setting differs.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `cann-config fleet` (app/cli/__init__.py creates the parser)."""
    p.add_argument("inputs", nargs="+", metavar="BUNDLE_OR_DIR", help="support bundles, or directories of them")
    p.add_argument("--same", nargs="+", action="extend", default=[], metavar="ID",
                   help="settings (option ids, device, toolkit_version, ...) that must be equal on every node")
    p.add_argument("--json", action="store_true", help="print JSON (keys and codes never change with --lang)")
    p.add_argument("--report", metavar="FILE.md|FILE.html",
                   help="also write the comparison for a ticket, Markdown or HTML by the file name, in --lang")
    p.add_argument("--force", action="store_true", help="replace the --report file even when it is read-only")
    p.add_argument("--all", dest="show_all", action="store_true",
                   help="also show the rows that differ only by each node's home directory (hidden by default)")


def run(args: argparse.Namespace) -> int:
    lang = current_language()
    fmt = report_format(args.report) if args.report else None  # a wrong name is refused before reading
    comparison = compare_bundles(args.inputs, args.same)
    if fmt is not None:
        text = comparison.markdown(lang, args.show_all) if fmt == "markdown" else comparison.html(lang, args.show_all)
        # The bundles are customers' files: no control or bidi character reaches a reader.
        write_export(args.report, terminal_text(text, one_line=False).encode("utf-8", "replace"), force=args.force)
    if args.json:
        print(json_text(json.dumps(comparison.to_json(lang), ensure_ascii=False, indent=2)))
    else:
        sys.stdout.write(terminal_text(comparison.to_text(lang, args.show_all), one_line=False))
    return 1 if comparison.failed else 0
