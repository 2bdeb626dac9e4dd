"""`diagnose --env-file` on launch scripts, read with bash's grammar (app/io/shellread.py), as whole processes.

    .venv/bin/python tests/bench/bench_envfile.py [ROUNDS]      (default 21 rounds, or BENCH_ROUNDS)

Two measures, each an A/B pair alternating round by round (harness.alternate):

- `cann-config diagnose --json --env-file tests/data/shell/issue_cases.sh` (a launch script with
  a sourced file, branches, eval and a heredoc: the parser's import and one parse) against
  `python -c "import configobj"`, the baseline of `diagnose --ini` in bench_cli.py, with the same
  goal (2.5x): reading a launch script must not make `diagnose` start slower than reading an ini;
- the same command on a 2,000-line script (the script above repeated) against it on a 3-line env
  file: what the parse and the walk cost per line (goal 1.5x);
- the launch-script corpus (tests/data/shell/corpus/, real public scripts): `diagnose --env-file`
  on its largest file against `python -c "import configobj"` (goal 2.5x, as the first row), and
  every corpus file read with `load_env_file` in one process against that process reading the
  3-line env file once (goal 1.5x: reading two dozen real launch scripts costs less than half a
  start-up more).

Every command runs in LANG=C.UTF-8 with HOME in an empty temporary dir, bytecode compiled.
"""

from __future__ import annotations

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
    emit_rows,
    rounds_from_argv,
    wall,
)

SCRIPT = ROOT / "tests" / "data" / "shell" / "issue_cases.sh"
CORPUS = ROOT / "tests" / "data" / "shell" / "corpus"
READ_ALL = ("import sys\nfrom pathlib import Path\nfrom cann_config.app.io.envfile import load_env_file\n"
            "for name in sys.argv[1:]:\n    load_env_file(Path(name))\n")


def main() -> int:
    rounds = rounds_from_argv(21)
    compile_bytecode()
    cli = cann_config()
    with tempfile.TemporaryDirectory(prefix="bench_envfile_") as tmp:
        env = child_env(HOME=tmp, drop_prefixes=("ASCEND_", "ACL_", "PYTORCH_"))
        big = Path(tmp) / "big.sh"
        body = SCRIPT.read_text(encoding="utf-8").replace('. "$SCRIPT_DIR/issue_cases_env.sh"\n', "")
        lines = body.count("\n")
        big.write_text(body * (2000 // lines + 1), encoding="utf-8")
        small = Path(tmp) / "small.env"
        small.write_text("export ASCEND_MAX_OP_CACHE_SIZE=1000\nexport ASCEND_REMAIN_CACHE_SIZE_RATIO=60\n"
                         "export ASCEND_CACHE_PATH=/data/cache\n", encoding="utf-8")
        diagnose = [*cli, "diagnose", "--json", "--env-file"]
        corpus = sorted(str(p) for p in CORPUS.rglob("*.sh"))
        largest = max(corpus, key=lambda name: Path(name).stat().st_size)
        pairs = [
            ("diagnose --env-file launch script / import configobj", [*diagnose, str(SCRIPT)],
             [sys.executable, "-c", "import configobj"], "python -c 'import configobj'", 2.5),
            ("diagnose --env-file 2,000-line script / 3-line env file", [*diagnose, str(big)],
             [*diagnose, str(small)], "diagnose --env-file small.env", 1.5),
            (f"diagnose --env-file largest corpus script ({Path(largest).name}) / import configobj",
             [*diagnose, largest], [sys.executable, "-c", "import configobj"], "python -c 'import configobj'", 2.5),
            (f"load_env_file on all {len(corpus)} corpus scripts / on a 3-line env file",
             [sys.executable, "-c", READ_ALL, *corpus], [sys.executable, "-c", READ_ALL, str(small)],
             "load_env_file small.env", 1.5),
        ]
        rows = []
        for label, command, baseline, base_name, goal in pairs:
            result = alternate(label, wall(command, env, ok=(0, 1)), wall(baseline, env, ok=(0, 1)), rounds)
            print(result.describe(label.split(" / ")[0], base_name))
            rows.append((label, result, goal))
    emit_rows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
