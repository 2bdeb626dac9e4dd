"""Looking at this host: which Ascend device it carries and which CANN and driver are installed.

`npu-smi` may be missing, may need root, and hangs when the driver is unhealthy
(docs/cann/devices.md#detection), so every call runs with a timeout out of one budget (at most 5 s for the whole
probe), in its own process group that is killed on timeout; a child stuck in the driver is
abandoned rather than waited for. Nothing here touches Qt: the GUI runs `probe_host` in a worker.
When nothing is found the probe says what it tried ("npu-smi was not found ...", "... did not
answer within 5 s ...").

The installed versions (toolkit, driver, operator package, compiler) are read from their
version files by app/device/versions.py (`installed_versions`, also importable from here).

For tests, every path is looked up under `root` (a fake `/`), and `runner` replaces
`subprocess.run` (same call: `runner(argv, capture_output=True, text=True, timeout=seconds)`,
returning an object with `returncode`, `stdout`, `stderr`, or raising `FileNotFoundError`,
`PermissionError`, `subprocess.TimeoutExpired`).

Public API:
    probe_host(timeout=5.0, runner=run_command, root=Path("/"), environ=None) -> HostProbe
    find_npu_smi(environ=None, root=Path("/")) -> Path | None   the npu-smi probe_host runs
    installed_versions(root=Path("/"), environ=os.environ) -> dict[str, str | None]   (app/device/versions.py)
    run_command(argv, *, capture_output=True, text=True, timeout, max_output=MAX_OUTPUT_BYTES, env=None)
        -> CompletedProcess   (OutputTooLarge past max_output bytes; npu-smi gets command_environment())
    command_environment(environ=None) -> dict[str, str]
"""

from __future__ import annotations

import errno
import os
import re
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from cann_config.app.device.availability import device_text
from cann_config.app.device.table import DeviceInfo
from cann_config.app.device.versions import installed_versions, under_root  # noqa: F401 - re-exported
from cann_config.app.errors import Message, explain
from cann_config.app.messages import message_table

# shutil and the npu-smi reader are imported in the functions that look for npu-smi and read its
# output: shutil brings bz2 and lzma with it, which a probe that finds no npu-smi never needs.

# Where npu-smi lives when it is not on a non-root user's PATH (the driver installs it there).
NPU_SMI_PLACES = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin")
DEFAULT_TIMEOUT = 5.0
# Below this remainder of the budget a command is not started at all.
_MIN_SLICE = 0.05
# Kept back from each command's timeout: killing a hung npu-smi and waiting for it to go.
_KILL_GRACE = 0.25
# npu-smi's longest output (`info` on a 16-NPU node with its process table) is some tens of
# KiB; one that prints more is not npu-smi as the driver ships it, and is stopped.
MAX_OUTPUT_BYTES = 1 << 20
# What npu-smi is given of the environment (command_environment).
COMMAND_VARIABLES = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LD_LIBRARY_PATH")
COMMAND_PREFIXES = ("ASCEND_",)

Runner = Callable[..., Any]


class OutputTooLarge(subprocess.SubprocessError):
    """The command printed more than the cap; it was stopped and its output dropped."""

    def __init__(self, argv: Sequence[str], limit: int):
        super().__init__(f"{argv[0]} printed more than {limit} bytes")
        self.argv = list(argv)
        self.limit = limit


