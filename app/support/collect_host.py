"""Collecting a support bundle on the customer's host (`cann-config collect`).

Why this module exists: app/support/bundle.py defines the bundle (its format, its tolerant
reader, its writer) and is read anywhere - on support's desk, in `fleet`, in the wizard. What is
gathered here runs only on the host being described: npu-smi, the installed versions, the TF
Adapter, op_cache.ini's exact bytes and the walk and cleanup prediction of its cache. What
leaves the host, and what does not, is said in bundle.py's docstring; this module keeps to it
(only `bundle_variables()`, no host name unless asked, no file list, an op_cache.ini symlink
never followed, values of other variables removed from npu-smi's output).

Collecting is bounded in time: npu-smi runs within app.device.hostprobe's budget (5 s) plus 2 s
for `npu-smi info -m`, the cache walk stops after `scan_seconds` (the measurement says `stopped` and
no cleanup prediction is made from a partial walk). The cache is the one measurement
(app.opcache.measurement.measure_cache), its document `scan --json`'s.

The TF Adapter version: looked for without importing anything, in
`<Ascend>/tfplugin/latest/ascend_tfplugin_install.info` (`version=`; the CANN tfplugin package,
under /usr/local/Ascend and $HOME/Ascend), and as the pip distributions `npu_bridge` (TF 1.x; its
version is the TensorFlow version it was built for, e.g. 1.15.0) and `npu_device` (TF 2.x)
through importlib.metadata - of the Python that runs cann-config, which may not be the one the
training jobs use.

Public API:
    collect_bundle(*, environ=None, root=Path("/"), runner=run_command, npu_smi_timeout=5.0,
                   scan_seconds=20.0, include_hostname=False, now=None,
                   distribution_version=importlib.metadata.version, clock=time.monotonic)
        -> dict   (the JSON data; write it with app.support.bundle.write_bundle)
    tf_adapter_versions(root=Path("/"), environ=os.environ, distribution_version=...) -> dict
    DEFAULT_SCAN_SECONDS, DEFAULT_NPU_SMI_TIMEOUT
"""

from __future__ import annotations

import base64
import importlib.metadata
import os
import re
import socket
import stat
import subprocess
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from cann_config.app import __version__
from cann_config.app.device.hostprobe import find_npu_smi, probe_host, run_command
from cann_config.app.errors import InputError, os_reason
from cann_config.app.findings import make_finding
from cann_config.app.i18n import pick
from cann_config.app.io.inputfiles import read_input_bytes
from cann_config.app.opcache.cleanup import CleanupPrediction, predict_cleanup
from cann_config.app.opcache.ini import VERSION_KEYS, OpCacheIni, read_op_cache_ini
from cann_config.app.opcache.measurement import next_start_empties
from cann_config.app.opcache.resolution import resolve_settings
from cann_config.app.opcache.scanner import CacheUsage, scan_cache
from cann_config.app.support.bundle import (
    BUNDLE_FORMAT,
    BUNDLE_VERSION,
    MAX_SHORT_CHARS,
    bundle_variables,
)

DEFAULT_SCAN_SECONDS = 20.0
DEFAULT_NPU_SMI_TIMEOUT = 5.0
MAPPING_TIMEOUT = 2.0
# Where the CANN TF Adapter package (tfplugin) writes its install info.
_TFPLUGIN_INFO = Path("tfplugin") / "latest" / "ascend_tfplugin_install.info"
_TF_ADAPTER_DISTRIBUTIONS = (("npu_bridge", "npu_bridge_version"), ("npu_device", "npu_device_version"))
_BOARD_COMMAND = re.compile(r"npu-smi info -t board -i ([0-9]{1,6})(?: -c ([0-9]{1,6}))?")
_STDERR_SUFFIX = " [stderr]"

def _label(code: str, lang: str | None = None, **params: Any) -> str:
    return pick(make_finding(code, **params).text, lang)


def _under(root: Path, path: str | Path) -> Path:
    return Path(path) if root == Path("/") else root / str(path).lstrip("/")


def _info_version(path: Path) -> str | None:
    """`version=` of a CANN install-info file (keys case-insensitive); None when absent."""
    try:
        data, _ = read_input_bytes(path, "an install-info file", 64 * 1024)
    except InputError:  # missing, too large, or not a regular file (a FIFO must not hang collect)
        return None
    for line in data.decode("utf-8", "replace").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip().lower() == "version" and value.strip():
            return value.strip()[:MAX_SHORT_CHARS]
    return None


