"""What the cache page's panels show, resolved by the core for the controller's current state.

The directories come from app.opcache.cachedir, the op_cache.ini of the resolved directory from
app.opcache.ini (followed as the directory changes, unless the user opened one; read in a worker,
ui/workers.py IniReadWorker, so the GUI thread never waits on the disk), and the
effective size values with where each comes from (op_cache.ini › env › default) from
app.opcache.resolution. With a support bundle open, the versions are the customer's CANN, as
`diagnose --bundle` checks them (docs/cann/op-cache.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QThread

from cann_config.app.catalog import Value
from cann_config.app.opcache.cachedir import CacheDirResolution, resolve_cache_dir
from cann_config.app.opcache.ini import VERSION_KEYS, cann_stoi, parse_op_cache_ini
from cann_config.app.opcache.ini_save import IniSave, plan_ini_save, versions_for_save
from cann_config.app.opcache.resolution import Resolution, resolve_settings, size_in_range
from cann_config.app.opcache.which_ini import which_ini
from cann_config.ui.controller import WizardController

DIR_OPTION = "op_compiler_cache_dir"


class CacheState:
    """The cache page's view of the core's answers; `resolve()` brings it up to date."""

    def __init__(self, controller: WizardController, start_worker: Callable[[QThread], None],
                 changed: Callable[[], None]):
        """`start_worker` starts (and keeps, to join it) a worker reading op_cache.ini; `changed`
        is called when a read came back (the page refreshes)."""
        self.controller = controller
        self.dir_resolution: CacheDirResolution | None = None
        self.resolution: Resolution | None = None
        self.ini_error = ""  # why the op_cache.ini of the resolved directory cannot be used
        self._loaded_ini_path: Path | None = None
        self.read_by_cann = True  # the edited op_cache.ini is the one CANN reads
        self.cann_ini: Any = None  # the op_cache.ini CANN reads (the resolution's), whatever is edited
        # op_cache.ini is read in a worker (ui/workers.py IniReadWorker): the GUI thread never waits
        # on the disk. The path of the edited file while its read is under way, else None.
        self.ini_pending: Path | None = None
        self._start_worker = start_worker
        self._changed = changed
        self._stopped = False  # the window is closing: no read is started
        # The file CANN reads when another is edited: path -> (OpCacheIni | None) once read.
        self._cann_reads: dict[Path, Any] = {}
        self._cann_reading: set[Path] = set()

    def resolve(self) -> None:
        """Directories, op_cache.ini and effective values for the current choices."""
        c = self.controller
        # The Host decides (app/session.py): a customer's dir unless one was chosen, their
        # installed CANN for the version lines, and whether an opened file is the one CANN reads.
        option = c.session.cache_dir_option(c.value(DIR_OPTION))
        self.dir_resolution = resolve_cache_dir(c.profile.framework, option, environ=c.environ)
        self._follow_ini()
        installed = c.session.versions_to_check()
        soc = c.device.soc_version if c.device is not None else None
        # A file the user opened is not necessarily the one CANN reads: the core says which it
        # reads (app.opcache.which_ini), and the values are that file's, as in `diagnose --ini`.
        not_read = None
        ini = c.ini
        if c.session.checks_where_cann_reads():
            assert self.dir_resolution is not None
            choice = which_ini(c.ini_path, self.dir_resolution)
            if not choice.read_by_cann:
                not_read = choice.finding
                ini = self._read_ini_quietly(choice.cann_path)
        self.resolution = resolve_settings(ini=ini, environ=c.environ, framework=c.profile.framework,
                                           installed_versions=installed, soc_version=soc)
        self.read_by_cann = not_read is None
        self.cann_ini = ini
        if not_read is not None:
            self.resolution.findings.insert(0, not_read)

    def _read_ini_quietly(self, path: Path) -> Any:
        """The op_cache.ini CANN reads, when the page edits another file (None: absent, unusable, or
        being read: the page is refreshed when the read comes back)."""
        if path in self._cann_reads:
            return self._cann_reads[path]
        if path not in self._cann_reading and not self._stopped:
            self._cann_reading.add(path)
            self._read(path, self._cann_read)
        return None

    def _cann_read(self, path: Path, ini: Any, _error: str) -> None:
        self._cann_reading.discard(path)
        self._cann_reads[path] = ini
        self._changed()

    def _read(self, path: Path, done: Callable[[Path, Any, str], None]) -> None:
        from cann_config.ui.workers import IniReadWorker

        worker = IniReadWorker(path)
        worker.read.connect(done)
        self._start_worker(worker)

    def stop(self) -> None:
        """The window is closing: no read is started from now on."""
        self._stopped = True

    def ini_path(self) -> Path:
        """The op_cache.ini the page edits: the one the user opened, else the resolved one."""
        c = self.controller
        if c.ini_path is not None and c.ini_explicit:
            return Path(c.ini_path)
        if self.dir_resolution is None:
            self.resolve()
        assert self.dir_resolution is not None
        return Path(self.dir_resolution.ini_path)

    def _follow_ini(self) -> None:
        """Read the op_cache.ini of the resolved directory when it changes (unless one was opened):
        until the worker answers, the page has no file and says it is being read."""
        c = self.controller
        if c.ini_explicit:
            return
        assert self.dir_resolution is not None
        path = Path(self.dir_resolution.ini_path)
        if path == self._loaded_ini_path:
            return
        self._loaded_ini_path = path
        self.ini_error = ""
        c.set_ini(None, None, explicit=False, notify=False)
        self._start_ini_read(path)

    def _start_ini_read(self, path: Path) -> None:
        if self._stopped:
            return
        self.ini_pending = path
        self._read(path, self._ini_read)

    def _ini_read(self, path: Path, ini: Any, error: str) -> None:
        """A read of the edited op_cache.ini came back (on the GUI thread); one that is no longer
        the file edited (the directory changed meanwhile, a file was opened) is dropped."""
        c = self.controller
        if path != self.ini_pending:
            return
        self.ini_pending = None
        if c.ini_explicit and Path(c.ini_path or "") != path:
            return
        if not c.ini_explicit and path != self._loaded_ini_path:
            return
        self.ini_error = error
        self._cann_reads.pop(path, None)
        c.set_ini(ini, path if (ini is not None or c.ini_explicit) else None, explicit=c.ini_explicit)

    def reload_ini(self) -> None:
        """Read the edited op_cache.ini again from disk (the controller says it changed), and the
        file CANN reads when it is another one."""
        c = self.controller
        path = self.ini_path()
        if not c.ini_explicit:
            self._loaded_ini_path = path
        self._cann_reads.clear()
        self._start_ini_read(path)
        self._changed()

    def saved(self, path: Path, data: bytes) -> None:
        """op_cache.ini was just written with `data`: the page edits what was written (parsed from
        the bytes in hand, not read back from the disk)."""
        c = self.controller
        ini = parse_op_cache_ini(data, str(path))
        ini.path = path
        if not c.ini_explicit:
            self._loaded_ini_path = path
        self.ini_error = ""
        self.ini_pending = None
        self._cann_reads.clear()
        c.set_ini(ini, path, explicit=c.ini_explicit)

    # -- the values the editors show ----------------------------------------------------------

    def effective_value(self, option_id: str) -> Any:
        return self.resolution.effective.get(option_id) if self.resolution is not None else None

    def base_value(self, option_id: str) -> Value | None:
        """For an op_cache.ini setting, the value kept unless the user changes it: the edited
        file's own valid value, else the value CANN uses now."""
        c = self.controller
        option = c.catalog.option(option_id)
        if not option.targets.ini:
            return None
        if c.ini is not None:
            entry = c.ini.values_as_cann_reads().get(option.targets.ini)
            if entry is not None:
                # The number CANN reads from the line (a comment after it stays part of the value).
                parsed = cann_stoi(entry.value)
                if parsed.value is not None and parsed.error is None and size_in_range(option.targets.ini,
                                                                                       parsed.value):
                    return parsed.value
        effective = self.effective_value(option_id)
        if effective is not None and effective.value is not None and option.check(effective.value) is None:
            return effective.value
        return None

    def shown_value(self, option_id: str) -> Value:
        """What an editor shows: the user's choice, else (op_cache.ini settings) the base value."""
        c = self.controller
        if option_id in c.profile.options:
            return c.profile.options[option_id]
        base = self.base_value(option_id)
        return base if base is not None else c.value(option_id)

    def ini_options(self) -> list[str]:
        """The page's options that op_cache.ini carries (catalog `targets.ini`)."""
        c = self.controller
        return [o.id for o in c.catalog.on_page("cache") if o.targets.ini]

    def ini_versions(self) -> dict[str, str]:
        """The version lines a save writes (the controller asks the core)."""
        return self.controller.versions_for_save()

    def versions_needed(self) -> bool:
        """The saved file would lack a version line, and no known CANN supplies it: ask the user."""
        c = self.controller
        if c.ini_from_bundle() or len(versions_for_save(c.known_versions(), {})) == 2:
            return False
        present = c.ini.cann_view.values if c.ini is not None else {}
        return not all(k in present for k in VERSION_KEYS)

    def ini_save(self) -> IniSave:
        """What a save writes, as the core decides it (app.opcache.ini_save.plan_ini_save);
        InputError when the edit would land where CANN does not read."""
        c = self.controller
        chosen = {oid: c.profile.options[oid] for oid in self.ini_options() if oid in c.profile.options}
        return plan_ini_save(c.ini, chosen, c.environ, file=str(self.ini_path()), versions=self.ini_versions())

    def unsaved_ini(self) -> str | None:
        """The path of op_cache.ini when a save would change it (see CachePage.unsaved_ini)."""
        c = self.controller
        if not c.session.can_save_ini or not any(oid in c.profile.options for oid in self.ini_options()):
            return None
        try:
            save = self.ini_save()
        except Exception:  # noqa: BLE001 - a refused edit is still an unsaved one
            return str(self.ini_path())
        if c.ini is not None and save.data == c.ini.original:
            return None
        return str(self.ini_path())

    def size_settings(self) -> tuple[int, int]:
        """(max_op_cache_size in MB, remain_cache_size_ratio in %) as the editors show them."""
        return int(self.shown_value("max_op_cache_size")), int(self.shown_value("remain_cache_size_ratio"))
