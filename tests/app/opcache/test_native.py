"""The C loops of a cache measurement (app/opcache/_native.c) answer exactly as the Python paths do.

Why this module exists: the extension is optional (without a C compiler, or with
CANN_CONFIG_NO_NATIVE=1, the pure-Python paths run), so every other test of the scan and of the
prediction runs one of the two paths only. Its design contract is that the C code may refuse
anything (it answers None, and the Python path then does the work) but that whatever it accepts
gives exactly what the pure-Python path gives. This module holds it to that:

- `read_groups` (cleanup._Steps.read, through `c_groups`) against cleanup._resolve_folder with the C
  module ruled out (the `pure_python` fixture, tests/conftest.py) and against cleanup._resolve
  (orjson with CANN's nlohmann rules): on generated kernel jsons and on byte-level mutations of
  them (hypothesis), and on hand-written cases at the edges of its strict JSON checker
  (duplicate keys, escaped keys, overflowing and underflowing numbers, lone surrogates, invalid
  UTF-8, text after the value, a BOM, deep nesting) and of the files around a json (a binary
  missing, a directory, a symlink, a FIFO; a FIFO or a symlink named `.json`; a json that changed
  size since the walk; names that are not UTF-8);
- `plain_chunk` (scanner._Walker.read_chunk) against the lstat of each name, and whole scans
  (CacheUsage, each SoC dir's jsons, read marks and candidates) of generated trees with hard
  links, symlinks, FIFOs, empty dirs, files of another owner, names that are not UTF-8 and
  access times before and after the change times, at nanosecond precision;
- whole predictions (predict_cleanup, in one thread and in two, split walks with a ScanPool of two
  workers) and the `cann-config clean` dry run, native and pure Python, equal; `select_step` and
  `account` through them, and a stopped prediction asking as often as the Python way.

The module is skipped when the extension is not built.
"""

import array
import json
import os
import random
import stat
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cann_config.app.opcache import cleanup, native, parallel, scanner
from cann_config.app.opcache.cleanup import NOTE_BAD_JSON, NOTE_BIN_MISSING, NOTE_UNPARSED, predict_cleanup
from cann_config.app.opcache.parallel import scan_pool
from cann_config.app.opcache.scanner import scan_cache, scan_to_end

try:
    from cann_config.app.opcache import _native as C
except ImportError:  # no C compiler at install: nothing to compare
    C = None

pytestmark = pytest.mark.skipif(
    C is None, reason="the C extension app/opcache/_native.c is not built (no C compiler at install): "
                      "only the pure-Python paths exist, there is nothing to compare")

MiB = 1024 * 1024
NOW = int(time.time())
ROOT = os.geteuid() == 0
OTHER_UID = 4321

