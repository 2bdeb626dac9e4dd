"""The catalog checks itself, and the strict loader refuses broken catalogs with a clear message."""

from pathlib import Path

import pytest

from cann_config.app.catalog import CatalogError, load_catalog, load_catalog_file, parse_catalog
from cann_config.app.device.table import load_device_table
from cann_config.app.resources import resource

OPTION_IDS = [
    "atomic_clean_policy", "static_memory_policy", "variable_use_1g_huge_page", "memory_optimization_policy",
    "npu_alloc_expandable_segments", "npu_alloc_max_split_size_mb", "npu_alloc_garbage_collection_threshold",
    "npu_alloc_page_size", "npu_alloc_base_addr_aligned_kb", "gpu_memory_utilization",
    "mindspore_memory_api", "max_device_memory", "mempool_block_size", "memory_optimize_level",
    "ms_alloc_enable_vmm", "ms_alloc_memory_recycle", "ms_alloc_enable_mem_huge_1g",
    "op_compiler_cache_mode", "op_compiler_cache_dir", "max_op_cache_size", "remain_cache_size_ratio",
    "ms_compiler_cache_enable", "ms_compiler_cache_path",
]
FRAMEWORK_IDS = ["tf1", "tf2", "pytorch", "atc", "ge", "acl", "vllm-ascend", "mindspore"]


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def test_catalog_has_exactly_the_designed_options_and_frameworks(catalog):
    assert list(catalog.options) == OPTION_IDS
    assert list(catalog.frameworks) == FRAMEWORK_IDS


@pytest.mark.parametrize("option_id", OPTION_IDS)
def test_every_default_is_valid(catalog, option_id):
    option = catalog.option(option_id)
    assert option.check(option.default) is None
    for framework in catalog.frameworks:
        assert option.check(catalog.default_for(option_id, framework)) is None


@pytest.mark.parametrize("option_id", OPTION_IDS)
def test_every_text_exists_in_both_languages(catalog, option_id):
    option = catalog.option(option_id)
    texts = [option.title, option.doc] + [v.text for v in option.values + option.special] + [n.text for n in option.notes]
    for text in texts:
        assert text["en"].strip() and text["zh"].strip()
        # The Chinese text really is Chinese (not a copy of the English one).
        assert any("\u4e00" <= ch <= "\u9fff" for ch in text["zh"]), text


def test_every_series_named_exists_in_the_device_table(catalog):
    table = load_device_table()
    for option in catalog.options.values():
        for series in option.series or ():
            assert series in table.series


def test_huge_pages_only_on_950_a3_a2(catalog):
    assert set(catalog.option("variable_use_1g_huge_page").series) == {"ascend950", "atlas-a3", "atlas-a2"}


def test_every_option_has_an_export_name(catalog):
    for option in catalog.options.values():
        t = option.targets
        assert any([t.memory_config, t.npu_run_config, t.parameter_map, t.tf2, t.ge, t.env, t.ini,
                    t.alloc_conf, t.vllm_flag, t.ms_runtime, t.ms_context, t.ms_alloc_conf, t.shapes]), option.id


def test_memory_options_have_the_tf_and_ge_names_of_cann_facts(catalog):
    expected_ge = {
        "atomic_clean_policy": "ge.exec.atomicCleanPolicy",
        "static_memory_policy": "ge.exec.staticMemoryPolicy",
        "variable_use_1g_huge_page": "ge.variableUse1gHugePage",
        "memory_optimization_policy": "ge.exec.memoryOptimizationPolicy",
        "op_compiler_cache_mode": "ge.op_compiler_cache_mode",
        "op_compiler_cache_dir": "ge.op_compiler_cache_dir",
    }
    for oid, ge in expected_ge.items():
        assert catalog.option(oid).targets.ge == ge
    # TF2's npu_device has no memory_optimization_policy.
    assert catalog.option("memory_optimization_policy").targets.tf2 is None
    assert "memory_optimization_policy" not in catalog.frameworks["tf2"].options
    assert catalog.option("max_op_cache_size").targets.env_for("tf1") == "ASCEND_MAX_OP_CACHE_SIZE"
    assert catalog.option("op_compiler_cache_dir").targets.env_for("pytorch") == "ACL_OP_COMPILER_CACHE_DIR"


def test_framework_defaults(catalog):
    assert catalog.default_for("op_compiler_cache_mode", "atc") == "disable"
    assert catalog.default_for("op_compiler_cache_mode", "pytorch") == "enable"


@pytest.mark.parametrize("option_id,text,expected", [
    ("static_memory_policy", "4", 4),
    ("max_op_cache_size", "-1", -1),
    ("max_op_cache_size", "2048", 2048),
    ("remain_cache_size_ratio", "100", 100),
    ("op_compiler_cache_mode", "force", "force"),
    ("op_compiler_cache_dir", "/data/缓存 dir", "/data/缓存 dir"),
])
def test_parse_accepts_valid_text(catalog, option_id, text, expected):
    assert catalog.option(option_id).parse(text) == expected


