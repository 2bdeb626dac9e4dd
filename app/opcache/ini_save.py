"""What a save of op_cache.ini writes, so that CANN uses the file as the user means it.

Why this module exists: `export op-cache-ini`, the wizard's Save (cache page, export page) and the
support report's suggested file all write op_cache.ini, and a save CANN would ignore must be
refused the same way everywhere (docs/architecture.md#exit-status). The decision is here, apart
from app/opcache/resolution.py (which values CANN uses now, and from where), whose answer it asks
for the value a save must fill in:

- the size keys (`plan_ini_edit`): CANN uses the file's sizes only when both are valid
  (docs/cann/op-cache.md#precedence), so a save of one also writes the other;
- the version lines (`versions_for_save`, `plan_ini_save`): CANN 8.5+ ignores a file without
  adk_version and ops_version (docs/cann/op-cache.md#version-lines, inference from the source);
- where the edit lands: the rendered file is read back as CANN reads it; an edit CANN would not
  read as written, or one that brings ignored keys into effect, is refused
  (docs/cann/op-cache.md#ignored-saves).

Public API:
    plan_ini_edit(existing, chosen, environ, *, file=None) -> IniEdit(changes, findings)
    plan_ini_save(existing, chosen, environ, *, file=None, versions=None) -> IniSave
    IniSave(data, changes, findings, cann_uses, versions_missing, refusal); .refused
    versions_for_save(known, typed) -> dict[str, str]
"""

# No `from __future__ import annotations`: as in resolution.py, NamedTuple annotations stay real.

from collections.abc import Mapping
from typing import NamedTuple

from cann_config.app.catalog import Value, load_catalog
from cann_config.app.errors import InputError
from cann_config.app.findings import Finding, make_finding
from cann_config.app.opcache.ini import (
    INI_NAME,
    MAX_SIZE,
    REMAIN_RATIO,
    VERSION_KEYS,
    OpCacheIni,
    cann_stoi,
    parse_op_cache_ini,
    render_op_cache_ini,
)
from cann_config.app.opcache.resolution import DEFAULT_MAX_MB, DEFAULT_RATIO, resolve_settings, size_in_range

__all__ = ["IniEdit", "IniSave", "plan_ini_edit", "plan_ini_save", "versions_for_save"]


# ---------------------------------------------------------------------------------------------
# What a save of op_cache.ini writes
# ---------------------------------------------------------------------------------------------


class IniEdit(NamedTuple):
    """The size keys a save writes into op_cache.ini, and what the user must know about them."""

    changes: dict[str, Value]  # ini key -> value
    findings: list[Finding]


def plan_ini_edit(existing: OpCacheIni | None, chosen: Mapping[str, Value], environ: Mapping[str, str], *,
                  file: str | None = None) -> IniEdit:
    """Which size keys a save of op_cache.ini writes: the one decision `export op-cache-ini` and
    the wizard's Save both call.

    `chosen` are the size values the user chose (option id -> value); `existing` is the file as
    read (None for a new one); `environ` the environment CANN runs with. CANN uses the file's
    sizes only when both max_op_cache_size and remain_cache_size_ratio are valid, and otherwise
    takes both from the environment or the defaults (docs/cann/op-cache.md#precedence,
    `UpdateOpCacheSizeCfg`). So a save that writes one size also writes the other when the file
    lacks a valid one, with the value CANN uses now (environment or default), and says so
    (`cache-ini-size-filled`): without it, the value written would be ignored. A new file gets
    both sizes (the choice, else the value CANN uses now); an existing file is left alone when
    nothing is chosen.
    """
    catalog = load_catalog()
    sizes = {o.id: o.targets.ini for o in catalog.options.values() if o.targets.ini in (MAX_SIZE, REMAIN_RATIO)}
    picked = {oid: chosen[oid] for oid in sizes if oid in chosen}
    if existing is not None and not picked:
        return IniEdit({}, [])
    in_use = resolve_settings(ini=existing, environ=environ).effective
    in_file = existing.values_as_cann_reads() if existing is not None and existing.counts else {}
    changes: dict[str, Value] = {}
    findings: list[Finding] = []
    for oid, key in sizes.items():
        if oid in picked:
            changes[key] = picked[oid]
            continue
        entry = in_file.get(key)
        parsed = cann_stoi(entry.value) if entry is not None else None
        if parsed is not None and parsed.value is not None and parsed.error is None \
                and size_in_range(key, parsed.value):
            continue  # the file's own value stays, and CANN can use it
        now = in_use[oid]
        value, source = now.value, now.source
        if not isinstance(value, int) or isinstance(value, bool) or not size_in_range(key, value):
            # The environment may hold what the ini cannot (ASCEND_REMAIN_CACHE_SIZE_RATIO=0 is
            # taken by atoi, the ini needs 1..100): CANN's own fallback instead.
            value, source = (DEFAULT_MAX_MB if key == MAX_SIZE else DEFAULT_RATIO), "default"
        changes[key] = value
        if picked:
            findings.append(make_finding("cache-ini-size-filled", file=file or _source_of(existing), key=key, value=value,
                                         source=source, chosen=", ".join(sizes[o] for o in picked)))
    return IniEdit(changes, findings)


