"""What vLLM-Ascend does to torch_npu's allocator variable before torch_npu reads it.

Why this module exists: a serving process started by vLLM-Ascend does not run with the
PYTORCH_NPU_ALLOC_CONF the user wrote. At start-up vLLM-Ascend rewrites the variable, its RL mode
removes items from it, and its sleep mode's memory pool refuses some values; each step is a plain
string operation with traps of its own. This module holds those rules, pinned to the vLLM-Ascend
source they were read from, so that `diagnose`, the exports and the wizard show what torch_npu
will really read (docs/cann/vllm-ascend.md, which quotes the source):

- start-up (`vllm_ascend/platform.py` `_set_pytorch_npu_alloc_env`, since PR #5855, v0.14.0rc1),
  only when sleep mode is off: the value is the variable, or "expandable_segments:True" when it is
  unset; unless one of the substrings `expandable_segments`, `max_split_size_mb`,
  `garbage_collection_threshold` occurs in it, ",expandable_segments:True" is appended, and the
  result is written back to the environment;
- sleep mode (`--enable-sleep-mode`): the variable is left alone, but the memory pool
  (`vllm_ascend/device_allocator/camem.py` `CaMemAllocator.__init__`) asserts that the substring
  "expandable_segments:True" does not occur in it;
- RL mode (`additional_config.rl_config.enabled`, `vllm_ascend/ascend_config.py` calling
  `platform._disable_expandable_segments`, since PR #13748 of 2026-08-19, newer than v0.22.1rc1):
  runs before the start-up step; it splits the value at commas, strips each item, and drops the
  empty ones and those starting with "expandable_segments:".

Everything here is a string rule; what torch_npu then makes of the result is app/allocconf.py's.

Public API:
    FRAMEWORK, SOURCE_VERSION, RULE_SINCE, RL_SINCE, SLEEP_QUESTION, RL_QUESTION
    rl_mode_filter(value) -> str | None
    startup_rewrite(value, *, sleep_mode=False) -> str | None
    serving_value(value, *, sleep_mode=False, rl_mode=False) -> str | None
    sleep_mode_refuses(value) -> bool
    serving_findings(value, *, file=None, line=None, answers=None) -> list[Finding]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from cann_config.app.findings import Finding, make_finding

FRAMEWORK = "vllm-ascend"
VARIABLE = "PYTORCH_NPU_ALLOC_CONF"
# The source the rules below were read from (vllm-project/vllm-ascend main).
SOURCE_VERSION = "vllm-ascend main 182b75e (2026-08-22)"
# The start-up rewrite as it stands came with PR #5855 (2026-01-19), first released in v0.14.0rc1;
# releases before it did not touch the variable.
RULE_SINCE = "v0.14.0rc1 (PR #5855, 2026-01)"
# RL mode's removal came with PR #13748 (2026-08-19), in no release tag of the snapshot.
RL_SINCE = "main after v0.22.1rc1 (PR #13748, 2026-08-19)"
DEFAULT_VALUE = "expandable_segments:True"
APPENDED = ",expandable_segments:True"
# Any of these substrings stops the start-up step from appending (a plain `in` test).
SUBSTRINGS = ("expandable_segments", "max_split_size_mb", "garbage_collection_threshold")
# The sleep-mode memory pool's assertion (a plain `in` test).
SLEEP_REFUSED = "expandable_segments:True"
RL_PREFIX = "expandable_segments:"
# The questions only the user can answer (the tool cannot see the launch flags), as the catalog
# notes' `question` and the wizard's answers name them.
SLEEP_QUESTION = "vllm-sleep-mode"
RL_QUESTION = "vllm-rl-mode"


def rl_mode_filter(value: str | None) -> str | None:
    """`_disable_expandable_segments`: None (unset) and "" stay as they are; otherwise the items
    split at commas, stripped, without empty ones and those starting with "expandable_segments:"."""
    if not value:
        return value
    return ",".join(item.strip() for item in value.split(",")
                    if item.strip() and not item.strip().startswith(RL_PREFIX))


def startup_rewrite(value: str | None, *, sleep_mode: bool = False) -> str | None:
    """`_set_pytorch_npu_alloc_env`: the variable after start-up (None: still unset)."""
    if sleep_mode:
        return value
    conf = DEFAULT_VALUE if value is None else value
    if not any(word in conf for word in SUBSTRINGS):
        conf += APPENDED
    return conf


def serving_value(value: str | None, *, sleep_mode: bool = False, rl_mode: bool = False) -> str | None:
    """The variable torch_npu reads in a vLLM-Ascend process: RL mode's filter first (it runs
    when the Ascend config is read), then the start-up step."""
    if rl_mode:
        value = rl_mode_filter(value)
    return startup_rewrite(value, sleep_mode=sleep_mode)


def sleep_mode_refuses(value: str | None) -> bool:
    """Sleep mode's memory pool stops the server (AssertionError) with this value."""
    return SLEEP_REFUSED in (value or "")


