"""Hostile input, odd files and odd output targets (issue 15): every case a real `cann-config` run.

Each case builds its files in a fresh directory, runs the command in a subprocess with a time
limit, and asserts: the exit status, a one-line reason on stderr when it is 2, no traceback, no
hang (the time limit), and that no file the command was not asked to change has changed (hash
before and after). The cases run concurrently (a pool of subprocesses) so the whole table stays
within seconds; `summary()` counts clear / tracebacks / hangs for the issue's note.

Cases that need a permission error run with CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH dropped
(root ignores file modes otherwise); they are skipped where that cannot be done.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIME_LIMIT = 30.0  # a hang, not a slow machine: every case finishes in a few seconds
INI = b"[op_compiler_cache]\nmax_op_cache_size=500\nremain_cache_size_ratio=80\n"
SECRET = "AKIAHOSTILE0SECRET0KEY"


@dataclass
class Run:
    argv: list[str]
    exit: int | tuple[int, ...]
    env: dict[str, str] = field(default_factory=dict)
    unchanged: list[Path] = field(default_factory=list)
    drop_dac: bool = False
    check: Callable[[subprocess.CompletedProcess, Path], None] | None = None
    stdin: bytes | None = None


@dataclass
class Outcome:
    name: str
    run: Run
    result: subprocess.CompletedProcess | None
    before: dict[Path, str | None]
    after: dict[Path, str | None]
    directory: Path
    seconds: float = 0.0


def _fingerprint(path: Path) -> str | None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISREG(info.st_mode):
        return f"file:{stat.S_IMODE(info.st_mode):o}:" + hashlib.sha256(path.read_bytes()).hexdigest()
    if stat.S_ISLNK(info.st_mode):
        return "link:" + os.readlink(path)
    return f"{stat.S_IFMT(info.st_mode):o}:{info.st_rdev}:{info.st_ino}"


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _npu_smi(d: Path, script: str) -> dict[str, str]:
    """A fake npu-smi first on PATH (the probe finds it there)."""
    bindir = d / "bin"
    bindir.mkdir(exist_ok=True)
    tool = bindir / "npu-smi"
    tool.write_text("#!/bin/sh\n" + script)
    tool.chmod(0o755)
    return {"PATH": f"{bindir}:/usr/bin:/bin"}


def _cache_home(d: Path) -> Path:
    base = d / "cache"
    (base / "kernel_cache").mkdir(parents=True)
    return base


def _drop_dac() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _can_drop_dac() -> bool:
    if os.geteuid() != 0:
        return True  # not root: modes apply anyway
    try:
        probe = subprocess.run([sys.executable, "-c", "pass"], preexec_fn=_drop_dac, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return False
    return probe.returncode == 0


# ---------------------------------------------------------------------------------------------
# The cases: name -> setup(directory) -> Run
# ---------------------------------------------------------------------------------------------

CASES: dict[str, Callable[[Path], Run]] = {}


def case(name: str):
    def register(fn: Callable[[Path], Run]) -> Callable[[Path], Run]:
        CASES[name] = fn
        return fn
    return register


def _bundle_check(*absent: str) -> Callable[[subprocess.CompletedProcess, Path], None]:
    def check(result: subprocess.CompletedProcess, d: Path) -> None:
        data = (d / "bundle.json").read_text(encoding="utf-8")
        for text in absent:
            assert text not in data, f"{text!r} leaked into the bundle"
    return check


# FIFOs named on the command line: every reader refuses them at once.
for _flag, _cmd in (("--ini", "diagnose"), ("--env-file", "diagnose"), ("--script", "diagnose"),
                    ("--bundle", "diagnose"), ("--profile", "export"), ("--npu-smi-info", "detect"),
                    ("--npu-smi-board", "detect"), ("--ini", "gui"), ("--profile", "gui"), ("--bundle", "gui"),
                    ("--ini", "export")):
    def _setup(d: Path, flag: str = _flag, cmd: str = _cmd) -> Run:
        fifo = _fifo(d / "p")
        argv = [cmd]
        if cmd == "export":
            argv.append("op-cache-ini" if flag == "--ini" else "tf1-session")
        if cmd == "detect" and flag == "--npu-smi-board":
            (d / "info.txt").write_text("x")
            argv += ["--npu-smi-info", str(d / "info.txt")]
        return Run([*argv, flag, str(fifo)], 2, env={"QT_QPA_PLATFORM": "offscreen"})
    CASES[f"fifo {_cmd} {_flag}"] = _setup


@case("dev/zero as --profile")
def _(d: Path) -> Run:
    return Run(["export", "tf1-session", "--profile", "/dev/zero"], 2)


@case("directory as --env-file")
def _(d: Path) -> Run:
    return Run(["diagnose", "--env-file", str(d)], 2)


@case("socket as --ini")
def _(d: Path) -> Run:
    import socket

    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(d / "s"))
    sock.close()
    return Run(["diagnose", "--ini", str(d / "s")], 2)


# FIFOs the environment points at.
for _cmd in ("diagnose", "scan", "collect", "gui"):
    def _setup(d: Path, cmd: str = _cmd) -> Run:
        base = _cache_home(d)
        _fifo(base / "kernel_cache" / "op_cache.ini")
        argv = {"collect": ["collect", "--scan-seconds", "2", "-o", str(d / "bundle.json")],
                "gui": ["gui", "--smoke"]}.get(cmd, [cmd])
        env = {"ASCEND_CACHE_PATH": str(base), "QT_QPA_PLATFORM": "offscreen", **_npu_smi(d, "exit 1\n")}
        # diagnose refuses it (exit 2, as for --ini); scan and the wizard name it in a finding,
        # collect records it in the bundle.
        return Run(argv, 2 if cmd == "diagnose" else (0, 1), env=env)
    CASES[f"fifo op_cache.ini via ASCEND_CACHE_PATH: {_cmd}"] = _setup


@case("fifo version files the environment points at: collect")
def _(d: Path) -> Run:
    _fifo(d / "opp" / "version.info")
    _fifo(d / "Ascend" / "tfplugin" / "latest" / "ascend_tfplugin_install.info")  # under $HOME
    env = {"ASCEND_CACHE_PATH": str(_cache_home(d)), "ASCEND_OPP_PATH": str(d / "opp"), **_npu_smi(d, "exit 1\n")}
    return Run(["collect", "--scan-seconds", "1", "-o", str(d / "bundle.json")], 0, env=env)


# Output paths.
@case("-o onto a character device")
def _(d: Path) -> Run:
    node = d / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return Run(["export", "tf1-session", "-o", str(node)], 2, unchanged=[node])


@case("-o onto a FIFO")
def _(d: Path) -> Run:
    fifo = _fifo(d / "p")
    return Run(["export", "tf1-session", "-o", str(fifo)], 2, unchanged=[fifo])


@case("--report onto a FIFO")
def _(d: Path) -> Run:
    fifo = _fifo(d / "p.md")
    (d / "op_cache.ini").write_bytes(INI)
    return Run(["diagnose", "--ini", str(d / "op_cache.ini"), "--report", str(fifo)], 2, unchanged=[fifo])


@case("collect -o onto a FIFO")
def _(d: Path) -> Run:
    fifo = _fifo(d / "p.json")
    env = {"ASCEND_CACHE_PATH": str(_cache_home(d)), **_npu_smi(d, "exit 1\n")}
    return Run(["collect", "--scan-seconds", "1", "-o", str(fifo)], 2, env=env, unchanged=[fifo])


@case("-o /dev/stdout")
def _(d: Path) -> Run:
    def check(result: subprocess.CompletedProcess, _: Path) -> None:
        assert b"npu" in result.stdout.lower()
    return Run(["export", "tf1-session", "--set", "static_memory_policy=2", "-o", "/dev/stdout"], 0, check=check)


@case("-o - prints")
def _(d: Path) -> Run:
    def check(result: subprocess.CompletedProcess, _: Path) -> None:
        assert b"static_memory_policy" in result.stdout
    return Run(["export", "tf1-session", "--set", "static_memory_policy=2", "-o", "-"], 0, check=check)


@case("-o onto a read-only file")
def _(d: Path) -> Run:
    target = d / "job.py"
    target.write_text("keep me\n")
    target.chmod(0o444)
    return Run(["export", "tf1-session", "-o", str(target)], 2, unchanged=[target])


@case("-o onto a read-only file with --force")
def _(d: Path) -> Run:
    target = d / "job.py"
    target.write_text("keep me\n")
    target.chmod(0o444)

    def check(result: subprocess.CompletedProcess, _: Path) -> None:
        assert target.read_text() != "keep me\n"
        assert stat.S_IMODE(target.stat().st_mode) == 0o444
    return Run(["export", "tf1-session", "--force", "-o", str(target)], 0, check=check)


@case("op_cache.ini edit onto a read-only file")
def _(d: Path) -> Run:
    target = d / "op_cache.ini"
    target.write_bytes(INI)
    target.chmod(0o444)
    # versions given: without them the save is refused first (exit 1), before the file is looked at
    return Run(["export", "op-cache-ini", "--ini", str(target), "--set", "max_op_cache_size=700",
                "--adk-version", "8.5.0", "--ops-version", "8.5.0", "-o", str(target)], 2, unchanged=[target])


@case("-o with a 300-character name")
def _(d: Path) -> Run:
    return Run(["export", "tf1-session", "-o", str(d / ("x" * 300))], 2)


@case("--report with a 300-character name")
def _(d: Path) -> Run:
    (d / "op_cache.ini").write_bytes(INI)
    return Run(["diagnose", "--ini", str(d / "op_cache.ini"), "--report", str(d / ("x" * 300 + ".md"))], 2)


# Leaks from collect.
@case("collect: op_cache.ini a symlink to credentials")
def _(d: Path) -> Run:
    secret = d / "credentials"
    secret.write_text(f"[default]\naws_secret_access_key={SECRET}\n")
    base = _cache_home(d)
    (base / "kernel_cache" / "op_cache.ini").symlink_to(secret)
    env = {"ASCEND_CACHE_PATH": str(base), **_npu_smi(d, "exit 1\n")}

    def check(result: subprocess.CompletedProcess, dd: Path) -> None:
        _bundle_check(SECRET)(result, dd)
        data = json.loads((dd / "bundle.json").read_text(encoding="utf-8"))
        assert str(secret) in json.dumps(data["op_cache_ini"])  # recorded as a symlink with its target
    return Run(["collect", "--scan-seconds", "1", "-o", str(d / "bundle.json")], 0, env=env,
               unchanged=[secret], check=check)


@case("collect: npu-smi prints its environment")
def _(d: Path) -> Run:
    env = {"ASCEND_CACHE_PATH": str(_cache_home(d)), "AWS_SECRET_ACCESS_KEY": SECRET,
           "https_proxy": f"http://user:{SECRET}p@proxy:3128", **_npu_smi(d, "env\nenv >&2\n")}
    return Run(["collect", "--scan-seconds", "1", "-o", str(d / "bundle.json")], 0, env=env,
               check=_bundle_check(SECRET))


# Unbounded work.
@case("env file doubling a variable 40 times")
def _(d: Path) -> Run:
    env_file = d / "job.env"
    env_file.write_text("export ASCEND_CACHE_PATH=/x\n"
                        + "export ASCEND_CACHE_PATH=$ASCEND_CACHE_PATH$ASCEND_CACHE_PATH\n" * 40)
    return Run(["diagnose", "--env-file", str(env_file)], 2)


@case("npu-smi prints without end: detect")
def _(d: Path) -> Run:
    return Run(["detect"], 0, env=_npu_smi(d, "exec yes 'NPU     Name'\n"))


@case("npu-smi prints 100 MB: collect")
def _(d: Path) -> Run:
    env = {"ASCEND_CACHE_PATH": str(_cache_home(d)),
           **_npu_smi(d, "head -c 100000000 /dev/zero | tr '\\0' x\n")}

    def check(result: subprocess.CompletedProcess, dd: Path) -> None:
        assert (dd / "bundle.json").stat().st_size < 8 << 20
    return Run(["collect", "--scan-seconds", "1", "-o", str(d / "bundle.json")], 0, env=env, check=check)


# Tracebacks.
@case("unreadable --cache-dir (diagnose, no root override)")
def _(d: Path) -> Run:
    locked = d / "L"
    locked.mkdir(mode=0o000)
    return Run(["diagnose", "--cache-dir", str(locked)], 2, drop_dac=True)


@case("unreadable cache dir (scan, no root override)")
def _(d: Path) -> Run:
    locked = d / "L"
    (locked / "kernel_cache").mkdir(parents=True)
    locked.chmod(0o000)

    def check(result: subprocess.CompletedProcess, _: Path) -> None:
        out = result.stdout.decode() + result.stderr.decode()
        assert "no cache yet" not in out.lower()
    return Run(["scan", "--cache-dir", str(locked), "--lang", "en"], 2, drop_dac=True, check=check)


@case("unreadable ASCEND_CACHE_PATH (scan, no root override)")
def _(d: Path) -> Run:
    locked = d / "L"
    (locked / "kernel_cache").mkdir(parents=True)
    locked.chmod(0o000)

    def check(result: subprocess.CompletedProcess, _: Path) -> None:
        out = result.stdout.decode() + result.stderr.decode()
        assert "no cache yet" not in out.lower()
    return Run(["scan", "--lang", "en"], 2, env={"ASCEND_CACHE_PATH": str(locked)}, drop_dac=True, check=check)


@case("unreadable --ini (no root override)")
def _(d: Path) -> Run:
    ini = d / "op_cache.ini"
    ini.write_bytes(INI)
    ini.chmod(0)
    return Run(["diagnose", "--ini", str(ini)], 2, drop_dac=True)


for _cmd in ("diagnose", "scan", "collect"):
    def _setup(d: Path, cmd: str = _cmd) -> Run:
        env = {"ASCEND_CACHE_PATH": "/tmp/" + "a" * 5000, **_npu_smi(d, "exit 1\n")}
        argv = ["collect", "--scan-seconds", "1", "-o", str(d / "bundle.json")] if cmd == "collect" else [cmd]
        return Run(argv, (0, 1, 2), env=env)
    CASES[f"5000-character ASCEND_CACHE_PATH: {_cmd}"] = _setup


@case("--cache-dir of 5000 characters")
def _(d: Path) -> Run:
    return Run(["scan", "--cache-dir", "/tmp/" + "a" * 5000], 2)


@case("--ini through a symlink loop")
def _(d: Path) -> Run:
    (d / "a").symlink_to(d / "b")
    (d / "b").symlink_to(d / "a")
    return Run(["diagnose", "--ini", str(d / "a")], 2)


@case("script: 50,000 chained additions")
def _(d: Path) -> Run:
    script = d / "train.py"
    script.write_text("x=1" + "+1" * 50000 + "\n")
    return Run(["diagnose", "--script", str(script)], 2)


@case("script: 1,000 nested parentheses")
def _(d: Path) -> Run:
    script = d / "train.py"
    script.write_text("x = " + "(" * 1000 + "1" + ")" * 1000 + "\n")
    return Run(["diagnose", "--script", str(script)], 2)


@case("script: a 20,000-digit hex literal")
def _(d: Path) -> Run:
    script = d / "train.py"
    script.write_text("import os\nos.environ['ASCEND_MAX_OP_CACHE_SIZE'] = 0x" + "f" * 20000 + "\n")
    return Run(["diagnose", "--script", str(script)], (0, 1, 2))


@case("script: a 20,000-digit decimal in a memory option")
def _(d: Path) -> Run:
    script = d / "train.py"
    script.write_text("from npu_bridge.npu_init import *\nconfig = NPURunConfig(static_memory_policy=0x"
                      + "f" * 20000 + ")\n")
    return Run(["diagnose", "--script", str(script)], (0, 1, 2))


@case("profile: nested 100,000 deep")
def _(d: Path) -> Run:
    profile = d / "p.json"
    profile.write_text("[" * 100000 + "]" * 100000)
    return Run(["export", "tf1-session", "--profile", str(profile)], 2)


@case("profile: a 100,000-digit number")
def _(d: Path) -> Run:
    profile = d / "p.json"
    profile.write_text('{"format": "cann-config-profile", "version": 1, "options": {"max_op_cache_size": '
                       + "9" * 100000 + "}}")
    return Run(["export", "tf1-session", "--profile", str(profile)], 2)


@case("profile: framework a list")
def _(d: Path) -> Run:
    profile = d / "p.json"
    profile.write_text('{"format": "cann-config-profile", "version": 1, "framework": ["tf1"]}')
    return Run(["export", "tf1-session", "--profile", str(profile)], 2)


@case("profile: framework a list (gui)")
def _(d: Path) -> Run:
    profile = d / "p.json"
    profile.write_text('{"format": "cann-config-profile", "version": 1, "framework": ["tf1"]}')
    return Run(["gui", "--smoke", "--profile", str(profile)], 2, env={"QT_QPA_PLATFORM": "offscreen"})


@case("profile: option values of every JSON type")
def _(d: Path) -> Run:
    profile = d / "p.json"
    profile.write_text('{"format": "cann-config-profile", "version": 1, "options": {"static_memory_policy": [2]}}')
    return Run(["export", "tf1-session", "--profile", str(profile)], 2)


@case("profile: a 5 MB cache path (gui --smoke)")
def _(d: Path) -> Run:
    profile = d / "p.json"
    profile.write_text(json.dumps({"format": "cann-config-profile", "version": 1,
                                   "options": {"op_compiler_cache_dir": "/x" * (5 << 19)}}))
    return Run(["gui", "--smoke", "--profile", str(profile)], 2, env={"QT_QPA_PLATFORM": "offscreen"})


@case("export profile with a value that is not UTF-8")
def _(d: Path) -> Run:
    value = os.fsdecode(b"/data/\xff\xfe")
    return Run(["export", "profile", "--set", f"op_compiler_cache_dir={value}"], 2)


@case("bundle: nested 100,000 deep")
def _(d: Path) -> Run:
    bundle = d / "b.json"
    bundle.write_text('{"format": "cann-config-bundle", "version": 1, "x": ' + "[" * 100000 + "]" * 100000 + "}")
    return Run(["diagnose", "--bundle", str(bundle)], 2)


@case("fleet --report onto a FIFO")
def _(d: Path) -> Run:
    fifo = _fifo(d / "f.md")
    return Run(["fleet", str(ROOT / "tests/data/bundles/a2-910b3.json"), "--report", str(fifo)], 2, unchanged=[fifo])


@case("fleet: a FIFO and a 5000-character name as bundles")
def _(d: Path) -> Run:
    return Run(["fleet", str(_fifo(d / "b.json")), "/tmp/" + "a" * 5000], 2)


# Control characters reaching a terminal or a report.
@case("scan: SoC dir name with ESC and bidi controls")
def _(d: Path) -> Run:
    base = _cache_home(d)
    (base / "kernel_cache" / "Ascend910B3\x1b]0;pwned\x07\u202e").mkdir()

    def check(result: subprocess.CompletedProcess, _: Path) -> None:
        out = result.stdout.decode("utf-8", "replace")
        assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    return Run(["scan", "--cache-dir", str(base)], 0, check=check)


@case("detect: npu-smi stderr with ESC")
def _(d: Path) -> Run:
    def check(result: subprocess.CompletedProcess, _: Path) -> None:
        assert b"\x1b" not in result.stdout + result.stderr
    return Run(["detect"], 0, env=_npu_smi(d, "printf 'boom\\033]0;pwned\\007\\342\\200\\256\\n' >&2\nexit 3\n"),
               check=check)


@case("report: env file with ESC, BEL and bidi into Markdown")
def _(d: Path) -> Run:
    env_file = d / "job.env"
    env_file.write_bytes("export ASCEND_CACHE_PATH=/x\x1b[31m\x07\u202e/y\nexport ASCEND_MAX_OP_CACHE_SIZE=\x1b[2Jz\n"
                         .encode())

    def check(result: subprocess.CompletedProcess, dd: Path) -> None:
        text = (dd / "r.md").read_text(encoding="utf-8")
        assert not any(c in text for c in "\x1b\x07\u202e")
    return Run(["diagnose", "--env-file", str(env_file), "--report", str(d / "r.md")], (0, 1), check=check)


@case("report: bundle with ESC and bidi into HTML")
def _(d: Path) -> Run:
    data = json.loads((ROOT / "tests/data/bundles/a2-910b3.json").read_text(encoding="utf-8"))
    data["environment"]["ASCEND_CACHE_PATH"] = "/x\x1b[31m\u202e<b>y"
    data["npu_smi"]["notes"] = ["note \x1b]0;t\x07"]
    (d / "b.json").write_text(json.dumps(data))

    def check(result: subprocess.CompletedProcess, dd: Path) -> None:
        text = (dd / "r.html").read_text(encoding="utf-8")
        assert not any(c in text for c in "\x1b\x07\u202e") and "<b>y" not in text
    return Run(["diagnose", "--bundle", str(d / "b.json"), "--report", str(d / "r.html")], (0, 1), check=check)


# ---------------------------------------------------------------------------------------------
# Running them
# ---------------------------------------------------------------------------------------------


def _execute(name: str, directory: Path, can_drop: bool) -> Outcome:
    directory.mkdir(parents=True)
    run = CASES[name](directory)
    watched = [p for p in directory.rglob("*") if not p.name.startswith(".")] + run.unchanged
    before = {p: _fingerprint(p) for p in watched}
    env = {k: v for k, v in os.environ.items() if k not in ("ASCEND_CACHE_PATH", "DISPLAY", "WAYLAND_DISPLAY")}
    env.update({"HOME": str(directory), "LANG": "C.UTF-8", "PYTHONPYCACHEPREFIX": str(directory.parent / ".pyc")})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update(run.env)
    if run.drop_dac and not can_drop:
        return Outcome(name, run, None, before, before, directory)
    started = time.monotonic()
    try:
        result = subprocess.run([sys.executable, "-m", "cann_config.app", *run.argv], cwd=directory, env=env,
                                input=run.stdin or b"", capture_output=True, timeout=TIME_LIMIT,
                                preexec_fn=_drop_dac if run.drop_dac and os.geteuid() == 0 else None)
    except subprocess.TimeoutExpired as exc:
        result = subprocess.CompletedProcess(exc.cmd, None, exc.stdout or b"", exc.stderr or b"")  # type: ignore[arg-type]
    after = {p: _fingerprint(p) for p in watched}
    return Outcome(name, run, result, before, after, directory, time.monotonic() - started)


def run_all(base: Path) -> dict[str, Outcome]:
    """Every case, concurrently; the bytecode is compiled once first (PYTHONDONTWRITEBYTECODE
    would make every run compile the whole core again)."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(base / ".pyc")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "app"), str(ROOT / "ui")], env=env,
                   capture_output=True, timeout=120)
    can_drop = _can_drop_dac()
    with ThreadPoolExecutor(max_workers=6) as pool:
        futures = {name: pool.submit(_execute, name, base / f"case{i}", can_drop) for i, name in enumerate(CASES)}
        results = {name: f.result() for name, f in futures.items()}
    for outcome in results.values():  # let the 000 directories be removed
        for p in outcome.directory.rglob("*"):
            if p.is_dir() and not p.is_symlink():
                p.chmod(0o755)
    return results


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outcome]:
    return run_all(tmp_path_factory.mktemp("hostile"))


