"""The script reader (app.io.scripts): what a careful reader sees a script set, never running it."""

from __future__ import annotations

import ast
import textwrap

from cann_config.app.io.importers import import_script
from cann_config.app.io.scripts import UNKNOWN, read_script


def reading(text: str):
    text = textwrap.dedent(text)
    return read_script(ast.parse(text), text, "s.py")


def imported(text: str):
    return import_script(textwrap.dedent(text), "s.py")


# -- set_option (pattern 1) ----------------------------------------------------------------------


def test_set_option_with_a_dict_built_key_by_key():
    r = imported("""\
        import torch
        import torch_npu

        option = {}
        option["ACL_OP_COMPILER_CACHE_MODE"] = "disable"
        option["ACL_OP_COMPILER_CACHE_DIR"] = "/data/cache"
        option["ACL_PRECISION_MODE"] = "allow_fp32_to_fp16"
        torch.npu.set_option(option)
        """)
    assert r.settings == {"op_compiler_cache_mode": ("disable", 8), "op_compiler_cache_dir": ("/data/cache", 8)}
    assert r.framework == "pytorch"
    assert r.findings == []
    assert r.origins["op_compiler_cache_mode"].via == "set_option"
    (call,) = r.set_options
    assert call.call == "torch.npu.set_option" and call.complete
    assert set(call.options) == {"ACL_OP_COMPILER_CACHE_MODE", "ACL_OP_COMPILER_CACHE_DIR", "ACL_PRECISION_MODE"}


def test_set_option_through_import_aliases_helpers_and_main():
    r = imported("""\
        import torch_npu as tnpu
        from torch_npu import npu

        def init_npu():
            opts = dict(ACL_OP_COMPILER_CACHE_MODE="force")
            tnpu.npu.set_option(opts)

        if __name__ == "__main__":
            npu.set_option({"ACL_OP_COMPILER_CACHE_DIR": "/cache"})
            init_npu()
        """)
    assert r.settings == {"op_compiler_cache_mode": ("force", 6), "op_compiler_cache_dir": ("/cache", 9)}
    assert [c.call for c in r.set_options] == ["torch_npu.npu.set_option", "torch_npu.npu.set_option"]


def test_set_option_wins_over_the_variable_and_checks_the_mode():
    r = imported("""\
        import os, torch
        os.environ["ACL_OP_COMPILER_CACHE_MODE"] = "enable"
        torch.npu.set_option({"ACL_OP_COMPILER_CACHE_MODE": "disable"})
        torch.npu.set_option({"ACL_OP_COMPILER_CACHE_MODE": 1})
        torch.npu.set_option({"ACL_OP_COMPILER_CACHE_MODE": "sometimes"})
        """)
    assert r.settings["op_compiler_cache_mode"] == ("disable", 3)
    found = [(f.code, f.line) for f in r.findings]
    assert ("import-invalid-value", 4) in found and ("import-invalid-value", 5) in found
    assert "ValueError" in next(f for f in r.findings if f.line == 4).message("en")


def test_set_option_look_alikes_are_not_torch_npu():
    r = imported("""\
        import npu_device as npu
        import mindspore
        npu.set_option({"ACL_OP_COMPILER_CACHE_MODE": "disable"})
        mindspore.set_option({"ACL_OP_COMPILER_CACHE_MODE": "disable"})
        config.set_option({"ACL_OP_COMPILER_CACHE_MODE": "disable"})
        # torch.npu.set_option({"ACL_OP_COMPILER_CACHE_MODE": "disable"})
        """)
    assert r.settings == {} and r.set_options == []
    assert r.framework == "tf2"  # from the npu_device import, not from a set_option


def test_the_framework_from_the_adapter_imported_when_no_setting_names_one():
    assert imported("import torch_npu\nimport os\nos.environ['ASCEND_CACHE_PATH'] = '/c'\n").framework == "pytorch"
    assert imported("from npu_bridge.npu_init import *\n").framework == "tf1"
    assert imported("import npu_device\nimport torch_npu\n").framework is None  # two adapters: not one
    # A setting's own syntax decides over the imports.
    assert imported("import torch_npu\nmem = MemoryConfig(static_memory_policy=2)\n").framework == "tf1"


def test_set_option_with_a_dict_the_reader_cannot_see():
    r = imported("""\
        import torch
        def setup(cfg):
            torch.npu.set_option(cfg.npu_options)
        """)
    assert r.settings == {} and r.unknown == {}
    assert [(f.code, f.line) for f in r.findings] == [("import-dynamic-value", 3)]
    assert r.framework == "pytorch"


# -- literal propagation (pattern 4) ---------------------------------------------------------------


def test_a_constant_through_a_variable_in_one_scope():
    r = imported("""\
        from npu_bridge.npu_init import *

        def build():
            kernel_dir = "./kernel_meta"
            mode = "force"
            return NPURunConfig(op_compiler_cache_dir=kernel_dir, op_compiler_cache_mode=mode)
        """)
    assert r.settings == {"op_compiler_cache_dir": ("./kernel_meta", 6), "op_compiler_cache_mode": ("force", 6)}


