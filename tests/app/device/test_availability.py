"""Availability: every option on every series and framework, with reasons that name the device and its source."""

import pytest

from cann_config.app.catalog import load_catalog
from cann_config.app.device.availability import availability, availability_map, device_phrase, source_phrase
from cann_config.app.device.table import DeviceInfo, device_from_choice, device_from_soc, load_device_table, no_device

CATALOG = load_catalog()
TABLE = load_device_table()
SERIES = list(TABLE.order)
OPTIONS = list(CATALOG.options)


@pytest.mark.parametrize("series", SERIES)
@pytest.mark.parametrize("option_id", OPTIONS)
def test_every_option_on_every_series(option_id, series):
    option = CATALOG.options[option_id]
    result = availability(option, device_from_choice(series))
    expected = option.series is None or series in option.series
    assert result.enabled is expected
    if expected:
        assert result.reason is None and result.code is None
    else:
        assert result.code == "devices-unsupported-series"
        name = TABLE.series[series].name
        assert result.reason_text("en").startswith(f"Not supported on {name['en']} (chosen by hand).")
        assert name["zh"] in result.reason_text("zh_CN") and "手动选择" in result.reason_text("zh_CN")
        for sid in option.series:
            assert TABLE.series[sid].name["en"] in result.reason_text("en")


def test_reason_names_soc_and_detection():
    option = CATALOG.options["variable_use_1g_huge_page"]
    device = device_from_soc("Ascend310P3", "npu-smi")
    result = availability(option, device)
    assert not result.enabled
    assert result.reason_text("en").startswith("Not supported on Atlas inference series (Ascend310P3, detected by npu-smi).")
    assert result.reason_text("zh_CN").startswith("Atlas 推理系列产品（Ascend310P3，由 npu-smi 检测）不支持此选项")


@pytest.mark.parametrize("source,phrase", [
    ("npu-smi", "detected by npu-smi"), ("npu-smi output file", "read from npu-smi output"),
    ("manual", "chosen by hand"), ("profile", "from the profile"), ("bundle", "from the support bundle"),
    ("something new", "source: something new"),
])
def test_source_phrases(source, phrase):
    assert source_phrase(source, "en") == phrase
    assert source_phrase(source, "zh_CN") != phrase


def test_an_inferred_series_says_so():
    huge = CATALOG.options["variable_use_1g_huge_page"]
    unsupported = availability(huge, device_from_soc("Ascend310P7", "manual"))
    assert not unsupported.enabled and "assumed" in unsupported.reason_text("en")
    assert "推断" in unsupported.reason_text("zh_CN")
    supported = availability(huge, device_from_soc("Ascend950DT_9600", "profile"))
    assert supported.enabled and "assumed" in supported.note_text("en") and "from the profile" in supported.note_text("en")


@pytest.mark.parametrize("device", [None, no_device(), DeviceInfo(source="npu-smi")])
def test_without_a_device_everything_is_available_with_a_note(device):
    for option in CATALOG.options.values():
        result = availability(option, device)
        assert result.enabled and result.reason is None
        if option.series is None:
            assert result.note is None
        else:
            assert "No device is known" in result.note_text("en") and "未知设备" in result.note_text("zh_CN")


def test_unknown_soc_is_available_with_a_note_naming_it():
    result = availability(CATALOG.options["variable_use_1g_huge_page"], device_from_soc("Ascend999Z", "npu-smi"))
    assert result.enabled and "Ascend999Z is not in the device table" in result.note_text("en")


@pytest.mark.parametrize("framework", list(CATALOG.frameworks))
@pytest.mark.parametrize("option_id", OPTIONS)
def test_every_option_in_every_framework(option_id, framework):
    result = availability(CATALOG.options[option_id], None, framework)
    takes = option_id in CATALOG.frameworks[framework].options
    assert result.enabled is takes
    if not takes:
        assert result.code.startswith("devices-framework-")
        assert CATALOG.frameworks[framework].name["en"] in result.reason_text("en")
        assert CATALOG.frameworks[framework].name["zh"] in result.reason_text("zh_CN")


def test_framework_reasons_are_specific_where_the_facts_are():
    torch = availability(CATALOG.options["static_memory_policy"], None, "pytorch")
    assert torch.code == "devices-framework-pytorch-memory" and "PYTORCH_NPU_ALLOC_CONF" in torch.reason_text("en")
    assert "static_memory_policy" in torch.reason_text("zh_CN")
    # torch_npu's allocator options, for any other framework, say that only PyTorch reads them.
    for framework in ("tf1", "tf2", "ge", "atc", "acl"):
        alloc = availability(CATALOG.options["npu_alloc_expandable_segments"], None, framework)
        assert alloc.code == "devices-framework-alloc-conf" and "only PyTorch reads" in alloc.reason_text("en")
    assert availability(CATALOG.options["npu_alloc_expandable_segments"], None, "pytorch").enabled
    tf2 = availability(CATALOG.options["memory_optimization_policy"], None, "tf2")
    assert tf2.code == "devices-framework-tf2-memory_optimization_policy"
    atc = availability(CATALOG.options["atomic_clean_policy"], None, "atc")
    assert atc.code == "devices-framework-unsupported" and "atomic_clean_policy" in atc.reason_text("en")


def test_framework_comes_before_device():
    result = availability(CATALOG.options["variable_use_1g_huge_page"], device_from_choice("atlas-inference"), "pytorch")
    assert result.code == "devices-framework-pytorch-memory"


def test_unknown_framework_is_refused():
    with pytest.raises(ValueError, match="unknown framework"):
        availability(CATALOG.options["atomic_clean_policy"], None, "jax")


def test_finding_and_map():
    device = device_from_choice("Ascend310B4")
    result = availability(CATALOG.options["variable_use_1g_huge_page"], device)
    finding = result.to_finding(file="profile.json")
    assert finding.severity == "error" and finding.code == result.code and finding.file == "profile.json"
    assert finding.message("en") == result.reason_text("en")
    assert availability(CATALOG.options["atomic_clean_policy"], device).to_finding() is None
    table = availability_map(device, "tf1")
    assert set(table) == set(CATALOG.options)
    # tf1 takes none of torch_npu's allocator options, whatever the device.
    assert [oid for oid, a in table.items() if not a.enabled] == ["variable_use_1g_huge_page"] + [
        oid for oid in CATALOG.options if oid.startswith("npu_alloc_") or oid not in CATALOG.frameworks["tf1"].options]
    pytorch = availability_map(device, "pytorch")
    assert [oid for oid, a in pytorch.items() if not a.enabled and oid.startswith("npu_alloc_")] == ["npu_alloc_page_size"]
    assert table["variable_use_1g_huge_page"].to_json("en")["enabled"] is False


def test_device_phrase():
    assert device_phrase(device_from_soc("Ascend910B3", "npu-smi"), "en") == \
        "Atlas A2 training/inference series (Ascend910B3, detected by npu-smi)"
    assert device_phrase(device_from_choice("atlas-a3"), "en") == "Atlas A3 training/inference series (chosen by hand)"
    assert device_phrase(device_from_soc("Ascend999Z", "bundle"), "en") == \
        "Ascend999Z (from the support bundle; not in the device table)"
    assert device_phrase(no_device(), "en") == "unknown device (not detected)"