def _one_line_reason(stderr: str) -> bool:
    """Exit 2 says why in one line (`cann-config: file: reason`), after any warnings the command
    gave on the way (each one line of its own)."""
    lines = stderr.strip().splitlines()
    return bool(lines) and all(line.startswith("cann-config: ") for line in lines) \
        and not lines[-1].startswith(("cann-config: warning:", "cann-config: 警告"))


def classify(outcome: Outcome) -> str:
    """hang | traceback | clear | wrong (exit status, stderr or a changed file)."""
    result = outcome.result
    if result is None:
        return "skipped"
    if result.returncode is None:
        return "hang"
    stderr = result.stderr.decode("utf-8", "replace")
    if "Traceback (most recent call last)" in stderr:
        return "traceback"
    expected = outcome.run.exit if isinstance(outcome.run.exit, tuple) else (outcome.run.exit,)
    if result.returncode not in expected:
        return "wrong"
    if result.returncode == 2 and not _one_line_reason(stderr):
        return "wrong"
    if any(outcome.before[p] != outcome.after[p] for p in outcome.run.unchanged):
        return "wrong"
    if outcome.run.check is not None:
        try:
            outcome.run.check(result, outcome.directory)
        except (AssertionError, OSError, ValueError):
            return "wrong"
    return "clear"


