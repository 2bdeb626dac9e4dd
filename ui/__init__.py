"""The PySide6 front end of the CANN Config Assistant: a wizard over the Qt-free core in app/.

Thin by design: widgets read and write the core's objects (Profile, DeviceInfo, OpCacheIni,
CacheUsage) and call its functions; no CANN rule lives here.

Public API:
    create_wizard(device=None, profile=None, ini=None, *, probe=None, framework=None, deferred=False,
                  bundle=None) -> QWizard
        the `configWizard`, not shown, inside an existing QApplication (for tests). `device` is
        a DeviceInfo or a SoC/series string; given one, no detection runs. `profile` is a
        Profile or a path; `ini` a path to an op_cache.ini. `probe` replaces the host probe
        (app.device.hostprobe.probe_host) that runs in a worker once the window is shown. With
        `deferred`, the memory, cache and export pages are built after the window's first paint,
        a slice per turn of the event loop, or at once when one is shown first (what the
        application does, so the window appears sooner and never stalls); without it, every
        page is built before this returns. `bundle` is a support bundle
        (an app.support.bundle.Bundle or a path): the wizard opens on the customer's host it describes
        (WizardController.open_bundle), and no detection of this computer runs; a `device`
        given stands in for the bundle's, a `profile` given for the customer's values, an `ini`
        given for the bundle's op_cache.ini.

`cann-config gui` itself is ui/gui_command.py.

Importing this package imports no Qt module; the submodules do.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover - typing only
    from cann_config.app.device.table import DeviceInfo
    from cann_config.app.profile import Profile
    from cann_config.ui.wizard import ConfigWizard


def create_wizard(device: DeviceInfo | str | None = None, profile: Profile | str | Path | None = None,
                  ini: str | Path | None = None, *, probe: Callable[..., Any] | None = None,
                  framework: str | None = None, deferred: bool = False, bundle: Any = None) -> ConfigWizard:
    """The configWizard for these starting points (not shown, not executed).

    Raises InputError for a profile, op_cache.ini or support bundle that cannot be read,
    ValueError for a device string that is neither a SoC version nor a series id.
    """
    from cann_config.app.device.table import DeviceInfo, DeviceOrigin, device_from_choice
    from cann_config.app.profile import Profile, load_profile
    from cann_config.ui.controller import WizardController
    from cann_config.ui.wizard import ConfigWizard

    if profile is not None and not isinstance(profile, Profile):
        profile = load_profile(Path(profile))
    if bundle is not None and isinstance(bundle, (str, Path)):
        from cann_config.app.support.bundle import load_bundle

        bundle = load_bundle(bundle)
    start = profile or Profile()
    if framework is not None:
        from dataclasses import replace

        start = replace(start, framework=framework)
    origin = DeviceOrigin.NONE
    info: DeviceInfo | None = None
    if isinstance(device, DeviceInfo):
        info, origin = device, DeviceOrigin.GIVEN
    elif isinstance(device, str):
        info, origin = device_from_choice(device, source="manual"), DeviceOrigin.MANUAL
    elif start.device:
        info, origin = start.device_info(), DeviceOrigin.PROFILE
    if info is not None:
        start = Profile(framework=start.framework, device=info.soc_version or info.series, options=start.options)
    controller = WizardController(start, info, origin)
    if bundle is not None:
        controller.open_bundle(bundle, keep_device=info is not None and origin != DeviceOrigin.PROFILE,
                               choices=start if profile is not None else None)
    if ini is not None:
        from cann_config.app.io.inputfiles import input_exists
        from cann_config.app.opcache.ini import read_op_cache_ini

        ini_path = Path(ini)
        controller.set_ini(read_op_cache_ini(ini_path) if input_exists(ini_path) else None, ini_path, explicit=True,
                           notify=False)
    # This computer's device is detected only when it is the host shown (the Session decides).
    return ConfigWizard(controller, detect=info is None and not controller.session.is_remote, probe=probe,
                        deferred=deferred)