_HYPOTHESIS = settings(max_examples=150, deadline=None,
                       suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@contextmanager
def native_on():
    """The C module in use, in this process and in worker interpreters started meanwhile (the
    tests take `pure_python`, so the state outside this block is the pure-Python one)."""
    saved, env = native.native, os.environ.pop(native.ENV_NO_NATIVE, None)
    native.native = C
    try:
        yield
    finally:
        native.native = saved
        if env is not None:
            os.environ[native.ENV_NO_NATIVE] = env


@pytest.fixture
def both(pure_python):
    """Runs `make()` the native way and the pure-Python way: (native, pure)."""

    def run(make):
        with native_on():
            first = make()
        assert native.native is None
        return first, make()

    return run


# -- read_groups: one directory of jsons, the C answer against the Python ones ------------------


def c_groups(fd: int, folder: Path, names: list[str], sizes: list[int], atimes: list[int]) -> list:
    """What read_groups makes of the jsons `names` of the dir `fd` (`folder`, its SoC dir too) with
    the walk's `sizes`, as the Group the store then holds for each, or None where it leaves the
    json to Python. Read in one thread or two, by the name's length (both ways are exercised)."""
    jsons = [(str(folder), list(names), array.array("d", atimes), array.array("q", sizes))]
    store = cleanup.GroupStore(jsons)
    threads = 1 + sum(map(len, names)) % 2
    # The walk's sizes of the binaries, as plain_chunk gives them over the dir's listing (when it
    # is all plain files), every other call: read_groups then takes them instead of an lstat.
    walk_bins: list = [None]
    listing = sorted(os.listdir(fd))
    if len(names) % 2 and len(set(names)) == len(names) and set(names) <= set(listing):
        order = listing + []
        for name in names:
            order.remove(name)
        order = list(names) + order  # the jsons first, in the order of the chunk
        seen = C.plain_chunk(fd, order, bytes(i < len(names) for i in range(len(order))), -1, scanner.WALK_BIN_SUFFIX)
        if seen is not None and sizes == list(seen[6] and array.array("q", seen[6])):
            walk_bins = [seen[8]]
    records, left, fresh = C.read_groups(fd, str(folder), {0: list(range(len(names)))}, jsons, store.bins, store.sfx,
                                         store.suffixes, threads, cleanup._READ_FLAGS, cleanup.MAX_JSON_BYTES,
                                         walk_bins, scanner.WALK_BIN_SUFFIX)
    store.suffixes += map(cleanup._stem_suffix, fresh)
    answers: list = [None] * len(names)
    for pos, code in enumerate(store.bins[0]):
        if code >= 0:
            answers[pos] = cleanup.Group._of(str(folder), (names[pos], sizes[pos], store.suffixes[store.sfx[0][pos]],
                                                           code), atimes[pos], ())
        else:
            assert code == cleanup.BIN_UNREAD  # a record, or left: nothing else is set
    for chunk, pos, members in records:
        assert chunk == 0 and answers[pos] is None
        answers[pos] = cleanup.Group._of(str(folder), (names[pos], sizes[pos], *members), atimes[pos], ())
    assert {pos for _chunk, pos in left}.isdisjoint(pos for _chunk, pos, _m in records)
    assert all(answers[pos] is None for _chunk, pos in left)
    assert len(left) + len(records) + sum(code >= 0 for code in store.bins[0]) == len(names)
    return answers


def _fd_name(name: str | bytes) -> str:
    return os.fsdecode(name) if isinstance(name, bytes) else name


def same_group(answer: cleanup.Group, group: cleanup.Group) -> bool:
    """The C group is the Python one: equal members, sizes, access time and no note, the binary
    spelled the same way (the shared stem-suffix object or its name)."""
    return (answer == group and not group.notes and answer.folder == group.folder
            and [type(f) for f in answer.files] == [type(f) for f in group.files])


def shape(answer: cleanup.Group | None) -> tuple | None:
    """A C group of a json naming its binary, as (binary name or None when it is named like its
    json, suffix or None, binary size); other groups as their members; None stays None."""
    if answer is None:
        return None
    files = answer.files
    if len(files) != 4:
        return tuple(files)
    if type(files[2]) is cleanup._StemSuffix:
        return (None, str(files[2]), files[3])
    return (files[2], None, files[3])


def check_folder(folder: Path, names: list[str], sizes: list[int] | None = None) -> list:
    """The C answers for the jsons `names` of `folder` (walk sizes `sizes`, default their lstat
    sizes), after checking the contract: every answer is None or the group the Python path
    gives, and cleanup._resolve_folder gives the same groups native, pure Python and the
    general way."""
    assert native.native is None  # the caller holds `pure_python`
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        if sizes is None:
            sizes = [os.lstat(name, dir_fd=fd).st_size for name in names]
        todo = [(name, NOW - 10_000 - i, size) for i, (name, size) in enumerate(zip(names, sizes, strict=True))]
        where = cleanup._Folder(str(folder), fd, cleanup._read_json)
        boundary = str(folder)
        general = [cleanup._resolve(where, name, atime, size, boundary) for name, atime, size in todo]
        answers = c_groups(fd, folder, list(names), list(sizes), [atime for _n, atime, _s in todo])
        with native_on():
            native_groups = cleanup._resolve_folder(where, todo, boundary)
        pure_groups = cleanup._resolve_folder(where, todo, boundary)
    finally:
        os.close(fd)
    assert native_groups == general
    assert pure_groups == general
    assert [g.files for g in native_groups] == [g.files for g in general]
    assert [[type(f) for f in g.files] for g in native_groups] == [[type(f) for f in g.files] for g in general]
    assert len(answers) == len(names)
    for name, answer, group in zip(names, answers, general, strict=True):
        if name.endswith(cleanup.PRE_JSON_SUFFIX):
            assert answer is None  # never read: the Python way decides these
            continue
        if answer is not None:
            assert same_group(answer, group), (name, (folder / name).read_bytes()[:300], group)
    return answers


def make_binary(folder: Path, rel: str, kind: str) -> None:
    """`folder/rel` as a `kind` of file (when `rel` can be a file name there)."""
    if not rel or "/" in rel or "\x00" in rel or rel in (".", "..") or len(os.fsencode(rel)) > 200:
        return
    path = folder / rel
    if os.path.lexists(path):
        return
    if kind == "file":
        path.write_bytes(b"\x7fELF" + b"b" * random.Random(rel).randint(0, 3000))
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "dir":
        path.mkdir()
    elif kind == "symlink":
        os.symlink("somewhere/else", path)
    elif kind == "fifo":
        os.mkfifo(path)


def binary_named(data: bytes) -> str | None:
    """The binary name a json names, as the Python way reads it (None when it names none)."""
    info = cleanup._decode_json(data)
    if isinstance(info, dict):
        name, suffix = info.get("binFileName"), info.get("binFileSuffix")
        if isinstance(name, str) and isinstance(suffix, str):
            return name + suffix
    return None


def one_json(folder: Path, data: bytes, binary: str = "file", name: str = "k.json") -> tuple:
    """Write `data` as `name` with the binary it names (as `binary`); the C answer (checked)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    rel = binary_named(data)
    if rel is not None:
        make_binary(folder, rel, binary)
    (answer,) = check_folder(folder, [name])
    return answer


# Documents like a kernel json, with every kind of value JSON has.

_TEXT = st.text(alphabet=st.sampled_from(list("kab_.-/ \"\\\x00\x01\x1f\x7f\u00e9\u4e2d\U0001f600")), max_size=6)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                     st.floats(allow_nan=False, allow_infinity=False), _TEXT,
                     st.sampled_from([0, -0.0, 1e300, 5e-324, 1.7976931348623157e308, 2**64, -2**63 - 1]))
_VALUES = st.recursive(_SCALARS, lambda kids: st.lists(kids, max_size=3) | st.dictionaries(_TEXT, kids, max_size=3),
                       max_leaves=10)
# Mostly what a compiler writes (the C reader then answers: the comparison is not vacuous), now
# and then anything.
_PLAIN_VALUES = st.one_of(st.integers(-2**63, 2**64), st.text(alphabet="abk_.-0123456789 ", max_size=8),
                          st.floats(-1e6, 1e6), st.booleans(), st.none(),
                          st.lists(st.integers(-1, 10**6), max_size=3),
                          st.dictionaries(st.sampled_from(["num", "size", "a"]), st.integers(0, 99), max_size=2))
_BIN_NAMES = st.one_of(st.sampled_from(["k"] * 6 + ["other"] * 2 + ["k.b", "k\u00e9", "\x7f"]),
                       st.sampled_from(["", ".", "..", "a/b", "../k", "k\x00", 0, None, ["k"]]))
_SUFFIXES = st.one_of(st.sampled_from([".o"] * 6 + ["", ".json", ".bin"]),
                      st.sampled_from(["/x", ".", "\u00e9", "\\", '"', 7, None]))
_PLAIN_KEYS = st.sampled_from(["blockDim", "kernelName", "sha256", "opParaSize", "workspace", "binFileNam",
                               "binFileName ", "BinFileName"])
_KEYS = st.one_of(_PLAIN_KEYS, st.just("jsonList"), _TEXT)


@st.composite
def kernel_docs(draw) -> bytes:
    """A kernel json as CANN's compilers write it, give or take: binFileName and binFileSuffix
    (each possibly missing, repeated, not a string, naming something odd), other keys with any
    values, maybe a jsonList; in any order, with any spacing, ASCII-escaped or not."""
    items: list[tuple[str, object]] = []
    for key, values in (("binFileName", _BIN_NAMES), ("binFileSuffix", _SUFFIXES)):
        times = draw(st.sampled_from([1] * 8 + [0, 2]))
        items += [(key, draw(values)) for _ in range(times)]
    if draw(st.integers(0, 9)) == 0:
        items.append(("jsonList", draw(st.sampled_from([[], [{"jsonFileName": "k_mix_aic.json"}], "x"]))))
    keys, values = draw(st.sampled_from([(_PLAIN_KEYS, _PLAIN_VALUES)] * 3 + [(_KEYS, _VALUES)]))
    items += draw(st.lists(st.tuples(keys, values), max_size=5))
    items = draw(st.permutations(items))
    ascii_only = draw(st.sampled_from([True, True, True, False]))
    sep, colon = draw(st.sampled_from([(",", ":"), (", ", ": "), (",\n  ", " : "), ("\t,\r\n", "\t:")]))
    body = sep.join(json.dumps(k, ensure_ascii=ascii_only) + colon + json.dumps(v, ensure_ascii=ascii_only)
                    for k, v in items)
    before, after = draw(st.sampled_from([("", ""), ("\n", "\n"), (" \t", "\r\n  "), ("", "\n\n")]))
    return (before + "{" + body + "}" + after).encode("utf-8", "surrogatepass")


# Bytes a mutation puts in: JSON's punctuation, digits, exponents, escapes, control bytes, DEL,
# bytes of multi-byte UTF-8 (and of invalid UTF-8), a BOM, and tokens at the checker's limits.
_TOKENS = st.one_of(
    st.sampled_from([bytes([b]) for b in b'{}[]",:\\/u0123456789eE+-.abfnrtlsxk _\t\n\r\x0c\x00\x01\x1f\x7f']
                    + [b"\x80", b"\xbf", b"\xc3", b"\xed", b"\xff", b"\xfe"]),
    st.sampled_from([b"\xef\xbb\xbf", b"\\u", b"\\ud800", b"\\udc00", b"\\uDFFF", b"\\ud83d\\ude00", b"\\u0062",
                     b"\\u0000", b"\\u00e9", b"1e999", b"1e-400", b"-1e400", b"1e300", b"1" * 301, b"0e999",
                     b"true", b"null", b"NaN", b"Infinity", b'"binFileName"', b'"binFileSuffix"', b'"jsonList"',
                     b"\xc3\xa9", b"\xed\xa0\x80", b"\xf0\x9f\x98\x80", b"[" * 20, b"]" * 20, b"}", b'":"',
                     b'"k"', b'".o"']),
    st.binary(min_size=1, max_size=3),
)


@st.composite
def mutated_docs(draw) -> bytes:
    """A kernel json with a few bytes inserted, deleted or replaced (or none)."""
    data = bytearray(draw(kernel_docs()))
    for op, where, token in draw(st.lists(st.tuples(st.sampled_from(["insert", "delete", "replace"]),
                                                    st.integers(0, 10**6), _TOKENS), max_size=4)):
        pos = where % (len(data) + 1)
        if op == "insert":
            data[pos:pos] = token
        elif op == "delete":
            del data[pos:pos + len(token)]
        else:
            data[pos:pos + len(token)] = token
    return bytes(data)


_BINARY_KINDS = st.sampled_from(["file"] * 6 + ["empty", "missing", "dir", "symlink", "fifo"])
_JSON_NAMES = st.sampled_from(["k.json", "k.json", "other.json", "k.b.json", "k_pre.json", "k\u00e9.json"])


def _record(answers: list) -> None:
    for answer in answers:
        event("C accepted" if answer is not None else "C refused")


@_HYPOTHESIS
@given(docs=st.lists(st.tuples(kernel_docs(), _BINARY_KINDS), min_size=1, max_size=4), name=_JSON_NAMES)
def test_read_groups_gives_the_python_groups_for_kernel_jsons(docs, name, tmp_path_factory, pure_python):
    folder = tmp_path_factory.mktemp("docs")
    names = []
    for i, (data, kind) in enumerate(docs):
        json_name = name if i == 0 else f"j{i}.json"
        (folder / json_name).write_bytes(data)
        rel = binary_named(data)
        if rel is not None:
            make_binary(folder, rel, kind)
        names.append(json_name)
    _record(check_folder(folder, names))


@_HYPOTHESIS
@given(docs=st.lists(st.tuples(mutated_docs(), _BINARY_KINDS), min_size=1, max_size=3))
def test_read_groups_gives_the_python_groups_for_mutated_jsons(docs, tmp_path_factory, pure_python):
    folder = tmp_path_factory.mktemp("mutated")
    names = []
    for i, (data, kind) in enumerate(docs):
        json_name = "k.json" if i == 0 else f"k{i}.json"
        (folder / json_name).write_bytes(data)
        rel = binary_named(data)
        if rel is not None:
            make_binary(folder, rel, kind)
        names.append(json_name)
    _record(check_folder(folder, names))


def kernel(**fields: object) -> bytes:
    return json.dumps({"binFileName": "k", "binFileSuffix": ".o", **fields}).encode()


PLAIN = b'{"binFileName": "k", "binFileSuffix": ".o"'
def deep(levels: int, open_: bytes = b"[", close: bytes = b"]") -> bytes:
    """The plain json with a value nested `levels` deep inside it (the object is one level more)."""
    return PLAIN + b', "x": ' + open_ * levels + (b"1" if open_ != b"[" else b"") + close * levels + b"}"

# (id, json bytes, whether the C reader accepts it). Accepting is not required by the contract;
# the cases marked True check that the comparison is not vacuous.
HAND_CASES = [
    ("plain", PLAIN + b"}", True),
    ("common", kernel(blockDim=48, kernelName="k__kernel0", sha256="ab" * 32, opParaSize=0,
                      workspace={"num": 1, "size": [-1]}, parameters=[None, True, False, 0.5, -1e-3]), True),
    ("other-binary", b'{"binFileName": "other", "binFileSuffix": ".o"}', True),
    ("trailing-space", PLAIN + b"}\n \t\r\n", True),
    ("duplicate-name-last-wins", b'{"binFileName": "other", "binFileSuffix": ".o", "binFileName": "k"}', None),
    ("duplicate-suffix-last-wins", b'{"binFileName": "k", "binFileSuffix": ".x", "binFileSuffix": ".o"}', None),
    ("duplicate-name-not-string", b'{"binFileName": "k", "binFileSuffix": ".o", "binFileName": 1}', None),
    ("duplicate-other-key", PLAIN + b', "a": 1, "a": [2]}', True),
    ("escaped-key", b'{"\\u0062inFileName": "k", "binFileSuffix": ".o"}', None),
    ("escaped-key-only-one", b'{"binFileName": "other", "binFileSuffix": ".o", "\\u0062inFileName": "k"}', None),
    ("escaped-value", b'{"binFileName": "\\u006b", "binFileSuffix": ".o"}', None),
    ("escaped-slash-value", b'{"binFileName": "k", "binFileSuffix": "\\/o"}', None),
    ("1e999", PLAIN + b', "x": 1e999}', False),
    ("-1e400", PLAIN + b', "x": -1e400}', False),
    ("1e308", PLAIN + b', "x": 1e308}', None),
    ("9e299", PLAIN + b', "x": 9e299}', True),
    ("1.0e300", PLAIN + b', "x": 1.0e300}', None),
    ("0e999", PLAIN + b', "x": 0e999}', None),
    ("1e-400", PLAIN + b', "x": 1e-400}', True),
    ("-1e-999999", PLAIN + b', "x": -1e-999999}', True),
    ("5e-324", PLAIN + b', "x": 2.5e-324}', True),
    ("400-digit", PLAIN + b', "x": ' + b"9" * 400 + b"}", False),
    ("309-digit", PLAIN + b', "x": 1' + b"0" * 308 + b"}", None),
    ("300-digit", PLAIN + b', "x": -' + b"9" * 300 + b"}", True),
    ("300-digit-fraction", PLAIN + b', "x": ' + b"9" * 300 + b"." + b"9" * 500 + b"}", True),
    ("long-fraction-exponent", PLAIN + b', "x": 0.' + b"0" * 400 + b"1e300}", None),
    ("2**64", PLAIN + b', "x": 18446744073709551616, "y": -9223372036854775809}', True),
    ("exponent-7-digits", PLAIN + b', "x": 1e0000001}', None),
    ("leading-zero", PLAIN + b', "x": 01}', False),
    ("bare-dot", PLAIN + b', "x": 1.}', False),
    ("plus", PLAIN + b', "x": +1}', False),
    ("NaN", PLAIN + b', "x": NaN}', False),
    ("Infinity", PLAIN + b', "x": -Infinity}', False),
    ("lone-high-surrogate", PLAIN + b', "x": "\\ud800"}', False),
    ("lone-low-surrogate", PLAIN + b', "x": "\\uDFFF"}', False),
    ("reversed-pair", PLAIN + b', "x": "\\ude00\\ud83d"}', False),
    ("surrogate-pair", PLAIN + b', "x": "\\ud83d\\ude00"}', None),
    ("surrogate-in-name", b'{"binFileName": "k\\ud800", "binFileSuffix": ".o"}', False),
    ("encoded-surrogate", PLAIN + b', "x": "\xed\xa0\x80"}', False),
    ("invalid-utf8-in-skipped-value", PLAIN + b', "x": "\xff"}', False),
    ("overlong-utf8", PLAIN + b', "x": "\xc0\xaf"}', False),
    ("valid-utf8", PLAIN + ', "x": "\u4e2d\u6587"}'.encode(), None),
    ("utf8-in-name", '{"binFileName": "k\u00e9", "binFileSuffix": ".o"}'.encode(), None),
    ("nul-escape-in-value", PLAIN + b', "x": "a\\u0000b"}', True),
    ("nul-escape-in-name", b'{"binFileName": "k\\u0000", "binFileSuffix": ".o"}', False),
    ("nul-escape-in-suffix", b'{"binFileName": "k", "binFileSuffix": ".o\\u0000x"}', False),
    ("raw-nul-in-value", PLAIN + b', "x": "a\x00b"}', False),
    ("raw-control-in-value", PLAIN + b', "x": "a\x01b"}', False),
    ("raw-tab-in-value", PLAIN + b', "x": "a\tb"}', False),
    ("del-in-value", PLAIN + b', "x": "a\x7fb"}', True),
    ("del-in-name", b'{"binFileName": "k\x7f", "binFileSuffix": ".o"}', True),
    ("bad-escape", PLAIN + b', "x": "\\x41"}', False),
    ("short-escape", PLAIN + b', "x": "\\u12"}', False),
    ("escape-at-end", PLAIN + b', "x": "\\', False),
    ("text-after", PLAIN + b"} x", None),  # nlohmann's non-strict read: the Python way
    ("second-object-after", PLAIN + b"}{}", None),
    ("nul-after", PLAIN + b"}\x00", None),
    ("garbage-after", PLAIN + b"}\n}garbage{\xff", None),
    ("bom", b"\xef\xbb\xbf" + PLAIN + b"}", None),
    ("two-boms", b"\xef\xbb\xbf\xef\xbb\xbf" + PLAIN + b"}", False),
    ("form-feed", PLAIN + b",\x0c\"x\": 1}", False),
    ("vertical-tab", b"\x0b" + PLAIN + b"}", False),
    ("deep-511", deep(511), True),  # 512 levels: the C checker's limit
    ("deep-512", deep(512), None),
    ("deep-600", deep(600), None),
    ("deep-600-objects", deep(600, b'{"a":', b"}"), None),
    ("deep-1023", deep(1023), None),  # orjson's limit: 1024 levels
    ("deep-2000", deep(2000), False),
    ("deep-unclosed", PLAIN + b', "x": ' + b"[" * 100 + b"}", False),
    ("jsonList", PLAIN + b', "jsonList": [{"jsonFileName": "k_mix_aic.json"}]}', False),
    ("jsonList-empty", PLAIN + b', "jsonList": []}', True),
    ("jsonList-not-list", PLAIN + b', "jsonList": 1}', False),
    ("jsonList-nul-name", PLAIN + b', "jsonList": [{"jsonFileName": "k\\u0000.json"}]}', False),
    ("jsonList-nested", PLAIN + b', "x": {"jsonList": [1]}}', True),
    ("name-nested-only", b'{"x": {"binFileName": "k", "binFileSuffix": ".o"}}', False),
    ("name-not-string", b'{"binFileName": 5, "binFileSuffix": ".o"}', False),
    ("name-null", b'{"binFileName": null, "binFileSuffix": ".o"}', False),
    ("name-list", b'{"binFileName": ["k"], "binFileSuffix": ".o"}', False),
    ("suffix-object", b'{"binFileName": "k", "binFileSuffix": {}}', False),
    ("suffix-missing", b'{"binFileName": "k"}', False),
    ("name-missing", b'{"binFileSuffix": ".o"}', False),
    ("empty-object", b"{}", False),
    ("array", b'[{"binFileName": "k", "binFileSuffix": ".o"}]', False),
    ("string", b'"k"', False),
    ("number", b"12", False),
    ("trailing-comma", PLAIN + b",}", False),
    ("missing-comma", b'{"binFileName": "k" "binFileSuffix": ".o"}', False),
    ("unclosed", PLAIN, False),
    ("slash-in-name", b'{"binFileName": "sub/k", "binFileSuffix": ".o"}', None),  # sub/k.o exists
    ("slash-to-nothing", b'{"binFileName": "nothing/k", "binFileSuffix": ".o"}', False),
    ("outside", b'{"binFileName": "../outside", "binFileSuffix": ".o"}', False),  # ../outside.o exists
    ("escaped-backslash-in-name", b'{"binFileName": "a\\\\b", "binFileSuffix": ".o"}', False),
    ("slash-in-suffix", b'{"binFileName": "k", "binFileSuffix": "/../k.o"}', False),
    ("dot", b'{"binFileName": ".", "binFileSuffix": ""}', False),
    ("dot-dot", b'{"binFileName": ".", "binFileSuffix": "."}', False),
    ("empty-names", b'{"binFileName": "", "binFileSuffix": ""}', False),
    ("suffix-empty", b'{"binFileName": "k.o", "binFileSuffix": ""}', True),
    ("names-itself", b'{"binFileName": "k", "binFileSuffix": ".json"}', True),
    ("upper-true", PLAIN + b', "x": True}', False),
    ("literal-prefix", PLAIN + b', "x": nul}', False),
]


@pytest.mark.parametrize(("data", "accepted"), [pytest.param(data, accepted, id=case) for case, data, accepted in HAND_CASES])
def test_read_groups_hand_written_cases(data, accepted, tmp_path, pure_python):
    folder = tmp_path / "d"
    folder.mkdir()
    # the binaries named, and files named as an escaped name is written (a\\b.o, \u006b.o) or
    # reached through a subdir or out of the json's dir
    for rel in ("k.o", "other.o", "k\u00e9.o", "a\\b.o", "a\\\\b.o", "\\u006b.o", "sub/k.o", "../outside.o"):
        (folder / rel).parent.mkdir(exist_ok=True)
        (folder / rel).write_bytes(b"\x7fELF" + b"o" * (100 + len(rel)))
    answer = one_json(folder, data)
    if accepted is not None:
        assert (answer is not None) == accepted, answer


def test_duplicate_keys_take_the_last_value_on_both_ways(tmp_path, pure_python):
    """nlohmann (and orjson) keep the last of repeated keys: the group names k.o, not other.o."""
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "k.o").write_bytes(b"k" * 10)
    (folder / "other.o").write_bytes(b"o" * 20)
    one_json(folder, b'{"binFileName": "other", "binFileSuffix": ".o", "binFileName": "k"}')
    group = cleanup._resolve(cleanup._Folder(str(folder), -1, cleanup._read_json), "k.json", NOW, 10, str(folder))
    assert [os.path.basename(m.path) for m in group.members] == ["k.json", "k.o"]


@pytest.mark.parametrize("kind", ["file", "empty", "missing", "dir", "symlink", "dangling", "fifo"])
def test_the_binary_of_every_kind(kind, tmp_path, pure_python):
    folder = tmp_path / "d"
    folder.mkdir()
    if kind == "dangling":
        os.symlink("nowhere", folder / "k.o")
    elif kind == "symlink":
        (folder / "target.o").write_bytes(b"t" * 5000)
        os.symlink("target.o", folder / "k.o")
    else:
        make_binary(folder, "k.o", kind)
    answer = one_json(folder, PLAIN + b"}", binary="missing")
    group = cleanup._resolve(cleanup._Folder(str(folder), -1, cleanup._read_json), "k.json", NOW, 0, str(folder))
    if kind in ("missing", "dir"):
        assert answer is None and group.notes == (NOTE_BIN_MISSING,)
    else:  # what lstat says, a symlink's own size (CANN would follow it; the scan never does)
        assert shape(answer) == (None, ".o", os.lstat(folder / "k.o").st_size)


def test_a_fifo_or_a_symlink_named_json_is_refused_without_blocking(tmp_path, pure_python):
    folder = tmp_path / "d"
    folder.mkdir()
    os.mkfifo(folder / "f.json")
    (folder / "target.json").write_bytes(PLAIN + b"}")
    (folder / "k.o").write_bytes(b"o")
    os.symlink("target.json", folder / "s.json")
    (folder / "k.json").write_bytes(PLAIN + b"}")
    # the walk sizes of a FIFO (0) and of a symlink (its target's name), and sizes they never have
    answers = check_folder(folder, ["f.json", "s.json", "f.json", "s.json", "k.json"], [0, 11, 42, 42, 42])
    assert answers[:4] == [None] * 4
    answers = check_folder(folder, ["f.json", "s.json", "k.json"])
    assert answers[:2] == [None, None] and shape(answers[2]) == (None, ".o", 1)
    groups = scan_and_predict(tmp_path, folder)
    assert {g.json_path: g.notes for g in groups}[str(folder / "f.json")] == (NOTE_UNPARSED,)


def scan_and_predict(tmp_path: Path, folder: Path) -> list[cleanup.Group]:
    """Every group of the SoC dir `folder` (a prediction deleting all, native and pure, equal)."""
    kc = tmp_path
    assert folder.parent == kc
    (folder / "pad.bin").write_bytes(b"")
    os.truncate(folder / "pad.bin", 2 * MiB)
    preds = []
    for run in (native_on, _pure):
        with run():
            soc = scan_to_end(kc).socs[folder.name]
            preds.append(predict_cleanup(soc, 1, 0, now=NOW + 10**6, atime_rule="noatime"))
    assert preds[0] == preds[1]
    assert preds[0].to_json(with_groups=True) == preds[1].to_json(with_groups=True)
    return [*preds[0].delete, *(cleanup.resolve_group(cleanup.JsonEntry(p, 0, 0)) for p in preds[0].bad_json)]


@contextmanager
def _pure():
    assert native.native is None
    yield


def test_a_json_that_changed_size_since_the_walk_is_refused(tmp_path, pure_python):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "k.o").write_bytes(b"o" * 7)
    (folder / "k.json").write_bytes(PLAIN + b"}")
    size = os.lstat(folder / "k.json").st_size
    assert list(map(shape, check_folder(folder, ["k.json"]))) == [(None, ".o", 7)]
    for walk_size in (size - 1, size + 1, size * 2, 1):
        assert check_folder(folder, ["k.json"], [walk_size]) == [None]
    # a json that grew by spaces still parses: the Python way gives its group, with the walk's size
    (folder / "k.json").write_bytes(PLAIN + b"}  ")
    assert check_folder(folder, ["k.json"], [size]) == [None]


def test_empty_huge_pre_and_not_utf8_json_names(tmp_path, pure_python):
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "k.o").write_bytes(b"o" * 3)
    (folder / "empty.json").write_bytes(b"")
    huge = folder / "huge.json"
    huge.write_bytes(PLAIN + b"}")
    os.truncate(huge, cleanup.MAX_JSON_BYTES + 1)  # sparse: costs no disk, and is never read
    (folder / "k_pre.json").write_bytes(PLAIN + b"}")
    bad = os.fsdecode(b"k\xff.json")
    (folder / bad).write_bytes(PLAIN + b"}")
    nonascii = "k\u00e9.json"
    (folder / nonascii).write_bytes(PLAIN + b"}")
    (folder / "k\u00e9.o").write_bytes(b"e" * 4)
    (folder / nonascii.replace(".json", "2.json")).write_bytes('{"binFileName": "k\u00e9", "binFileSuffix": ".o"}'.encode())
    names = ["empty.json", "huge.json", "k_pre.json", bad, nonascii, "k\u00e92.json"]
    answers = check_folder(folder, names)
    assert answers[:2] == [None, None]
    assert answers[3] is None  # a name that is no UTF-8: the Python way
    assert shape(answers[4]) == ("k.o", None, 3)  # named otherwise than its json, which is not ASCII


def test_bytes_names_from_a_walk_of_names_that_are_not_utf8(tmp_path, pure_python):
    """A binary whose name is not UTF-8 cannot be named by a json the C reader accepts (ASCII
    only), and a json whose name is not UTF-8 goes the Python way: whole predictions agree."""
    soc = tmp_path / "S"
    soc.mkdir()
    for raw in (b"\xff\xfe.json", b"k\x80.json", b"ok.json"):
        (soc / os.fsdecode(raw)).write_bytes(PLAIN + b"}")
        os.utime(soc / os.fsdecode(raw), (NOW - 9000, NOW - 9000))
    (soc / "k.o").write_bytes(b"o" * 5)
    (soc / os.fsdecode(b"bin\xff.o")).write_bytes(b"b" * 6)
    (soc / "latin.json").write_bytes('{"binFileName": "bin\u00ff", "binFileSuffix": ".o"}'.encode())
    groups = scan_and_predict(tmp_path, soc)
    assert len(groups) == 4


# -- plain_chunk: one chunk of names, the C sums against each name's lstat -----------------------


def plain_expected(fd: int, names: list[str], mask: bytes, uid: int, suffix: str | None = ".o"):
    sts = [os.lstat(name, dir_fd=fd) for name in names]
    if not all(stat.S_ISREG(s.st_mode) and s.st_nlink == 1 for s in sts):
        return None
    if isinstance(mask, str):
        mask = bytes(name.encode().endswith(mask.encode()) for name in names)
    jsons = [s for s, m in zip(sts, mask, strict=True) if m]
    # json_bins: the size of "<the name's UTF-8 less its last 5 bytes><suffix>" among the chunk's names
    by_bytes = {name.encode(): st.st_size for name, st in zip(names, sts, strict=True)}
    bins = None if suffix is None else [
        by_bytes.get(name.encode()[:-5] + suffix.encode(), -1) if len(name.encode()) > 5 else -1
        for name, m in zip(names, mask, strict=True) if m]
    return (sum(s.st_size for s in sts), sum(s.st_blocks for s in sts), sum(s.st_uid != uid for s in sts),
            {s.st_uid for s in sts if s.st_uid != uid}, [s.st_atime for s in jsons], [s.st_size for s in jsons],
            bytes(s.st_atime_ns > s.st_mtime_ns and s.st_atime_ns > s.st_ctime_ns for s in jsons), bins)


def plain_answer(fd: int, names: list[str], mask: bytes, uid: int, suffix: str | None = ".o"):
    found = C.plain_chunk(fd, names, mask, uid, suffix)
    if found is None:
        return None
    size, blocks, not_mine, owners, json_names, atimes, sizes, marks, bins = found
    assert len(set(owners)) == len(owners)
    if isinstance(mask, str):  # the jsons chosen by their suffix: the names C chose
        assert json_names == [name for name in names if name.encode().endswith(mask.encode())]
    else:
        assert json_names == [name for name, m in zip(names, mask, strict=True) if m]
    doubles, longs, bin_sizes = array.array("d"), array.array("q"), array.array("q")
    doubles.frombytes(atimes)
    longs.frombytes(sizes)
    if bins is not None:
        bin_sizes.frombytes(bins)
    return (size, blocks, not_mine, set(owners), doubles.tolist(), longs.tolist(), marks,
            None if bins is None else bin_sizes.tolist())


def times_ns(rng: random.Random) -> tuple[int, int]:
    """(atime, mtime) in ns: before, equal to, just after and long after the change time (now),
    nanoseconds at their edges, before 1970 too."""
    now = time.time_ns()
    ns = rng.choice([0, 1, 999_999_999, 500_000_000, rng.randrange(10**9)])
    second = rng.choice([NOW - 10_000, NOW + 10_000, 0, -86400 * 400, 2**33, 1_234_567_890])
    atime = rng.choice([second * 10**9 + ns, now + 10**9 + ns, now - 10**9])
    mtime = rng.choice([atime, atime - 1, atime + 1, second * 10**9, now - 10**12])
    return atime, mtime


@pytest.mark.parametrize("seed", range(6))
def test_plain_chunk_sums_what_lstat_says(seed, tmp_path):
    rng = random.Random(seed)
    folder = tmp_path / "d"
    folder.mkdir()
    names = []
    for name in ("pair.json", "pair.o"):  # a json and its binary, at least once
        (folder / name).write_bytes(b"p" * rng.randint(0, 99))
        names.append(name)
    for i in range(rng.randint(1, 60)):
        j = rng.randint(0, i // 2)  # stems repeat: a json and its binary are often both in the chunk
        name = rng.choice([f"k{j}.json", f"k{j}.o", f"k{j}_mix_aic.json", f"k{j}.json.bak", f"\u00e9{j}.json",
                           f"\u00e9{j}.o", f"{j}.json"])
        if name in names:
            continue
        path = folder / name
        path.write_bytes(b"x" * rng.choice([0, 1, 100, 4095, 4097, 70_000]))
        if rng.random() < 0.2:
            os.truncate(path, rng.choice([2**31, 2**33 + 1]))  # sparse: blocks far below the size
        if ROOT and rng.random() < 0.3:
            os.chown(path, OTHER_UID + rng.randint(0, 2), -1)
        os.utime(path, ns=times_ns(rng))
        names.append(name)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for mask in (bytes(name.endswith(".json") for name in names), bytes(len(names)), b"\x01" * len(names),
                     ".json", "", "\u00e9.o"):
            for uid in (os.geteuid(), OTHER_UID, 0, 2**32 - 2):
                for suffix in (".o", None, "", ".json.bak", "_mix_aic.json"):
                    expected = plain_expected(fd, names, mask, uid, suffix)
                    assert expected is not None
                    assert plain_answer(fd, names, mask, uid, suffix) == expected
        assert plain_answer(fd, [], b"", 0) == (0, 0, 0, set(), [], [], b"", [])
        assert plain_answer(fd, [], ".json", 0) == (0, 0, 0, set(), [], [], b"", [])
        with pytest.raises(ValueError):
            C.plain_chunk(fd, names, b"\x01", 0, None)
        with pytest.raises(TypeError):
            C.plain_chunk(fd, names, b"\x01" * len(names), 0, b".o")
    finally:
        os.close(fd)


@pytest.mark.parametrize("odd", ["dir", "symlink", "hard link", "fifo", "socket", "missing", "not utf-8"])
def test_plain_chunk_refuses_a_chunk_with_anything_but_plain_files(odd, tmp_path, monkeypatch):
    import socket

    folder = tmp_path / "d"
    monkeypatch.chdir(tmp_path)  # a socket's path must be short
    folder.mkdir()
    names = [f"k{i}.json" for i in range(5)]
    for name in names:
        (folder / name).write_bytes(b"{}")
    odd_name = {"not utf-8": os.fsdecode(b"x\xff.json")}.get(odd, "odd.json")
    path = folder / odd_name
    if odd == "dir":
        path.mkdir()
    elif odd == "symlink":
        os.symlink("k0.json", path)
    elif odd == "hard link":
        os.link(folder / "k0.json", path)
    elif odd == "fifo":
        os.mkfifo(path)
    elif odd == "socket":
        sock = socket.socket(socket.AF_UNIX)
        try:
            sock.bind("d/" + odd_name)
        except OSError:
            pytest.skip("no Unix socket here")
        finally:
            sock.close()
    elif odd == "not utf-8":
        path.write_bytes(b"{}")
    names.insert(2, odd_name)
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert C.plain_chunk(fd, names, b"\x01" * len(names), os.geteuid(), ".o") is None
        assert C.plain_chunk(fd, names[3:], b"\x01" * 3, os.geteuid(), ".o") is not None  # k2..k4
    finally:
        os.close(fd)


# -- whole scans and predictions of generated trees ------------------------------------------------

SOCS = ("Ascend910B3", "Ascend310P3")


def kernel_json(stem: str, rng: random.Random, **extra: object) -> bytes:
    info = {"binFileName": stem, "binFileSuffix": ".o", "blockDim": rng.randint(1, 48),
            "kernelName": stem + "__kernel0", "sha256": f"{rng.getrandbits(64):016x}", **extra}
    return json.dumps(info, separators=rng.choice([(",", ":"), (", ", ": ")])).encode()


def set_times(path: Path, rng: random.Random, atime_s: float) -> None:
    """Access time `atime_s` (or, sometimes, later than the change time: a json read since its
    last change), modification time before, at or after it, nanoseconds too."""
    if ROOT and rng.random() < 0.1:
        os.lchown(path, OTHER_UID, -1)
    ns = rng.choice([0, 999_999_999, rng.randrange(10**9)])
    atime = int(atime_s) * 10**9 + ns
    if rng.random() < 0.15:
        atime = time.time_ns() + rng.randint(1, 10**12)  # later than the ctime the utime sets
    mtime = rng.choice([atime, atime - 1, atime + 1, atime - 10**12])
    os.utime(path, ns=(atime, mtime), follow_symlinks=False)


def make_tree(root: Path, seed: int, many: int = 0, now: int = NOW) -> Path:
    """A kernel_cache of two SoC dirs with every kind of entry and json a walk and CANN's cleaner
    meet. Access times stay clear of the 30-minute boundary by a margin (a prediction made with
    the real clock, `cann-config clean`, sees the same groups on both runs). `many`: that many
    more kernels in one dir (more than a chunk of the walk)."""
    rng = random.Random(seed)
    kc = root / "kernel_cache"
    kc.mkdir(parents=True)
    (kc / "loose.json").write_bytes(b"{}")
    tied = [now - 7200, now - 86400 * 2, now - 40_000]

    def an_atime() -> float:
        return rng.choice([rng.choice(tied), now - rng.uniform(2000, 14 * 86400), now - rng.uniform(0, 1500)])

    def put(path: Path, data: bytes, size: int = 0) -> None:
        path.write_bytes(data)
        if size > len(data):
            os.truncate(path, size)  # sparse: megabytes of binaries cost no disk
        set_times(path, rng, an_atime())

    odd_docs = [data for _case, data, _accepted in HAND_CASES]
    for soc in SOCS:
        soc_dir = kc / soc
        soc_dir.mkdir()
        dirs = [soc_dir] + [soc_dir / f"kernel_meta_{d:03d}" for d in range(rng.randint(6, 14))]
        for d, folder in enumerate(dirs):
            if d and rng.random() < 0.25:
                folder = folder / "nested" / "deeper"
            folder.mkdir(parents=True, exist_ok=True)
            for k in range(rng.randint(0, 12)):
                stem = f"te_{soc}_{d}_{k}"
                kind = rng.choices(("plain", "mix", "pre", "odd", "trailing", "otherbin", "binless", "bom",
                                    "not-utf8"), (40, 5, 4, 12, 3, 3, 2, 2, 2))[0]
                if kind == "mix":
                    subs = [f"{stem}_mix_aic", f"{stem}_mix_aiv"]
                    put(folder / f"{stem}.json",
                        kernel_json(stem, rng, jsonList=[{"jsonFileName": s + ".json"} for s in subs]))
                    for sub in subs:
                        put(folder / f"{sub}.json", kernel_json(sub, rng))
                        put(folder / f"{sub}.o", b"\x7fELF", rng.randint(1, 300_000))
                    continue
                if kind == "pre":
                    put(folder / f"{stem}_pre.json", kernel_json(stem, rng))
                elif kind == "odd":  # a hand-written case, naming the kernel's binary where it names one
                    put(folder / f"{stem}.json", rng.choice(odd_docs).replace(b'"k"', f'"{stem}"'.encode()))
                elif kind == "trailing":  # nlohmann's operator>> reads the first value only
                    put(folder / f"{stem}.json", kernel_json(stem, rng) + b"\n}garbage{")
                elif kind == "bom":
                    put(folder / f"{stem}.json", b"\xef\xbb\xbf" + kernel_json(stem, rng))
                elif kind == "otherbin":
                    put(folder / f"{stem}.json", kernel_json("shared_" + stem[-1], rng))
                    put(folder / ("shared_" + stem[-1] + ".o"), b"\x7fELF", 50_000)
                    continue
                elif kind == "not-utf8":
                    put(folder / os.fsdecode(stem.encode() + b"\xff.json"), kernel_json(stem, rng))
                    put(folder / os.fsdecode(stem.encode() + b"\xfe.o"), b"\x7fELF", 1000)
                else:
                    put(folder / f"{stem}.json", kernel_json(stem, rng))
                if kind != "binless":
                    put(folder / f"{stem}.o", b"\x7fELF", rng.randint(1, 400_000))
        # hard links (in one chunk, and from one part of the walk into another), symlinks, a FIFO
        # and a symlink named like jsons, an empty dir, a FIFO among binaries
        first = sorted(soc_dir.glob("kernel_meta_*/*.o"))
        if len(first) > 2:
            os.link(first[0], soc_dir / "kernel_meta_000" / "linked.o")
            os.link(first[1], first[1].with_name("same_dir_link.o"))
            os.link(first[-1], soc_dir / "zz_linked.o")
        os.symlink("kernel_meta_001", soc_dir / "link_to_meta")
        os.symlink("kernel_meta_001/nothing.json", soc_dir / "link.json")
        os.mkfifo(soc_dir / "fifo.json")
        os.mkfifo(soc_dir / "kernel_meta_000" / "fifo.o")
        (soc_dir / "empty_dir" / "emptier").mkdir(parents=True)
        (soc_dir / os.fsdecode(b"dir\xff")).mkdir()
        put(soc_dir / os.fsdecode(b"dir\xff") / "in_bad_dir.json", kernel_json("in_bad_dir", rng))
        put(soc_dir / os.fsdecode(b"dir\xff") / "in_bad_dir.o", b"o", 10_000)
    if many:
        folder = kc / SOCS[0] / "many"
        folder.mkdir()
        for k in range(many):
            put(folder / f"m{k}.json", kernel_json(f"m{k}", rng))
            put(folder / f"m{k}.o", b"o", rng.randint(1, 20_000))
    return kc


def comparable(usage) -> tuple:
    """`usage` without what differs between two walks of one tree (the time, the free space), its
    candidates as one sorted list: with the C loops a SoC dir's candidates are gathered from the
    start of its walk, in the walk's chunks; without them, once it reaches the limit, the dirs
    walked before listed again whole (scanner.catch_up) - the same jsons, chunked otherwise."""
    def soc_fields(soc) -> tuple:
        return tuple(flat_candidates(soc) if field == "jsons" else getattr(soc, field) for field in soc._FIELDS)

    return (usage.kernel_cache, {name: soc_fields(soc) for name, soc in usage.socs.items()}, soc_fields(usage.top),
            usage.unreadable, usage.other_fs, usage.other_uids, usage.mount, usage.stopped)


def flat_candidates(soc) -> list:
    return sorted((folder + "/" + name, atime, size, mark)
                  for (folder, names, atimes, sizes), marks in zip(soc.jsons, soc.read_marks, strict=True)
                  for name, atime, size, mark in zip(names, atimes, sizes, marks, strict=True))


def soc_view(soc) -> tuple:
    order = soc.ordered_candidates()
    return (flat_candidates(soc), sorted(soc.json_candidates()), [soc.candidate(k) for k in order],
            [soc.read_after_change(k) for k in order], soc.candidates_complete, soc.totals())


def check_scans_agree(kc: Path, both, **kwargs) -> tuple:
    nat, pure = both(lambda: scan_to_end(kc, **kwargs))
    for name in nat.socs:
        assert soc_view(nat.socs[name]) == soc_view(pure.socs[name])
    assert comparable(nat) == comparable(pure)
    return nat, pure


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_scans_agree(seed, tmp_path, both):
    kc = make_tree(tmp_path, seed, many=2100 if seed == 1 else 0)
    nat, _pure = check_scans_agree(kc, both)
    assert nat.socs[SOCS[0]].hard_links and nat.socs[SOCS[0]].symlinks
    assert any(any(m) for s in nat.socs.values() for m in s.read_marks)  # read after change
    assert any(not all(m) for s in nat.socs.values() for m in s.read_marks)
    assert not ROOT or OTHER_UID in nat.other_uids
    used = min(s.cann_bytes for s in nat.socs.values())
    for candidates_from in (None, used // 2, used + 1):
        nat, _pure = check_scans_agree(kc, both, candidates_from=candidates_from)
    assert not all(s.candidates_complete for s in nat.socs.values())


def test_scans_agree_item_by_item(tmp_path, both):
    """The progress batches too (a batch after every step of the walk)."""
    kc = make_tree(tmp_path, 4)
    ticks = iter(range(10**6))

    def items():
        found = list(scan_cache(kc, batch_seconds=0.5, clock=lambda: float(next(ticks))))
        return [(i.files, i.dirs, i.apparent_bytes, i.allocated_bytes, i.unreadable, i.current, dict(i.socs))
                for i in found], comparable(found[-1].usage)

    nat, pure = both(items)
    assert len(nat[0]) > 10 and nat == pure


def predictions(kc: Path, pool=None, threads: int = 1, **kwargs) -> dict:
    """Every SoC dir's predictions over limits from none to all, at two times and under the
    atime rules that use the read marks, as comparable data."""
    usage = scan_to_end(kc, candidates_from=0, splitter=pool)
    found = {}
    for name, soc in usage.socs.items():
        used = soc.cann_bytes
        for max_mb in sorted({max(1, int(used / 1.1) // MiB), max(1, used // 2 // MiB), 1, 10_000}):
            for ratio in (1, 50, 90):
                for now in (NOW, NOW + 30 * 86400):
                    for rule in (None, "relatime", "strictatime"):
                        pred = predict_cleanup(soc, max_mb, ratio, now=now, atime_rule=rule, threads=threads,
                                               **kwargs)
                        found[name, max_mb, ratio, now, rule] = (pred, pred.to_json(with_groups=True))
    return comparable(usage), found


@pytest.mark.parametrize("seed", [1, 5])
def test_predictions_agree(seed, tmp_path, both):
    kc = make_tree(tmp_path, seed)
    nat, pure = both(lambda: predictions(kc))
    assert nat == pure
    preds = [pred for pred, _data in nat[1].values()]
    assert sum(len(p.delete) for p in preds) > 100 and sum(p.skipped_unparsed for p in preds)
    assert sum(p.read_saved for p in preds) and sum(p.skipped_pre for p in preds)
    assert any(NOTE_BAD_JSON in g.notes or NOTE_BIN_MISSING in g.notes for p in preds for g in p.delete)


def test_predictions_in_steps_agree(tmp_path, both):
    """A prediction that may be stopped reads in small steps: the same groups."""
    kc = make_tree(tmp_path, 6)
    nat, pure = both(lambda: predictions(kc, should_stop=lambda: False))
    assert nat == pure


def test_predictions_with_two_processes_agree(tmp_path, both, monkeypatch):
    """A ScanPool of two for the walk and two threads reading: a forked worker keeps its parent's
    choice of path; the serial native answer is the answer."""
    kc = make_tree(tmp_path, 7, many=300)

    def pooled():
        with scan_pool(2) as pool:
            pool.min_units = 1
            found = predictions(kc, pool=pool, threads=2)
            assert pool.workers == 2
        return found

    nat, pure = both(pooled)
    assert nat == pure
    with native_on():
        assert predictions(kc) == nat


def test_a_new_interpreter_as_worker_agrees(tmp_path, both, monkeypatch):
    """The GUI's worker, a new interpreter: it takes the choice from CANN_CONFIG_NO_NATIVE."""
    monkeypatch.setattr(parallel, "_can_fork", lambda: False)
    kc = make_tree(tmp_path, 8)

    def pooled():
        with scan_pool(2) as pool:
            pool.min_units = 1
            usage = scan_to_end(kc, candidates_from=0, splitter=pool)
            preds = {name: predict_cleanup(soc, 1, 50, now=NOW, threads=2) for name, soc in usage.socs.items()}
            assert pool.workers == 2
        return comparable(usage), preds

    nat, pure = both(pooled)
    assert nat == pure


def test_the_clean_dry_run_agrees(tmp_path, both, monkeypatch, capsys):
    from cann_config.app.cli import main

    for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO",
                 "ACL_OP_COMPILER_CACHE_DIR", "ACL_OP_COMPILER_CACHE_MODE", "ASCEND_WORK_PATH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ASCEND_MAX_OP_CACHE_SIZE", "1")
    monkeypatch.setenv("ASCEND_REMAIN_CACHE_SIZE_RATIO", "20")
    make_tree(tmp_path / "base", 9, now=int(time.time()))

    def dry_run():
        assert main(["clean", "--json", "--cache-dir", str(tmp_path / "base")]) == 0
        return json.loads(capsys.readouterr().out)

    nat, pure = both(dry_run)
    assert nat == pure and nat["dry_run"] is True
    assert sum(len(s["groups"]) for s in nat["socs"].values()) > 20