def _source_of(ini: OpCacheIni | None) -> str | None:
    return ini.source if ini is not None else None


# ---------------------------------------------------------------------------------------------
# What a save of op_cache.ini writes so that CANN uses it
# ---------------------------------------------------------------------------------------------


class IniSave(NamedTuple):
    """The bytes a save writes, the keys it changes, and what the user must know before saving."""

    data: bytes
    changes: dict[str, Value]  # ini key -> value written
    findings: list[Finding]
    cann_uses: bool  # CANN uses the saved file (docs/cann/op-cache.md#version-lines, #sections)
    versions_missing: tuple[str, ...] = ()  # version keys the saved file still lacks
    # The error that refuses the save: the file written would be one CANN ignores (no version
    # lines known, a foreign section, a BOM before the header, CR-only line ends). Nothing is
    # written then - no file, no backup - and `export` exits 1 (docs/architecture.md#exit-status).
    refusal: Finding | None = None

    @property
    def refused(self) -> bool:
        return self.refusal is not None


def versions_for_save(known: Mapping[str, str], typed: Mapping[str, str]) -> dict[str, str]:
    """The version lines a save writes: `known` (the installed CANN of this host, or a bundle's
    customer) when both are known, else both `typed` by the user, else what is known (maybe
    nothing: then the save says CANN will ignore the file, see plan_ini_save)."""
    if all(known.get(k) for k in VERSION_KEYS):
        return {k: known[k] for k in VERSION_KEYS}
    given = {k: str(typed.get(k, "")).strip() for k in VERSION_KEYS}
    if all(given.values()):
        return given
    return {k: v for k, v in known.items() if k in VERSION_KEYS and v}


def _ini_values(ini: OpCacheIni | None) -> dict[str, str]:
    return {k: e.value for k, e in ini.cann_view.values.items()} if ini is not None else {}


def plan_ini_save(existing: OpCacheIni | None, chosen: Mapping[str, Value], environ: Mapping[str, str], *,
                  file: str | None = None, versions: Mapping[str, str] | None = None) -> IniSave:
    """What a save of op_cache.ini writes: the one decision `export op-cache-ini`, the wizard's
    Save and the support report call.

    - The size keys: `plan_ini_edit` (both values valid, a missing one filled with the value CANN
      uses now).
    - The version lines: CANN 8.5+ ignores a file without adk_version and ops_version
      (docs/cann/op-cache.md#version-lines, inference from the source). A new file, or an
      existing one the save changes, gets the missing ones from `versions` (this host's
      installed CANN, a bundle's, or typed by the user); still missing, a warning says the file
      will be ignored (`cache-ini-save-without-versions`) and `cann_uses` is False.
    - Where the edit lands: the rendered file is read back as CANN reads it. A value CANN would
      not read as written (a UTF-8 BOM before the header, CR-only line ends) or a key CANN
      ignores now that the edit would bring into effect (keys outside any section) refuses the
      save with InputError naming the file and line: the edit would not do what it says.
    """
    edit = plan_ini_edit(existing, chosen, environ, file=file)
    changes: dict[str, Value] = dict(edit.changes)
    findings = list(edit.findings)
    source = file or _source_of(existing) or INI_NAME
    before = _ini_values(existing)
    if existing is None or changes:
        added = {k: versions[k] for k in VERSION_KEYS if k not in before and versions and versions.get(k)}
        changes.update(added)
        if added:
            findings.append(make_finding("cache-ini-versions-added", file=source,
                                         values=", ".join(f"{k}={v}" for k, v in added.items())))
    data = render_op_cache_ini(existing, changes)
    after = parse_op_cache_ini(data, source)
    writes = existing is None or data != existing.original
    missing = tuple(k for k in VERSION_KEYS if k not in after.cann_view.values)
    refusal = _ignored_save(existing, after, missing, source) if writes and not after.counts else None
    if refusal is not None:
        findings.append(refusal)
    elif existing is not None and writes:
        _check_landing(existing, after, changes, source)
    return IniSave(data, changes, findings, after.counts, missing, refusal)