@pytest.mark.parametrize("option_id,text", [
    ("static_memory_policy", "5"),
    ("atomic_clean_policy", "one"),
    ("max_op_cache_size", "0"),
    ("max_op_cache_size", "-2"),
    ("max_op_cache_size", "2147483648"),
    ("remain_cache_size_ratio", "0"),
    ("remain_cache_size_ratio", "101"),
    ("op_compiler_cache_mode", "Enable"),  # case-sensitive in CANN
    ("memory_optimization_policy", "Fast"),
])
def test_parse_refuses_invalid_text(catalog, option_id, text):
    with pytest.raises(ValueError, match=option_id):
        catalog.option(option_id).parse(text)


def test_describe_contains_every_value(catalog):
    text = catalog.option("static_memory_policy").describe("en")
    for value in range(5):
        assert f"  {value}: " in text
    assert "concurrently" in text


# --- the strict loader ------------------------------------------------------------------------

def _shipped_text() -> str:
    return resource("catalog.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("edit,message", [
    (lambda t: t.replace('page = "memory"\ntype = "int"\ndefault = 0\ntitle', 'page = "memory"\ntype = "int"\ndefault = 0\ncolour = 3\ntitle', 1),
     "options.atomic_clean_policy: unknown key(s): colour"),
    (lambda t: t.replace('default = 500\n', 'default = 0\n'), "options.max_op_cache_size: the default is not valid"),
    (lambda t: t.replace('zh = "集中清零', 'zz = "集中清零'), "options.atomic_clean_policy.values[0]"),
    (lambda t: t.replace('series = ["ascend950", "atlas-a3", "atlas-a2"]', 'series = ["ascend950", "atlas-a9"]'),
     "unknown series 'atlas-a9'"),
    (lambda t: t.replace('type = "path"', 'type = "double"'), "type must be one of"),
    (lambda t: t.replace('type = "bool"\ndefault = false', 'type = "bool"\ndefault = 0'), "does not match the type bool"),
    (lambda t: t.replace('max = 16\n', 'max = 16.5\n'), "max 16.5 does not match the type int"),
    (lambda t: t.replace('requires = {driver = "23.0.0"}', 'requires = {hdk = "23.0.0"}'), "requires names only"),
    (lambda t: t.replace('value = "1g"', 'value = 1'), "does not match the option's type str"),
    (lambda t: t + "\n[options.x\n", "not valid TOML"),
    (lambda t: t.replace('values = [2, 4]', 'values = [2, 7]'), "names value 7"),
    (lambda t: t.replace('frameworks = ["vllm-ascend"]', 'frameworks = ["vllm"]'),
     "options.npu_alloc_expandable_segments.notes[0].frameworks: unknown framework 'vllm'"),
    (lambda t: t.replace('frameworks = ["vllm-ascend"]', 'frameworks = ["tf1"]'),
     "framework 'tf1' does not take npu_alloc_expandable_segments"),
    (lambda t: t.replace('frameworks = ["vllm-ascend"]', 'frameworks = []'),
     "options.npu_alloc_expandable_segments.notes[0]: frameworks must be a non-empty list"),
    (lambda t: t.replace('frameworks = ["vllm-ascend"]', 'frameworks = "vllm-ascend"'),
     "options.npu_alloc_expandable_segments.notes[0]"),
])
def test_loader_refuses_broken_catalogs_naming_file_and_entry(tmp_path: Path, edit, message):
    broken = edit(_shipped_text())
    assert broken != _shipped_text()
    path = tmp_path / "catalog.toml"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(CatalogError) as info:
        load_catalog_file(path)
    assert str(path) in str(info.value)
    assert message in str(info.value)


def test_loader_names_unknown_framework_option():
    text = _shipped_text().replace('[frameworks.tf2]\n', '[frameworks.tf2]\noptions2 = 1\n', 1)
    with pytest.raises(CatalogError, match="frameworks.tf2: unknown key"):
        parse_catalog(text, "x.toml")


