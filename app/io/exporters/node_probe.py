"""The probe the `ansible` export runs on every node (embedded in the playbook as text).

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
  $ASCEND_HOME_PATH, then under the `Install_Path` of /etc/Ascend/ascend_cann_install.info, the
  `Driver_Install_Path_Param` of /etc/ascend_install.info, /usr/local/Ascend and $HOME/Ascend: `cann`, `cann-*` (newest name first), `ascend-toolkit/latest`,
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

It also edits op_cache.ini the way `app.opcache.ini.render_op_cache_ini` does, byte for byte
(tests/app/io/test_fleet_exports.py compares them): on CANN's own lines (split at LF), only the
number of a size CANN does not already read as chosen is replaced, a missing key is added as
key=value with the file's line end, a file without a final newline stays so, other bytes (other
encodings, a BOM before a comment line) are kept. The edit is done here, not by Ansible's
lineinfile, because Ansible's modules decode files as UTF-8, glue a line onto a last line without
a newline and expand `~` in paths (docs/cann/fleets.md#paths); CANN does none of that.

Interface: `python3 - ARGS` with this text on stdin; ARGS is base64 of a JSON object
{cache_dir, framework, max_op_cache_size, remain_cache_size_ratio (numbers or strings), texts
({code: template}), template ({head, comments}), check}. It prints {"home", "base", "source",
"kernel_cache", "ini", "exists", "versions": {adk_version, ops_version}, "version_files",
"values": {key: text}, "file_versions", "soc_dirs", "sizes", "edits": [{"key", "line"}],
"changed", "diff", "notice", "empties", "problem": TEXT | null}. `edits` are the lines set,
`changed` whether the file was (in check mode: would be) written, `notice` what CANN does with the
cache at its next start, `problem` why this node must not be touched, in the language of `texts`.
Without `check` it writes the change: a .bak copy, then the new bytes atomically.

Note for editors of this file: the playbook template engine (Jinja) would read two opening curly
braces, or an opening brace followed by a percent sign or a hash, as its own syntax; this text
must never contain them (a test checks).
"""

import base64
import difflib
import glob
import json
import os
import re
import shutil
import sys
import time

MAX_VERSION_FILE = 64 * 1024
MAX_INI_FILE = 1 << 20
SECTION = "op_compiler_cache"
VERSION_KEYS = ("adk_version", "ops_version")
SIZE_KEYS = ("max_op_cache_size", "remain_cache_size_ratio")
INT_MIN, INT_MAX = -(2 ** 31), 2 ** 31 - 1
C_NUMBER = re.compile(r"[ \t\n\v\f\r]*([+-]?[0-9]+)")
BOM = bytes(bytearray([0xEF, 0xBB, 0xBF]))
# CANN's documented template (app.opcache.ini TEMPLATE_HEAD / TEMPLATE_COMMENTS); main() sets
# them from the playbook's arguments, so the text has one source.
TEMPLATE = {"head": "", "comments": ["", ""]}


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
    driver_base = read_keys(under(root, "/etc/ascend_install.info")).get("driver_install_path_param")
    if driver_base:
        bases.append(under(root, driver_base))
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