# -- the candidates' order: name_mask and order_keys against the Python way ---------------------

_NAMES = st.lists(st.one_of(
    st.sampled_from([".json", "a.json", "_mix_aic.json", "_mix_aiv.json", "x_mix_aic.json", "k_mix_aiv.json",
                     "k_mix_aic.jsonx", "k_mix_aix.json", "\u00e9_mix_aic.json", "\u4e2d.json", "k_pre.json"]),
    st.text(alphabet=st.sampled_from(list("km_ixacv.jsonp\u00e9")), max_size=16)), max_size=40)


@_HYPOTHESIS
@given(names=_NAMES)
def test_name_mask_is_the_candidate_rule(names):
    from cann_config.app.opcache.scanner import _JSON_LEN, _MIX_LEN, MIX_SUFFIXES, is_candidate

    assert C.name_mask(names, _JSON_LEN, MIX_SUFFIXES, _MIX_LEN) == bytes(map(is_candidate, names))


def soc_of(chunks: list[tuple[str, list[str], list[float]]]):
    """A SocUsage holding `chunks` (dir, names, access times) as a walk leaves them."""
    from cann_config.app.opcache.scanner import SocUsage

    soc = SocUsage("S", Path("/c/S"))
    for folder, names, atimes in chunks:
        soc.jsons.append((folder, names, array.array("d", atimes), array.array("q", [1] * len(names))))
        soc.read_marks.append(bytes(len(names)))
    return soc


