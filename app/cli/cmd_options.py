"""`cann-config options [ID ...] [--json]`: the catalog, as readable blocks or as JSON.

Each block shows every name an option has in each framework, file and variable, the way
`ccache --show-config` shows where a setting comes from: generated from the catalog's targets
(resources/catalog.toml), so an option or target added there shows up here unchanged. Series
are shown by their product names (resources/devices.toml). An unknown ID is bad usage: exit 2,
one line naming the close matches.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from cann_config.app.catalog import REQUIREMENT_NAMES, Catalog, Option, load_catalog
from cann_config.app.device.table import load_device_table
from cann_config.app.errors import UsageError
from cann_config.app.i18n import current_language, pick
from cann_config.app.io.formats import formats_for
from cann_config.app.messages import message_table
from cann_config.app.textwidth import table_lines

DESCRIPTION = ("List the options of the catalog: type, default, range, every name an option has (MemoryConfig "
               "keyword, parameter_map key, npu.global_options() path, GE option, ATC flag, environment variable, "
               "op_cache.ini key), its values and the product series it is limited to.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `cann-config options` (app/cli/__init__.py creates the parser)."""
    p.add_argument("ids", nargs="*", metavar="ID", help="only these options (default: every option)")
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
                   "values": list(n.values) if n.values is not None else None,
                   **({"below": n.below} if n.below is not None else {}),
                   **({"frameworks": list(n.frameworks)} if n.frameworks is not None else {}), **n.text}
                  for n in option.notes],
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
            "vllm_flag": t.vllm_flag,
            "ms_runtime": t.ms_runtime,
            "ms_context": t.ms_context,
            "ms_alloc_conf": t.ms_alloc_conf,
            "shapes": t.shapes,
        },
        "legacy_env": option.legacy_env,
        "sources": list(option.sources),
        # Additive (the keys above are the contract): the series by their product names.
        "series_names": [_series_name_json(sid) for sid in option.series] if option.series is not None else None,
    }


def _series_name_json(sid: str) -> dict[str, str]:
    table = load_device_table()
    name = table.series[sid].name if sid in table.series else {"en": sid, "zh": sid}
    return {"id": sid, "en": name["en"], "zh": name["zh"]}


def catalog_to_json(catalog: Catalog) -> dict[str, Any]:
    return {
        "format": "cann-config-catalog",
        "version": 1,
        "options": {oid: option_to_json(o) for oid, o in catalog.options.items()},
        "frameworks": {
            fid: {"name": dict(f.name), "options": list(f.options), "exports": list(formats_for(fid)),
                  "defaults": dict(f.defaults)}
            for fid, f in catalog.frameworks.items()
        },
    }


def _shown(value: object) -> str:
    return '""' if value == "" else str(value)


def _label(code: str, lang: str | None, **params: object) -> str:
    """A label of resources/messages/cli.toml in `lang`, filled in."""
    return pick(message_table()[code].text, lang).format_map(params)


def _target_label(key: str, lang: str | None) -> str:
    """What a target is called (`GE option`); a target the message table does not name yet
    (one just added to the catalog) is shown by its catalog key."""
    code = f"cli-options-name-{key}"
    return _label(code, lang) if code in message_table() else key