def test_where_a_reader_gives_up():
    r = imported("""\
        import os
        from npu_bridge.npu_init import *

        def build(cache_dir, flags):
            return NPURunConfig(op_compiler_cache_dir=cache_dir, op_compiler_cache_mode=flags.mode)

        def branches(use_big):
            if use_big:
                size = "4096"
            else:
                size = "1024"
            os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = size

        def loop(paths):
            path = "/a"
            for p in paths:
                os.environ["ASCEND_CACHE_PATH"] = path
                path = p
        """)
    assert r.settings == {}
    # The option of line 5 wins over ASCEND_CACHE_PATH (line 17): both known only at run time.
    assert r.unknown == {"op_compiler_cache_mode": 5, "op_compiler_cache_dir": 5, "max_op_cache_size": 12}
    assert [(e.name, e.known, e.line) for e in r.environment] == [("ASCEND_MAX_OP_CACHE_SIZE", False, 12),
                                                                  ("ASCEND_CACHE_PATH", False, 17)]


def test_names_rebound_later_or_globally_are_not_constants():
    r = imported("""\
        import os
        CACHE = "/first"
        os.environ["ASCEND_CACHE_PATH"] = CACHE
        CACHE = "/second"
        MODE = "force"

        def f():
            os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = CACHE

        def g():
            global MODE
            MODE = "enable"

        def h():
            return NPURunConfig(op_compiler_cache_mode=MODE)
        """)
    # At line 3, CACHE is "/first"; inside f() it could be either: unknown.
    assert r.environment[0].value == "/first"
    assert r.unknown == {"op_compiler_cache_mode": 15, "max_op_cache_size": 8}


def test_literal_expressions_a_reader_computes():
    env = {e.name: e.value for e in reading("""\
        import os
        base = "/data"
        rank = 0
        os.environ["A"] = base + "/cache"
        os.environ["B"] = f"{base}/cache_{rank}"
        os.environ["C"] = str(1)
        os.environ["D"] = os.path.join(base, "kernel")
        os.environ["E"] = os.getenv("X", "y")
        os.environ["F"] = f"{base:>10}"
        """).env}
    assert env == {"A": "/data/cache", "B": "/data/cache_0", "C": "1", "D": "/data/kernel", "E": UNKNOWN,
                   "F": UNKNOWN}


def test_code_under_a_constant_false_test_never_runs():
    r = imported("""\
        import os
        DEBUG = False
        if False:
            os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = "10"
        if DEBUG:
            os.environ["ASCEND_REMAIN_CACHE_SIZE_RATIO"] = "10"
        else:
            os.environ["ASCEND_REMAIN_CACHE_SIZE_RATIO"] = "70"
        """)
    assert r.settings == {"remain_cache_size_ratio": (70, 8)}


def test_a_value_set_on_one_path_only_is_what_the_script_sets():
    r = imported("""\
        import torch
        option = {"ACL_OP_COMPILER_CACHE_DIR": "/c"}
        if args.fast:
            option["ACL_OP_COMPILER_CACHE_MODE"] = "force"
        torch.npu.set_option(option)
        """)
    assert r.settings == {"op_compiler_cache_dir": ("/c", 5), "op_compiler_cache_mode": ("force", 5)}


# -- environment assignments, exposed generically ----------------------------------------------------


def test_every_environment_assignment_is_listed_with_how_and_line():
    r = reading("""\
        import os
        from os import environ
        conf = "expandable_segments:True"
        os.environ["PYTORCH_NPU_ALLOC_CONF"] = conf
        os.environ.setdefault("HCCL_BUFFSIZE", "120")
        environ.update({"TASK_QUEUE_ENABLE": "2",
                        "GE_USE_STATIC_MEMORY": args.mem})
        os.putenv("MULTI_STREAM_MEMORY_REUSE", "1")
        os.environ.update(ASCEND_WORK_PATH="/w")
        """)
    assert [(e.name, e.value, e.line, e.how) for e in r.env] == [
        ("PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True", 4, "assign"),
        ("HCCL_BUFFSIZE", "120", 5, "setdefault"),
        ("TASK_QUEUE_ENABLE", "2", 6, "update"),
        ("GE_USE_STATIC_MEMORY", UNKNOWN, 7, "update"),
        ("MULTI_STREAM_MEMORY_REUSE", "1", 8, "putenv"),
        ("ASCEND_WORK_PATH", "/w", 9, "update"),
    ]
    assert r.env[3].expression == "args.mem" and not r.env[3].known
    assert all(e.file == "s.py" for e in r.env)
    # The dict given to os.environ.update is not a GE option dict.
    assert [m.key for m in r.mappings] == []


def test_deeply_nested_expressions_are_given_up_not_crashed_on():
    text = "import os\nos.environ['ASCEND_CACHE_PATH'] = " + " + ".join(["'a'"] * 300) + "\n"
    r = import_script(text, "deep.py")
    assert r.unknown == {"op_compiler_cache_dir": 2}
