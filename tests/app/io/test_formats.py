"""The format registry (app/io/formats.py): every row's writer output reads back through its reader
as the same choices, for every framework that takes it; and the command line, the exporters, the
importers and the catalog's frameworks all use the registry's list."""

from __future__ import annotations

import pytest

from cann_config.app.catalog import load_catalog
from cann_config.app.cli import build_parser
from cann_config.app.io import exporters, importers
from cann_config.app.io.exporters import carrier, export_text, writer_of
from cann_config.app.io.exporters.fleet import unexpanded_dir
from cann_config.app.io.formats import (
    CARRIERS,
    EXPORT_FORMATS,
    FORMATS,
    LANGUAGES,
    export_format,
    formats_for,
    framework_for_format,
)
from cann_config.app.io.importers import import_text
from tests.app.io.test_exporters import enumerated_profiles

FRAMEWORKS = list(load_catalog().frameworks)
VERSIONS = {"adk_version": "8.5.0", "ops_version": "8.5.0"}
# Characters app.io.envfile's $'...' reader does not decode yet (\xHH bytes); real bash does, and
# tests/app/io/test_exporters.py sources them in bash.
_ENVFILE_GAPS = ("\u202e",)


def _skip(fmt: str, framework: str, profile, oid: str) -> str | None:
    """Why one value does not come back, where the format is not at fault (None: it must)."""
    path = str(profile.options.get("op_compiler_cache_dir", ""))
    # the bash text: env-bash, the vLLM launch script, and the env-bash text inside the playbook
    if oid == "op_compiler_cache_dir" and (export_format(fmt).language == "bash" or fmt == "ansible") and \
            any(ch in path for ch in _ENVFILE_GAPS):
        return "the env-file reader's $'...' gap"
    if framework == "vllm-ascend" and oid == "npu_alloc_expandable_segments" and "npu_alloc_expandable_segments" \
            not in profile.options:
        # vLLM-Ascend appends expandable_segments:True at start-up (app/vllm_ascend.py); the text read
        # back as torch_npu reads it leaves the key out, which is torch_npu's False.
        return "vLLM-Ascend's start-up rewrite"
    if oid == "mindspore_memory_api" and not {"max_device_memory", "mempool_block_size",
                                              "memory_optimize_level"} & set(profile.options):
        return "no memory call is written without a memory value"
    return None


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_every_format_reads_back_as_the_same_choices(framework):
    catalog = load_catalog()
    taken = set(catalog.frameworks[framework].options)
    checked = 0
    for profile in enumerated_profiles(framework):
        if not set(profile.options) <= taken:
            continue  # a choice the framework cannot take is refused (tests/app/io/test_exporters.py)
        for fmt in formats_for(framework):
            for changed_only in (False, True):
                result = export_text(profile, fmt, changed_only=changed_only,
                                     ini_versions=VERSIONS if fmt == "op-cache-ini" else None)
                if fmt == "ansible" and unexpanded_dir(str(profile.options.get("op_compiler_cache_dir", ""))):
                    assert result.refused  # CANN takes the dir literally (tests/app/io/test_fleet_exports.py)
                    continue
                assert not result.refused, (framework, fmt, profile, result.findings)
                imported = import_text(result.text, fmt, f"export.{fmt}")
                assert not [f for f in imported.findings if f.severity == "error"], (framework, fmt, imported.findings)
                back = imported.to_profile(framework=framework, device=profile.device)
                for oid in catalog.frameworks[framework].options:
                    if carrier(fmt, catalog.options[oid], framework) and _skip(fmt, framework, profile, oid) is None:
                        assert back.value(oid) == profile.value(oid), (framework, fmt, changed_only, oid, profile)
                        checked += 1
    assert checked > 0


def test_a_value_set_in_each_framework_s_own_format_comes_back():
    """Beyond the defaults: a value each framework's own format carries, other than its default."""
    from cann_config.app.profile import Profile

    cases = {
        "vllm-serve": {"gpu_memory_utilization": 0.8, "npu_alloc_max_split_size_mb": 256,
                       "npu_alloc_expandable_segments": False},
        "mindspore": {"max_device_memory": "28GB", "mindspore_memory_api": "set_context", "atomic_clean_policy": 0,
                      "ms_alloc_enable_vmm": "True"},
        "torch-npu": {"npu_alloc_expandable_segments": True, "op_compiler_cache_mode": "disable"},
    }
    for fmt, options in cases.items():
        framework = export_format(fmt).frameworks[0]
        profile = Profile(framework=framework, device="Ascend910B3", options=options)
        result = export_text(profile, fmt)
        assert not result.refused, result.findings
        back = import_text(result.text, fmt, "x").to_profile(framework=framework)
        assert {oid: back.value(oid) for oid in options} == options, fmt


def test_the_command_line_offers_the_registry_s_formats():
    import argparse

    parser = build_parser("export")
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    [action] = [a for a in sub.choices["export"]._actions if a.dest == "format"]
    assert tuple(action.choices) == FORMATS
    assert exporters.FORMATS == FORMATS


def test_every_row_is_complete_and_its_writer_and_reader_exist():
    names = set()
    for fmt, spec in EXPORT_FORMATS.items():
        assert spec.id == fmt and spec.language in LANGUAGES and spec.carrier in CARRIERS
        assert callable(writer_of(fmt)) and callable(getattr(importers, spec.reader))
        assert spec.file_name and spec.file_name not in names, fmt
        names.add(spec.file_name)
        for framework in spec.frameworks:
            assert framework in FRAMEWORKS, (fmt, framework)
    with pytest.raises(ValueError, match="unknown export format 'nope'; use one of tf1-estimator"):
        export_format("nope")
    with pytest.raises(ValueError, match="unknown export format"):
        import_text("", "nope", "x")


def test_each_framework_takes_its_own_formats_first_then_the_shared_ones():
    assert formats_for("pytorch")[0] == "torch-npu"
    assert formats_for("tf1")[:2] == ("tf1-estimator", "tf1-session")
    assert formats_for("atc")[0] == "env-bash"
    shared = [f for f in FORMATS if not EXPORT_FORMATS[f].frameworks]
    for framework in FRAMEWORKS:
        own = [f for f in formats_for(framework) if f not in shared]
        assert list(formats_for(framework)) == own + shared
        assert all(framework_for_format(f) == framework for f in own)
    assert framework_for_format("env-bash") is None


def test_the_fixes_are_applied_in_the_formats_whose_carrier_says_so():
    from cann_config.app.io.formats import ENV_FORMAT, INI_FORMAT

    assert export_format(INI_FORMAT).carrier == "op_cache.ini"
    assert export_format(ENV_FORMAT).carrier == "environment" and export_format(ENV_FORMAT).language == "bash"
