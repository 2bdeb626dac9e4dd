"""PyTorch exports against a stand-in torch_npu that reads PYTORCH_NPU_ALLOC_CONF as torch_npu does.

The stand-in (tests/data/stubs/torch_npu) applies torch_npu's allocator rules at import and
set_option's `_option_map`, written from torch_npu's source independently of app/allocconf.py.
Every export the tool makes for valid choices must run against it and give torch_npu exactly the
choices; every choice the tool refuses must be one torch_npu would refuse; and for allocator
strings, the tool's verdict (an error finding or not) must be torch_npu's (raises or not).
Env files are sourced by bash and fish and the variable compared byte for byte.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cann_config.app.allocconf import alloc_conf_text, parse_alloc_conf
from cann_config.app.catalog import load_catalog
from cann_config.app.io.exporters import export_text
from cann_config.app.io.importers import import_text
from cann_config.app.profile import Profile
from tests.app.io.test_exporters import HOSTILE_PATHS, SHELLS, STUBS, run_snippets, source_env

# The keys of PYTORCH_NPU_ALLOC_CONF, from torch_npu's docs (not from the catalog, so a wrong
# catalog entry fails here).
KEYS = {"npu_alloc_expandable_segments": "expandable_segments", "npu_alloc_max_split_size_mb": "max_split_size_mb",
        "npu_alloc_garbage_collection_threshold": "garbage_collection_threshold",
        "npu_alloc_page_size": "page_size", "npu_alloc_base_addr_aligned_kb": "base_addr_aligned_kb"}
DEFAULTS = {"npu_alloc_expandable_segments": False, "npu_alloc_max_split_size_mb": "",
            "npu_alloc_garbage_collection_threshold": "", "npu_alloc_page_size": "",
            "npu_alloc_base_addr_aligned_kb": 16}

UNSET = st.just("")
CHOICES = st.fixed_dictionaries({}, optional={
    "npu_alloc_expandable_segments": st.booleans(),
    "npu_alloc_max_split_size_mb": UNSET | st.integers(21, 2**31 - 1),
    "npu_alloc_garbage_collection_threshold": UNSET | st.floats(0.0, 1.0, exclude_min=True, exclude_max=True),
    "npu_alloc_page_size": st.sampled_from(["", "1g"]),
    "npu_alloc_base_addr_aligned_kb": st.integers(0, 16),
    "op_compiler_cache_mode": st.sampled_from(["enable", "disable", "force"]),
    "op_compiler_cache_dir": st.sampled_from(["", "/srv/cache", *HOSTILE_PATHS]),
    "max_op_cache_size": st.sampled_from([-1, 1, 500, 2048, 2**31 - 1]),
    "remain_cache_size_ratio": st.integers(1, 100),
})


def torch_would_refuse(options: dict) -> bool:
    """torch_npu's own rule (NPUAllocatorConfig.cpp), written out here."""
    expandable = options.get("npu_alloc_expandable_segments") is True
    split = options.get("npu_alloc_max_split_size_mb", "") != ""
    gc = options.get("npu_alloc_garbage_collection_threshold", "") != ""
    return expandable and (split or gc)


def chosen_alloc(options: dict) -> dict:
    """What torch_npu should read: the chosen keys that differ from the default."""
    out = {}
    for oid, key in KEYS.items():
        value = options.get(oid, DEFAULTS[oid])
        if value != DEFAULTS[oid]:
            out[key] = value
    return out


def written(value: object) -> str:
    """A value as torch_npu must read it: True/False with that case, floats as Python prints them."""
    if isinstance(value, bool):
        return "True" if value else "False"
    return repr(value) if isinstance(value, float) else str(value)


def init_event(record: dict) -> dict:
    events = [e for e in record["events"] if e["kind"] == "torch_npu_init"]
    assert len(events) == 1, record
    return events[0]


