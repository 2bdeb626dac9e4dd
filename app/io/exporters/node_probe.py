"""The read-only probe the `ansible` export runs on every node (embedded in the playbook as text).

Why this module exists: a fleet roll-out must take each node's own CANN versions and cache
directory, never the controller's (docs/cann/fleets.md): op_cache.ini version lines that differ
from a node's installed CANN make CANN empty that node's cache, and a file without both of them
is ignored. This file is that knowledge in a form that runs on a bare node: Python's standard
library only (Ansible needs a Python on the node anyway), compatible with Python 3.6, no import of
this tool. The exporter embeds this file's text in the playbook; the playbook runs it with the
node's Python (the text on stdin, the choices as arguments) and reads one JSON object back.

It mirrors, rule for rule, three functions of the tool (tests/app/io/test_node_probe.py checks
that it gives the same answers on the same trees):
- `app.device.hostprobe.installed_versions`: the toolkit home is the first of $ASCEND_TOOLKIT_HOME,
  $ASCEND_HOME_PATH, then under the `Install_Path` of /etc/Ascend/ascend_cann_install.info,
  /usr/local/Ascend and $HOME/Ascend: `cann`, `cann-*` (newest name first), `ascend-toolkit/latest`,
  `nnae/latest`, that holds an `ascend_toolkit_install.info` (directly or in `*-linux/`) with a
  version, or is named `cann-<version>`; ops_version is the `Version` of
  $ASCEND_OPP_PATH/version.info, else of <toolkit>/opp/version.info; adk_version the `Version` of
  <toolkit>/compiler/version.info (docs/cann/op-cache.md, "version lines");
- `app.opcache.cachedir.resolve_cache_dir`: the chosen op_compiler_cache_dir (PyTorch:
  $ACL_OP_COMPILER_CACHE_DIR), else $ASCEND_CACHE_PATH, else $HOME/atc_data, values trimmed of
  spaces and tabs as CANN trims them; op_cache.ini is <base>/kernel_cache/op_cache.ini;
- `app.opcache.ini.emulate_cann` (the part a safe edit needs): lines split at LF, a `#` in
  column 1 is a comment, `[name]` opens a section, keys and values trimmed of spaces and tabs,
  empty ones dropped, the last duplicate wins, any other section makes CANN ignore the file, and
  the size values are read with std::stoi.

Interface: `python3 - CACHE_DIR FRAMEWORK MAX_SIZE RATIO REASONS_JSON` with this text on stdin.
It prints {"home", "base", "source", "kernel_cache", "ini", "exists", "versions": {adk_version,
ops_version}, "version_files": {...}, "values": {key: text}, "edits": [{"key", "line"}],
"problem": TEXT | null}. `edits` are the lines to set (a size CANN does not already read as
chosen, a version line the file lacks); `problem` is why this node must not be touched, in the
language of REASONS_JSON ({code: template}). It writes nothing.

Note for editors of this file: the playbook template engine (Jinja) would read two opening curly
braces, or an opening brace followed by a percent sign or a hash, as its own syntax; this text
must never contain them (a test checks).
"""

import glob
import json
import os
import re
import sys

MAX_VERSION_FILE = 64 * 1024
MAX_INI_FILE = 1 << 20
SECTION = "op_compiler_cache"
VERSION_KEYS = ("adk_version", "ops_version")
SIZE_KEYS = ("max_op_cache_size", "remain_cache_size_ratio")
INT_MIN, INT_MAX = -(2 ** 31), 2 ** 31 - 1
C_NUMBER = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")


def under(root, path):
    """`path` of the node, looked up under `root` (`/` except in the tool's tests)."""
    if root == "/":
        return path
    return os.path.join(root, path.lstrip("/"))