def option_names(option: Option, catalog: Catalog, lang: str | None = None) -> list[tuple[str, str]]:
    """Every name `option` has, as (where, name) in `lang`: the profile id, then each export
    target of the catalog in its own syntax (`custom_op.parameter_map["x"].i`,
    `npu.global_options().x`), then the environment variables per framework and the legacy one."""
    t = option.targets
    names = [(_label("cli-options-name-profile", lang), option.id)]
    for key in t._fields:
        value = getattr(t, key)
        if not value:
            continue
        if key == "env":
            continue  # below, one row per variable
        if key == "memory_config":
            shown = f"MemoryConfig({value}=...)"
        elif key == "npu_run_config":
            shown = f"NPURunConfig({value}=...)"
        elif key == "parameter_map":
            shown = f'custom_op.parameter_map["{value.key}"].{value.field}'
        elif key == "tf2":
            shown = f"npu.global_options().{value}"
        else:
            shown = str(value)
        names.append((_target_label(key, lang), shown))
    by_variable: dict[str, list[str]] = {}
    for framework, variable in t.env.items():
        by_variable.setdefault(variable, []).append(framework)
    for variable, frameworks in by_variable.items():
        if frameworks == ["*"] and len(t.env) == 1:
            where = _label("cli-options-name-env", lang)
        else:
            # framework ids, as --framework takes them
            shown_frameworks = [_label("cli-options-name-env-others", lang) if f == "*" else f for f in frameworks]
            where = _label("cli-options-name-env-for", lang, frameworks=", ".join(shown_frameworks))
        names.append((where, variable))
    if option.legacy_env:
        names.append((_label("cli-options-name-legacy_env", lang), option.legacy_env))
    return names


def series_names(option: Option, lang: str | None = None) -> list[str]:
    """The product series that support `option`, by their product names in `lang`."""
    table = load_device_table()
    return [pick(table.series[sid].name, lang) if sid in table.series else sid for sid in option.series or ()]


def format_option(option: Option, catalog: Catalog, lang: str | None = None) -> str:
    """One option for a person: id and title, type/default/range, every name it has, its values
    (special values apart, each said once), the series it is limited to, its notes."""
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
    lines.append("    " + _label("cli-options-names", lang))
    lines += table_lines([list(row) for row in option_names(option, catalog, lang)], indent="      ")
    for code, docs in (("cli-options-values", option.values), ("cli-options-special", option.special)):
        if docs:
            lines.append("    " + _label(code, lang))
            lines += table_lines([[_shown(v.value), pick(v.text, lang)] for v in docs], align=[">", "<"],
                                 indent="      ")
    if option.series is not None:
        lines.append("    " + _label("cli-options-series", lang,
                                      series=_label("cli-options-facts-separator", lang).join(series_names(option, lang))))
    if option.requires:
        needs = ", ".join(f"{REQUIREMENT_NAMES[key]} >= {version}" for key, version in option.requires.items())
        lines.append("    " + _label("cli-options-requires", lang, needs=needs))
    for note in option.notes:
        lines.append(f"    ! {pick(note.text, lang)}")
    return "\n".join(lines)


def format_table(catalog: Catalog, lang: str | None = None, ids: Sequence[str] | None = None) -> str:
    """The options `ids` (default: every option, in catalog order), one block each (labels in
    `lang`; ids, types, values and names as the user types them)."""
    chosen = list(ids) if ids else list(catalog.options)
    return "\n\n".join(format_option(catalog.options[oid], catalog, lang) for oid in chosen)


def close_options(text: str, known: Sequence[str]) -> list[str]:
    """The option ids a mistyped `text` may mean: similar spellings, then ids containing it."""


    import difflib  # only for a mistyped id: not on every `options` run

    lowered = text.lower().replace("-", "_")
    matches = difflib.get_close_matches(lowered, known, n=4, cutoff=0.6)
    matches += [k for k in known if lowered and lowered in k and k not in matches]
    return matches[:6]


def chosen_ids(catalog: Catalog, ids: Sequence[str]) -> list[str]:
    """The ids asked for, each once, in the order given; UsageError (exit 2) naming close
    matches for one the catalog does not have."""
    known = list(catalog.options)
    for text in ids:
        if text not in catalog.options:
            matches = close_options(text, known)
            if matches:
                raise UsageError.from_code("cli-options-unknown", option=text, matches=", ".join(matches))
            raise UsageError.from_code("cli-options-unknown-none", option=text, known=", ".join(known))
    return list(dict.fromkeys(ids))


def run(args: argparse.Namespace) -> int:
    catalog = load_catalog()
    ids = chosen_ids(catalog, args.ids)
    if args.json:
        data = catalog_to_json(catalog)
        if ids:
            data["options"] = {oid: data["options"][oid] for oid in ids}
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(format_table(catalog, current_language(), ids))
    return 0