def command_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment npu-smi runs with: only what it needs to start and speak.

    npu-smi is the driver's program: it needs PATH, the locale and LD_LIBRARY_PATH (the driver's
    libraries, set by the driver's and CANN's set_env.sh) and may read the ASCEND_* variables of
    those scripts (docs/cann/devices.md). Nothing else is passed on: a wrapper that prints its
    environment must not put tokens and proxy passwords into a support bundle.
    """
    env = os.environ if environ is None else environ
    return {name: value for name, value in env.items()
            if name in COMMAND_VARIABLES or name.startswith(COMMAND_PREFIXES)}


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.wait(timeout=_KILL_GRACE * 0.8)
    except subprocess.TimeoutExpired:
        pass  # abandoned; subprocess reaps it if it ever exits


def run_command(argv: Sequence[str], *, capture_output: bool = True, text: bool = True,
                timeout: float, max_output: int = MAX_OUTPUT_BYTES, env: Mapping[str, str] | None = None,
                **_: Any) -> subprocess.CompletedProcess:
    """subprocess.run for a command that may hang in the kernel or never stop printing.

    The child gets its own session and the minimal environment of `command_environment` (of
    `env`, default this process's). Its output is read as it comes, at most `max_output` bytes
    per stream: more raises OutputTooLarge. On timeout (for the whole run, output included)
    the whole group is killed and waited for only briefly: a process stuck in an
    uninterruptible driver call cannot die, and subprocess.run would wait for it forever.
    """
    proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, env=command_environment(env))
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None and proc.stderr is not None  # both are pipes
    pipes = (proc.stdout, proc.stderr)
    streams = {pipe.fileno(): bytearray() for pipe in pipes}
    try:
        with selectors.DefaultSelector() as selector:
            for fd in streams:
                selector.register(fd, selectors.EVENT_READ)
            while selector.get_map():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise subprocess.TimeoutExpired(proc.args, timeout)
                for key, _events in selector.select(remaining):
                    chunk = os.read(key.fd, 65536)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    buffer = streams[key.fd]
                    buffer += chunk
                    if len(buffer) > max_output:
                        raise OutputTooLarge(argv, max_output)
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise subprocess.TimeoutExpired(proc.args, timeout)
        proc.wait(timeout=remaining)
    except (subprocess.TimeoutExpired, OutputTooLarge):
        _kill_group(proc)
        raise
    finally:
        out, err = bytes(streams[pipes[0].fileno()]), bytes(streams[pipes[1].fileno()])
        for pipe in pipes:
            pipe.close()
    if text:
        return subprocess.CompletedProcess(proc.args, proc.returncode, out.decode("utf-8", errors="replace"),
                                           err.decode("utf-8", errors="replace"))
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@dataclass
class HostProbe:
    """What probing this host found. `steps` says what was run and how it went, as messages
    (resources/messages/devices.toml) that `tried_text(lang)` renders in any language, so a
    window that switches language can say it again; `tried` is the same in the language of the
    moment of detection (kept for readers that want finished text). `raw` maps each command line
    to its output (for support bundles)."""

    device: DeviceInfo
    toolkit_version: str | None = None
    driver_version: str | None = None
    tried: list[str] = field(default_factory=list)
    raw: dict[str, str] = field(default_factory=dict)
    versions: dict[str, str | None] = field(default_factory=dict)
    steps: list[Message] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.steps and not self.tried:
            self.tried = self.tried_text()
        elif not self.steps:
            # Built from finished text (a test, an older caller): it can only be shown as it is.
            self.steps = [Message.literal(text) for text in self.tried]

    def tried_text(self, lang: str | None = None) -> list[str]:
        """What was tried, one line per step, in `lang` (default: the current language)."""
        return [step.text(lang) for step in self.steps]

    def to_json(self) -> dict[str, Any]:
        return {"device": self.device.to_json(), "toolkit_version": self.toolkit_version,
                "driver_version": self.driver_version, "tried": self.tried_text(), "raw": dict(self.raw),
                "versions": dict(self.versions)}


def find_npu_smi(environ: Mapping[str, str] | None = None, root: Path = Path("/")) -> Path | None:
    """The npu-smi to run: on `environ`'s PATH, else where the driver installs it (NPU_SMI_PLACES,
    not on a non-root user's PATH); None when there is none. With a test `root` only the
    driver's places under it are looked at (PATH names the real host's directories)."""
    env = os.environ if environ is None else environ
    root = Path(root)
    if root == Path("/"):
        import shutil

        found = shutil.which("npu-smi", path=env.get("PATH", os.defpath))
        if found:
            return Path(found)
    for place in NPU_SMI_PLACES:
        candidate = under_root(root, place) / "npu-smi"
        if candidate.is_file():
            return candidate
    return None


def _first_line(*texts: str | None) -> str | None:
    for t in texts:
        for line in (t or "").splitlines():
            if line.strip():
                return " ".join(line.split())[:200]
    return None


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _seconds(value: float) -> str:
    return f"{value:g}"


class _Budget:
    def __init__(self, seconds: float):
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def remaining(self) -> float:
        """What a command may still take, leaving time to stop it when it hangs."""
        return self.deadline - time.monotonic() - _KILL_GRACE


def _run(runner: Runner, argv: list[str], shown: str, budget: _Budget, tried: list[Message], raw: dict[str, str],
         ) -> str | None:
    """Run one npu-smi command within the budget; its stdout, or None with the reason in `tried`."""
    remaining = budget.remaining()
    if remaining < _MIN_SLICE:
        tried.append(Message("devices-probe-skipped", command=shown, seconds=_seconds(budget.seconds)))
        return None
    try:
        result = runner(argv, capture_output=True, text=True, timeout=remaining)
    except FileNotFoundError:
        places = ", ".join(NPU_SMI_PLACES)
        tried.append(Message("devices-probe-not-found", places=places))
        return None
    except PermissionError:
        tried.append(Message("devices-probe-permission", command=shown))
        return None
    except subprocess.TimeoutExpired:
        tried.append(Message("devices-probe-timeout", command=shown, seconds=_seconds(budget.seconds)))
        return None
    except OutputTooLarge as exc:
        tried.append(Message("devices-probe-too-much-output", command=shown, size=exc.limit >> 10))
        return None
    except (OSError, subprocess.SubprocessError, UnicodeDecodeError, ValueError) as exc:
        tried.append(Message("devices-probe-error", command=shown, message=explain(exc)))
        return None
    stdout, stderr = _text(getattr(result, "stdout", "")), _text(getattr(result, "stderr", ""))
    raw[shown] = stdout
    if stderr.strip():
        raw[f"{shown} [stderr]"] = stderr
    status = getattr(result, "returncode", 0)
    if status != 0:
        message = _first_line(stderr, stdout)
        if status in (126, errno.EACCES) or "permission" in (message or "").lower():
            tried.append(Message("devices-probe-permission", command=shown))
        else:
            tried.append(Message("devices-probe-failed", command=shown, status=status,
                                 message=message or Message("devices-probe-no-output")))
        return None
    return stdout


def probe_host(timeout: float = DEFAULT_TIMEOUT, runner: Runner = run_command, root: Path = Path("/"),
               environ: Mapping[str, str] | None = None) -> HostProbe:
    """Detect the device with npu-smi (within `timeout` seconds in total) and read the versions."""
    from cann_config.app.device.npusmi import NpuSmiError, board_needed, device_from_npu_smi, read_npu_smi_info

    env = os.environ if environ is None else environ
    root = Path(root)
    tried: list[Message] = []
    raw: dict[str, str] = {}
    budget = _Budget(min(timeout, DEFAULT_TIMEOUT) if timeout > 0 else DEFAULT_TIMEOUT)
    found = find_npu_smi(env, root)
    npu_smi = str(found) if found is not None else None
    device: DeviceInfo | None = None

    info = None
    if npu_smi is None:
        tried.append(Message("devices-probe-not-found", places=", ".join(NPU_SMI_PLACES)))
    else:
        info = _run(runner, [npu_smi, "info"], "npu-smi info", budget, tried, raw)
    if info is not None:
        try:
            table = read_npu_smi_info(info, "npu-smi info")
        except NpuSmiError as exc:
            tried.append(Message("devices-probe-unreadable", command="npu-smi info", message=exc.message))
        else:
            boards: list[str] = []
            board_names: list[str] = []
            for npu, chip in board_needed(table):
                args = ["info", "-t", "board", "-i", str(npu)] + ([] if chip is None else ["-c", str(chip)])
                shown = "npu-smi " + " ".join(args)
                text = _run(runner, [str(npu_smi), *args], shown, budget, tried, raw)
                if text is not None:
                    boards.append(text)
                    board_names.append(shown)
            try:
                device = device_from_npu_smi(info, boards, source="npu-smi", info_source="npu-smi info",
                                             board_sources=board_names)
            except NpuSmiError as exc:
                # A board query printed something else (an error text with exit status 0).
                tried.append(Message("devices-probe-unreadable", command=exc.file or "npu-smi", message=exc.message))
                device = device_from_npu_smi(info, (), source="npu-smi", info_source="npu-smi info")
            if tried:
                # A board query that failed explains why the SoC stayed unknown.
                device = device._replace(notes=(*(step.text() for step in tried), *device.notes))
            tried.append(Message("devices-probe-ran", command="npu-smi info", count=len(table.rows)))
    if device is None:
        device = DeviceInfo(source="none", notes=(*(step.text() for step in tried), device_text("devices-probe-no-device")))
    versions = installed_versions(root, env)
    return HostProbe(device=device, toolkit_version=versions["toolkit_version"],
                     driver_version=versions["driver_version"], raw=raw, versions=versions, steps=tried)


# ---------------------------------------------------------------------------------------------
# Installed versions
# ---------------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------------
# What was tried, read back from a support bundle (written in the collector's language)
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _probe_patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Each devices-probe-* template of the message tables (en and zh) as a pattern whose named
    groups are the template's placeholders."""
    patterns = []
    for code, template in message_table().items():
        if not code.startswith("devices-probe-"):
            continue
        for text in template.text.values():
            parts, seen = [], set()
            for literal, name in re.findall(r"(.*?)(?:\{(\w+)\}|$)", text, flags=re.S):
                parts.append(re.escape(literal))
                if name:
                    parts.append(f"(?P={name})" if name in seen else f"(?P<{name}>.+?)")
                    seen.add(name)
            patterns.append((code, re.compile("".join(parts), re.S)))
    return tuple(patterns)


