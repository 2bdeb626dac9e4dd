"""The Host: what CANN runs with on one machine, built the same way for this host, a bundle and a fleet node.

Why this module exists: every view of a machine (`diagnose`, `scan`, `fleet`, the report, the
bundle view, the wizard) must give the same answer about it: the same limit, the same prediction
of the next compiler start, the same fix. They gave different answers when each assembled its
own picture. A `Host` is that picture, asked by all of them:

- where it comes from (`kind`: "this-host", "bundle" or "fleet-node", and a `name`);
- the environment CANN's job runs with (this process's, or the bundle's variables);
- the op_cache.ini CANN reads, the installed CANN versions its version lines are checked against,
  the device;
- the cache measurement (app/opcache/measurement.py): on this host measured here, in a bundle as
  the customer's host measured it.

`Host.diagnosis()` resolves the configuration (app/support/diagnosis.py) and adds what the cache
says: on this host the measurement's cleanup findings and "the next start empties <SoC dir>"
(app.opcache.measurement.next_start_empties); a bundle's own cache findings do the same from its
recorded sizes (app.support.bundle.Bundle.cache_findings). `Diagnosis.cache` is then the
measurement's JSON, the object `scan --json` prints.

Public API:
    this_host(*, cache_dir=None, environ=None, device=None) -> Host
    host_from_bundle(bundle, *, name=None, kind="bundle") -> Host
    host_from_bundle_file(path, *, name=None, kind="bundle") -> Host   (InputError: not a bundle)
    Host: kind, name, environ, device, installed_versions, bundle, cache_dir
        .is_remote -> bool          the configuration is a customer's: nothing of this machine counts
        .diagnosis(*, ini_path=None, env_file=None, script=None, device=None, framework=None,
                   profile=None, measure=True) -> Diagnosis   (with .cache and .measurement)
        .measure(diagnosis) -> CacheMeasurement | None      this host's cache, with the diagnosis' limits
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cann_config.app.device.table import DeviceInfo
from cann_config.app.findings import sort_findings, unique_findings
from cann_config.app.opcache.cachedir import kernel_cache_of
from cann_config.app.opcache.ini import installed_op_cache_versions
from cann_config.app.support.diagnosis import Diagnosis, diagnose

if TYPE_CHECKING:  # pragma: no cover - typing only
    from cann_config.app.opcache.measurement import CacheMeasurement
    from cann_config.app.profile import Profile
    from cann_config.app.support.bundle import Bundle

THIS_HOST = "this-host"
BUNDLE = "bundle"
FLEET_NODE = "fleet-node"
# Findings of the measurement that `diagnose` leaves to `scan` ("no cache yet" is not a
# configuration problem; the JSON's `cache` object still says it).
_NOT_DIAGNOSED = ("scan-no-cache",)


class Host:
    """One machine as CANN sees it (module docstring). Plain data; build it with the functions below."""

    def __init__(self, kind: str, name: str, environ: Mapping[str, str], *, device: DeviceInfo | None = None,
                 installed_versions: Mapping[str, str] | None = None, bundle: Bundle | None = None,
                 cache_dir: str | os.PathLike[str] | None = None) -> None:
        self.kind = kind
        self.name = name
        self.environ = environ
        self.device = device
        self.installed_versions = dict(installed_versions or {})
        self.bundle = bundle
        self.cache_dir = cache_dir

    @property
    def is_remote(self) -> bool:
        """True for a customer's host (a bundle, a fleet node): nothing of this machine counts."""
        return self.bundle is not None

    def diagnosis(self, *, ini_path: str | os.PathLike[str] | None = None,
                  env_file: str | os.PathLike[str] | None = None, script: str | os.PathLike[str] | None = None,
                  device: DeviceInfo | None = None, framework: str | None = None, profile: Profile | None = None,
                  measure: bool = True) -> Diagnosis:
        """The configuration as CANN resolves it on this machine, with the cache's prediction.

        On this host, `env_file` makes it a customer's environment read here: nothing of this
        machine is measured or compared then (app/support/diagnosis.py). `measure=False` skips the
        cache walk (the wizard measures in a worker).
        """
        chosen = device or self.device
        if self.bundle is not None:
            result = self.bundle.diagnosis(framework=framework, device=chosen, script=script, profile=profile)
            # imported here: the measurement's module is only paid for when a cache is shown
            from cann_config.app.opcache.measurement import limit_findings

            ini = self.bundle.op_cache_ini
            resolution = result.resolution.findings if result.resolution is not None else []
            recorded = self.bundle.measurement(result.effective, limit_findings(resolution, ini.findings if ini else []))
            result.measurement = recorded
            result.cache = recorded.to_json() if recorded is not None else None
            return _with_fixes(result)
        live = env_file is None
        result = diagnose(ini_path=ini_path, env_file=env_file, script=script, device=chosen,
                          cache_dir=self.cache_dir, framework=framework, profile=profile,
                          installed_versions=(self.installed_versions or {}) if live else None)
        if live and measure:
            from cann_config.app.opcache.measurement import one_finding_per_cause

            measured = self.measure(result)
            if measured is not None:
                result.measurement = measured
                result.cache = measured.to_json()
                extra = [f for f in measured.findings if f.code not in _NOT_DIAGNOSED]
                result.findings = sort_findings(one_finding_per_cause(unique_findings(result.findings + extra)))
        return _with_fixes(result)

    def measure(self, diagnosis: Diagnosis) -> CacheMeasurement | None:
        """This host's cache measured with the limits `diagnosis` resolved (None for a remote host,
        or when the cache dir is not known here: no HOME, a dir set at run time)."""
        if self.is_remote:
            return None
        # imported here: the walk and the prediction are only paid for when a cache is measured
        from cann_config.app.opcache.measurement import limit_findings, measure_cache, next_start_empties

        cd = diagnosis.cache_dir
        if self.cache_dir is not None:
            kernel_cache = kernel_cache_of(self.cache_dir)
            dir_info: dict[str, Any] = {"source": "option", "variable": "--cache-dir", "base": str(self.cache_dir),
                                        "how": "--cache-dir"}
        elif cd.home_known and cd.known:
            kernel_cache, dir_info = Path(cd.kernel_cache), cd.to_json()
        else:
            return None
        max_e = diagnosis.effective.get("max_op_cache_size")
        ratio_e = diagnosis.effective.get("remain_cache_size_ratio")
        if max_e is None or ratio_e is None or max_e.runtime or ratio_e.runtime:
            return None
        mode = diagnosis.effective.get("op_compiler_cache_mode")
        # Only the file CANN reads can empty the cache (app/opcache/which_ini.py): a file named with
        # --ini elsewhere leaves the prediction to CANN's own file and its version lines.
        ini = diagnosis.cann_ini
        # CANN's own file missing: the next start creates it, emptying the SoC dir.
        cann_ini = Path(kernel_cache) / "op_cache.ini"
        missing = str(cann_ini) if ini is None and not os.path.lexists(cann_ini) else None
        empties = next_start_empties(ini, self.installed_versions, mode.value if mode is not None else None,
                                     missing_ini=missing)
        soc = diagnosis.device.soc_version if diagnosis.device is not None else None
        resolution = diagnosis.resolution.findings if diagnosis.resolution is not None else []
        shown = limit_findings(resolution, ini.findings if ini is not None else [])
        return measure_cache(kernel_cache, dir_info, max_e, ratio_e, findings=shown, empties=empties, soc_version=soc)


