"""The Profile: strict JSON loading, defaults per framework, "only my changes"."""

import json

import pytest
from cann_config.app.errors import InputError
from cann_config.app.profile import Profile, load_profile, profile_from_json


def _doc(**overrides):
    doc = {"format": "cann-config-profile", "version": 1, "device": "Ascend910B3", "framework": "tf1",
           "options": {"static_memory_policy": 2}}
    doc.update(overrides)
    return doc


def test_round_trip_through_json(tmp_path):
    profile = Profile(framework="ge", device="atlas-a3", options={"max_op_cache_size": -1, "static_memory_policy": 4})
    path = tmp_path / "p.json"
    path.write_text(profile.dumps(), encoding="utf-8")
    assert load_profile(path) == profile
    # Options are written in catalog order, whatever order they were chosen in.
    assert list(json.loads(profile.dumps())["options"]) == ["static_memory_policy", "max_op_cache_size"]


def test_absent_options_take_the_framework_default():
    assert Profile(framework="atc").value("op_compiler_cache_mode") == "disable"
    assert Profile(framework="tf1").value("op_compiler_cache_mode") == "enable"
    assert Profile(options={"remain_cache_size_ratio": 80}).value("remain_cache_size_ratio") == 80


def test_changed_lists_only_what_differs_from_defaults():
    profile = Profile(framework="atc", options={"op_compiler_cache_mode": "disable", "static_memory_policy": 2})
    assert profile.changed() == {"static_memory_policy": 2}
    assert profile.without_value("static_memory_policy").changed() == {}
    assert profile.with_value("atomic_clean_policy", 1).changed() == {"static_memory_policy": 2, "atomic_clean_policy": 1}


@pytest.mark.parametrize("doc,message", [
    (_doc(colour="red"), "unknown key 'colour'"),
    (_doc(format="something"), "'format' must be"),
    (_doc(version=2), "'version' 2 is not understood"),
    (_doc(version=True), "'version' True is not understood"),
    (_doc(framework="mxnet"), "'framework' 'mxnet' is unknown"),
    (_doc(device="nvidia"), "'device'"),
    (_doc(device=7), "'device' must be"),
    (_doc(options=[1]), "'options' must be an object"),
    (_doc(options={"static_memory_policy": 9}), "options.static_memory_policy"),
    (_doc(options={"static_memory_policy": True}), "options.static_memory_policy"),
    (_doc(options={"no_such_option": 1}), "unknown option 'no_such_option'"),
    ([1, 2], "must be a JSON object"),
])
def test_invalid_profiles_are_refused_naming_the_key(doc, message):
    with pytest.raises(InputError) as info:
        profile_from_json(doc, "p.json")
    assert message in str(info.value) and str(info.value).startswith("p.json: ")


def test_unreadable_and_malformed_files_name_file_and_line(tmp_path):
    with pytest.raises(InputError, match="cannot read the profile"):
        load_profile(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "format": "cann-config-profile",\n  oops\n}\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_profile(bad)
    assert str(info.value).startswith(f"{bad}:3: ")


def test_device_info_of_a_profile():
    assert Profile(device="Ascend310P3").device_info().series == "atlas-inference"
    assert Profile(device="Ascend310P3").device_info().source == "profile"
    assert Profile().device_info() is None