def read_keys(path):
    """`key=value` lines of a CANN info file, keys lowercased, the first of each kept."""
    try:
        if not os.path.isfile(path):
            return {}
        with open(path, "rb") as handle:
            data = handle.read(MAX_VERSION_FILE)
    except OSError:
        return {}
    values = {}  # type: dict[str, str]
    for line in data.decode("utf-8", "replace").splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            values.setdefault(key.strip().lower(), value.strip())
    return values


def version_of(path):
    return read_keys(path).get("version") or None


def toolkit_homes(root, environ):
    homes = []
    for name in ("ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH"):
        if environ.get(name):
            homes.append(under(root, environ[name]))
    bases = []
    install_path = read_keys(under(root, "/etc/Ascend/ascend_cann_install.info")).get("install_path")
    if install_path:
        bases.append(under(root, install_path))
    bases.append(under(root, "/usr/local/Ascend"))
    if environ.get("HOME"):
        bases.append(under(root, os.path.join(environ["HOME"], "Ascend")))
    for base in bases:
        homes.append(os.path.join(base, "cann"))
        try:
            versioned = [p for p in glob.glob(os.path.join(glob.escape(base), "cann-*")) if os.path.isdir(p)]
        except OSError:
            versioned = []
        homes.extend(sorted(versioned, key=os.path.basename, reverse=True))
        homes.append(os.path.join(base, "ascend-toolkit", "latest"))
        homes.append(os.path.join(base, "nnae", "latest"))
    unique = []
    for home in homes:
        if home not in unique:
            unique.append(home)
    return unique


def toolkit_info(home):
    candidates = [os.path.join(home, "ascend_toolkit_install.info")]
    candidates += sorted(glob.glob(os.path.join(glob.escape(home), "*-linux", "ascend_toolkit_install.info")))
    for candidate in candidates:
        if os.path.isfile(candidate):
            return candidate
    return None


def installed_versions(root, environ):
    """{"adk_version", "ops_version"} (None when not found) and the files they came from."""
    toolkit_home = None
    for home in toolkit_homes(root, environ):
        info = toolkit_info(home)
        if info is not None and version_of(info):
            toolkit_home = home
            break
        if re.fullmatch(r"cann-([0-9][0-9A-Za-z.\-]*)", os.path.basename(home)) and os.path.isdir(home):
            toolkit_home = home
            break
    # Type comments, not annotations: the probe runs on Python 3.6 too (module docstring).
    versions = {"adk_version": None, "ops_version": None}  # type: dict[str, str | None]
    files = {"adk_version": None, "ops_version": None}  # type: dict[str, str | None]
    opp_candidates = []
    if environ.get("ASCEND_OPP_PATH"):
        opp_candidates.append(os.path.join(under(root, environ["ASCEND_OPP_PATH"]), "version.info"))
    if toolkit_home is not None:
        opp_candidates.append(os.path.join(toolkit_home, "opp", "version.info"))
    for candidate in opp_candidates:
        if version_of(candidate):
            versions["ops_version"], files["ops_version"] = version_of(candidate), candidate
            break
    if toolkit_home is not None:
        candidate = os.path.join(toolkit_home, "compiler", "version.info")
        if version_of(candidate):
            versions["adk_version"], files["adk_version"] = version_of(candidate), candidate
    return versions, files


def trim(text):
    return text.strip(" \t")


def cache_base(chosen, framework, environ):
    """(base, source) as CANN composes it; base None when $HOME is needed and not set."""
    if trim(chosen):
        return trim(chosen), "option"
    if framework == "pytorch" and trim(environ.get("ACL_OP_COMPILER_CACHE_DIR", "")):
        return trim(environ["ACL_OP_COMPILER_CACHE_DIR"]), "env"
    if trim(environ.get("ASCEND_CACHE_PATH", "")):
        return trim(environ["ASCEND_CACHE_PATH"]), "env"
    if "HOME" not in environ:
        return None, "default"
    return trim(environ["HOME"]) + "/atc_data", "default"


def stoi(text):
    match = C_NUMBER.match(text)
    if match is None:
        return None
    number = int(match.group(1))
    return number if INT_MIN <= number <= INT_MAX else None


