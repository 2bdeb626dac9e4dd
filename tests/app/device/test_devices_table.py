"""The device table: SoC strings map to the series of docs/cann/devices.md#series, unknowns stay unknown."""

import pytest

from cann_config.app.device.table import device_from_choice, device_from_soc, load_device_table


@pytest.mark.parametrize("soc,series", [
    ("Ascend910B3", "atlas-a2"),
    ("Ascend910B4-1", "atlas-a2"),
    ("Ascend910_9392", "atlas-a3"),
    ("Ascend950PR_9579", "ascend950"),
    ("Ascend310B4", "atlas-200i-500-a2"),
    ("Ascend310P3", "atlas-inference"),
    ("Ascend910B", "atlas-training"),  # no digit: the older training series, not A2
    ("Ascend910ProA", "atlas-training"),
    ("Ascend310", "atlas-200-300-500"),
])
def test_soc_to_series(soc, series):
    assert load_device_table().match(soc).series.id == series


def test_inferred_matches_are_marked():
    device = device_from_soc("Ascend950DT_9600", "manual")
    assert device.series == "ascend950" and device.inferred
    assert any("not confirmed" in n for n in device.notes)
    assert device_from_soc("Ascend310P7", "manual").inferred
    assert not device_from_soc("Ascend310P3", "manual").inferred


def test_unknown_soc_is_kept_not_guessed():
    device = device_from_soc("Ascend999Z", "manual")
    assert device.soc_version == "Ascend999Z" and device.series is None
    assert any("not in the device table" in n for n in device.notes)


def test_manual_choice_takes_soc_or_series():
    assert device_from_choice("atlas-a3").series == "atlas-a3"
    assert device_from_choice("Ascend910B3").label("zh_CN") == "Atlas A2 训练系列产品/Atlas A2 推理系列产品 (Ascend910B3)"
    with pytest.raises(ValueError, match="neither an Ascend SoC"):
        device_from_choice("nvidia-a100")
