"""Which op_cache.ini CANN reads: the one decision for a file the user names.

Why this module exists: CANN reads exactly one op_cache.ini, `<base>/kernel_cache/op_cache.ini` of
the base directory it resolves (docs/cann/op-cache.md#layout, #which-file). A file the user names
(`diagnose --ini`, the wizard's Open) is that file only when it is at that place; its name proves
nothing (`other.ini`, or an `op_cache.ini` in another `kernel_cache`). `diagnose` and the wizard's
cache page both ask `which_ini`, so they agree on whether a file's sizes are used.

The base it is compared with, in this order:
- `--cache-dir BASE` (the cache page's directory): the base the user names;
- this machine's environment, when the base is known there (HOME, ASCEND_CACHE_PATH, the option);
- otherwise the base is not comparable here: with an environment that is not this machine's (an
  env file) the file is taken as the one CANN reads in that environment, and without any known
  base it is taken from the file's own location. Either way a finding says so.

Public API:
    which_ini(given, resolution, *, cache_dir=None, local=True) -> IniChoice
    IniChoice: read_by_cann, cann_path (the file CANN reads), base_from, finding
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import os
from pathlib import Path
from typing import NamedTuple

from cann_config.app.findings import Finding, make_finding
from cann_config.app.opcache.cachedir import INI_NAME, KERNEL_CACHE, CacheDirResolution, kernel_cache_of, same_file

# Where the base compared with came from (the JSON's `op_cache_ini.base_from`).
BASE_FROM_CACHE_DIR = "--cache-dir"
BASE_FROM_ENVIRONMENT = "environment"
BASE_FROM_GIVEN_ENVIRONMENT = "given-environment"
BASE_FROM_INI_LOCATION = "ini-location"


class IniChoice(NamedTuple):
    """Whether the named file is the op_cache.ini CANN reads, and how that was decided."""

    read_by_cann: bool
    cann_path: Path  # the op_cache.ini CANN reads (the named file itself when it is that one)
    base_from: str  # --cache-dir | environment | given-environment | ini-location
    finding: Finding | None  # not read (warning), or how the base was taken (info)


def base_of_location(given: str | os.PathLike[str]) -> Path:
    """The base directory a file's place implies: `<base>/kernel_cache/<file>`, else its folder."""
    parent = Path(os.path.abspath(given)).parent
    return parent.parent if parent.name == KERNEL_CACHE else parent


def which_ini(given: str | os.PathLike[str], resolution: CacheDirResolution, *,
              cache_dir: str | os.PathLike[str] | None = None, local: bool = True) -> IniChoice:
    """Whether `given` is the op_cache.ini CANN reads (docs/cann/op-cache.md#which-file).

    `resolution`: the cache dir CANN resolves in the environment at hand; `cache_dir`: a base the
    user named (`--cache-dir`, the cache page's directory), which then is the base compared with;
    `local`: the environment is this machine's (not an env file's or a bundle's), so a path here can
    be compared with the one CANN composes.
    """
    path = str(given)
    if cache_dir is not None:
        expected = kernel_cache_of(cache_dir) / INI_NAME
        if same_file(given, expected):
            return IniChoice(True, expected, BASE_FROM_CACHE_DIR, None)
        return IniChoice(False, expected, BASE_FROM_CACHE_DIR,
                         make_finding("cache-ini-not-read", file=path, path=path, cann_path=str(expected),
                                      base=str(cache_dir), variable="--cache-dir"))
    known = resolution.home_known and resolution.known
    if known and local:
        expected = resolution.ini_path
        if same_file(given, expected):
            return IniChoice(True, expected, BASE_FROM_ENVIRONMENT, None)
        return IniChoice(False, expected, BASE_FROM_ENVIRONMENT,
                         make_finding("cache-ini-not-read", file=path, path=path, cann_path=str(expected),
                                      base=resolution.value, variable=resolution.variable or ""))
    if known:
        # Another machine's environment: its paths are not this machine's, so the named file is
        # taken as the one CANN reads there - said, unless it is at that very place.
        expected = resolution.ini_path
        finding = None if same_file(given, expected) else make_finding(
            "cache-ini-taken-as-read", file=path, path=path, cann_path=str(expected))
        return IniChoice(True, Path(given), BASE_FROM_GIVEN_ENVIRONMENT, finding)
    base = base_of_location(given)
    return IniChoice(True, Path(given), BASE_FROM_INI_LOCATION,
                     make_finding("cache-ini-base-from-location", file=path, path=path, base=str(base),
                                  cann_path=str(base / KERNEL_CACHE / INI_NAME)))
