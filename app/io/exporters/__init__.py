"""Exports: the user's choices as code and files they can paste, generated from the catalog.

People paste these straight into training scripts and shell profiles, so each export runs as it
is (its imports included), explains every setting with a comment taken from the catalog (the
value's meaning and its notes, in the reader's language), and reads back into the assistant
(app/io/importers.py). Every export is a pure function of a Profile and a few options: the same
Profile always gives the same bytes, and the preview can never be stale.

The names an option takes in each format come from `Option.targets` in resources/catalog.toml;
no CANN name that the catalog holds is written here. The formats are the rows of app/io/formats.py
(id, language, file name, where it takes effect, frameworks, writer, reader); what each writes,
and the catalog target it reads:

    tf1-estimator  MemoryConfig(...) keywords (targets.memory_config) and NPURunConfig(...)
                   keywords (targets.npu_run_config)
    tf1-session    custom_op.parameter_map[key].i / .s (targets.parameter_map)
    tf2            npu.global_options().<path> before npu.open() (targets.tf2)
    ge-options     a dict of GE option names with string values (targets.ge)
    torch-npu      Python for the top of a PyTorch script: os.environ["PYTORCH_NPU_ALLOC_CONF"] (targets.alloc_conf)
                   and the cache sizes before torch_npu is imported, then torch_npu.npu.set_option({...})
                   for torch_npu's own variables (targets.env["pytorch"]: the cache mode and directory)
    env-bash       environment variables for the framework (targets.env, and PYTORCH_NPU_ALLOC_CONF
                   built from targets.alloc_conf), bash syntax; env_variables() decides them
    env-fish       the same, fish syntax
    op-cache-ini   op_cache.ini keys (targets.ini), written by app.opcache.ini
    profile        the Profile JSON (docs/architecture.md#profile-format)
    ansible        a playbook: both ini sizes into each node's op_cache.ini with that node's own
                   versions, and the env-bash variables into a profile file (app/io/exporters/fleet.py)
    ansible-collect  a playbook that runs `cann-config collect` on every node and fetches the bundles
    k8s-configmap  the env-bash variables as a Kubernetes ConfigMap
    mindspore      Python for the top of a MindSpore script: os.environ[...] (MS_ALLOC_CONF from
                   targets.ms_alloc_conf, the cache variables) before `import mindspore`, one memory
                   call (targets.ms_runtime / ms_context), set_context(ascend_config=...) with
                   atomic_clean_policy and ge_options (targets.ge) (app/io/exporters/mindspore_code.py)
    vllm-serve     a bash launch script for a vLLM-Ascend server: the env-bash variables, then
                   `exec vllm serve` with the flags (targets.vllm_flag) and the user's arguments
                   (app/io/exporters/serving.py)

Rules every format follows:
- a value that differs from the framework's default is set; in the full mode a default is shown
  commented out (uncomment to pin it), in the `changed_only` mode it is left out. Defaults are
  never set explicitly, so a snippet does not break an older adapter that lacks a keyword the
  user never touched (docs/cann/memory.md#version-history);
- a choice the device or framework cannot take (app.device.availability) is never silently dropped:
  the export leaves it out with a comment saying why, `refused` is True and check_choices()
  reports an error (the CLI exits 1);
- a choice the format cannot carry (a memory option in an env file) is named in a comment that
  points to the export that can, and reported as a warning;
- values in code are quoted by app.io.exporters.quoting; values in comments are always escaped.

Public API:
    FORMATS: tuple[str, ...]
    export_text(profile, fmt, *, changed_only=False, existing_ini=None, lang=None, ini_versions=None,
                device=None) -> ExportResult
    check_choices(profile, device=None) -> list[Finding]
    formats_for(framework) -> tuple[str, ...]       the formats a framework takes (catalog)
    format_fits(fmt, framework) -> bool
    framework_for_format(fmt) -> str | None         the only framework a format is for, if one
    carrier(fmt, option, framework) -> (slot, name) | None   the name an option takes in a format
    make_plan(profile, fmt, ...) -> Plan            what each option becomes (for other writers)
    app.io.exporters.files.write_export(path, data)    atomic save of any export (CLI -o, wizard Save)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cann_config.app.device.table import DeviceInfo
from cann_config.app.findings import Finding, make_finding
from cann_config.app.i18n import current_language, normalize_language
from cann_config.app.io.exporters import files, fleet, mindspore_code, python_code, serving, shell
from cann_config.app.io.exporters.plan import (
    FORMATS,
    PYTHON_FORMATS,
    SHELL_FORMATS,
    Entry,
    Plan,
    carrier,
    check_choices,
    format_fits,
    formats_for,
    framework_for_format,
    make_plan,
    text_of,
)
from cann_config.app.io.formats import export_format
from cann_config.app.profile import Profile

if TYPE_CHECKING:  # pragma: no cover - typing only
    from cann_config.app.opcache.ini import OpCacheIni

__all__ = ["FORMATS", "PYTHON_FORMATS", "SHELL_FORMATS", "Entry", "ExportResult", "Plan", "carrier", "check_choices",
           "export_text", "format_fits", "writer_of", "formats_for", "framework_for_format", "make_plan", "text_of"]


@dataclass(frozen=True)
class ExportResult:
    """One export: its bytes, what the user must know, and whether a choice was refused.

    `data` is what gets written (for op-cache-ini the exact bytes app.opcache.ini rendered, which
    keep an existing file's encoding and line ends); `text` is the same for display.
    """

    format: str
    data: bytes
    findings: list[Finding] = field(default_factory=list)
    refused: bool = False

    @property
    def text(self) -> str:
        return self.data.decode("utf-8", "replace")


def _mismatch(profile: Profile, fmt: str, lang: str) -> ExportResult:
    """A format the framework does not take: an explanation instead of a snippet."""
    params: dict[str, Any] = {"format": fmt, "framework": profile.framework,
              "formats": ", ".join(formats_for(profile.framework))}
    finding = make_finding("export-format-framework", **params)
    line = text_of("export-text-format-framework", lang, **params)
    # The explanation as a comment of the format's language; as plain text for the data formats.
    prefix = "" if export_format(fmt).language in ("ini", "json") else "# "
    return ExportResult(fmt, (prefix + line + "\n").encode("utf-8"), [finding], True)


def export_text(profile: Profile, fmt: str, *, changed_only: bool = False,
                existing_ini: OpCacheIni | None = None, lang: str | None = None,
                ini_versions: Mapping[str, str] | None = None, device: DeviceInfo | None = None,
                environ: Mapping[str, str] | None = None, answers: Mapping[str, bool] | None = None,
                baseline: Mapping[str, Any] | None = None) -> ExportResult:
    """The export `fmt` of `profile`, in `lang` (default: the current language).

    `existing_ini` (op-cache-ini only): an op_cache.ini read by app.opcache.ini; its text is
    kept and only the values the Profile sets are changed (byte-identical when none changes).
    `ini_versions` (op-cache-ini, new file only): {"adk_version": ..., "ops_version": ...} of the
    installed CANN (app.opcache.ini.installed_op_cache_versions), written into the new file.
    `device`: the Profile's device as the caller knows it (detected, chosen by hand); default:
    built from `profile.device`. `environ` (op-cache-ini): the environment CANN runs with, for
    the size value CANN uses now that a save must add (app.opcache.ini_save.plan_ini_edit);
    default: none set, CANN's defaults. `answers`: the user's answers to the catalog notes'
    questions (their severity, app.catalog.Note.for_answers). `baseline`: the values "changed"
    is measured against with `changed_only` (a support bundle's customer values; default: the
    defaults).
    A format the Profile's framework does not take gives a one-line explanation with `refused`
    True (the CLI refuses such a command line before it gets here). Raises ValueError for an
    unknown format.
    """
    lang = normalize_language(lang or current_language())
    if fmt not in FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}")
    if not format_fits(fmt, profile.framework):
        return _mismatch(profile, fmt, lang)
    plan = make_plan(profile, fmt, changed_only=changed_only, lang=lang, device=device, answers=answers,
                     baseline=baseline)
    if export_format(fmt).carrier == "op_cache.ini":
        data, extra, ignored = files.write_op_cache_ini(plan, existing_ini, ini_versions, environ or {})
        return ExportResult(fmt, data, plan.findings + extra, plan.refused or ignored)
    chosen_dir = profile.value("op_compiler_cache_dir", plan.catalog)
    if fmt == "ansible" and isinstance(chosen_dir, str) and fleet.unexpanded_dir(chosen_dir):
        # CANN (and the playbook's probe) take the dir literally: a `~` or `$HOME` in it is not
        # the directory the user means (docs/cann/fleets.md#paths).
        finding = make_finding("fleet-export-dir-unexpanded", path=chosen_dir)
        return ExportResult(fmt, ("# " + finding.message(lang) + "\n").encode("utf-8"), plan.findings + [finding], True)
    return ExportResult(fmt, writer_of(fmt)(plan).encode("utf-8"), plan.findings, plan.refused)


# The writer modules the registry's `writer` column names (app/io/formats.py: "module.function").
_WRITER_MODULES = {"python_code": python_code, "shell": shell, "files": files, "fleet": fleet, "serving": serving,
                   "mindspore_code": mindspore_code}


def writer_of(fmt: str) -> Callable[[Plan], str]:
    """The function that writes `fmt` from a Plan (app.io.formats names it; op-cache-ini's also
    takes the existing file, export_text calls it so)."""
    module, _, name = export_format(fmt).writer.partition(".")
    writer: Callable[[Plan], str] = getattr(_WRITER_MODULES[module], name)
    return writer