def order_of(soc) -> list[tuple[int, str]]:
    return [(second, folder + "/" + name)
            for second, folder, name, _size in map(soc.candidate, soc.ordered_candidates())]


_ATIMES = st.one_of(st.sampled_from([0.0, -0.5, -1.0, -1.5, 1.5, 1e9, 1e9 + 0.999999, -1e9, 4e9, 1.8e17, -1.8e17]),
                    st.floats(min_value=-2e9, max_value=4e9, allow_nan=False))


@_HYPOTHESIS
@given(chunks=st.lists(st.tuples(st.sampled_from(["/c/S/a", "/c/S/b", "/c/S"]), _NAMES.filter(bool)), max_size=6),
       data=st.data())
def test_order_keys_give_cannss_order_as_python_does(chunks, data, pure_python):
    """Oldest whole second first (int() towards zero, as CANN's st_atime key from a stat), ties by
    path; times far from now (whose keys would not fit in 63 bits: Python makes those) too."""
    soc = soc_of([(folder, names, data.draw(st.lists(_ATIMES, min_size=len(names), max_size=len(names))))
                  for folder, names in chunks])
    pure = order_of(soc)
    with native_on():
        assert order_of(soc) == pure
    from cann_config.app.opcache.scanner import is_candidate

    expected = sorted((int(atime), folder + "/" + name) for folder, names, atimes, _sizes in soc.jsons
                      for name, atime in zip(names, atimes, strict=True) if is_candidate(name))
    assert pure == expected


