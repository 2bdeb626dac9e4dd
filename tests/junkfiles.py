"""Hostile-but-legal input shared by the tests and the benchmarks: an op_cache.ini of junk lines
inside every documented limit (1 MB), and a support bundle that carries one."""

from __future__ import annotations

import json
import random
from pathlib import Path

JUNK_LINES = ("x", "=", "garbage line here", "[bad", "max_op_cache_size=abc", "  foo = bar", "#c", "\tkey=", "[s]",
              "remain_cache_size_ratio=900", "  [indented]", "  # indented comment")
HEAD = ("[op_compiler_cache]", "max_op_cache_size=500", "remain_cache_size_ratio=80")
NORMAL_INI = "[op_compiler_cache]\nmax_op_cache_size=500\nremain_cache_size_ratio=80\nadk_version=8.5.0\nops_version=8.5.0\n"


def junk_ini_text(size: int = 1_000_000, seed: int = 7) -> str:
    """~`size` bytes: a valid head, then junk lines drawn from JUNK_LINES."""
    rng = random.Random(seed)
    lines = list(HEAD)
    total = sum(len(line) + 1 for line in lines)
    while total < size:
        line = rng.choice(JUNK_LINES)
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines) + "\n"


def junk_ini(path: Path, size: int = 1_000_000, seed: int = 7) -> int:
    """Write junk_ini_text to `path`; the number of lines."""
    text = junk_ini_text(size, seed)
    path.write_text(text, encoding="utf-8")
    return text.count("\n")


def bundle_with_ini(template: Path, ini_text: str, out: Path) -> Path:
    """A copy of the bundle `template` whose op_cache.ini is `ini_text`."""
    data = json.loads(template.read_text(encoding="utf-8"))
    data["op_cache_ini"]["text"] = ini_text
    data["op_cache_ini"].pop("base64", None)
    out.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
    return out