def tf_adapter_versions(root: Path = Path("/"), environ: Mapping[str, str] = os.environ,
                        distribution_version: Callable[[str], str] = importlib.metadata.version,
                        ) -> dict[str, str | None]:
    """The TF Adapter found here, without importing it (see the module docstring)."""
    root = Path(root)
    out: dict[str, str | None] = {"tfplugin_version": None, "tfplugin_path": None,
                                  "npu_bridge_version": None, "npu_device_version": None}
    bases = [Path("/usr/local/Ascend")]
    if environ.get("HOME"):
        bases.append(Path(environ["HOME"]) / "Ascend")
    for base in bases:
        info = _under(root, base) / _TFPLUGIN_INFO
        version = _info_version(info)
        if version:
            out["tfplugin_version"], out["tfplugin_path"] = version, str(info)
            break
    for dist, key in _TF_ADAPTER_DISTRIBUTIONS:
        try:
            out[key] = str(distribution_version(dist))[:MAX_SHORT_CHARS]
        except importlib.metadata.PackageNotFoundError:
            pass
        except (OSError, ValueError):  # broken metadata: not found, for our purpose
            pass
    return out


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return " ".join(line.split())[:200]
    return ""


def _collect_npu_smi(root: Path, environ: Mapping[str, str], runner: Callable[..., Any], timeout: float,
                     unreadable: list[dict[str, str]]) -> tuple[dict[str, Any], dict[str, str | None]]:
    probe = probe_host(timeout=timeout, runner=runner, root=root, environ=environ)
    info = probe.raw.get("npu-smi info")
    boards: list[dict[str, Any]] = []
    stderr: dict[str, str] = {}
    for command, text in probe.raw.items():
        if command.endswith(_STDERR_SUFFIX):
            stderr[command[:-len(_STDERR_SUFFIX)]] = text
            continue
        match = _BOARD_COMMAND.fullmatch(command)
        if match:
            chip = int(match.group(2)) if match.group(2) else None
            boards.append({"npu": int(match.group(1)), "chip": chip, "command": command, "text": text})
    mapping = None
    path = find_npu_smi(environ, root) if info is not None else None
    if path is not None:
        # `npu-smi info -m` names the chip of every NPU (docs/cann/devices.md#detection): support reads
        # the SoC from it when the main table is damaged.
        command = "npu-smi info -m"
        try:
            result = runner([str(path), "info", "-m"], capture_output=True, text=True, timeout=MAPPING_TIMEOUT)
        except subprocess.TimeoutExpired:
            unreadable.append({"what": command, "why": f"no answer within {MAPPING_TIMEOUT:g} s"})
        except (OSError, subprocess.SubprocessError, ValueError) as exc:
            unreadable.append({"what": command, "why": getattr(exc, "strerror", None) or str(exc) or type(exc).__name__})
        else:
            out = result.stdout if isinstance(result.stdout, str) else (result.stdout or b"").decode("utf-8", "replace")
            err = result.stderr if isinstance(result.stderr, str) else (result.stderr or b"").decode("utf-8", "replace")
            if err.strip():
                stderr[command] = err
            if result.returncode == 0:
                mapping = out
            else:
                unreadable.append({"what": command, "why": f"exit status {result.returncode}: "
                                                           f"{_first_line(err) or _first_line(out)}"})
    if info is None:
        unreadable.append({"what": "npu-smi info", "why": "; ".join(probe.tried)})
    section = {"info": info, "mapping": mapping, "boards": boards, "stderr": stderr, "notes": list(probe.tried)}
    return section, dict(probe.versions)


