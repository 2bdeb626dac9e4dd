"""The data exports: op-cache-ini and profile.

op-cache-ini is written by app.opcache.ini (one writer for the whole tool, so the export and the
wizard's "save" produce the same bytes): a new file gets CANN's documented template, an existing
file keeps every byte except the values that change. Which size keys are written is decided by
app.opcache.ini_save.plan_ini_edit, for the export and the wizard alike: CANN uses the file's
sizes only when both are valid, and takes both from the environment otherwise
(docs/cann/op-cache.md#precedence, `UpdateOpCacheSizeCfg`). A new file without adk_version and
ops_version is ignored by CANN 8.5+ (an inference from the source): the export writes them when
the caller knows the versions, and is refused otherwise, as is any save CANN would ignore (a
foreign section, a BOM before the header, CR-only line ends).

profile is the Profile JSON of docs/architecture.md#profile-format: the choices themselves, readable by `--profile`.

write_export() saves any export atomically (the CLI's `-o FILE`, the wizard's Save).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from cann_config.app.findings import Finding
from cann_config.app.io.exporters.plan import Plan
from cann_config.app.io.outputfiles import write_output
from cann_config.app.opcache.ini_save import plan_ini_save
from cann_config.app.profile import Profile

if TYPE_CHECKING:  # pragma: no cover - typing only
    from cann_config.app.opcache.ini import OpCacheIni


def ini_chosen(plan: Plan) -> dict[str, object]:
    """The op_cache.ini values the Profile chooses (an option in `profile.options` that the device
    and framework can take); a value the user did not choose stays as the file has it."""
    return {entry.option.id: entry.value for entry in plan.entries
            if entry.slot == "ini" and entry.kind in ("set", "default") and entry.option.id in plan.profile.options}


def write_op_cache_ini(plan: Plan, existing: OpCacheIni | None, versions: Mapping[str, str] | None = None,
                       environ: Mapping[str, str] | None = None, file: str | None = None
                       ) -> tuple[bytes, list[Finding], bool]:
    """The op_cache.ini bytes, what to know, and whether the save is refused: as
    app.opcache.ini_save.plan_ini_save decides (both sizes, the version lines; refused when CANN
    would ignore the file written, InputError when the edit would land where CANN does not read)."""
    save = plan_ini_save(existing, ini_chosen(plan), environ or {}, file=file, versions=versions)  # type: ignore[arg-type]
    return save.data, list(save.findings), save.refused


def write_profile(plan: Plan) -> str:
    """The Profile as JSON: only the changes, or every option the framework takes."""
    profile, catalog = plan.profile, plan.catalog
    framework = catalog.frameworks[profile.framework]
    if plan.changed_only:
        options = {oid: v for oid, v in profile.values(catalog).items()
                   if v != catalog.default_for(oid, profile.framework)}
    else:
        options = {oid: profile.value(oid, catalog) for oid in catalog.options
                   if oid in framework.options or oid in profile.options}
    return Profile(framework=profile.framework, device=profile.device, options=options).dumps()


def write_export(path: str | os.PathLike[str], data: bytes, *, force: bool = False) -> Path:
    """Write an export to `path` through the one writer (app.io.outputfiles.write_output):
    atomic, only over a regular file, keeping its permissions (a symlink is followed, the link
    stays), never over a read-only file unless `force`; `-` is standard output. Raises
    InputError (naming the file) when it cannot be written. Returns the path written."""
    write_output(path, data, force=force)
    return Path(path)