def check_torch_npu_run(profile: Profile, record: dict) -> None:
    assert record["error"] is None, (profile, record["error"])
    options = dict(profile.options)
    init = init_event(record)
    assert init["alloc_conf"] == chosen_alloc(options), profile
    assert ("PYTORCH_ALLOC_CONF" in init["environ"]) is False
    sizes = {"max_op_cache_size": ("ASCEND_MAX_OP_CACHE_SIZE", 500), "remain_cache_size_ratio":
             ("ASCEND_REMAIN_CACHE_SIZE_RATIO", 50)}
    for oid, (name, default) in sizes.items():
        value = options.get(oid, default)
        assert init["environ"].get(name) == (str(value) if value != default else None), (oid, profile)
    set_options = [e["options"] for e in record["events"] if e["kind"] == "set_option"]
    wanted = {}
    if options.get("op_compiler_cache_mode", "enable") != "enable":
        wanted["ACL_OP_COMPILER_CACHE_MODE"] = options["op_compiler_cache_mode"]
    if options.get("op_compiler_cache_dir", ""):
        wanted["ACL_OP_COMPILER_CACHE_DIR"] = options["op_compiler_cache_dir"]
    assert set_options == ([wanted] if wanted else []), profile
    # set_option runs after torch_npu is imported, never before.
    kinds = [e["kind"] for e in record["events"]]
    assert kinds.index("import") < kinds.index("torch_npu_init")


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(CHOICES, min_size=25, max_size=25))
def test_torch_npu_exports_run_against_torch_npu_and_refuse_exactly_what_it_refuses(tmp_path_factory, batch):
    tmp_path = tmp_path_factory.mktemp("torch")
    accepted, texts = [], []
    for options in batch:
        profile = Profile(framework="pytorch", device="Ascend910B3", options=options)
        for changed_only in (False, True):
            result = export_text(profile, "torch-npu", changed_only=changed_only)
            assert result.refused == torch_would_refuse(options), options
            if result.refused:
                # What a naive writer would give torch_npu with every key: torch_npu refuses it.
                naive = alloc_conf_text({oid: options[oid] for oid in KEYS if oid in options})
                assert not parse_alloc_conf(naive).usable
                continue
            accepted.append(profile)
            texts.append(result.text)
            back = import_text(result.text, "torch-npu", "<export>")
            if any(oid in KEYS or oid.startswith("op_compiler_cache") for oid in profile.changed()):
                assert back.framework == "pytorch"  # a torch_npu variable or set_option says so
            for oid, value in profile.changed().items():
                assert back.settings[oid][0] == value, (oid, options)
    for profile, record in zip(accepted, run_snippets(tmp_path, texts), strict=True):
        check_torch_npu_run(profile, record)


def test_every_single_choice_runs_against_the_stand_in(tmp_path):
    catalog = load_catalog()
    profiles = [Profile(framework="pytorch", device="Ascend910B3")]
    for oid in catalog.frameworks["pytorch"].options:
        option = catalog.options[oid]
        for doc in option.values + option.special:
            profiles.append(Profile(framework="pytorch", device="Ascend910B3", options={oid: doc.value}))
    profiles += [Profile(framework="pytorch", options={"npu_alloc_max_split_size_mb": 21,
                                                       "npu_alloc_garbage_collection_threshold": 0.999,
                                                       "npu_alloc_page_size": "1g",
                                                       "npu_alloc_base_addr_aligned_kb": 0})]
    results = [export_text(p, "torch-npu") for p in profiles]
    assert not any(r.refused for r in results)
    for profile, record in zip(profiles, run_snippets(tmp_path, [r.text for r in results]), strict=True):
        check_torch_npu_run(profile, record)


def test_the_stand_in_reports_a_refused_combination(tmp_path):
    """The stand-in is not a pushover: it stops on what torch_npu stops on."""
    text = ('import os\nos.environ["PYTORCH_NPU_ALLOC_CONF"] = "expandable_segments:True,max_split_size_mb:64"\n'
            "import torch\nimport torch_npu\n")
    bad_set_option = "import torch\nimport torch_npu\ntorch_npu.npu.set_option({'ACL_OP_COMPILER_CACHE_MODE': 'Force'})\n"
    first, second = run_snippets(tmp_path, [text, bad_set_option])
    assert "cannot be enabled with `expandable_segments`" in first["error"]
    assert second["error"].startswith("ValueError")


# ---------------------------------------------------------------------------------------------
# The parser against the stand-in: the same verdict on any string
# ---------------------------------------------------------------------------------------------