def _ignored_save(before: OpCacheIni | None, after: OpCacheIni, missing: tuple[str, ...], source: str) -> Finding:
    """Why CANN would ignore the file a save writes, as the error that refuses it: a file CANN
    ignores changes nothing CANN does, so writing it (and exiting 0) would only mislead."""
    line = before.layout.section.start_line if before is not None and before.layout.section is not None else None
    # docs/cann/op-cache.md#reading-the-ini-file: CANN does not skip a BOM and ends lines at LF only.
    if before is not None and before.bom and after.cann_view.section is None:
        return make_finding("cache-ini-save-refused-bom", file=source, line=1)
    if before is not None and before.newline() == b"\r":
        return make_finding("cache-ini-save-refused-cr", file=source)
    reason = after.cann_view.reason
    if reason == "missing-versions":
        # docs/cann/op-cache.md#version-lines: CANN 8.5+ ignores a file without both (inference)
        return make_finding("cache-ini-save-without-versions", file=source, missing=", ".join(missing))
    stop = after.cann_view.stop
    if reason == "foreign-section" and stop is not None:
        # docs/cann/op-cache.md#sections: any other section makes CANN ignore the whole file
        return make_finding("cache-ini-save-refused-section", file=source, line=stop.start_line,
                            section=stop.name[:80])
    return make_finding("cache-ini-save-refused-no-section", file=source, line=line)


def _check_landing(before: OpCacheIni, after: OpCacheIni, changes: Mapping[str, Value], source: str) -> None:
    """Refuse an edit CANN would not read as written, or one that brings ignored keys into effect."""
    old, new = before.cann_view.values, after.cann_view.values
    for key, value in changes.items():
        entry = new.get(key)
        wanted = str(value)
        got = None if entry is None else entry.value
        ok = got is not None and (str(cann_stoi(got).value) == wanted if key in (MAX_SIZE, REMAIN_RATIO)
                                  else got.rstrip("\r") == wanted)
        if not ok:
            line = before.layout.section.start_line if before.layout.section is not None else None
            # docs/cann/op-cache.md#reading-the-ini-file: CANN does not skip a BOM and ends lines at LF only.
            code = ("cache-error-ini-edit-bom" if before.bom else
                    "cache-error-ini-edit-cr" if before.newline() == b"\r" else "cache-error-ini-edit-not-read")
            raise InputError.from_code(code, source, line, key=key, value=wanted)
    # Keys CANN drops now (before any header, with no section after them) must stay dropped:
    # a section appended after them would take them in (docs/cann/op-cache.md#reading-the-ini-file).
    orphan_lines = {e.line for e in before.cann_view.orphans}
    section = after.cann_view.section
    for entry in (section.carried + section.entries) if section is not None else []:
        if entry.line in orphan_lines:
            raise InputError.from_code("cache-error-ini-edit-activates", source, entry.line, key=entry.key,
                                       value=entry.value.rstrip("\r"))
    for key, entry in new.items():
        if key in changes:
            continue
        was = old.get(key)
        if was is None or was.value != entry.value:
            raise InputError.from_code("cache-error-ini-edit-activates", source, entry.line, key=key,
                                       value=entry.value.rstrip("\r"))