def _collect_ini(path: Path | None, unreadable: list[dict[str, str]],
                 left_out: list[dict[str, str]]) -> tuple[dict[str, Any], OpCacheIni | None]:
    """op_cache.ini's exact bytes, only from a regular file at its place in the cache directory.

    A symlink is recorded with its target and not followed: it could point at any file of the
    host (a credentials file), and the bundle leaves the host. A FIFO or device is not opened.
    """
    section: dict[str, Any] = {"path": str(path) if path else None, "exists": None, "text": None, "base64": None,
                               "error": None}
    if path is None:
        section["error"] = _label("support-label-home-unknown")
        return section, None
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        section["exists"] = False
        return section, None
    except OSError as exc:
        reason = InputError.from_code("core-input-cannot-read", path, detail=os_reason(exc)).reason
        section["error"] = reason
        unreadable.append({"what": str(path), "why": reason})
        return section, None
    section["exists"] = True
    if stat.S_ISLNK(info.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        section["symlink"] = target
        why = _label("support-label-ini-symlink", target=target)
        section["error"] = why
        left_out.append({"what": str(path), "why": why})
        return section, None
    try:
        ini = read_op_cache_ini(path, nofollow=True)
    except InputError as exc:
        section["error"] = exc.reason
        (left_out if exc.code == "core-input-special" else unreadable).append({"what": str(path), "why": exc.reason})
        return section, None
    try:
        section["text"] = ini.original.decode("utf-8")
    except UnicodeDecodeError:
        section["base64"] = base64.b64encode(ini.original).decode("ascii")
    return section, ini


def _collect_cache(env: Mapping[str, str], ini: OpCacheIni | None, installed: Mapping[str, str],
                   scan_seconds: float, now: float, unreadable: list[dict[str, str]],
                   clock: Callable[[], float]) -> dict[str, Any]:
    """The cache as `scan --json` measures it (app.opcache.measurement.measure_cache, with the
    limits and "the next start empties" resolved from this host's environment and op_cache.ini),
    within `scan_seconds`; lists cut to their first entry (no file list leaves the host), and the
    bundle's own keys (CACHE_BUNDLE_KEYS)."""
    from cann_config.app.opcache.measurement import atime_aggregate, limit_findings, measure_cache

    resolution = resolve_settings(ini=ini, environ=env)
    cache_dir = resolution.cache_dir
    max_e = resolution.effective["max_op_cache_size"]
    ratio_e = resolution.effective["remain_cache_size_ratio"]
    mode = resolution.effective.get("op_compiler_cache_mode")
    kernel_cache = cache_dir.kernel_cache
    failed = {"kernel_cache": str(kernel_cache), "exists": None, "cache_dir": cache_dir.to_json(),
              "time_limit_seconds": scan_seconds}
    if not cache_dir.home_known:
        why = _label("support-label-home-unknown")
        unreadable.append({"what": _label("support-label-unreadable-cache", path=kernel_cache), "why": why})
        return {**failed, "error": why}
    seconds = max(scan_seconds, 0.0)
    deadline = clock() + seconds

    def should_stop() -> bool:
        return clock() >= deadline

    def walk(path: Path, candidates: int | None) -> CacheUsage:
        usage = None
        # The scanner looks at should_stop between batches: a batch never outlasts the limit.
        for progress in scan_cache(path, candidates_from=candidates, batch_seconds=min(0.1, seconds),
                                   should_stop=should_stop):
            usage = progress.usage
        assert usage is not None
        return usage

    def predict(usage: CacheUsage, max_mb: int, ratio: int) -> dict[str, CleanupPrediction]:
        predictions: dict[str, CleanupPrediction] = {}
        if usage.stopped:  # a partial walk undercounts the SoC dirs: predicting from it would be wrong
            return predictions
        for name, soc in usage.socs.items():
            # The same time limit as the walk: the prediction asks before reading each json group.
            predicted = predict_cleanup(soc, max_mb, ratio, now, should_stop=should_stop)
            if predicted.stopped:
                # A partial prediction would read as CANN's answer: the bundle says "not predicted".
                break
            predictions[name] = predicted
        return predictions

    # `ini` is the file at CANN's own place (collect_bundle reads no other): the one CANN reads.
    missing = str(cache_dir.ini_path) if ini is None and not os.path.lexists(cache_dir.ini_path) else None
    empties = next_start_empties(ini, installed, mode.value if mode is not None else None, missing_ini=missing)
    try:
        measured = measure_cache(kernel_cache, cache_dir.to_json(), max_e, ratio_e, empties=empties,
                                 findings=limit_findings(resolution.findings, ini.findings if ini else []),
                                 walk=walk, predict=predict)
    except InputError as exc:  # unreadable is not "no cache": say why
        unreadable.append({"what": _label("support-label-unreadable-cache", path=kernel_cache), "why": exc.reason})
        return {**failed, "error": exc.reason}
    data = measured.to_json()
    if measured.usage is not None and measured.usage.unreadable:
        first_path, first_reason = measured.usage.unreadable[0]
        unreadable.append({"what": _label("support-label-unreadable-entries", count=len(measured.usage.unreadable),
                                          path=kernel_cache),
                           "why": f"{first_reason} ({first_path})"})
    # Counts travel, file lists do not: the first entry of each list is what the findings name,
    # and the jsons' times in aggregate form (atime_aggregate) what the atime re-check rests on.
    if measured.usage is not None and not measured.usage.stopped:
        for name, soc in measured.usage.socs.items():
            data["socs"][name]["atimes"] = atime_aggregate(soc, now)
    data["unreadable"] = data["unreadable"][:1]
    data["other_filesystems"] = data["other_filesystems"][:1]
    data.update(time_limit_seconds=scan_seconds, error=None)
    return data


def collect_bundle(*, environ: Mapping[str, str] | None = None, root: Path = Path("/"),
                   runner: Callable[..., Any] | None = None, npu_smi_timeout: float = DEFAULT_NPU_SMI_TIMEOUT,
                   scan_seconds: float = DEFAULT_SCAN_SECONDS, include_hostname: bool = False,
                   now: float | None = None,
                   distribution_version: Callable[[str], str] = importlib.metadata.version,
                   clock: Callable[[], float] = time.monotonic) -> dict[str, Any]:
    """Gather this host's support bundle (the JSON data; see the module docstring).

    `environ` is the process environment (default os.environ): npu-smi and the toolkit are
    looked for with all of it, but only `bundle_variables()` are written. `root`, `runner`,
    `distribution_version` and `clock` replace `/`, subprocess, importlib.metadata and the
    clock of the time limit in tests. Runs npu-smi (at most `npu_smi_timeout` + 2 s), then
    walks the cache and predicts its cleanup within `scan_seconds`: call it off the GUI thread.
    """
    env_all = os.environ if environ is None else environ
    env = {name: env_all[name] for name in bundle_variables() if name in env_all}
    when = time.time() if now is None else now
    root = Path(root)
    unreadable: list[dict[str, str]] = []
    left_out: list[dict[str, str]] = []
    npu_smi, versions = _collect_npu_smi(root, env_all, runner or run_command, npu_smi_timeout, unreadable)
    # npu-smi's output is text of this host like any other: no value of a variable the bundle
    # leaves out may reach it through a wrapper script that prints its environment.
    redact = _redactor(env_all, set(env))
    npu_smi, removed = redact(npu_smi)
    unreadable, removed_too = redact(unreadable)
    if removed or removed_too:
        left_out.append({"what": _label("support-label-left-npu-smi-values"),
                         "why": _label("support-label-left-npu-smi-values-why")})
    versions.update(tf_adapter_versions(root, env_all, distribution_version))
    cache_dir = resolve_settings(ini=None, environ=env).cache_dir
    ini_section, ini = _collect_ini(cache_dir.ini_path if cache_dir.home_known else None, unreadable, left_out)
    installed = {key: value for key in VERSION_KEYS if isinstance(value := versions.get(key), str) and value}
    cache = _collect_cache(env, ini, installed, scan_seconds, when, unreadable, clock)
    others = len([name for name in env_all if name not in env])
    if others:
        left_out.append({"what": _label("support-label-left-environment", count=others),
                         "why": _label("support-label-left-environment-why")})
    if not include_hostname:
        left_out.append({"what": _label("support-label-left-hostname"), "why": _label("support-label-left-hostname-why")})
    left_out.append({"what": _label("support-label-left-file-names"), "why": _label("support-label-left-file-names-why")})
    data: dict[str, Any] = {
        "format": BUNDLE_FORMAT,
        "version": BUNDLE_VERSION,
        "created": datetime.fromtimestamp(when).astimezone().isoformat(timespec="seconds"),
        "tool_version": __version__,
        "host": {"hostname": socket.gethostname()} if include_hostname else {},
        "npu_smi": npu_smi,
        "versions": versions,
        "environment": env,
        "op_cache_ini": ini_section,
        "cache": cache,
        "unreadable": unreadable,
        "left_out": left_out,
    }
    return data


# Shorter values are too common to be secrets ("1", "C.UTF-8", "/root") and would blank out
# ordinary words of npu-smi's output.
_MIN_REDACTED_CHARS = 8


def _redactor(environ: Mapping[str, str], kept: set[str]) -> Callable[[Any], tuple[Any, bool]]:
    """A function that replaces, in every string of a JSON value, the value of each environment
    variable the bundle does not keep by `<NAME removed>`; it also says whether it removed any."""
    secrets = sorted(((value, name) for name, value in environ.items()
                      if name not in kept and len(value.strip()) >= _MIN_REDACTED_CHARS),
                     key=lambda item: len(item[0]), reverse=True)

    def text(value: str) -> str:
        for secret, name in secrets:
            if secret in value:
                value = value.replace(secret, f"<{name} removed>")
        return value

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return text(value)
        if isinstance(value, list):
            return [walk(item) for item in value]
        if isinstance(value, dict):
            return {key: walk(item) for key, item in value.items()}
        return value

    def redact(value: Any) -> tuple[Any, bool]:
        result = walk(value)
        return result, result != value

    return redact
