"""Starting from an existing file: which reader of the core reads it, and what the wizard takes.

op_cache.ini (app.opcache.ini) becomes the file the cache page edits (its values show there as
the values to keep unless changed); an env file (app.io.envfile) becomes the environment the resolution sees, and its
settings (app.io.importers) the starting choices; a script (app.io.importers, read with ast, never
run) gives its settings; a profile (app.profile) replaces the choices. What the readers had to
say is listed on the device page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cann_config.app.profile import load_profile
from cann_config.ui.controller import WizardController
from PySide6.QtCore import QCoreApplication

translate = QCoreApplication.translate


def _apply_settings(controller: WizardController, settings: dict[str, Any], framework: str | None = None) -> None:
    profile = controller.profile
    if framework and framework != profile.framework and framework in controller.catalog.frameworks:
        from dataclasses import replace

        profile = replace(profile, framework=framework)
    for option_id, entry in settings.items():
        value = entry[0] if isinstance(entry, tuple) else getattr(entry, "value", entry)
        if option_id in controller.catalog.options and controller.catalog.option(option_id).check(value) is None:
            profile = profile.with_value(option_id, value)
    controller.set_profile(profile)


def import_file(controller: WizardController, path: str, kind: str) -> None:
    """Read `path` as `kind` ("ini", "env", "fish", "script", "profile") into the controller.

    Raises InputError (one line naming the file) when the file cannot be used at all.
    """
    p = Path(path)
    if kind == "profile":
        profile = load_profile(p)
        if profile.device:
            controller.set_device(profile.device_info(), "profile")
        controller.set_profile(profile)
        controller.add_imported(str(p), [])
    elif kind == "ini":
        from cann_config.app.opcache.ini import read_op_cache_ini

        ini = read_op_cache_ini(p)
        controller.set_ini(ini, p, explicit=True)
        controller.add_imported(str(p), list(ini.findings))
    elif kind == "script":
        from cann_config.app.io.importers import import_script_file

        imported = import_script_file(p)
        _apply_settings(controller, imported.settings, imported.framework)
        controller.add_imported(str(p), list(imported.findings))
    elif kind == "fish":
        from cann_config.app.io.importers import import_fish_file

        imported = import_fish_file(p)
        _apply_settings(controller, imported.settings, imported.framework)
        controller.add_imported(str(p), list(imported.findings))
    else:
        from cann_config.app.io.envfile import load_env_file
        from cann_config.app.io.importers import import_env_settings

        env_file = load_env_file(p)
        imported = import_env_settings(env_file)
        controller.set_env_file(env_file)
        _apply_settings(controller, imported.settings, imported.framework)
        controller.add_imported(str(p), list(env_file.findings) + list(imported.findings))