def shown(text):
    """`text` safe to print as JSON and for Ansible to read back: bytes that are not UTF-8
    (decoded with surrogateescape) become U+FFFD (Ansible refuses lone surrogates)."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def cann_lines(data):
    """The lines CANN's std::getline yields: split at LF only, the CR of CRLF and a BOM kept.
    Each is (number, content bytes, ending bytes, offset of the content)."""
    lines, offset = [], 0
    parts = data.split(b"\n")
    for number, raw in enumerate(parts, 1):
        last = number == len(parts)
        if last and not raw:
            break
        lines.append((number, raw, b"" if last else b"\n", offset))
        offset += len(raw) + 1
    return lines


def read_ini(data):
    """What CANN reads: (headers [(name, line)], entries {key: (value text, line)}, the last
    duplicate winning; a key above the first header counts in it, as CANN files it there)."""
    headers, entries = [], {}
    for number, raw, _end, _offset in cann_lines(data):
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
            entries[key] = (value, number)
    return headers, entries


def newline_of(data):
    """The line end most lines of the file have (app.opcache.ini OpCacheIni.newline)."""
    crlf = data.count(b"\r\n")
    return b"\r\n" if crlf * 2 > data.count(b"\n") else b"\n"


def number_span(content):
    """Byte offsets of the number std::stoi reads after the first `=` of a key line."""
    equals = content.index(b"=")
    match = re.compile(br"[ \t\n\v\f\r]*([+-]?[0-9]+)").match(content, equals + 1)
    if match is None:
        value_start = equals + 1
        while value_start < len(content) and content[value_start:value_start + 1] in (b" ", b"\t"):
            value_start += 1
        value_end = len(content)
        while value_end > value_start and content[value_end - 1:value_end] in (b" ", b"\t", b"\r"):
            value_end -= 1
        return value_start, value_end
    return match.start(1), match.end(1)


def render(data, headers, entries, wanted, versions):
    """The file with the wanted sizes and the missing version lines, as app.opcache.ini's
    render_op_cache_ini writes it: only a changed number is replaced; a missing key is added as
    key=value after the last key (version lines under the header, after the last version line);
    the file's own line end is used and a file without a final newline stays without one."""
    lines = {number: (content, end, offset) for number, content, end, offset in cann_lines(data)}
    header = [line for name, line in headers if name == SECTION][0]
    edits = []
    additions = [(key, versions[key]) for key in VERSION_KEYS if key not in entries]
    for key in SIZE_KEYS:
        entry = entries.get(key)
        if entry is None:
            additions.append((key, str(wanted[key])))
        elif stoi(entry[0]) != wanted[key]:
            content, _end, offset = lines[entry[1]]
            lo, hi = number_span(content)
            edits.append((offset + lo, offset + hi, str(wanted[key]).encode("ascii")))
    nl = newline_of(data)
    last_key = max([header] + [line for _value, line in entries.values()])
    last_version = max([header] + [entries[k][1] for k in VERSION_KEYS if k in entries])
    groups = {}  # type: dict[int, list[tuple[str, str]]]
    for key, value in additions:
        groups.setdefault(last_version if key in VERSION_KEYS else last_key, []).append((key, value))
    for number, pairs in groups.items():
        content, end, offset = lines[number]
        block = b"".join((key + "=" + value).encode("utf-8", "surrogateescape") + nl for key, value in pairs)
        anchor_end = offset + len(content) + len(end)
        if not end:  # the last line has no newline: keep the file that way
            block = nl + block[:-len(nl)]
        edits.append((anchor_end, anchor_end, block))
    result = bytearray(data)
    for start, stop, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        result[start:stop] = new
    return bytes(result)


def new_file(wanted, versions):
    """CANN's documented template (app.opcache.ini writes the same for a new file)."""
    lines = [TEMPLATE["head"], "[" + SECTION + "]", "adk_version=" + versions["adk_version"],
             "ops_version=" + versions["ops_version"],
             TEMPLATE["comments"][0], "max_op_cache_size=" + str(wanted["max_op_cache_size"]),
             TEMPLATE["comments"][1], "remain_cache_size_ratio=" + str(wanted["remain_cache_size_ratio"])]
    return ("\n".join(lines) + "\n").encode("utf-8")


def size_value(key, text):
    """A size as CANN accepts it in op_cache.ini (docs/cann/op-cache.md): max_op_cache_size an
    integer MB, -1 or 1..INT_MAX; remain_cache_size_ratio 1..100. None when not."""
    text = str(text).strip()
    if not re.match(r"^[+-]?[0-9]+$", text):
        return None
    number = int(text)
    if key == "max_op_cache_size":
        return number if number == -1 or 1 <= number <= INT_MAX else None
    return number if 1 <= number <= 100 else None


