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

from cann_config.app.errors import UsageError
from cann_config.app.findings import Finding
from cann_config.app.i18n import current_language
from cann_config.app.textsafe import json_text

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


def run(args: argparse.Namespace) -> int:
    from cann_config.app.triage.analysis import triage_text
    from cann_config.app.triage.logfile import read_log
    from cann_config.app.triage.render import render_text

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
