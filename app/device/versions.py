"""Which CANN, driver and operator package are installed here, read from their version files.

Why a module of its own: `diagnose` and `scan` check the version lines of op_cache.ini against the
installed CANN (docs/cann/op-cache.md#version-lines) by reading a few small files; the device
probe (app/device/hostprobe.py), which runs npu-smi, needs process control (subprocess,
selectors, signal) that reading a file never does. Here the files are read without it.

The files (docs/cann/devices.md#other-clues, docs/cann/op-cache.md#version-lines):
- toolkit: `<toolkit>/<arch>-linux/ascend_toolkit_install.info` (`version=8.0.0`) under
  `$ASCEND_TOOLKIT_HOME`, `$ASCEND_HOME_PATH`, the `Install_Path` of
  `/etc/Ascend/ascend_cann_install.info`, the driver's `Driver_Install_Path_Param` of
  `/etc/ascend_install.info`, `/usr/local/Ascend/{cann,cann-*,ascend-toolkit/latest}`
  (CANN 8.5+/9 install to `.../Ascend/cann`) and the same under `$HOME/Ascend`; a CANN 9 dir
  named `cann-9.0.0` without an info file gives its version from the name;
- driver: `/usr/local/Ascend/driver/version.info` (`Version=24.1.0`; it names no chip);
- `ops_version` of op_cache.ini: `$ASCEND_OPP_PATH/version.info` (else `<toolkit>/opp/version.info`);
- `adk_version` of op_cache.ini: the compiler's `Version` in `<toolkit>/compiler/version.info`.

For tests, every path is looked up under `root` (a fake `/`).

Public API:
    installed_versions(root=Path("/"), environ=os.environ) -> dict[str, str | None]
        keys: toolkit_version, toolkit_path, driver_version, driver_path,
              opp_version, opp_path, compiler_version, compiler_path,
              and the op_cache.ini names: adk_version (= compiler_version), ops_version (= opp_version)
    under_root(root, path) -> Path      `path` of the probed host, under a test's fake `/`
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from cann_config.app.errors import InputError
from cann_config.app.io.inputfiles import read_input_bytes

_MAX_VERSION_FILE = 64 * 1024


def under_root(root: Path, path: str | Path) -> Path:
    """`path` of the probed host, looked up under `root` (which is `/` outside tests)."""
    p = Path(path)
    if root == Path("/"):
        return p
    return root / str(p).lstrip("/")


def _read_keys(path: Path) -> dict[str, str]:
    """`key=value` lines of a CANN info file, keys lowercased; {} when unreadable."""
    try:
        # The environment names these files (ASCEND_OPP_PATH...): read through the guarded reader,
        # so a FIFO or device put there is skipped instead of hanging the probe.
        data, _ = read_input_bytes(path, "a version file", _MAX_VERSION_FILE)
    except InputError:
        return {}
    values: dict[str, str] = {}
    for line in data.decode("utf-8", errors="replace").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            values.setdefault(key.strip().lower(), value.strip())
    return values


def _version_of(path: Path) -> str | None:
    return _read_keys(path).get("version") or None


def _toolkit_homes(root: Path, environ: Mapping[str, str]) -> list[Path]:
    homes: list[Path] = []
    for name in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"):
        if environ.get(name):
            homes.append(under_root(root, environ[name]))
    bases: list[Path] = []
    install_path = _read_keys(under_root(root, "/etc/Ascend/ascend_cann_install.info")).get("install_path")
    if install_path:
        bases.append(under_root(root, install_path))
    # The driver's install path (ascend-deployer reads it there too): CANN is installed beside it.
    driver_base = _read_keys(under_root(root, "/etc/ascend_install.info")).get("driver_install_path_param")
    if driver_base:
        bases.append(under_root(root, driver_base))
    bases.append(under_root(root, "/usr/local/Ascend"))
    if environ.get("HOME"):
        bases.append(under_root(root, Path(environ["HOME"]) / "Ascend"))
    for base in bases:
        homes.append(base / "cann")
        try:
            versioned = sorted((p for p in base.glob("cann-*") if p.is_dir()), key=lambda p: p.name, reverse=True)
        except OSError:
            versioned = []
        homes.extend(versioned)
        homes.append(base / "ascend-toolkit" / "latest")
        homes.append(base / "nnae" / "latest")
    return list(dict.fromkeys(homes))


def _toolkit_info(home: Path) -> Path | None:
    candidates = [home / "ascend_toolkit_install.info"]
    try:
        candidates += sorted(home.glob("*-linux/ascend_toolkit_install.info"))
    except OSError:
        pass
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    return None


def installed_versions(root: Path = Path("/"), environ: Mapping[str, str] = os.environ) -> dict[str, str | None]:
    """The CANN toolkit, driver, operator package (ops_version) and compiler (adk_version) versions.

    Every value is None when its file is not found; each `*_path` names the file read. The
    result can be passed as is where {"adk_version", "ops_version"} are expected.
    """
    root = Path(root)
    out: dict[str, str | None] = dict.fromkeys(
        ("toolkit_version", "toolkit_path", "driver_version", "driver_path", "opp_version", "opp_path",
         "compiler_version", "compiler_path"))
    toolkit_home: Path | None = None
    for home in _toolkit_homes(root, environ):
        info = _toolkit_info(home)
        if info is not None and _version_of(info):
            out["toolkit_version"], out["toolkit_path"] = _version_of(info), str(info)
            toolkit_home = home
            break
        # CANN 9 installs to a directory named after its version (/usr/local/Ascend/cann-9.0.0).
        match = re.fullmatch(r"cann-([0-9][0-9A-Za-z.\-]*)", home.name)
        if match and home.is_dir():
            out["toolkit_version"], out["toolkit_path"] = match.group(1), str(home)
            toolkit_home = home
            break

    driver_base = _read_keys(under_root(root, "/etc/ascend_install.info")).get("driver_install_path_param")
    for base in filter(None, (driver_base, "/usr/local/Ascend")):
        candidate = under_root(root, base) / "driver" / "version.info"
        if _version_of(candidate):
            out["driver_version"], out["driver_path"] = _version_of(candidate), str(candidate)
            break

    opp_candidates = []
    if environ.get("ASCEND_OPP_PATH"):
        opp_candidates.append(under_root(root, environ["ASCEND_OPP_PATH"]) / "version.info")
    if toolkit_home is not None:
        opp_candidates.append(toolkit_home / "opp" / "version.info")
    for candidate in opp_candidates:
        if _version_of(candidate):
            out["opp_version"], out["opp_path"] = _version_of(candidate), str(candidate)
            break

    if toolkit_home is not None:
        candidate = toolkit_home / "compiler" / "version.info"
        if _version_of(candidate):
            out["compiler_version"], out["compiler_path"] = _version_of(candidate), str(candidate)
    # The same two versions under the names op_cache.ini gives them (docs/cann/op-cache.md#version-lines).
    out["adk_version"], out["ops_version"] = out["compiler_version"], out["opp_version"]
    return out