def soc_dirs(kernel_cache):
    try:
        names = os.listdir(kernel_cache)
    except OSError:
        return []
    return sorted(n for n in names if not n.startswith(".") and os.path.isdir(os.path.join(kernel_cache, n)))


def next_start(result, texts):
    """What CANN does with the cache at its next start, from the file's version lines and the
    installed versions (docs/cann/fleets.md#version-traps): different lines make CANN empty the
    cache of every SoC dir and rewrite them."""
    installed = result["versions"]
    in_file = result["file_versions"]
    if not all(installed.get(k) for k in VERSION_KEYS) or not all(in_file.get(k) for k in VERSION_KEYS):
        return None, False
    file_text = ", ".join(k + "=" + in_file[k] for k in VERSION_KEYS)
    installed_text = ", ".join(k + "=" + installed[k] for k in VERSION_KEYS)
    if all(in_file[k] == installed[k] for k in VERSION_KEYS):
        return texts["notice-keeps"].format(path=result["ini"], installed=installed_text), False
    socs = ", ".join(result["soc_dirs"]) or texts["notice-no-soc"].format(path=result["kernel_cache"])
    return texts["notice-empties"].format(path=result["ini"], socs=socs, file=file_text,
                                          installed=installed_text), True


def probe(chosen, framework, max_size, ratio, reasons, root="/", environ=None):
    """What the playbook needs to know and would write on this node; it writes nothing."""
    environ = os.environ if environ is None else environ

    def problem(code, **params):
        return reasons[code].format(**params)

    result = {"home": environ.get("HOME"), "base": None, "source": None, "kernel_cache": None, "ini": None,
              "exists": False, "versions": {}, "version_files": {}, "values": {}, "edits": [], "problem": None,
              "sizes": {}, "file_versions": {}, "soc_dirs": [], "changed": False, "diff": "",
              "notice": None, "empties": False}
    versions, files = installed_versions(root, environ)
    result["versions"], result["version_files"] = versions, files
    wanted = {}
    for key, text in ((SIZE_KEYS[0], max_size), (SIZE_KEYS[1], ratio)):
        wanted[key] = size_value(key, text)
        if wanted[key] is None:
            result["problem"] = problem("bad-size", key="cann_" + key, value=text)
            return result
    result["sizes"] = dict((key, str(value)) for key, value in wanted.items())
    if chosen.strip(" \t").startswith("~") or "$" in chosen:
        # CANN takes the option literally (no ~ or $VAR expansion), and so does this probe.
        result["problem"] = problem("unexpanded", path=chosen)
        return result
    base, source = cache_base(chosen, framework, environ)
    result["source"] = source
    if base is None:
        result["problem"] = problem("no-home")
        return result
    if not base.startswith("/"):
        result["problem"] = problem("relative-dir", path=base)
        return result
    kernel_cache = base.rstrip("/") + "/kernel_cache"
    ini = kernel_cache + "/op_cache.ini"
    result.update(base=base, kernel_cache=kernel_cache, ini=ini, soc_dirs=soc_dirs(under(root, kernel_cache)))
    path = under(root, ini)
    data = b""
    headers, entries = [], {}
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
        headers, entries = read_ini(data)
        result["values"] = dict((key, shown(value)) for key, (value, _line) in entries.items())
        result["file_versions"] = dict((k, shown(entries[k][0].rstrip("\r"))) for k in VERSION_KEYS if k in entries)
        foreign = [(name, line) for name, line in headers if name != SECTION]
        ours = [line for name, line in headers if name == SECTION]
        if b"\r" in data and b"\n" not in data:
            result["problem"] = problem("cr-only", path=ini)
            return result
        if foreign:
            result["problem"] = problem("foreign-section", path=ini, section=shown(foreign[0][0]), line=foreign[0][1])
            return result
        if not ours:
            code = "bom-section" if data.startswith(BOM) else "no-section"
            result["problem"] = problem(code, path=ini)
            return result
        if len(ours) > 1:
            result["problem"] = problem("section-twice", path=ini, line=ours[1])
            return result
    missing = [key for key in VERSION_KEYS if key not in entries]
    unknown = [key for key in missing if not versions[key]]
    if unknown:
        code = "no-versions-new" if not result["exists"] else "no-versions-existing"
        result["problem"] = problem(code, path=ini, keys=", ".join(unknown))
        return result
    if result["exists"]:
        new = render(data, headers, entries, wanted, versions)
        # What is set, for the task output: the sizes CANN does not already read as chosen, then
        # the version lines the file lacks (existing version lines are never changed).
        for key in SIZE_KEYS:
            if key not in entries or stoi(entries[key][0]) != wanted[key]:
                result["edits"].append({"key": key, "line": key + "=" + str(wanted[key])})
        for key in missing:
            result["edits"].append({"key": key, "line": key + "=" + shown(versions[key])})
    else:
        new = new_file(wanted, versions)
    result["new"] = new
    result["changed"] = new != data or not result["exists"]
    file_versions = dict(result["file_versions"])
    for key in VERSION_KEYS:
        file_versions.setdefault(key, versions[key])
    result["file_versions"] = file_versions
    result["notice"], result["empties"] = next_start(result, reasons)
    if result["changed"]:
        before = data.decode("utf-8", "replace").splitlines(True)
        after = new.decode("utf-8", "replace").splitlines(True)
        result["diff"] = "".join(difflib.unified_diff(before, after, ini + " (before)", ini + " (after)"))
    result["original"] = data
    return result


