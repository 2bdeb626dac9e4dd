"""The type check (`make typecheck`, part of `make test`): mypy over the import root `cann_config`.

Why this script: the folders app/ and ui/ install as cann_config.app and cann_config.ui
(setuptools' `package-dir` in pyproject.toml), and mypy names a module by its path, so run on the
folders it would call app/x.py `app.x` and find no `cann_config.app.x` for the code's imports.
mypy's build API takes each file with its module name (`BuildSource(path, module)`): this script
gives it every .py file of the packages asked for, named by the same `package-dir` table setuptools
installs from, so the two cannot disagree and nothing is generated on disk (no link farm). The
settings are pyproject.toml's [tool.mypy]; docs/architecture.md#static-tools says why this way.

    python tools/typecheck.py [--cache-dir DIR] PACKAGE ...     e.g. cann_config.app cann_config.ui

Exit status: 0 no error, 1 errors (printed as mypy prints them), 2 bad usage or a mypy crash.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def package_dirs(pyproject: Path = ROOT / "pyproject.toml") -> dict[str, Path]:
    """setuptools' package-dir: the import name of each folder (cann_config.app -> app/)."""
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    return {name: ROOT / folder for name, folder in data["tool"]["setuptools"]["package-dir"].items()}


def sources_of(packages: list[str], dirs: dict[str, Path]) -> list[tuple[str, str]]:
    """(path, module name) of every .py file of `packages`, and of every .pyi stub without one (a
    C extension's, app/opcache/_native.pyi)."""
    found = []
    for package in packages:
        if package not in dirs:
            raise SystemExit(f"typecheck: {package} is not in pyproject.toml's package-dir ({', '.join(dirs)})")
        stubs = [p for p in dirs[package].rglob("*.pyi") if not p.with_suffix(".py").exists()]
        for path in sorted([*dirs[package].rglob("*.py"), *stubs]):
            parts = [p for p in path.relative_to(dirs[package]).with_suffix("").parts if p != "__init__"]
            found.append((str(path.relative_to(ROOT)), ".".join([package, *parts])))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="typecheck", description=__doc__.split("\n\n")[0])
    parser.add_argument("packages", nargs="+", metavar="PACKAGE")
    parser.add_argument("--cache-dir", default=str(ROOT / ".mypy_cache"))
    args = parser.parse_args(argv)

    from mypy import build
    from mypy.errors import CompileError
    from mypy.main import process_options
    from mypy.modulefinder import BuildSource

    sources = [BuildSource(path, module, None) for path, module in sources_of(args.packages, package_dirs())]
    # The options as `mypy --config-file pyproject.toml` reads them (`-c pass`: sources are given below).
    _, options = process_options(["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", args.cache_dir,
                                  "-c", "pass"])
    start = time.monotonic()
    try:
        result = build.build(sources, options)
    except CompileError as exc:
        print("\n".join(exc.messages), file=sys.stderr)
        return 2
    for message in result.errors:
        print(message)
    errors = [m for m in result.errors if ": error:" in m]
    took = time.monotonic() - start
    if errors:
        files = len({m.split(":", 1)[0] for m in errors})
        print(f"Found {len(errors)} errors in {files} files (checked {len(sources)} source files, {took:.1f} s)")
        return 1
    print(f"Success: no issues found in {len(sources)} source files ({took:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
