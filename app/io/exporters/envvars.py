"""The environment variables of a Profile: one decision for every export that sets variables.

Why this module exists: env-bash, env-fish and torch-npu set variables, and the fleet exports
(an Ansible profile file, a Kubernetes ConfigMap) carry the same ones; each must set exactly the
same names and values. Most options are one variable each (the catalog's `targets.env`); torch_npu's
allocator options are keys of ONE variable, PYTORCH_NPU_ALLOC_CONF, written by app/allocconf.py
with only the keys the user chose, in the catalog's order (docs/cann/torch-npu.md).

Public API:
    EnvVariable(name, value, kind, comments)
    env_variables(plan, slots=("env", "alloc_conf")) -> list[EnvVariable]
    env_values(plan) -> dict[name, str]          only what is set, as the process would see it
"""

from __future__ import annotations

from dataclasses import dataclass

from cann_config.app.allocconf import VARIABLE, alloc_conf_text
from cann_config.app.catalog import Value
from cann_config.app.io.exporters.plan import SERVING_FRAMEWORK, Entry, Plan, text_of
from cann_config.app.messages import message_table

# Entry kinds that write nothing but their comments.
_COMMENT_ONLY = ("not-set", "refused", "unavailable")


@dataclass(frozen=True)
class EnvVariable:
    """One variable of an export.

    `kind`: "set" (assigned), "default" (shown commented out: uncomment to pin the default),
    "comment" (only its comments: not set, refused or unavailable). `value` is what is assigned:
    the option's value (an int stays an int) or, for PYTORCH_NPU_ALLOC_CONF, the joined keys.
    """

    name: str
    value: Value
    kind: str
    comments: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """The value as the process sees it (environment values are text)."""
        return self.value if isinstance(self.value, str) else str(self.value)


def _alloc_variable(entries: list[Entry], plan: Plan) -> EnvVariable:
    chosen = {e.option.id: e.value for e in entries if e.kind == "set"}
    comments: list[str] = []
    for entry in entries:
        comments += entry.comments
    if f"export-text-env-{VARIABLE}" in message_table():
        comments.append(" ".join(text_of(f"export-text-env-{VARIABLE}", plan.lang).splitlines()))
    value = alloc_conf_text(chosen, plan.catalog)
    if plan.profile.framework == SERVING_FRAMEWORK:
        # What the serving stack turns the variable into (app/vllm_ascend.py).
        from cann_config.app.vllm_ascend import SOURCE_VERSION, startup_rewrite

        after = startup_rewrite(value if chosen else None)
        comments.append(text_of("export-text-vllm-alloc", plan.lang, after=after, version=SOURCE_VERSION))
    return EnvVariable(VARIABLE, value, "set" if chosen else "comment", tuple(comments))


def _ms_alloc_variable(entries: list[Entry], plan: Plan) -> EnvVariable:
    """MindSpore's MS_ALLOC_CONF from the chosen keys (app/mindspore_memory.py)."""
    from cann_config.app.mindspore_memory import ALLOC_VARIABLE, ms_alloc_conf_text

    chosen = {e.name or "": str(e.value) for e in entries if e.kind == "set"}
    comments: list[str] = []
    for entry in entries:
        comments += entry.comments
    comments.append(" ".join(text_of("export-text-env-MS_ALLOC_CONF", plan.lang).splitlines()))
    return EnvVariable(ALLOC_VARIABLE, ms_alloc_conf_text(chosen), "set" if chosen else "comment", tuple(comments))


def env_variables(plan: Plan, slots: tuple[str, ...] = ("env", "alloc_conf", "ms_alloc_conf")) -> list[EnvVariable]:
    """The variables `plan` sets, in the catalog's order of their options.

    Each entry of slot "env" is one variable; the entries of slot "alloc_conf" together are
    PYTORCH_NPU_ALLOC_CONF, placed where its first key is. An entry without a name (refused,
    unavailable) keeps its comments.
    """
    out: list[EnvVariable] = []
    alloc: list[Entry] = []
    alloc_at: int | None = None
    ms_alloc: list[Entry] = []
    ms_alloc_at: int | None = None
    for entry in plan.entries:
        if entry.slot not in slots or entry.kind == "elsewhere":
            continue
        if entry.slot == "alloc_conf":
            if alloc_at is None:
                alloc_at = len(out)
            alloc.append(entry)
            continue
        if entry.slot == "ms_alloc_conf":
            if ms_alloc_at is None:
                ms_alloc_at = len(out)
            ms_alloc.append(entry)
            continue
        kind = "comment" if entry.kind in _COMMENT_ONLY else entry.kind
        out.append(EnvVariable(entry.name or "", entry.value, kind, entry.comments))
    if ms_alloc:
        out.insert(ms_alloc_at or 0, _ms_alloc_variable(ms_alloc, plan))
    if alloc:
        out.insert(alloc_at or 0, _alloc_variable(alloc, plan))
    return out


def env_values(plan: Plan) -> dict[str, str]:
    """Only the variables that are set, name -> value as text (for a ConfigMap or a test)."""
    return {v.name: v.text for v in env_variables(plan) if v.kind == "set"}
