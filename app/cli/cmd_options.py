"""`cann-config options [--json]`: the catalog, as a readable table or as JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cann_config.app.catalog import Catalog, Option, load_catalog
from cann_config.app.i18n import pick
from cann_config.app.messages import message_table

DESCRIPTION = "List every option of the catalog: type, default, values, devices."


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `cann-config options` (app/cli/__init__.py creates the parser)."""
    p.add_argument("--json", action="store_true", help="print the whole catalog as JSON (both languages)")


def option_to_json(option: Option) -> dict[str, Any]:
    t = option.targets
    return {
        "id": option.id,
        "page": option.page,
        "type": option.type,
        "default": option.default,
        "unit": option.unit or None,
        "min": option.min,
        "max": option.max,
        "min_exclusive": option.min_exclusive,
        "max_exclusive": option.max_exclusive,
        "requires": dict(option.requires),
        "advanced": option.advanced,
        "documented": option.documented,
        "title": dict(option.title),
        "doc": dict(option.doc),
        "values": [{"value": v.value, **v.text} for v in option.values],
        "special": [{"value": v.value, **v.text} for v in option.special],
        "notes": [{"code": n.code, "severity": n.severity,
                   "values": list(n.values) if n.values is not None else None, **n.text} for n in option.notes],
        "series": list(option.series) if option.series is not None else None,
        "targets": {
            "memory_config": t.memory_config,
            "npu_run_config": t.npu_run_config,
            "parameter_map": {"key": t.parameter_map.key, "field": t.parameter_map.field} if t.parameter_map else None,
            "tf2": t.tf2,
            "ge": t.ge,
            "atc": t.atc,
            "acl": t.acl,
            "env": dict(t.env),
            "ini": t.ini,
            "alloc_conf": t.alloc_conf,
        },
        "legacy_env": option.legacy_env,
        "sources": list(option.sources),
    }


def catalog_to_json(catalog: Catalog) -> dict[str, Any]:
    return {
        "format": "cann-config-catalog",
        "version": 1,
        "options": {oid: option_to_json(o) for oid, o in catalog.options.items()},
        "frameworks": {
            fid: {"name": dict(f.name), "options": list(f.options), "exports": list(f.exports),
                  "defaults": dict(f.defaults)}
            for fid, f in catalog.frameworks.items()
        },
    }


def _shown(value: object) -> str:
    return '""' if value == "" else str(value)


def _label(code: str, lang: str | None, **params: object) -> str:
    """A label of resources/messages/cli.toml in `lang`, filled in."""
    return pick(message_table()[code].text, lang).format_map(params)


def format_table(catalog: Catalog, lang: str | None = None) -> str:
    """One block per option: id, title, type/default/range, values, devices (labels in `lang`;
    ids, types and values as the user types them)."""
    blocks = []
    for option in catalog.options.values():
        head = f"{option.id}  —  {pick(option.title, lang)}"
        if option.advanced:
            head += "  " + _label("cli-options-advanced", lang)
        kind = option.type + (f" ({option.unit})" if option.unit else "")
        facts = [_label("cli-options-type", lang, type=kind),
                 _label("cli-options-default", lang, value=_shown(option.default))]
        if option.min is not None or option.max is not None:
            facts.append(_label("cli-options-range", lang, min=option.min, max=option.max,
                                open="(" if option.min_exclusive else "[", close=")" if option.max_exclusive else "]"))
        overrides = [f"{fid}: {_shown(f.defaults[option.id])}" for fid, f in catalog.frameworks.items()
                     if option.id in f.defaults]
        if overrides:
            facts.append(_label("cli-options-framework-defaults", lang, defaults=", ".join(overrides)))
        lines = [head, "    " + _label("cli-options-facts-separator", lang).join(facts)]
        for v in option.values + option.special:
            lines.append(f"    {_shown(v.value):>15}  {pick(v.text, lang)}")
        if option.series is not None:
            lines.append("    " + _label("cli-options-devices", lang, series=", ".join(option.series)))
        if option.requires:
            from cann_config.app.catalog import REQUIREMENT_NAMES

            needs = ", ".join(f"{REQUIREMENT_NAMES[key]} >= {version}" for key, version in option.requires.items())
            lines.append("    " + _label("cli-options-requires", lang, needs=needs))
        for note in option.notes:
            lines.append(f"    ! {pick(note.text, lang)}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def run(args: argparse.Namespace) -> int:
    catalog = load_catalog()
    if args.json:
        print(json.dumps(catalog_to_json(catalog), ensure_ascii=False, indent=2))
    else:
        print(format_table(catalog))
    return 0
