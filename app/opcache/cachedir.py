"""Where CANN keeps the operator-compile cache, for a framework and an environment.

Why this module exists: the cache directory is decided by a chain users rarely see whole
(docs/cann/op-cache.md#base-directory, docs/cann/env-vars.md; `hicann/ge` `te_cache_manager.cc` `SetCacheDirPath`):

    the framework's option (TF `op_compiler_cache_dir`, GE `ge.op_compiler_cache_dir`,
    ATC `--op_compiler_cache_dir`, AscendCL `ACL_OP_COMPILER_CACHE_DIR`; torch_npu: the env var
    `ACL_OP_COMPILER_CACHE_DIR`)  ›  `$ASCEND_CACHE_PATH`  ›  `$HOME/atc_data`

then CANN appends `kernel_cache/<SoC version>` to that base, whatever the base ends with, and
keeps `op_cache.ini` in `kernel_cache/`, beside the SoC directories (read from the CANN 8.5+
source; the docs only say "in the cache directory"). `ASCEND_WORK_PATH` does not take part.
CANN also refuses a configured path with characters other than letters, digits, `.`, `-`, `_`,
`/` and non-ASCII characters (`common_utils.cc` `IsStrValid`), so `~/cache` does not work.

Public API:
    resolve_cache_dir(framework, option_value="", environ=None, home=None, option_where=None)
        -> CacheDirResolution (base, kernel_cache, ini_path, source, variable, how, findings;
           soc_dir(soc_version), soc_dirs())
    kernel_cache_of(path) -> Path   (a base dir, or a path already ending in kernel_cache)
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from cann_config.app.catalog import load_catalog
from cann_config.app.findings import Finding, make_finding
from cann_config.app.i18n import pick

KERNEL_CACHE = "kernel_cache"
INI_NAME = "op_cache.ini"
CACHE_PATH_ENV = "ASCEND_CACHE_PATH"
WORK_PATH_ENV = "ASCEND_WORK_PATH"
TORCH_DIR_ENV = "ACL_OP_COMPILER_CACHE_DIR"
DEFAULT_SUBDIR = "atc_data"
HOME_PLACEHOLDER = "$HOME"
# IsStrValid: ASCII letters and digits, '.', '-', '_', '/', and any byte >= 0x80. Written as the
# ASCII characters it refuses: a class spanning every code point above 0x80 takes ~5 ms to compile.
_BAD_PATH_CHAR = re.compile(r"[\x00-\x2c\x3a-\x40\x5b-\x5e\x60\x7b-\x7f]")
# A `$NAME` an env file left unexpanded (app/io/envfile.py): its value is unknown, not invalid.
_UNRESOLVED = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")


def _text(code: str, **params: Any) -> dict[str, str]:
    return dict(make_finding(code, **params).text)


def option_name(framework: str | None) -> str:
    """How the framework names the cache-dir option (for messages)."""
    targets = load_catalog().option("op_compiler_cache_dir").targets
    names = {
        "tf1": targets.npu_run_config,
        "tf2": f"npu.global_options().{targets.tf2}" if targets.tf2 else None,
        "ge": targets.ge,
        "atc": targets.atc,
        "acl": f"{targets.acl} (aclCompileOpt)" if targets.acl else None,
        "pytorch": targets.env_for("pytorch"),
    }
    return names.get(framework or "") or "op_compiler_cache_dir"


def kernel_cache_of(path: str | os.PathLike[str]) -> Path:
    """`<base>/kernel_cache` for a base directory; a path already ending in kernel_cache as is."""
    path = Path(path)
    return path if path.name == KERNEL_CACHE else path / KERNEL_CACHE


def _trim(text: str) -> str:
    # CANN trims spaces and tabs from every environment value it reads (te_config_info.cc).
    return text.strip(" \t")


def _join(base: str, *parts: str) -> Path:
    return Path(base.rstrip("/") + "/" + "/".join(parts)) if base else Path("/" + "/".join(parts))


class CacheDirResolution(NamedTuple):
    """The cache directory CANN would use, and how that was decided."""

    base: Path
    kernel_cache: Path
    ini_path: Path
    source: str  # "option" | "env" | "default"
    variable: str | None  # option or variable that decided it; "HOME" for the default
    value: str  # the base as CANN composes it (text, before any path normalisation)
    how: Mapping[str, str]
    ini_how: Mapping[str, str]
    framework: str | None = None
    home_known: bool = True
    findings: tuple[Finding, ...] = ()
    # False when a script sets the dir to a value known only at run time: the paths are then
    # placeholders (`${NAME}/kernel_cache`), never a place to look for op_cache.ini.
    known: bool = True

    def soc_dir(self, soc_version: str) -> Path:
        """`kernel_cache/<SoC version>`, spelled exactly as the SoC string (e.g. Ascend910_9382)."""
        return self.kernel_cache / soc_version

    def soc_dirs(self) -> list[Path]:
        """The SoC directories that exist under kernel_cache (reads the disk)."""
        try:
            return sorted(p for p in self.kernel_cache.iterdir() if p.is_dir() and not p.is_symlink())
        except OSError:
            return []

    def to_json(self, lang: str | None = None) -> dict[str, Any]:
        return {
            "base": self.value,
            "kernel_cache": str(self.kernel_cache),
            "op_cache_ini": str(self.ini_path),
            "source": self.source,
            "variable": self.variable,
            "how": pick(self.how, lang),
            "known": self.known,
        }


def resolve_cache_dir(framework: str | None, option_value: str = "", environ: Mapping[str, str] | None = None,
                      home: str | None = None, option_where: str | None = None,
                      runtime: tuple[str, str] | None = None) -> CacheDirResolution:
    """The base, kernel_cache and op_cache.ini paths CANN would use.

    `option_value` is the framework's own option (empty: not set); for PyTorch the option is
    the env var ACL_OP_COMPILER_CACHE_DIR, read from `environ` when `option_value` is empty.
    `home` overrides `$HOME`; when neither is known the base is shown as `$HOME/atc_data`.
    `option_where` (e.g. "train.py:12") says where the option was set, for the findings.
    `runtime` = (name, expression): a script sets the base (the option, or the variable `name`)
    to a value known only at run time; the result is then not `known`, its paths placeholders.
    """
    env = os.environ if environ is None else environ
    name = option_name(framework)
    if runtime is not None:
        runtime_name, expression = runtime
        value = "${" + runtime_name + "}"
        kernel_cache = _join(value, KERNEL_CACHE)
        return CacheDirResolution(
            base=Path(value), kernel_cache=kernel_cache, ini_path=kernel_cache / INI_NAME, source="script",
            variable=runtime_name, value=value,
            how=_text("cache-how-dir-runtime", name=runtime_name, where=option_where or runtime_name, expression=expression),
            ini_how=_text("cache-how-ini-runtime"), framework=framework, home_known=True, known=False)
    findings: list[Finding] = []
    where = option_where or name
    configured = option_value
    variable: str | None = name
    source = "option"
    if not configured and framework == "pytorch" and _trim(env.get(TORCH_DIR_ENV, "")):
        configured, source, variable, where = _trim(env[TORCH_DIR_ENV]), "env", TORCH_DIR_ENV, TORCH_DIR_ENV
    if configured:
        how = _text("cache-how-dir-torch-env" if source == "env" else "cache-how-dir-option", name=variable)
    elif _trim(env.get(CACHE_PATH_ENV, "")):
        configured, source, variable, where = _trim(env[CACHE_PATH_ENV]), "env", CACHE_PATH_ENV, CACHE_PATH_ENV
        how = _text("cache-how-dir-env", name=name)
    else:
        source, variable = "default", "HOME"
    home_known = True
    if source == "default":
        home_value = home if home is not None else env.get("HOME")
        if home_value is None:
            home_known = False
            home_value = HOME_PLACEHOLDER
            findings.append(make_finding("cache-dir-home-unknown"))
        value = _trim(home_value) + "/" + DEFAULT_SUBDIR
        how = _text("cache-how-dir-default", name=name)
        work = _trim(env.get(WORK_PATH_ENV, ""))
        if work:
            findings.append(make_finding("cache-dir-work-path", value=work, base=value))
    else:
        value = configured
        checked = _UNRESOLVED.sub("x", value)
        bad = sorted(set(_BAD_PATH_CHAR.findall(checked)))
        if value.startswith("~"):
            home_value = home if home is not None else env.get("HOME", HOME_PLACEHOLDER)
            findings.append(make_finding("cache-dir-tilde", path=value, origin=where,
                                         example=home_value.rstrip("/") + value[1:]))
        elif bad:
            shown = " ".join(repr(c) for c in bad)
            findings.append(make_finding("cache-dir-invalid-chars", path=value, origin=where, chars=shown))
        if not value.startswith(("/", "~", "$")):
            findings.append(make_finding("cache-dir-relative", path=value, origin=where))
    kernel_cache = _join(value, KERNEL_CACHE)
    if source != "default" and Path(value.rstrip("/") or "/").name == KERNEL_CACHE:
        findings.append(make_finding("cache-dir-doubled-kernel-cache", path=value, origin=where,
                                     kernel_cache=str(kernel_cache) + "/<SoC>",
                                     suggestion={"op_compiler_cache_dir": str(Path(value).parent)}))
    return CacheDirResolution(
        base=Path(value),
        kernel_cache=kernel_cache,
        ini_path=kernel_cache / INI_NAME,
        source=source,
        variable=variable,
        value=value,
        how=how,
        ini_how=_text("cache-how-ini-location"),
        framework=framework,
        home_known=home_known,
        # a `$NAME` left in the path: only the running shell knows the dir (app/io/shellread.py)
        known=source == "default" or _UNRESOLVED.search(value) is None,
        findings=tuple(findings),
    )


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name the same file (the same inode when both exist, else the same
    absolute, normalised path)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.normpath(os.path.abspath(a)) == os.path.normpath(os.path.abspath(b))
