"""`cann-config triage [FILE|-]`: the NPU memory errors in a log, their cause and what to change.

    cann-config triage [FILE|-] [--env-file F | --bundle B] [--json]
                       [--framework ID] [--gpu-memory-utilization U] [--communicators N]

FILE is a whole log or a pasted error; `-` (or nothing, with a pipe) reads standard input. With
`--env-file` or `--bundle` the suggestions start from the job's own PYTORCH_NPU_ALLOC_CONF and the
HBM budget from its HCCL_BUFFSIZE (app/triage/analysis.py; docs/cann/npu-memory.md).

Exit status (docs/architecture.md#exit-status): 1 when a memory error is found, 0 when none is
(and it says so), 2 for an unusable input or bad usage, with one line naming the file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from cann_config.app.errors import Message, UsageError
from cann_config.app.findings import Finding, severity_word
from cann_config.app.i18n import current_language
from cann_config.app.textsafe import json_text, terminal_text

FRAMEWORKS = ("pytorch", "vllm-ascend", "mindspore")

DESCRIPTION = ("Find every NPU out-of-memory error in a log or a pasted error text (torch_npu, vLLM-Ascend, HCCL, "
               "MindSpore), with every number in bytes, what holds the memory (fragmentation, held outside "
               "PyTorch, capacity, ...) and which setting helps. Exit 1 when an error is found, 0 when none is.")


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `cann-config triage` (app/cli/__init__.py creates the parser)."""
    p.add_argument("input", nargs="?", default="-", metavar="FILE|-",
                   help="the log or error text ('-' or nothing: standard input)")
    p.add_argument("--env-file", metavar="FILE", help="the job's env file: suggestions start from its settings")
    p.add_argument("--bundle", metavar="FILE", help="a support bundle from 'cann-config collect': its environment")
    p.add_argument("--framework", choices=FRAMEWORKS, help="what the job runs, for the HBM budget: %(choices)s")
    p.add_argument("--gpu-memory-utilization", metavar="U", help="the serving stack's gpu_memory_utilization, (0, 1]")
    p.add_argument("--communicators", metavar="N", type=int, help="how many HCCL communicators the job creates per card")
    p.add_argument("--json", action="store_true", help="print JSON (keys and codes never change with --lang)")


def _t(code: str, lang: str, **params: Any) -> str:
    return Message(code, **params).text(lang)


def job_environment(env_file: str | None, bundle: str | None) -> tuple[dict[str, str] | None, str | None,
                                                                         list[Finding]]:
    """The job's variables from `--env-file` or `--bundle` (None when neither is given), the file
    they come from, and what reading it said."""
    if env_file and bundle:
        raise UsageError.from_code("triage-error-env-and-bundle")
    if env_file:
        from cann_config.app.io.envfile import load_env_file

        env = load_env_file(env_file)
        return dict(env.values), env_file, list(env.findings)
    if bundle:
        from cann_config.app.support.bundle import load_bundle

        return dict(load_bundle(bundle).environ), bundle, []
    return None, None, []


def _utilization(text: str | None) -> float | None:
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise UsageError.from_code("triage-error-utilization", value=text)
    return value


def _finding_line(f: Finding, lang: str) -> str:
    return f"  {severity_word(f.severity, lang)}: {f.message(lang)}"


def budget_text(budget: Any, lang: str) -> list[str]:
    """The HBM budget as lines of text (the JSON is budget.to_json())."""
    from cann_config.app.triage.analysis import shown_size

    unknown = _t("triage-label-unknown", lang)

    def size(n: int | None) -> str:
        return unknown if n is None else shown_size(n)

    line = _t("triage-label-budget", lang, total=size(budget.total), framework=size(budget.framework_bytes),
              hccl=size(budget.hccl_bytes), per=size(budget.hccl_per_communicator), buffsize=budget.hccl_buffsize_mb,
              source=_t(f"triage-label-source-{budget.hccl_source}", lang),
              communicators=unknown if budget.communicators is None else budget.communicators,
              p2p=size(budget.p2p_bytes), left=size(budget.left))
    lines = [line]
    if budget.unknown:
        lines.append(_t("triage-label-budget-unknown", lang, names=", ".join(budget.unknown)))
    return lines


def render_text(result: Any, lang: str) -> str:
    """The triage as a terminal reads it, in `lang`."""
    out: list[str] = []
    if result.events:
        out.append(_t("triage-label-summary", lang, count=len(result.events), source=result.source))
    for event in result.events:
        device = "" if event.raw.device is None else _t("triage-label-device", lang, device=event.raw.device)
        out.append("")
        out.append(_t("triage-label-event", lang, line=event.raw.line, kind=event.kind, device=device,
                      cause=event.cause))
        out += [_finding_line(f, lang) for f in event.findings]
        exports = event.to_json(lang)["suggested"]["exports"]
        if exports:
            out.append(_t("triage-label-suggested", lang, format=exports[0]["format"]))
            out += ["    " + x for x in exports[0]["text"].rstrip("\n").splitlines()]
        else:
            out.append("  " + _t("triage-label-no-change", lang))
    if result.findings:
        out.append("")
        out += [_finding_line(f, lang) for f in result.findings]
    if result.events or result.budget.total is not None:
        out.append("")
        out += budget_text(result.budget, lang)
    return terminal_text("\n".join(out).lstrip("\n"), one_line=False) + "\n"


def run(args: argparse.Namespace) -> int:
    from cann_config.app.triage.analysis import triage_text
    from cann_config.app.triage.logfile import read_log

    lang = current_language()
    utilization = _utilization(args.gpu_memory_utilization)
    environ, environ_source, env_findings = job_environment(args.env_file, args.bundle)
    text, source = read_log(args.input)
    result = triage_text(text, source=source, environ=environ, environ_source=environ_source,
                         framework=args.framework, gpu_memory_utilization=utilization,
                         communicators=args.communicators)
    result.findings = env_findings + result.findings
    if args.json:
        print(json_text(json.dumps(result.to_json(lang), ensure_ascii=False, indent=2)))
    else:
        sys.stdout.write(render_text(result, lang))
    return 1 if result.found else 0


def suggested_options(env: Mapping[str, str]) -> dict[str, Any]:
    """The catalog options a suggested environment sets (PYTORCH_NPU_ALLOC_CONF's keys), for the
    wizard's Apply: option id -> value."""
    from cann_config.app.allocconf import VARIABLE, parse_alloc_conf

    conf = env.get(VARIABLE)
    return dict(parse_alloc_conf(conf).values) if conf else {}