def _with_fixes(diagnosis: Diagnosis) -> Diagnosis:
    """`diagnosis` with its suggested fixes checked (app.support.fixes.plan_fixes): a finding
    whose fix fails the check says why, in every view of this host. Nothing is imported when
    nothing is to fix (a plain `diagnose` stays fast, tests/bench/bench_cli.py)."""
    if diagnosis.has_fixes(diagnosis.installed_versions):
        from cann_config.app.support.fixes import plan_fixes

        plan_fixes(diagnosis)
    return diagnosis


def this_host(*, cache_dir: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None,
              device: DeviceInfo | None = None) -> Host:
    """This machine: this process's environment and the CANN installed here."""
    env = os.environ if environ is None else environ
    return Host(THIS_HOST, "", env, device=device, installed_versions=installed_op_cache_versions(environ=env),
                cache_dir=cache_dir)


def host_from_bundle(bundle: Bundle, *, name: str | None = None, kind: str = BUNDLE) -> Host:
    """A customer's host as its support bundle recorded it (app/support/bundle.py)."""
    return Host(kind, name or bundle.hostname or bundle.source, dict(bundle.environ), device=bundle.device,
                installed_versions=bundle.installed_versions(), bundle=bundle)


def host_from_bundle_file(path: str | os.PathLike[str], *, name: str | None = None, kind: str = BUNDLE) -> Host:
    """host_from_bundle of a bundle file; InputError (exit 2) when it is not one."""
    from cann_config.app.support.bundle import load_bundle

    return host_from_bundle(load_bundle(path), name=name, kind=kind)