def test_order_keys_leave_keys_that_would_not_fit_to_python():
    assert C.order_keys([(array.array("d", [1.0, 2e18]), None)], 1, 1) is None  # 2e18 * 4 > 2**62
    keys, ties = C.order_keys([(array.array("d", [5.0, -1.5, 5.9]), None), (array.array("d", [5.2]), b"\x01")], 2, 1)
    # seconds 5 (chunk 0 pos 0), -1 (0, 1), 5 (0, 2), 5 (chunk 1, pos 0): key = second * 8 + chunk * 4 + pos
    assert keys == [-1 * 8 + 1, 5 * 8 + 0, 5 * 8 + 2, 5 * 8 + 4] and ties == b"\x00\x01\x01"


def test_the_c_source_compiles_without_a_warning():
    """-Wall -Wextra as errors: a warning in C is often a bug (the build itself only warns)."""
    import shutil
    import subprocess
    import sysconfig

    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("no C compiler")
    source = Path(__file__).resolve().parents[3] / "app" / "opcache" / "_native.c"
    result = subprocess.run([compiler, "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-I",
                             sysconfig.get_paths()["include"], str(source)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


# -- select_step and account: a prediction's steps in C ---------------------------------------------

def test_a_stopped_step_asks_as_often_and_stops_where_python_does(tmp_path, both):
    """should_stop is asked before each group not read yet, in CANN's order, and the first True
    ends the prediction there - in C as in Python; a second prediction on the same scan reads
    nothing again and asks nothing."""
    kc = make_tree(tmp_path, 9)

    def stopped_runs():
        usage = scan_to_end(kc, candidates_from=0)
        found = []
        for name, soc in sorted(usage.socs.items()):
            for allowed in (0, 1, 5, 17, 10**6):
                calls = []

                def should_stop(calls=calls, allowed=allowed):
                    calls.append(1)
                    return len(calls) > allowed

                pred = predict_cleanup(soc, 1, 50, now=NOW, should_stop=should_stop, atime_rule="noatime")
                again: list = []
                repeat = predict_cleanup(soc, 1, 50, now=NOW, should_stop=lambda again=again: again.append(1) or False,
                                         atime_rule="noatime")
                found.append((name, allowed, len(calls), len(again), pred.to_json(with_groups=True),
                              repeat.to_json(with_groups=True)))
        return found

    nat, pure = both(stopped_runs)
    assert nat == pure
    assert any(stopped["stopped"] for *_rest, stopped, _again in nat)


def test_a_dir_that_cannot_be_opened_at_read_time_is_read_the_python_way(tmp_path, both):
    """A json dir replaced by a symlink after the walk: read_groups does not follow it (nor does
    the Python way, which then reads by path and finds nothing plain) - the same groups."""
    kc = make_tree(tmp_path, 10)

    def swapped():
        usage = scan_to_end(kc, candidates_from=0)
        soc = usage.socs[SOCS[0]]
        folder = Path(soc.jsons[-1][0])
        moved = folder.with_name(folder.name + ".moved")
        folder.rename(moved)
        os.symlink(moved.name, folder)
        try:
            pred = predict_cleanup(soc, 1, 50, now=NOW, atime_rule="noatime")
        finally:
            os.unlink(folder)
            moved.rename(folder)
        return pred.to_json(with_groups=True)

    nat, pure = both(swapped)
    assert nat == pure


def test_read_groups_takes_the_walks_size_of_a_binary_named_like_its_json(tmp_path):
    """A json naming "<its stem>.o" takes the size the walk noted (no lstat: the number given is
    used even where it differs from the file now), "-1" or another suffix an lstat now."""
    folder = tmp_path / "d"
    folder.mkdir()
    for stem, suffix in (("a", ".o"), ("b", ".o"), ("c", ".bin")):
        (folder / f"{stem}.json").write_bytes(json.dumps({"binFileName": stem, "binFileSuffix": suffix}).encode())
        (folder / f"{stem}{suffix}").write_bytes(b"x" * 100)
    names = ["a.json", "b.json", "c.json"]
    sizes = [os.lstat(folder / name).st_size for name in names]
    jsons = [(str(folder), names, array.array("d", [NOW] * 3), array.array("q", sizes))]
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        seen = C.plain_chunk(fd, [*names, "a.o", "b.o", "c.bin"], b"\1\1\1\0\0\0", -1, ".o")
        assert array.array("q", seen[8]).tolist() == [100, 100, -1]
        for walk, expected in (([seen[8]], [100, 100, 100]), ([None], [100, 100, 100]),
                               ([array.array("q", [7, -1, 9]).tobytes()], [7, 100, 100])):
            store = cleanup.GroupStore(jsons)
            C.read_groups(fd, str(folder), {0: [0, 1, 2]}, jsons, store.bins, store.sfx, store.suffixes, 2,
                          cleanup._READ_FLAGS, cleanup.MAX_JSON_BYTES, walk, ".o")
            assert store.bins[0].tolist() == expected
        with pytest.raises(ValueError):
            C.read_groups(fd, str(folder), {0: [0]}, jsons, store.bins, store.sfx, store.suffixes, 1,
                          cleanup._READ_FLAGS, cleanup.MAX_JSON_BYTES, [b"short"], ".o")
    finally:
        os.close(fd)
