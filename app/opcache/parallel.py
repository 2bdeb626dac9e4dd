"""A cache measurement shared among processes: the walk split by subdir.

Why: a cache is measured by a walk (an `lstat` per file, and the bookkeeping of each in Python);
threads would share one interpreter lock, so the walk is shared among processes instead (issue
30; docs/architecture.md#scanning). The prediction's reads of kernel jsons need no process of
their own: the C loops read them in threads that hold no interpreter lock
(app/opcache/cleanup.py _Steps; the `threads` it is given is this pool's process count).

How:
- the walk: this process lists kernel_cache and each SoC dir's own entries, then hands the SoC
  dirs' subdirs out as units (round robin); each process walks its units with the serial walk's
  rules (app.opcache.scanner.walk_part) and this process joins the parts in the serial walk's
  order (scanner.join_part: hard links counted once across parts), so the result is the serial
  walk's.

The worker count follows the CPUs this process may run on (`os.sched_getaffinity`) and the load
(`os.getloadavg`): one process when only one core is free (`worker_count`); the environment
variable CANN_CONFIG_SCAN_WORKERS sets it (the benchmarks, a user who knows better). A worker is
a fork of this process when it is single-threaded and has no Qt loaded (the CLI: a fork costs ~1
ms); otherwise (the GUI, whose threads a fork would copy in an undefined state) it is a new
interpreter, `python -m cann_config.app.opcache.parallel`; a frozen bundle uses one process. A
worker that fails or dies costs time, never the result: its share is done here again.

CANN_CONFIG_SCAN_STATS=1 prints one line per process to stderr at the end: its role, peak RSS and
CPU seconds, and for this process the part of them its reading threads used
(tests/bench/bench_scan.py reads it).
"""

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cann_config.app.opcache.scanner import WalkPart, walk_part

ENV_WORKERS = "CANN_CONFIG_SCAN_WORKERS"
ENV_STATS = "CANN_CONFIG_SCAN_STATS"
MAX_WORKERS = 16
_HEADER_BYTES = 8  # the length of a message, little-endian
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# A worker's answers can be megabytes (the names of its jsons); a bigger pipe lets it write them
# while this process is still busy.
_PIPE_BYTES = 1 << 20


def worker_count(affinity: int | None = None, load: float | None = None,
                 environ: "os._Environ[str] | dict[str, str] | None" = None) -> int:
    """How many processes measure a cache: the free cores, at least 1.

    `affinity`: the CPUs this process may run on (default `os.sched_getaffinity`); `load`: the
    1-minute load average (default `os.getloadavg`). The free cores are the CPUs less the load,
    rounded; so on 2 CPUs a load of 1 (another busy process) gives 1 process, a load under 0.5
    gives 2. CANN_CONFIG_SCAN_WORKERS=N in `environ` sets N (1..MAX_WORKERS).
    """
    env = os.environ if environ is None else environ
    forced = env.get(ENV_WORKERS, "").strip()
    if forced.isdigit() and int(forced) > 0:
        return min(int(forced), MAX_WORKERS)
    if affinity is None:
        try:
            affinity = len(os.sched_getaffinity(0))
        except (AttributeError, OSError):
            affinity = os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except (AttributeError, OSError):
            load = 0.0
    return max(1, min(affinity, MAX_WORKERS, int(affinity - load + 0.5)))


def _can_fork() -> bool:
    """Whether forking this process is safe: one thread and no Qt (a Qt process keeps threads
    and state a fork copies half-way)."""
    if any(name.startswith("PySide6") for name in sys.modules):
        return False
    threading = sys.modules.get("threading")
    return threading is None or threading.active_count() == 1


# pickle is imported at the first message (a scan that splits nothing never needs it).
def _send(fd: int, obj: Any) -> None:
    import pickle

    data = pickle.dumps(obj, pickle.HIGHEST_PROTOCOL)
    view = memoryview(len(data).to_bytes(_HEADER_BYTES, "little") + data)
    while view:
        view = view[os.write(fd, view):]


def _recv(fd: int) -> Any:
    import pickle

    size = int.from_bytes(_read_exactly(fd, _HEADER_BYTES), "little")
    return pickle.loads(_read_exactly(fd, size))


def _read_exactly(fd: int, size: int) -> bytearray:
    """`size` bytes from `fd`, read into one buffer (no copy of a megabytes answer)."""
    buffer = bytearray(size)
    view = memoryview(buffer)
    done = 0
    while done < size:
        got = os.readv(fd, [view[done:]])
        if not got:
            raise EOFError("the scan worker ended")
        done += got
    return buffer


