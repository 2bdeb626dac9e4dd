"""The wizard's session: the Host looked at, the Profile, the user's answers and the files opened.

Why this module exists: the wizard used to keep this state in its Qt controller and to decide in
its pages, by `if bundle is not None`, which environment, which installed CANN and which cache
dir counted. Those are decisions about CANN on a machine, and they belong to the Host
(app/support/host.py): this host, or a customer's host from a support bundle. The `Session` is the
same state as plain typed data, Qt-free and testable without a display; `ui/controller.py` is a
thin Qt wrapper that holds one and says when it changes.

Importing this module is cheap (the wizard's first paint needs it): the Host, the bundle reader
and the resolution are imported when first asked for.

Public API:
    Session(profile=None, device=None, device_origin=DeviceOrigin.NONE, environ=None)
      state: profile, device, device_origin, ini, ini_path, ini_explicit, ini_versions, answers,
             env_file, imported_findings, imported_from, imported_values, base_environ, bundle
      .host -> Host                       this host, or the bundle's (app.support.host)
      .is_remote -> bool                  a customer's host: nothing of this machine counts
      .environ -> dict                    the environment CANN sees (base, an env file on top)
      .open_bundle(bundle)                look at a customer's host from now on
      .host_diagnosis(framework) -> Diagnosis | None   the remote host's configuration (cached)
      .known_versions() -> dict           the versions of the CANN that reads op_cache.ini
      .versions_to_check() -> dict | None the versions the resolution compares the version lines with
      .versions_for_save() -> dict
      .cache_dir_option(value) -> str     the op_compiler_cache_dir in effect on the host
      .checks_where_cann_reads() -> bool  an opened op_cache.ini is checked against the one CANN reads
      .can_scan -> bool                   the cache is on this machine
      .can_save_ini -> bool               an edited op_cache.ini can be saved here
      .report_diagnosis(ini_path) -> Diagnosis   what the wizard's report describes
      .recorded_cache(), .recorded_cache_error(), .recorded_cache_findings(effective)   a remote host's measurement
      .next_start_empties(effective, ini, *, missing_ini=None)   whether the next start empties the SoC dirs
      .ini_from_bundle() -> bool
      .ini_to_export() -> OpCacheIni | None  the op_cache.ini an op-cache-ini export edits (None: a new file)
      .applied_fixes(plan)                 the suggested fixes were applied (a rewrite of op_cache.ini with them)
      .export_with_removals(text, fmt, profile)   an env export with the variables the applied fixes remove
      .remote_source -> str | None        where a remote host's picture came from (its bundle file)
      .job_environ() -> dict | None       the job's environment when known (env file, remote host)
      .choice_findings() -> list[Finding]  what `export` says about the choices (check_choices)
      .page_findings() -> dict[page, list[Finding]]   those errors and warnings per wizard page
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cann_config.app.device.table import DeviceInfo, DeviceOrigin
from cann_config.app.profile import Profile

# The wizard's pages that show the choices' findings (`deviceFindings`, `memoryFindings`,
# `cacheFindings`); memory and cache are also the catalog's `page` of each option.
FINDINGS_PAGES = ("device", "memory", "cache")

if TYPE_CHECKING:  # pragma: no cover - typing only (imported when first asked for)
    from cann_config.app.findings import Finding
    from cann_config.app.support.bundle import Bundle
    from cann_config.app.support.diagnosis import Diagnosis
    from cann_config.app.support.host import Host


class Session:
    """The wizard's state (module docstring): plain data and the decisions that follow from the Host."""

    def __init__(self, profile: Profile | None = None, device: DeviceInfo | None = None,
                 device_origin: DeviceOrigin = DeviceOrigin.NONE, environ: Mapping[str, str] | None = None) -> None:
        self.profile = profile or Profile()
        self.device = device
        self.device_origin = device_origin
        self.ini: Any = None  # app.opcache.ini.OpCacheIni of the file being edited
        self.ini_path: Path | None = None
        self.ini_explicit = False
        # adk_version/ops_version typed by the user for a CANN that is not installed here.
        self.ini_versions: dict[str, str] = {}
        # The user's answers to the catalog notes' questions ({"concurrent-graphs": False}).
        self.answers: dict[str, bool] = {}
        self.env_file: Any = None  # app.io.envfile.EnvFile the user opened
        self.imported_findings: list[Finding] = []
        self.imported_from: list[str] = []
        # Per opened file, the settings taken from it: (option id, value, line); None for a
        # file that is not read for settings (op_cache.ini, a profile).
        self.imported_values: dict[str, list[tuple[str, Any, int | None]] | None] = {}
        self.base_environ: Mapping[str, str] = dict(os.environ if environ is None else environ)
        self._host: Host | None = None
        self._host_versions: dict[str, str] | None = None
        self._diagnoses: dict[tuple[str, DeviceInfo | None], Diagnosis] = {}
        # The applied suggested fixes write op_cache.ini anew (app.support.fixes: a file CANN ignores
        # for its form): the export then makes a new file instead of editing the ignored one.
        self.ini_rewritten = False
        # The variables the applied fixes remove from the job's environment (app.support.fixes.Removal).
        self.fix_removals: list[Any] = []

    # -- the Host ---------------------------------------------------------------------------

    @property
    def bundle(self) -> Bundle | None:
        """The support bundle of the customer's host looked at (None: this host)."""
        return self._host.bundle if self._host is not None else None

    @property
    def is_remote(self) -> bool:
        return self._host is not None and self._host.is_remote

    @property
    def host(self) -> Host:
        """The machine whose configuration is shown: a bundle's host, else this one (built when
        first asked for: its installed versions are read then)."""
        if self._host is None:
            from cann_config.app.support.host import THIS_HOST, Host

            return Host(THIS_HOST, "", self.base_environ, device=self.device, installed_versions=self.known_versions())
        return self._host

    def applied_fixes(self, plan: Any) -> None:
        """The choices now hold the suggested fixes of `plan` (app.support.fixes.FixPlan): when one
        of them writes op_cache.ini anew, so does the export from now on (`ini_to_export`)."""
        self.ini_rewritten = any(getattr(c, "rewrite", False) for c in plan.changes)
        self.fix_removals = list(plan.removals())

    def export_with_removals(self, text: str, fmt: str, profile: Any) -> str:
        """`text`, the export of `profile` as `fmt`, with the lines that remove the variables the
        applied fixes remove (`unset`, `set -e`, `os.environ.pop`), as the report's suggested export
        has them (app.support.fixes.with_removals; the other formats unchanged)."""
        if not self.fix_removals:
            return text
        from cann_config.app.support.fixes import with_removals

        return with_removals(text, fmt, self.fix_removals, profile)

    def ini_to_export(self) -> Any:
        """The op_cache.ini an `op-cache-ini` export edits: the one opened (or the bundle's), or None
        - a new file - once applied fixes write it anew (the file the report suggests)."""
        return None if self.ini_rewritten else self.ini

    @property
    def remote_source(self) -> str | None:
        """Where the picture of a remote host came from (its support bundle's file), None for
        this host: what the wizard names when it says whose configuration it shows."""
        bundle = self.bundle
        return bundle.source if self.is_remote and bundle is not None else None

    def job_environ(self) -> dict[str, str] | None:
        """The job's environment when the wizard knows it: an env file opened, or a remote host's
        recorded variables; None otherwise (this computer's shell says nothing about the job's
        PYTORCH_NPU_ALLOC_CONF, as `triage` without --env-file/--bundle)."""
        if self.env_file is None and not self.is_remote:
            return None
        return self.environ

    @property
    def environ(self) -> dict[str, str]:
        """The environment CANN would see: the host's, with an opened env file on top."""
        env = dict(self.base_environ)
        if self.env_file is not None:
            env.update(self.env_file.values)
        return env

    def open_bundle(self, bundle: Bundle) -> None:
        """From now on the host is the customer's: its environment (never this machine's), its
        op_cache.ini (it cannot be saved from here), its installed CANN."""
        from cann_config.app.support.host import host_from_bundle

        self._host = host_from_bundle(bundle)
        self._diagnoses.clear()
        self.base_environ = dict(bundle.environ)
        self.env_file = None
        self.ini = bundle.op_cache_ini
        self.ini_path = Path(bundle.ini_path) if bundle.ini_path else None
        self.ini_explicit = True  # never replaced by a file of this machine found in the cache dir
        self.imported_from = []
        self.imported_values = {}
        self.imported_findings = []
        self.ini_rewritten = False
        self.fix_removals = []

    def host_diagnosis(self, framework: str | None = None) -> Diagnosis | None:
        """The remote host's configuration as collected, for the framework and device chosen (None
        on this host: there the wizard's own inputs are resolved as they change)."""
        if self._host is None or not self._host.is_remote:
            return None
        key = (framework or self.profile.framework, self.device)
        found = self._diagnoses.get(key)
        if found is None:
            found = self._host.diagnosis(framework=key[0], device=self.device)
            self._diagnoses[key] = found
        return found

    # -- decisions that depend on which host this is ------------------------------------------

    def known_versions(self) -> dict[str, str]:
        """The versions of the CANN that reads op_cache.ini, as far as known without asking: the
        host's installed CANN (a bundle's, or this computer's, read once)."""
        if self._host is not None:
            return dict(self._host.installed_versions)
        if self._host_versions is None:
            from cann_config.app.opcache.ini import installed_op_cache_versions

            self._host_versions = installed_op_cache_versions()
        return dict(self._host_versions)

    def versions_to_check(self) -> dict[str, str] | None:
        """The versions the resolution compares op_cache.ini's version lines with: a remote host's
        (as `diagnose --bundle`); None on this host (the cache page shows what a save writes)."""
        return (self.known_versions() or None) if self.is_remote else None

    def versions_for_save(self) -> dict[str, str]:
        """adk_version/ops_version a save of op_cache.ini writes (app.opcache.ini_save.versions_for_save)."""
        from cann_config.app.opcache.ini_save import versions_for_save

        return versions_for_save(self.known_versions(), self.ini_versions)

    def cache_dir_option(self, chosen: object) -> str:
        """The op_compiler_cache_dir in effect: on a remote host the customer's unless the user
        chose one (app.support.fixes.option_in_effect), here the chosen value."""
        diagnosis = self.host_diagnosis()
        if diagnosis is None:
            return str(chosen)
        from cann_config.app.support.fixes import option_in_effect

        return str(option_in_effect(diagnosis, self.profile.options, "op_compiler_cache_dir") or "")

    def checks_where_cann_reads(self) -> bool:
        """An op_cache.ini the user opened on this machine is checked against the one CANN reads
        (app.opcache.cachedir.ini_not_read); a remote host's file is where CANN read it."""
        return not self.is_remote and self.ini_explicit and self.ini_path is not None

    @property
    def can_scan(self) -> bool:
        """The cache is on this machine (a remote host's was measured there, by `collect`)."""
        return not self.is_remote

    def ini_from_bundle(self) -> bool:
        """The op_cache.ini shown is the customer's (from the bundle), not a file of this machine."""
        bundle = self.bundle
        return bundle is not None and self.ini is bundle.op_cache_ini and self.ini_explicit

    @property
    def can_save_ini(self) -> bool:
        """An op_cache.ini edited here can be saved here (a remote host's file is on that host)."""
        return not self.is_remote

    def report_diagnosis(self, ini_path: str | os.PathLike[str] | None) -> Diagnosis:
        """What the report describes: a remote host's configuration as collected, else this
        computer's choices as `cann-config diagnose` reads them (the op_cache.ini the cache page
        shows, the env file opened, the profile), without measuring the cache again."""
        remote = self.host_diagnosis()
        if remote is not None:
            return remote
        return self.host.diagnosis(ini_path=ini_path, env_file=self.env_file.source if self.env_file is not None else None,
                                   device=self.device, framework=self.profile.framework, profile=self.profile,
                                   measure=False)

    def recorded_cache(self) -> Any:
        """The cache measurement recorded on a remote host (app.opcache.measurement.CacheMeasurement
        read back from the bundle: what `collect` measured and predicted there), else None: this
        host's cache is scanned here."""
        bundle = self.bundle
        return bundle.cache if bundle is not None else None

    def next_start_empties(self, effective: Mapping[str, Any], ini: Any, *, missing_ini: str | None = None) -> Any:
        """Whether the next compiler start empties the SoC dirs of the host looked at, and why
        (app.opcache.measurement.next_start_empties): a remote host's from the op_cache.ini,
        versions and mode its bundle recorded (and whether the file was there); this host's from
        `ini` (the file CANN reads, as the cache page resolved it), the versions known here, the
        mode in `effective` and `missing_ini` (a scan found no op_cache.ini where CANN reads it)."""
        bundle = self.bundle
        if bundle is not None:
            return bundle.next_start_empties(effective)
        from cann_config.app.opcache.measurement import next_start_empties

        mode = effective.get("op_compiler_cache_mode")
        return next_start_empties(ini, self.known_versions(), getattr(mode, "value", None), missing_ini=missing_ini)

    def recorded_cache_error(self) -> str | None:
        """Why a remote host's cache could not be measured there (None: it was, or this host)."""
        bundle = self.bundle
        return bundle.cache_error if bundle is not None else None

    def recorded_cache_findings(self, effective: Mapping[str, Any]) -> list[Finding]:
        """What a remote host's recorded measurement says against the limits resolved now
        (app.support.bundle.Bundle.cache_findings, with "the next start empties"); [] here."""
        bundle = self.bundle
        return list(bundle.cache_findings(effective)) if bundle is not None else []

    # -- the one validation of the choices ------------------------------------------------------

    def choice_findings(self) -> list[Finding]:
        """What `cann-config export` says about the current choices, for any format
        (app.io.exporters.check_choices, with the device as known and the user's answers): an
        error is a choice export refuses with exit 1, and the wizard's Save buttons refuse alike."""
        from cann_config.app.io.exporters.plan import check_choices

        return check_choices(self.profile, self.device, self.answers)

    def page_findings(self) -> dict[str, list[Finding]]:
        """The choices' errors and warnings (`choice_findings`) by the wizard page that shows them,
        with the CLI's words: on the memory and cache pages those that go away when that page's
        choices are undone (each option back to its default), on the device page those that go
        away without the device (a choice the device cannot take: on both the device page and
        its option's page). A finding no page's choices explain is the memory page's. The
        catalog's notes on a chosen value are left out: each option's row shows them already.
        """
        from dataclasses import replace

        from cann_config.app.catalog import load_catalog
        from cann_config.app.io.exporters.plan import check_choices

        catalog = load_catalog()
        notes = {note.code for option in catalog.options.values() for note in option.notes}

        def shown(findings: list[Finding]) -> list[Finding]:
            return [f for f in findings if f.severity in ("error", "warning") and f.code not in notes]

        def key(finding: Finding) -> tuple[str, str, str]:
            return finding.severity, finding.code, finding.message("en")

        now = shown(check_choices(self.profile, self.device, self.answers))
        if not now:
            return {page: [] for page in FINDINGS_PAGES}

        def gone(profile: Profile, device: DeviceInfo | None) -> list[Finding]:
            left = {key(f) for f in shown(check_choices(profile, device, self.answers))}
            return [f for f in now if key(f) not in left]

        result: dict[str, list[Finding]] = {}
        for page in ("memory", "cache"):
            ids = {o.id for o in catalog.on_page(page)}
            undone = replace(self.profile, options={k: v for k, v in self.profile.options.items() if k not in ids})
            result[page] = gone(undone, self.device)
        result["device"] = gone(replace(self.profile, device=None), None) if (self.device or self.profile.device) else []
        explained = {key(f) for page in FINDINGS_PAGES for f in result[page]}
        result["memory"] += [f for f in now if key(f) not in explained]
        return result