def note_message(note: str) -> Message:
    """A note of the bundle's npu_smi section as the message it was written from, so that it is
    said in the reader's language: the collector wrote what it tried in the customer's language
    (app.device.hostprobe's devices-probe-* messages). A note no template matches stays as it is."""
    for code, pattern in _probe_patterns():
        match = pattern.fullmatch(note)
        if match:
            return Message(code, **match.groupdict())
    return Message.literal(note)


def notes_message(text: str) -> Message:
    """Notes joined with "; " (what the collector tried, as the bundle's `unreadable` entries for
    npu-smi carry them), each said again in the reader's language where a template matches."""
    whole = note_message(text)
    if whole.code is not None:
        return whole
    parts: list[Message] = []
    pending: list[str] = []
    for piece in text.split("; "):
        pending.append(piece)
        found = note_message("; ".join(pending))
        if found.code is not None:
            parts.append(found)
            pending = []
    if pending or not parts:
        parts.append(Message.literal("; ".join(pending)))
    return JoinedMessage([p for p in parts if p.code is not None or p.params.get("text")])


class JoinedMessage(Message):
    """Several messages as one parameter, joined with "; " in whichever language is asked."""

    def __init__(self, parts: list[Message]):
        super().__init__("support-joined")
        self.parts = list(parts)

    def text(self, lang: str | None = None) -> str:
        return "; ".join(part.text(lang) for part in self.parts)
