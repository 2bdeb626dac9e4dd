"""What a 1 MB op_cache.ini of junk lines (inside every documented limit) costs, against a normal
one, through the commands support runs: `diagnose --ini`, `gui --smoke --ini`, and `fleet` over
eight bundles that each carry such a file. Each row is a whole process from the installed
console script, alternated with the same command on a normal file; time is shown as the median
per-round ratio junk / normal and as the extra seconds, memory as the extra peak RSS
(MiB) of the junk run over the normal one; the rows judge those extras against the bounds that
docs/architecture.md#bounds states (2 s per file read, 64 MiB), the ratio is printed beside."""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.bench.harness import (  # noqa: E402
    ROOT,
    alternate,
    cann_config,
    child_env,
    compile_bytecode,
    emit_row,
    rounds_from_env,
    run_process,
)
from tests.junkfiles import NORMAL_INI, bundle_with_ini, junk_ini_text  # noqa: E402

TEMPLATE = ROOT / "tests" / "data" / "bundles" / "a2-910b3.json"
NODES = 8


def measure(label: str, junk_cmd: list[str], normal_cmd: list[str], rounds: int, env: dict[str, str],
            extra_seconds_goal: float, rss_goal_mib: float = 64) -> None:

    def timed(cmd: list[str], sink: list[int]):
        def run() -> float:
            done = run_process(cmd, env, ok=(0, 1))
            sink.append(done.max_rss_kib)
            return done.seconds
        return run

    junk_rss: list[int] = []
    normal_rss: list[int] = []
    result = alternate(label, timed(junk_cmd, junk_rss), timed(normal_cmd, normal_rss), rounds)
    print(result.describe("junk", "normal"))
    rss_extra = [(j - n) / 1024 for j, n in zip(junk_rss, normal_rss, strict=True)]
    print(f"{label}: peak RSS junk median {statistics.median(junk_rss) / 1024:.1f} MiB, "
          f"normal {statistics.median(normal_rss) / 1024:.1f} MiB")
    # The bound is on the extra the junk costs (seconds, MiB); the ratio is printed beside it.
    extra = sorted(a - b for a, b in zip(result.a, result.b, strict=True))
    emit_row(f"{label}: extra time, junk - normal", statistics.median(extra), (extra[0], extra[-1]),
             extra_seconds_goal, unit=" s", note=f"ratio {result.ratio:.2f}x")
    ordered = sorted(rss_extra)
    emit_row(f"{label}: peak RSS, junk - normal", statistics.median(ordered), (ordered[0], ordered[-1]),
             rss_goal_mib, unit=" MiB")


def main() -> int:
    compile_bytecode()
    rounds = rounds_from_env(5)
    tool = cann_config()
    with tempfile.TemporaryDirectory(prefix="cann-config-bench-junk-") as tmp:
        root = Path(tmp)
        env = child_env(HOME=str(root / "home"), QT_QPA_PLATFORM="offscreen")
        for name in ("ASCEND_CACHE_PATH", "ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO"):
            env.pop(name, None)
        junk_text = junk_ini_text()
        junk, normal = root / "junk.ini", root / "normal.ini"
        junk.write_text(junk_text, encoding="utf-8")
        normal.write_text(NORMAL_INI, encoding="utf-8")
        measure("diagnose --ini (1 MB of junk lines)", [*tool, "diagnose", "--ini", str(junk)],
                [*tool, "diagnose", "--ini", str(normal)], rounds, env, 2.0)
        measure("gui --smoke --ini (1 MB of junk lines)", [*tool, "gui", "--smoke", "--ini", str(junk)],
                [*tool, "gui", "--smoke", "--ini", str(normal)], rounds, env, 2.0)
        fleets = {}
        for kind, text in (("junk", junk_text), ("normal", NORMAL_INI)):
            folder = root / f"fleet-{kind}"
            folder.mkdir()
            for number in range(NODES):
                bundle_with_ini(TEMPLATE, text, folder / f"node{number}.json")
            fleets[kind] = folder
        measure(f"fleet of {NODES} bundles (each 1 MB of junk lines)", [*tool, "fleet", str(fleets["junk"])],
                [*tool, "fleet", str(fleets["normal"])], max(3, rounds // 2), env, 2.0 * NODES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
