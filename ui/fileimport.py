"""Starting from an existing file: which reader of the core reads it, and what the wizard takes.

op_cache.ini (app.opcache.ini) becomes the file the cache page edits (its values show there as
the values to keep unless changed); an env file (app.io.envfile) becomes the environment the
resolution sees, and its settings (app.io.importers) the starting choices; a script
(app.io.importers, read with ast, never run) gives its settings; a profile (app.profile) replaces
the choices. What the readers had to say is listed on the device page.

This module is imported when the user opens a file, not before the window's first paint.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from cann_config.app.catalog import Value
from cann_config.app.device.table import DeviceOrigin
from cann_config.app.io.envfile import load_env_file
from cann_config.app.io.importers import (
    ImportedSettings,
    import_env_settings,
    import_fish_file,
    import_script_file,
    runtime_notes,
)
from cann_config.app.opcache.ini import read_op_cache_ini
from cann_config.app.profile import load_profile
from cann_config.ui.controller import WizardController


def _take_settings(controller: WizardController, imported: ImportedSettings) -> list[tuple[str, Value, int | None]]:
    """The file's settings (as the core's Profile of them) on top of the current choices, for
    the framework the file's syntax belongs to when it names one; a value the catalog refuses
    is not taken (the reader's findings say why). Returns what was taken: (option id, value, line)."""
    current = controller.profile
    catalog = controller.catalog
    framework = imported.framework if imported.framework in catalog.frameworks else current.framework
    read = imported.to_profile(framework=framework, device=current.device)
    taken = {oid: value for oid, value in read.options.items()
             if oid in catalog.options and catalog.option(oid).check(value) is None}
    controller.set_profile(replace(read, options={**current.options, **taken}))
    return [(oid, value, imported.line_of(oid)) for oid, value in taken.items()]


def import_file(controller: WizardController, path: str, kind: str) -> None:
    """Read `path` as `kind` ("ini", "env", "fish", "script", "profile") into the controller.

    Raises InputError (one line naming the file) when the file cannot be used at all.
    """
    p = Path(path)
    if kind == "profile":
        profile = load_profile(p)
        if profile.device:
            controller.set_device(profile.device_info(), DeviceOrigin.PROFILE)
        controller.set_profile(profile)
        controller.add_imported(str(p), [])
    elif kind == "ini":
        ini = read_op_cache_ini(p)
        controller.set_ini(ini, p, explicit=True)
        controller.add_imported(str(p), list(ini.findings))
    elif kind in ("script", "fish"):
        imported = import_script_file(p) if kind == "script" else import_fish_file(p)
        taken = _take_settings(controller, imported)
        controller.add_imported(str(p), list(imported.findings) + runtime_notes(imported), taken)
    else:
        env_file = load_env_file(p)
        imported = import_env_settings(env_file)
        controller.set_env_file(env_file)
        taken = _take_settings(controller, imported)
        controller.add_imported(str(p), list(env_file.findings) + list(imported.findings), taken)
