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
    with pytest.raises(InputError, match="cannot read: No such file or directory"):
        load_profile(tmp_path / "missing.json")
    (tmp_path / "latin1.json").write_bytes(b'{\n"device": "\xff"}')
    with pytest.raises(InputError, match="cannot read the profile") as info:
        load_profile(tmp_path / "latin1.json")
    assert str(info.value).startswith(f"{tmp_path / 'latin1.json'}:2: ")
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "format": "cann-config-profile",\n  oops\n}\n', encoding="utf-8")
    with pytest.raises(InputError) as info:
        load_profile(bad)
    assert str(info.value).startswith(f"{bad}:3: ")


def test_device_info_of_a_profile():
    assert Profile(device="Ascend310P3").device_info().series == "atlas-inference"
    assert Profile(device="Ascend310P3").device_info().source == "profile"
    assert Profile().device_info() is None


@pytest.mark.parametrize("doc,message", [
    ({"framework": ["tf1"]}, "framework must be a string, not a JSON array"),
    ({"framework": {"a": 1}}, "framework must be a string, not a JSON object"),
    ({"options": {"static_memory_policy": [2]}}, "options.static_memory_policy must be a string, number or boolean"),
    ({"options": {"op_compiler_cache_dir": "/x" * 3000}}, "Linux takes at most 4096 bytes"),
    ({"options": {"op_compiler_cache_dir": "/data/\udcff"}}, "not valid UTF-8"),
])
def test_wrong_json_types_are_one_line(doc, message):
    with pytest.raises(InputError, match=message):
        profile_from_json({"format": "cann-config-profile", "version": 1, **doc}, "p.json")


def test_any_json_is_a_profile_or_one_reason():
    """Whatever JSON a profile holds, reading it gives a Profile or an InputError: never another
    exception (a TypeError from a list where a string belongs was a traceback in `gui`)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                          max_leaves=8)
    keys = st.sampled_from(["format", "version", "device", "framework", "options"])
    option_ids = st.sampled_from(["static_memory_policy", "op_compiler_cache_dir", "max_op_cache_size", "nope"])
    docs = st.fixed_dictionaries({"format": st.just("cann-config-profile"), "version": st.just(1)},
                                 optional={"framework": values | st.sampled_from(["tf1", "pytorch"]),
                                           "device": values | st.just("Ascend910B3"),
                                           "options": st.dictionaries(option_ids, values, max_size=3) | values})
    documents = docs | st.dictionaries(keys, values, max_size=5)

    @settings(max_examples=300, deadline=None)
    @given(documents)
    def check(doc):
        try:
            profile_from_json(doc, "p.json")
        except InputError as exc:
            assert "\n" not in str(exc)

    check()