def read_ini(data):
    """What CANN reads: (headers [(name, line)], values {key: text} of the section)."""
    headers, values = [], {}
    for number, raw in enumerate(data.split(b"\n"), 1):
        text = raw.decode("utf-8", "surrogateescape")
        if not text or text[0] == "#":
            continue
        if text[0] == "[":
            close = text.rfind("]")
            if close >= 0:
                headers.append((trim(text[1:close]), number))
            continue
        key, sep, value = text.partition("=")
        key, value = trim(key), trim(value)
        if sep and key and value:
            values[key] = value
    return headers, values


def probe(chosen, framework, max_size, ratio, reasons, root="/", environ=None):
    environ = os.environ if environ is None else environ

    def problem(code, **params):
        return reasons[code].format(**params)

    result = {"home": environ.get("HOME"), "base": None, "source": None, "kernel_cache": None, "ini": None,
              "exists": False, "versions": {}, "version_files": {}, "values": {}, "edits": [], "problem": None}
    versions, files = installed_versions(root, environ)
    result["versions"], result["version_files"] = versions, files
    base, source = cache_base(chosen, framework, environ)
    result["source"] = source
    if base is None:
        result["problem"] = problem("no-home")
        return result
    kernel_cache = base.rstrip("/") + "/kernel_cache"
    ini = kernel_cache + "/op_cache.ini"
    result.update(base=base, kernel_cache=kernel_cache, ini=ini)
    path = under(root, ini)
    if os.path.lexists(path):
        if not os.path.isfile(path):
            result["problem"] = problem("not-a-file", path=ini)
            return result
        try:
            with open(path, "rb") as handle:
                data = handle.read(MAX_INI_FILE + 1)
        except OSError as exc:
            result["problem"] = problem("unreadable", path=ini, reason=exc.strerror or str(exc))
            return result
        if len(data) > MAX_INI_FILE:
            result["problem"] = problem("too-large", path=ini)
            return result
        result["exists"] = True
        headers, values = read_ini(data)
        result["values"] = values
        foreign = [(name, line) for name, line in headers if name != SECTION]
        ours = [line for name, line in headers if name == SECTION]
        if foreign:
            result["problem"] = problem("foreign-section", path=ini, section=foreign[0][0], line=foreign[0][1])
            return result
        if not ours:
            result["problem"] = problem("no-section", path=ini)
            return result
        if len(ours) > 1:
            result["problem"] = problem("section-twice", path=ini, line=ours[1])
            return result
    missing = [key for key in VERSION_KEYS if key not in result["values"]]
    unknown = [key for key in missing if not versions[key]]
    if unknown:
        code = "no-versions-new" if not result["exists"] else "no-versions-existing"
        result["problem"] = problem(code, path=ini, keys=", ".join(unknown))
        return result
    if result["exists"]:
        # A line added or replaced ends like most lines of the file (lineinfile adds the LF): a
        # CRLF file stays CRLF, as app.opcache.ini keeps it (OpCacheIni.newline).
        end = "\r" if data.count(b"\r\n") * 2 > data.count(b"\n") else ""
        # lineinfile puts each new line right under the section header: the last one added
        # ends up first, so the versions go in last, in reverse, to read adk, ops, sizes.
        for key, wanted in ((SIZE_KEYS[1], ratio), (SIZE_KEYS[0], max_size)):
            current = result["values"].get(key)
            if current is None or stoi(current) != int(wanted):
                result["edits"].append({"key": key, "line": key + "=" + str(int(wanted)) + end})
        for key in reversed(missing):
            result["edits"].append({"key": key, "line": key + "=" + versions[key] + end})
    return result


def main(argv):
    chosen, framework, max_size, ratio, reasons = argv[1:6]
    print(json.dumps(probe(chosen, framework, int(max_size), int(ratio), json.loads(reasons)), sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