def test_torch_npu_allocator_options_match_torch_npus_rules(catalog):
    """PYTORCH_NPU_ALLOC_CONF keys (torch_npu docs and NPUAllocatorConfig.cpp), declared once here."""
    keys = {oid: catalog.option(oid).targets.alloc_conf for oid in OPTION_IDS if oid.startswith("npu_alloc_")}
    assert keys == {"npu_alloc_expandable_segments": "expandable_segments",
                    "npu_alloc_max_split_size_mb": "max_split_size_mb",
                    "npu_alloc_garbage_collection_threshold": "garbage_collection_threshold",
                    "npu_alloc_page_size": "page_size", "npu_alloc_base_addr_aligned_kb": "base_addr_aligned_kb"}
    pytorch = catalog.frameworks["pytorch"]
    assert set(keys) <= set(pytorch.options)
    for fid, framework in catalog.frameworks.items():
        # torch_npu processes only: PyTorch, and vLLM-Ascend servers (app/vllm_ascend.py)
        if fid not in ("pytorch", "vllm-ascend"):
            assert not set(keys) & set(framework.options)
    expandable = catalog.option("npu_alloc_expandable_segments")
    assert (expandable.type, expandable.default, expandable.allowed_values()) == ("bool", False, (False, True))
    assert expandable.requires == {"driver": "23.0.0"}
    split = catalog.option("npu_alloc_max_split_size_mb")
    assert (split.type, split.default, split.unset_default) == ("int", "", True)
    assert split.check(20) is not None and split.check(21) is None and split.check("") is None
    gc = catalog.option("npu_alloc_garbage_collection_threshold")
    assert gc.type == "float" and gc.check(0.0) and gc.check(1.0) and gc.check(0.5) is None and gc.check(True)
    page = catalog.option("npu_alloc_page_size")
    assert page.allowed_values() == ("", "1g") and set(page.series) == {"atlas-a2", "atlas-a3"}
    assert page.requires == {"driver": "25.0.RC1", "cann": "8.1.RC1"}
    assert any(n.values == ("1g",) and "training" in n.text["en"] for n in page.notes)
    base = catalog.option("npu_alloc_base_addr_aligned_kb")
    assert (base.default, base.min, base.max) == (16, 0, 16)
    for oid in keys:
        option = catalog.option(oid)
        # Every value, including "not set", is documented in both languages.
        assert option.value_doc(option.default) is not None, oid
        assert "TorchNPU" not in option.describe("en") or option.requires.get("torch_npu")


@pytest.mark.parametrize("option_id,text,expected", [
    ("npu_alloc_expandable_segments", "TRUE", True),
    ("npu_alloc_expandable_segments", "false", False),
    ("npu_alloc_max_split_size_mb", "unset", ""),
    ("npu_alloc_max_split_size_mb", "", ""),
    ("npu_alloc_max_split_size_mb", "512", 512),
    ("npu_alloc_garbage_collection_threshold", "0.6", 0.6),
    ("npu_alloc_garbage_collection_threshold", ".25", 0.25),
    ("npu_alloc_page_size", "1g", "1g"),
])
def test_parse_accepts_the_allocator_values(catalog, option_id, text, expected):
    value = catalog.option(option_id).parse(text)
    assert value == expected and type(value) is type(expected)


@pytest.mark.parametrize("option_id,text", [
    ("npu_alloc_expandable_segments", "1"), ("npu_alloc_max_split_size_mb", "20"),
    ("npu_alloc_garbage_collection_threshold", "1"), ("npu_alloc_garbage_collection_threshold", "nan"),
    ("npu_alloc_page_size", "2m"), ("npu_alloc_base_addr_aligned_kb", "17"), ("npu_alloc_base_addr_aligned_kb", "unset"),
])
def test_parse_refuses_what_torch_npu_refuses(catalog, option_id, text):
    with pytest.raises(ValueError):
        catalog.option(option_id).parse(text)


def test_resources_are_found_beside_the_code_as_importlib_finds_them():
    """app.resources reads resources/ from beside app/ (no importlib.resources at start-up): the
    folder it uses is the package importlib.resources resolves."""
    from importlib import resources

    from cann_config.app.resources import resource, resources_root

    assert Path(str(resources_root())).resolve() == Path(str(resources.files("cann_config.resources"))).resolve()
    assert resource("catalog.toml").read_text(encoding="utf-8") == \
        resources.files("cann_config.resources").joinpath("catalog.toml").read_text(encoding="utf-8")


def test_a_note_scoped_to_frameworks_is_said_only_for_them(catalog):
    """vLLM-Ascend's sleep mode is no fact about a PyTorch job, nor about a job whose framework is
    not known: the note is said for vllm-ascend only."""
    option = catalog.option("npu_alloc_expandable_segments")
    codes = {fw: [n.code for n in option.notes_for(True, framework=fw)] for fw in ("vllm-ascend", "pytorch", None)}
    assert codes == {"vllm-ascend": ["npu-alloc-expandable-vllm-sleep"], "pytorch": [], None: []}
    assert option.notes_for(False, framework="vllm-ascend") == ()
    # An unscoped note is said whatever the framework.
    force = catalog.option("op_compiler_cache_mode")
    assert all([n.code for n in force.notes_for("force", framework=fw)] == ["cache-mode-force-temporary"]
               for fw in ("pytorch", "tf1", None))