def _threads_cpu() -> str:
    """The stats line's CPU seconds of the prediction's reading threads (app/opcache/_native.c),
    which are part of this process's."""
    from cann_config.app.opcache import native

    return "" if native.native is None else f" threads_cpu_seconds {native.native.helper_cpu_seconds():.3f}"


def _usage() -> tuple[int, float]:
    """This process's peak RSS (KiB) and CPU seconds (user and system)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_maxrss, usage.ru_utime + usage.ru_stime


class _Worker:
    """One worker process and its two pipes."""

    def __init__(self, pid: int, to_fd: int, from_fd: int, proc: Any = None) -> None:
        self.pid, self.to_fd, self.from_fd, self.proc = pid, to_fd, from_fd, proc
        self.alive = True
        self.usage: tuple[int, float] | None = None  # peak RSS (KiB), CPU seconds: sent at its end

    def ask(self, request: Any) -> bool:
        if not self.alive:
            return False
        try:
            _send(self.to_fd, request)
        except OSError:
            self.kill()
            return False
        return True

    def answer(self) -> Any:
        """The answer to the last request; None when the worker failed (it is then ended)."""
        if not self.alive:
            return None
        try:
            reply = _recv(self.from_fd)
        except Exception:  # noqa: BLE001 - EOF, a broken pipe or a torn message: the worker failed
            self.kill()
            return None
        if not isinstance(reply, tuple) or reply[0] != "ok":
            self.kill()
            return None
        return reply[1]

    def stop(self) -> None:
        """Ask the worker to end and wait for it."""
        if self.alive and self.ask(("exit",)):
            self.usage = self.answer()
        self.kill()

    def kill(self) -> None:
        if self.alive:
            self.alive = False
            for fd in (self.to_fd, self.from_fd):
                try:
                    os.close(fd)
                except OSError:
                    pass
        if self.pid:
            import signal

            pid, self.pid = self.pid, 0
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
                if done == 0:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
            except (ChildProcessError, ProcessLookupError):
                pass
            if self.proc is not None:
                self.proc.returncode = -1  # reaped here; keeps subprocess from warning


def _start_worker(others: list[_Worker]) -> _Worker | None:
    """A worker: a fork when that is safe, else a new interpreter; None when none can start.
    `others`: the workers started before (a fork closes their pipes, so that each sees the end
    of its request pipe when this process ends)."""
    req_r, req_w = os.pipe()
    ans_r, ans_w = os.pipe()
    try:
        import fcntl

        fcntl.fcntl(ans_w, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    except (ImportError, AttributeError, OSError):
        pass
    try:
        if _can_fork():
            pid = os.fork()
            if pid == 0:  # the worker
                code = 1
                try:
                    os.close(req_w)
                    os.close(ans_r)
                    for other in others:
                        os.close(other.to_fd)
                        os.close(other.from_fd)
                    serve(req_r, ans_w)
                    code = 0
                finally:
                    os._exit(code)
            return _Worker(pid, req_w, ans_r)
        if getattr(sys, "frozen", False):
            raise OSError("a frozen bundle starts no worker interpreter")
        import subprocess

        proc = subprocess.Popen([sys.executable, "-m", "cann_config.app.opcache.parallel", str(req_r), str(ans_w)],
                                pass_fds=(req_r, ans_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        return _Worker(proc.pid, req_w, ans_r, proc)
    except OSError:
        for fd in (req_w, ans_r):
            os.close(fd)
        return None
    finally:
        os.close(req_r)
        os.close(ans_w)


class ScanPool:
    """This process and `workers - 1` worker processes, started at the first use.

    Implements app.opcache.scanner.WalkSplitter for `scan_cache(splitter=...)`. `close()` ends
    the workers.
    """

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        # Below this a split costs more than it saves: a fork costs ~1 ms, a new interpreter ~0.1 s.
        self.min_units = 8 if _can_fork() else 64
        self._started = False
        self._team: list[_Worker] = []
        self._walk_units: list[tuple[_Worker, list[int]]] = []

    def _start(self) -> None:
        if self._started:
            return
        self._started = True
        for _ in range(self.workers - 1):
            worker = _start_worker(self._team)
            if worker is None:
                break
            self._team.append(worker)
        self.workers = 1 + len(self._team)

    def _alive(self) -> list[_Worker]:
        return [w for w in self._team if w.alive]

    # -- the walk (scanner.WalkSplitter) --

    def start_walk(self, kernel_cache: str, dev: int, collect: bool, units: list[tuple[int, str, str]]) -> list[int]:
        if len(units) < self.min_units:
            return [unit_id for unit_id, _soc, _sub in units]
        self._start()
        team = self._alive()
        shares: list[list[int]] = [[] for _ in range(len(team) + 1)]
        for unit_id, _soc, _sub in units:
            shares[unit_id % len(shares)].append(unit_id)
        mine = shares[0]
        self._walk_units = []
        for worker, ids in zip(team, shares[1:], strict=True):
            if not ids:
                continue
            if worker.ask(("walk", kernel_cache, dev, collect, [units[i] for i in ids])):
                self._walk_units.append((worker, ids))
            else:
                mine += ids
        return sorted(mine)

    def finish_walk(self) -> tuple[dict[int, WalkPart], list[int]]:
        parts: dict[int, WalkPart] = {}
        left: list[int] = []
        for worker, ids in self._walk_units:
            answer = worker.answer()
            if answer is None:
                left += ids
            else:
                parts.update(answer)
        self._walk_units = []
        return parts, sorted(left)

    def abandon(self) -> None:
        for worker in self._team:
            worker.kill()
        self._walk_units = []

    def close(self) -> None:
        for worker in self._team:
            worker.stop()
        if os.environ.get(ENV_STATS):
            peak, cpu = _usage()
            lines = [f"scan process main workers {self.workers} peak_rss_kib {peak} cpu_seconds {cpu:.3f}"
                     + _threads_cpu()]
            lines += [f"scan process worker peak_rss_kib {w.usage[0]} cpu_seconds {w.usage[1]:.3f}"
                      if w.usage is not None else "scan process worker failed" for w in self._team]
            print("\n".join(lines), file=sys.stderr, flush=True)
        self._team = []


@contextmanager
def scan_pool(workers: int | None = None) -> Iterator[ScanPool | None]:
    """A ScanPool of `workers` processes (default worker_count()), None when that is one."""
    count = worker_count() if workers is None else workers
    if count <= 1:
        try:
            yield None
        finally:
            if workers is None and os.environ.get(ENV_STATS):
                peak, cpu = _usage()
                print(f"scan process main workers 1 peak_rss_kib {peak} cpu_seconds {cpu:.3f}" + _threads_cpu(),
                      file=sys.stderr, flush=True)
        return
    pool = ScanPool(count)
    try:
        yield pool
    finally:
        pool.close()


def _walk_units(kernel_cache: str, dev: int, collect: bool,
                units: list[tuple[int, str, str]]) -> dict[int, WalkPart]:
    """A worker's walk of its units (see scanner.walk_part)."""
    parts: dict[int, WalkPart] = {}
    root = os.open(kernel_cache, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    soc_fds: dict[str, int] = {}
    try:
        for unit_id, soc, sub in units:
            fd = soc_fds.get(soc)
            if fd is None:
                try:
                    fd = soc_fds[soc] = os.open(soc, _DIR_FLAGS, dir_fd=root)
                except OSError:
                    fd = soc_fds[soc] = -1
            if fd < 0:
                continue  # gone since this process listed it: the unit is left out, as a vanished dir
            parts[unit_id] = walk_part(fd, sub, f"{kernel_cache}/{soc}/{sub}", dev, collect)
    finally:
        for fd in soc_fds.values():
            if fd >= 0:
                os.close(fd)
        os.close(root)
    return parts


def serve(request_fd: int, answer_fd: int) -> None:
    """A worker's loop: answer requests until "exit" (or the end of the request pipe)."""
    import gc

    gc.disable()  # the parts it builds hold no cycle (app/collector.py)

    while True:
        try:
            request = _recv(request_fd)
        except EOFError:
            return
        kind = request[0]
        if kind == "exit":
            _send(answer_fd, ("ok", _usage()))
            return
        try:
            if kind == "walk":
                answer: Any = _walk_units(*request[1:])
            else:
                raise ValueError(f"unknown request {kind!r}")
        except Exception as exc:  # noqa: BLE001 - reported to the parent, which does the work itself
            _send(answer_fd, ("error", repr(exc)))
            continue
        _send(answer_fd, ("ok", answer))


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