def summary(outcomes: dict[str, Outcome]) -> dict[str, int]:
    counts = {"tried": 0, "clear": 0, "traceback": 0, "hang": 0, "wrong": 0, "skipped": 0}
    for outcome in outcomes.values():
        counts["tried"] += 1
        counts[classify(outcome)] += 1
    return counts


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_case(outcomes: dict[str, Outcome], name: str) -> None:
    outcome = outcomes[name]
    if outcome.result is None:
        pytest.skip("cannot drop root's permission override here")
    result = outcome.result
    stderr = result.stderr.decode("utf-8", "replace")
    assert result.returncode is not None, f"no answer within {TIME_LIMIT:g} s"
    assert "Traceback" not in stderr, stderr[-2000:]
    expected = outcome.run.exit if isinstance(outcome.run.exit, tuple) else (outcome.run.exit,)
    assert result.returncode in expected, (result.returncode, stderr[-2000:])
    if result.returncode == 2:
        assert _one_line_reason(stderr), stderr
    for path in outcome.run.unchanged:
        assert outcome.before[path] == outcome.after[path], f"{path} changed"
    if outcome.run.check is not None:
        outcome.run.check(result, outcome.directory)


if __name__ == "__main__":  # the counts for the note: python tests/app/test_hostile_input.py
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        done = run_all(Path(tmp))
        for n, o in done.items():
            verdict = classify(o)
            detail = ""
            if verdict != "clear" and o.result is not None:
                err = o.result.stderr.decode("utf-8", "replace").strip().splitlines()
                detail = f"  [exit {o.result.returncode}] {(err[-1] if err else '')[:150]!r}"
            print(f"{verdict:10} {o.seconds:5.1f}s {n}{detail}")
        print(summary(done))
