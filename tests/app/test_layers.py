"""The layers of app/, as a contract of the imports (issue 24, item 9): ground → model → rules →
formats → support → cli. A module imports only from its own layer or the layers below it, also
inside a function (a lazy import is still a dependency). docs/architecture.md#layers says which
module is where and why; a module not named here belongs to the rules layer (the default for a
new CANN rule), a module of a named package to that package's layer."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("ground", "model", "rules", "formats", "support", "cli")
# Longest prefix wins; names are relative to cann_config.app.
PLACES = {
    # ground: errors, messages and findings, languages, units and sizes, terminal text, resource
    # access, the guarded reader and the one writer: what every rule says things with
    "": "ground", "errors": "ground", "messages": "ground", "message_data": "ground", "findings": "ground",
    "i18n": "ground", "units": "ground", "sizes": "ground", "textsafe": "ground", "textwidth": "ground",
    "resources": "ground", "datafiles": "ground", "data_compiled": "ground", "collector": "ground",
    "io.inputfiles": "ground", "io.outputfiles": "ground",
    # model: the catalog, the Profile, the device table
    "catalog": "model", "profile": "model", "device": "model", "device.table": "model",
    # rules: CANN's behaviour (the default for anything not named)
    "opcache": "rules", "device.availability": "rules", "device.versions": "rules", "device.npusmi": "rules",
    "device.hostprobe": "rules", "io.envfile": "rules", "io.shellread": "rules", "io.envbranches": "rules",
    # formats: what is written and read back
    "io": "formats", "io.exporters": "formats", "io.importers": "formats", "io.scripts": "formats",
    # support: the Host, diagnosis, bundles, reports, fleets, triage, the wizard's session
    "support": "support", "session": "support", "triage": "support",
    # cli: the commands
    "cli": "cli", "__main__": "cli",
}

# Upward imports known and waiting for a registry that inverts them (issue 24 item 9, left open):
# the catalog calls the MindSpore validator an option names, and that validator takes the script
# reader's "unknown at run time" marker. Each is lazy (inside a function). Do not add to this list:
# move the rule down, or register it from above.
KNOWN_UPWARD = {
    ("cann_config.app.catalog", "cann_config.app.mindspore_memory"),
    ("cann_config.app.mindspore_memory", "cann_config.app.io.scripts"),
}


def layer_of(module: str) -> str:
    name = module.removeprefix("cann_config.app").lstrip(".")
    parts = name.split(".") if name else []
    for n in range(len(parts), -1, -1):
        key = ".".join(parts[:n])
        if key in PLACES and (n or not parts):
            return PLACES[key]
    return "rules"


def module_name(path: Path) -> str:
    rel = path.with_suffix("").relative_to(ROOT / "app")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(["cann_config", "app", *parts])


def imports_of(path: Path) -> list[tuple[str, int]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("cann_config.app"):
            found.append((node.module, node.lineno))
        elif isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names if a.name.startswith("cann_config.app")]
    return found


def test_the_layer_table_knows_the_examples():
    assert layer_of("cann_config.app") == "ground"
    assert layer_of("cann_config.app.opcache.cleanup") == "rules"
    assert layer_of("cann_config.app.io.exporters.plan") == "formats"
    assert layer_of("cann_config.app.support.host") == "support"
    assert layer_of("cann_config.app.cli.cmd_scan") == "cli"
    assert layer_of("cann_config.app.something_new") == "rules"
    assert layer_of("cann_config.app.io.inputfiles") == "ground"
    assert layer_of("cann_config.app.io.mindspore_script") == "formats"


def test_every_import_goes_down_the_layers():
    upward = []
    for path in sorted((ROOT / "app").rglob("*.py")):
        module = module_name(path)
        mine = LAYERS.index(layer_of(module))
        for imported, line in imports_of(path):
            theirs = LAYERS.index(layer_of(imported))
            if theirs > mine and (module, imported) not in KNOWN_UPWARD:
                upward.append(f"{path.relative_to(ROOT)}:{line}: {LAYERS[mine]} imports {imported} ({LAYERS[theirs]})")
    assert not upward, "\n".join(upward)


def test_the_core_never_imports_qt():
    qt = [f"{p.relative_to(ROOT)}:{line}" for p in sorted((ROOT / "app").rglob("*.py"))
          for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
          if isinstance(node, (ast.Import, ast.ImportFrom))
          for line in [node.lineno]
          if any(n.startswith("PySide6") for n in ([node.module or ""] if isinstance(node, ast.ImportFrom)
                                                   else [a.name for a in node.names]))]
    assert not qt, qt


# Rules in modules named for them (issue 24 item 9): the module that defines a file format reads
# and writes it anywhere, what runs only on the host being described lives in a module of its own,
# and the resolution of what CANN uses now does not plan saves.
HOST_SIDE = {
    # the support bundle is read on support's desk, in `fleet` and in the wizard; collecting it
    # (npu-smi, the cache walk) is app/support/collect_host.py
    "app/support/bundle.py": ("cann_config.app.opcache.scanner", "cann_config.app.device.hostprobe.probe_host",
                              "cann_config.app.device.hostprobe.run_command", "cann_config.app.support.collect_host",
                              "subprocess", "socket"),
    # which values CANN uses now; what a save of op_cache.ini writes is app/opcache/ini_save.py
    "app/opcache/resolution.py": ("cann_config.app.opcache.ini.render_op_cache_ini", "cann_config.app.opcache.ini_save"),
}


def _imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


def test_rules_stay_in_the_modules_named_for_them():
    found = [f"{rel} imports {name}" for rel, banned in HOST_SIDE.items()
             for name in sorted(_imported_names(ROOT / rel)) if name in banned]
    assert not found, "\n".join(found)