def stand_in_verdicts(tmp_path: Path, texts: list[str]) -> list[str | None]:
    """torch_npu's verdict on each PYTORCH_NPU_ALLOC_CONF text: None (accepted) or its error."""
    script = tmp_path / "verdicts.py"
    script.write_text(
        "import json, sys\n"
        "import torch_npu\n"
        "out = []\n"
        "for text in json.load(open(sys.argv[1], encoding='utf-8')):\n"
        "    try:\n"
        "        torch_npu.parse_alloc_conf(text)\n"
        "        out.append(None)\n"
        "    except RuntimeError as exc:\n"
        "        out.append(str(exc))\n"
        "print(json.dumps(out))\n", encoding="utf-8")
    data = tmp_path / "texts.json"
    data.write_text(json.dumps(texts), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(STUBS)}
    env.pop("PYTORCH_NPU_ALLOC_CONF", None)
    env.pop("PYTORCH_ALLOC_CONF", None)
    done = subprocess.run([sys.executable, str(script), str(data)], capture_output=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


KEY_NAMES = ["expandable_segments", "max_split_size_mb", "garbage_collection_threshold", "page_size",
             "base_addr_aligned_kb", "segment_size_mb", "Expandable_Segments", "page-size", "foo"]
# Values as people write them, "64MB" and "0.5x" included (torch_npu reads their leading number).
# Not here: negative sizes, which C's stoi wraps to a huge size_t that torch_npu takes as "no
# limit" while the tool refuses them.
VALUE_WORDS = ["True", "False", "true", "FALSE", "1g", "1G", "2m", "0", "8", "16", "17", "20", "21", "64",
               "4096", "0.5", "0.0", "1.0", "0.999", ".25", "1e-3", "yes", "", "64MB", "0.5x", "8kb", "-0.5",
               "1.5e0", "20.5"]


@st.composite
def alloc_strings(draw) -> str:
    pairs = draw(st.lists(st.tuples(st.sampled_from(KEY_NAMES), st.sampled_from(VALUE_WORDS)), max_size=4))
    text = ",".join(f"{k}:{v}" for k, v in pairs)
    if draw(st.booleans()):
        text = text.replace(",", ", ")
    return text


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(alloc_strings(), min_size=60, max_size=60))
def test_the_parser_refuses_exactly_what_torch_npu_refuses(tmp_path_factory, texts):
    verdicts = stand_in_verdicts(tmp_path_factory.mktemp("verdicts"), texts)
    for text, verdict in zip(texts, verdicts, strict=True):
        parsed = parse_alloc_conf(text)
        assert parsed.usable == (verdict is None), (text, verdict, [f.code for f in parsed.findings])


@pytest.mark.parametrize("text", [
    "expandable_segments:True", "expandable_segments:true", "max_split_size_mb:20", "max_split_size_mb:21",
    "garbage_collection_threshold:1.0", "garbage_collection_threshold:0.6", "page_size:2m", "page_size:1g",
    "base_addr_aligned_kb:17", "foo:1", "expandable_segments:True,garbage_collection_threshold:0.5",
    "roundup_power2_divisions:[256:1,512:2],max_split_size_mb:64", "max_split_size_mb", "",
])
def test_known_strings_get_torch_npus_verdict(tmp_path, text):
    verdict = stand_in_verdicts(tmp_path, [text])[0]
    assert parse_alloc_conf(text).usable == (verdict is None), verdict


# ---------------------------------------------------------------------------------------------
# Env files: sourced by bash and fish
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shell", SHELLS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(CHOICES, min_size=6, max_size=6))
def test_env_files_set_the_allocator_variable_torch_npu_accepts(shell, tmp_path, batch):
    fmt = "env-bash" if shell == "bash" else "env-fish"
    for index, options in enumerate(batch):
        profile = Profile(framework="pytorch", device="Ascend910B3", options=options)
        result = export_text(profile, fmt, changed_only=index % 2 == 1)
        assert result.refused == torch_would_refuse(options)
        if result.refused:
            continue
        env = source_env(shell, tmp_path, result.text, f"env_{index}")
        chosen = chosen_alloc(options)
        if not chosen:
            assert "PYTORCH_NPU_ALLOC_CONF" not in env
            continue
        # Only the chosen keys, in torch_npu's documented order, key:value joined by commas.
        order = list(KEYS.values())
        expected = ",".join(f"{k}:{written(v)}" for k, v in sorted(chosen.items(), key=lambda kv: order.index(kv[0])))
        assert env["PYTORCH_NPU_ALLOC_CONF"] == expected
        assert "PYTORCH_ALLOC_CONF" not in env
        assert parse_alloc_conf(env["PYTORCH_NPU_ALLOC_CONF"]).values == {
            oid: v for oid, v in options.items() if oid in KEYS and v != DEFAULTS[oid]}
        assert stand_in_verdicts(tmp_path, [env["PYTORCH_NPU_ALLOC_CONF"]]) == [None]


def test_the_bool_is_written_true_false_whatever_the_case_given():
    option = load_catalog().option("npu_alloc_expandable_segments")
    for text in ("true", "TRUE", "True", "tRuE"):
        assert option.parse(text) is True
    for text in ("false", "FALSE", "False"):
        assert option.parse(text) is False
    for text in ("1", "yes", "on", ""):
        with pytest.raises(ValueError):
            option.parse(text)
    result = export_text(Profile(framework="pytorch", options={"npu_alloc_expandable_segments": option.parse("tRuE")}),
                         "env-bash", changed_only=True)
    assert "export PYTORCH_NPU_ALLOC_CONF='expandable_segments:True'" in result.text