def write(result, root="/"):
    """Write the probed change: a .bak copy of the file first, then the new bytes atomically
    (a temporary file beside it, renamed over it), owner and mode kept. Refused when the file
    changed since it was read. Returns a problem code or None."""
    path = os.path.realpath(under(root, result["ini"]))
    directory = os.path.dirname(path)
    if not result["exists"]:
        if not os.path.isdir(directory):
            os.makedirs(directory)
        mode, owner = 0o640, None
    else:
        info = os.stat(path)
        mode, owner = info.st_mode & 0o7777, (info.st_uid, info.st_gid)
    if result["exists"]:
        with open(path, "rb") as handle:
            if handle.read(MAX_INI_FILE + 1) != result["original"]:
                return "changed-since"
    elif os.path.lexists(path):
        return "changed-since"
    temp = os.path.join(directory, ".op_cache.ini.cann-config." + str(os.getpid()))
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(result["new"])
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, mode)
        if owner is not None and os.geteuid() == 0:
            os.chown(temp, owner[0], owner[1])
        if result["exists"]:
            backup = path + "." + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + ".bak"
            shutil.copy2(path, backup)
        os.rename(temp, path)
    except BaseException:
        if os.path.lexists(temp):
            os.unlink(temp)
        raise
    return None


def main(argv):
    """argv[1]: base64 of a JSON object {cache_dir, framework, max_op_cache_size,
    remain_cache_size_ratio, texts, template, check} (base64, so that no Ansible version takes the text for
    data of its own); prints the result as JSON. Writes only without `check`."""
    args = json.loads(base64.b64decode(argv[1]).decode("utf-8"))
    TEMPLATE.update(args["template"])
    result = probe(args["cache_dir"], args["framework"], args["max_op_cache_size"],
                   args["remain_cache_size_ratio"], args["texts"])
    if result["problem"] is None and result["changed"] and not args.get("check"):
        code = write(result)
        if code is not None:
            result["problem"] = args["texts"][code].format(path=result["ini"])
            result["changed"] = False
    result.pop("new", None)
    result.pop("original", None)
    for key in ("home", "base", "kernel_cache", "ini"):
        if result[key] is not None:
            result[key] = shown(result[key])
    print(json.dumps(result, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
