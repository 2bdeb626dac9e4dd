"""The export formats: one table, one row per format, that every part of the tool reads.

Why this module exists: what a format is - its id, the language of its text, the file it is
saved as, where it takes effect, which frameworks take it, the function that writes it and the
one that reads it back - was spread over the CLI's choices, the exporters' dispatch, the
importers' dispatch, the catalog's per-framework lists, the report's code blocks, the suggested
fixes and the wizard's Export page. Each of them now asks this table (issue 24 item 9); a new
format is one row here, a writer and a reader (tests/app/io/test_formats.py checks that every
row's writer output reads back as the same choices, and that `cann-config export`'s choices are
this table's ids).

Columns:
    id          the FORMAT of `cann-config export FORMAT` and of `suggested_exports[].format`
    language    of the text: python, bash, fish, ini, json, yaml (code blocks, highlighting)
    file_name   the name the wizard offers when saving it
    carrier     where it takes effect when applied as written (docs/architecture.md#json-output):
                `op_cache.ini` (into <base>/kernel_cache/op_cache.ini), `environment` (the job's
                environment: sourced, or a launch script / ConfigMap that sets it), `python` (the
                top of the training script, before the framework is imported), `cann-config` (a
                profile this tool reads) or `nodes` (a playbook run against many hosts)
    frameworks  the framework ids that take it; ALL for every framework
    writer      "module.function" in app.io.exporters: Plan -> text (op-cache-ini's writer also
                takes the existing file, app.io.exporters.export_text calls it so)
    reader      "function" in app.io.importers: (text, source) -> ImportedSettings

Writers and readers are named here and called by the packages that own them
(app.io.exporters.export_text, app.io.importers.import_text): the table sits below both, so it
imports neither, and it is read at every command's start-up (the CLI's choices) for the price of
a few constants.

Public API:
    ALL
    ExportFormat(id, language, file_name, carrier, frameworks, writer, reader); .fits(framework) -> bool
    EXPORT_FORMATS: dict[str, ExportFormat]      in the order `--help` lists them
    FORMATS: tuple[str, ...]                     the ids
    export_format(fmt) -> ExportFormat           (ValueError naming the ids for an unknown one)
    formats_for(framework) -> tuple[str, ...]    the framework's own formats first, then the shared
    framework_for_format(fmt) -> str | None      the only framework a format is for, if one
    formats_with(*, carrier=None, language=None) -> tuple[str, ...]
    INI_FORMAT, ENV_FORMAT                       the formats fixes are applied in (op_cache.ini, bash)
"""

# No `from __future__ import annotations` and no dataclass: this table is read at every command's
# start-up, and typing compiles a NamedTuple's string annotations at import while `dataclasses`
# brings `inspect` (tests/app/cli/test_cli_basics.py).

from typing import NamedTuple

ALL: tuple[str, ...] = ()  # frameworks=ALL: every framework takes the format

CARRIERS = ("op_cache.ini", "environment", "python", "cann-config", "nodes")
LANGUAGES = ("python", "bash", "fish", "ini", "json", "yaml")


class ExportFormat(NamedTuple):
    """One export format (see the module docstring for the columns)."""

    id: str
    language: str
    file_name: str
    carrier: str
    frameworks: tuple[str, ...]
    writer: str
    reader: str

    def fits(self, framework: str) -> bool:
        return not self.frameworks or framework in self.frameworks


def _row(id: str, language: str, file_name: str, carrier: str, frameworks: tuple[str, ...], writer: str,
         reader: str) -> tuple[str, ExportFormat]:
    assert carrier in CARRIERS and language in LANGUAGES, (id, carrier, language)
    return id, ExportFormat(id, language, file_name, carrier, frameworks, writer, reader)


EXPORT_FORMATS: dict[str, ExportFormat] = dict([
    _row("tf1-estimator", "python", "npu_memory_config.py", "python", ("tf1",),
         "python_code.write_tf1_estimator", "read_python_export"),
    _row("tf1-session", "python", "npu_session_config.py", "python", ("tf1",),
         "python_code.write_tf1_session", "read_python_export"),
    _row("tf2", "python", "npu_global_options.py", "python", ("tf2",),
         "python_code.write_tf2", "read_python_export"),
    _row("ge-options", "python", "ge_options.py", "python", ("ge",),
         "python_code.write_ge_options", "read_python_export"),
    _row("torch-npu", "python", "torch_npu_config.py", "python", ("pytorch",),
         "python_code.write_torch_npu", "read_python_export"),
    _row("env-bash", "bash", "cann_env.sh", "environment", ALL,
         "shell.write_env_bash", "read_env_bash"),
    _row("env-fish", "fish", "cann_env.fish", "environment", ALL,
         "shell.write_env_fish", "import_fish_env"),
    _row("op-cache-ini", "ini", "op_cache.ini", "op_cache.ini", ALL,
         "files.write_op_cache_ini", "read_op_cache_ini_export"),
    _row("profile", "json", "cann-config-profile.json", "cann-config", ALL,
         "files.write_profile", "import_profile_text"),
    _row("ansible", "yaml", "cann-config-playbook.yml", "nodes", ALL,
         "fleet.write_ansible", "read_ansible_playbook"),
    _row("ansible-collect", "yaml", "cann-config-collect.yml", "nodes", ALL,
         "fleet.write_ansible_collect", "read_collect_playbook"),
    _row("k8s-configmap", "yaml", "cann-config-configmap.yaml", "environment", ALL,
         "fleet.write_k8s_configmap", "read_configmap"),
    _row("vllm-serve", "bash", "serve_vllm.sh", "environment", ("vllm-ascend",),
         "serving.write_vllm_serve", "read_vllm_serve"),
    _row("mindspore", "python", "mindspore_memory.py", "python", ("mindspore",),
         "mindspore_code.write_mindspore", "read_mindspore_export"),
])
FORMATS: tuple[str, ...] = tuple(EXPORT_FORMATS)

# The formats a suggested fix is applied in (app/support/fixes.py): a value of op_cache.ini into
# the file CANN reads, a variable as a line of the job's environment.
INI_FORMAT = "op-cache-ini"
ENV_FORMAT = "env-bash"


def export_format(fmt: str) -> ExportFormat:
    try:
        return EXPORT_FORMATS[fmt]
    except KeyError:
        raise ValueError(f"unknown export format {fmt!r}; use one of {', '.join(FORMATS)}") from None


def formats_for(framework: str) -> tuple[str, ...]:
    """The formats `framework` takes: its own first (the Export page's first choice), then those
    every framework takes, each group in the table's order."""
    own = tuple(f.id for f in EXPORT_FORMATS.values() if framework in f.frameworks)
    return own + tuple(f.id for f in EXPORT_FORMATS.values() if not f.frameworks)


def framework_for_format(fmt: str) -> str | None:
    """The framework a format belongs to when only one takes it (tf2 -> tf2), else None."""
    frameworks = export_format(fmt).frameworks
    return frameworks[0] if len(frameworks) == 1 else None


def formats_with(*, carrier: str | None = None, language: str | None = None) -> tuple[str, ...]:
    return tuple(f.id for f in EXPORT_FORMATS.values()
                 if (carrier is None or f.carrier == carrier) and (language is None or f.language == language))