def _has_item(value: str, key: str) -> bool:
    """`key` is an item of its own ("key:..." after stripping), not just a substring."""
    return any(item.strip().replace(" ", "").startswith(key + ":") for item in value.split(","))


def _shown(value: str | None) -> str:
    return "(unset)" if value is None else repr(value)


def serving_findings(value: str | None, *, file: str | None = None, line: int | None = None,
                     answers: Mapping[str, bool] | None = None) -> list[Finding]:
    """What the user must know about `value` (the variable as the user sets it; None: unset) in a
    vLLM-Ascend process. `answers`: {SLEEP_QUESTION: bool, RL_QUESTION: bool}; a question answered
    no turns its findings into information, unanswered or yes keeps their severity."""
    answers = answers or {}
    where: dict[str, Any] = {"file": file, "line": line, "version": SOURCE_VERSION, "since": RULE_SINCE,
                             "variable": VARIABLE}
    findings: list[Finding] = []
    after = startup_rewrite(value)
    if after != value:
        findings.append(make_finding("vllm-alloc-rewritten", before=_shown(value), after=after, **where))
    if value == "":
        findings.append(make_finding("vllm-alloc-empty", after=after, **where))
    raw = value or ""
    if "pin_memory_expandable_segments" in raw and not _has_item(raw, "expandable_segments") \
            and not any(word in raw for word in SUBSTRINGS[1:]):
        findings.append(make_finding("vllm-alloc-pin-memory-substring", value=raw, **where))
    elif after == value and value and not _has_item(raw, "expandable_segments"):
        word = next(word for word in SUBSTRINGS if word in raw)
        findings.append(make_finding("vllm-alloc-default-not-added", value=raw, word=word, **where))
    # torch_npu drops spaces (c10 ConfigTokenizer), the two `in` tests of vLLM-Ascend do not.
    spaced = [item.strip() for item in raw.split(",")
              if item.replace(" ", "") == SLEEP_REFUSED and SLEEP_REFUSED not in item]
    if spaced:
        findings.append(make_finding("vllm-alloc-spaced-expandable", item=spaced[0], **where))

    def asked(question: str, code: str, **params: Any) -> None:
        finding = make_finding(code, **params, **where)
        if answers.get(question) is False and finding.severity != "info":
            finding = finding._replace(severity="info")
        findings.append(finding)

    if sleep_mode_refuses(value):
        asked(SLEEP_QUESTION, "vllm-sleep-mode-refused", value=raw)
    else:
        asked(SLEEP_QUESTION, "vllm-sleep-mode-value", value=_shown(value))
    rl = rl_mode_filter(value)
    if rl != value and startup_rewrite(rl) != after:
        final = startup_rewrite(rl)
        code = "vllm-rl-mode-leading-comma" if (final or "").startswith(",") else "vllm-rl-mode-removes"
        asked(RL_QUESTION, code, before=raw, filtered=rl, after=final, rl_since=RL_SINCE)
    return findings
