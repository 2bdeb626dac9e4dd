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


# -- the environment the script leaves when it runs (EnvState; issue 25 item 5) ------------------


def env_states(text: str) -> dict[str, tuple]:
    """name -> (value shown, inherited, line): "UNKNOWN" for a run-time value, the branches'
    text for a conditional."""
    return {name: (state.shown() if not state.known else state.value, state.inherited, state.line)
            for name, state in reading(text).env_state.items()}


def test_setdefault_and_a_default_read_back_are_default_if_unset():
    assert env_states("""\
        import os
        from os import getenv
        os.environ.setdefault("A", "a")
        os.environ["B"] = os.environ.get("B", "b")
        conf = os.getenv("CONF", "expandable_segments:True")
        os.environ["C"] = conf
        os.environ["D"] = getenv("D") or "d"
        os.environ["E"] = os.environ["NOT_SET_HERE"]
        """) == {"A": ("a", "A", 3), "B": ("b", "B", 4), "C": ("expandable_segments:True", "CONF", 6),
                 "D": ("d", "D", 7), "E": ('os.environ["NOT_SET_HERE"]', None, 8)}
    assert reading('import os\nos.environ["D"] = os.environ.get("D") or "d"\n').env_state["D"].empty_too


def test_a_default_of_a_variable_the_script_set_is_that_value():
    assert env_states("""\
        import os
        os.environ["A"] = "a"
        os.environ.setdefault("A", "ignored")
        os.environ["B"] = os.environ.get("A", "ignored")
        os.environ.pop("A")
        os.environ.setdefault("A", "again")
        del os.environ["B"]
        """) == {"A": ("again", None, 6), "B": (None, None, 7)}
    assert reading('import os\nos.environ["B"] = "1"\ndel os.environ["B"]\n').env_state["B"].unset


def test_run_time_branches_are_conditional_with_each_ways_value():
    states = env_states("""\
        import os
        if rank == 0:
            os.environ["A"] = "zero"
        elif rank == 1:
            os.environ["A"] = "one"
        else:
            os.environ["A"] = "other"
        if args.cache:
            os.environ["B"] = "/cache"
        for device in devices:
            os.environ["C"] = "looped"
        while os.environ.get("WAIT"):
            os.environ["D"] = "waited"
        x = args.x and os.environ.setdefault("E", "e")
        match args.mode:
            case "fast":
                os.environ["F"] = "fast"
            case _:
                os.environ["F"] = "slow"
        """)
    assert states["A"] == ("zero when rank == 0; one when rank == 1; other otherwise", None, 7)
    assert states["B"][0] == "/cache when args.cache; not set here otherwise"
    assert states["C"][0] == "looped when for device in devices runs; not set here when the loop does not run"
    assert states["D"][0] == 'waited when while os.environ.get("WAIT") runs; not set here when the loop does not run'
    assert states["E"][0] == ("e (unless the launching environment sets E) when args.x is true; "
                              "not set here otherwise")
    assert states["F"][0] == "fast when args.mode matches \"fast\"; slow when args.mode matches _"


def test_try_except_arms_are_conditional_and_a_way_that_stops_the_job_is_not_one():
    states = env_states("""\
        import os, sys
        try:
            import torch_npu
            os.environ["A"] = "npu"
        except ImportError:
            os.environ["A"] = "cpu"
        if not npu_ok:
            os.environ["B"] = "never used"
            sys.exit(1)
        os.environ["C"] = "after the check"
        if args.bad:
            raise SystemExit("bad")
        else:
            os.environ["D"] = "d"
        """)
    assert states["A"][0] == "npu when no exception; cpu when ImportError is raised"
    assert "B" not in states  # the only way that sets it ends the program
    assert states["C"] == ("after the check", None, 10) and states["D"] == ("d", None, 14)


def test_the_main_block_and_the_functions_it_calls_are_plain():
    states = env_states("""\
        import os

        def configure():
            os.environ["A"] = "a"
            helper()

        def helper():
            os.environ["B"] = "b"

        def main():
            configure()

        if __name__ == "__main__":
            os.environ["C"] = "c"
            main()
        else:
            os.environ["C"] = "imported"
        """)
    assert states == {"A": ("a", None, 4), "B": ("b", None, 8), "C": ("c", None, 14)}


def test_a_function_nothing_calls_by_name_sets_only_when_called():
    states = env_states("""\
        import os
        os.environ["A"] = "module"

        def worker(rank):
            os.environ["A"] = f"rank{rank}"

        class Trainer:
            def setup(self):
                os.environ["B"] = "b"

        def early(flag):
            if flag:
                return
            os.environ["C"] = "c"

        if __name__ == "__main__":
            signal.signal(signal.SIGUSR1, worker)
            early(args.flag)
        """)
    assert states["A"][0] == "f\"rank{rank}\" when worker() is called; module otherwise"
    assert states["B"][0] == "b when Trainer.setup() is called; not set here otherwise"
    assert states["C"][0] == "not set here when flag; c otherwise"


def test_a_function_handed_to_a_runner_runs_there():
    states = env_states("""\
        import os
        import tensorflow as tf
        import torch.multiprocessing as mp

        def main(_):
            os.environ["A"] = "from tf.app.run"

        def worker(rank):
            os.environ["B"] = "in every worker"

        def entry():
            os.environ["C"] = "from fire"

        if __name__ == "__main__":
            mp.spawn(worker, nprocs=8)
            fire.Fire(entry)
            tf.compat.v1.app.run()
        """)
    assert states == {"A": ("from tf.app.run", None, 6), "B": ("in every worker", None, 9),
                      "C": ("from fire", None, 12)}


def test_constant_tests_take_their_arm_and_recursion_is_bounded():
    states = env_states("""\
        import os
        DEBUG = False
        if DEBUG:
            os.environ["A"] = "debug"
        else:
            os.environ["A"] = "release"

        def again(n):
            os.environ["B"] = "b"
            again(n - 1)

        again(3)
        """)
    assert states == {"A": ("release", None, 6), "B": ("b", None, 9)}


def test_a_deep_expression_is_read_without_exhausting_the_stack():
    # as deep as Python's own parser takes: the reader computes up to its depth, the run walks it all
    nested = "os.environ.setdefault('A', 'a')"
    for _ in range(180):
        nested = f"(f() + {nested})"
    text = f'import os\nx = {nested}\ny = f() or os.environ.setdefault("B", "b")\n'
    states = env_states(text)
    assert states["A"] == ("a", "A", 2)
    assert states["B"][0] == "b (unless the launching environment sets B) when f() is false; not set here otherwise"


def test_a_conditional_of_too_many_ways_is_one_run_time_value():
    text = "import os\n" + "".join(f'if args.c{i}:\n    os.environ["A"] = "v{i}"\n' for i in range(20))
    state = reading(text).env_state["A"]
    assert not state.known and not state.branches
    assert state.expression == "one of 21 ways through run-time branches, the last at line 41"
    few = reading("import os\n" + "".join(f'if args.c{i}:\n    os.environ["A"] = "v{i}"\n' for i in range(3)))
    assert len(few.env_state["A"].branches) == 4


def test_a_loop_over_keys_the_reader_sees_sets_each_variable():
    r = reading("""\
        import os
        NPU_ENV = {"PYTORCH_NPU_ALLOC_CONF": "expandable_segments:True", "ASCEND_MAX_OP_CACHE_SIZE": "1000"}
        for key, value in NPU_ENV.items():
            os.environ[key] = value
        for name in ("HCCL_BUFFSIZE", "HCCL_CONNECT_TIMEOUT"):
            os.environ.setdefault(name, "200")
        """)
    states = {name: (s.value, s.inherited, s.line) for name, s in r.env_state.items()}
    assert states == {"PYTORCH_NPU_ALLOC_CONF": ("expandable_segments:True", None, 4),
                      "ASCEND_MAX_OP_CACHE_SIZE": ("1000", None, 4),
                      "HCCL_BUFFSIZE": ("200", "HCCL_BUFFSIZE", 6), "HCCL_CONNECT_TIMEOUT": ("200", "HCCL_CONNECT_TIMEOUT", 6)}
    assert r.env_unknown == []


def test_a_name_known_only_at_run_time_is_said_to_be_one():
    r = imported("""\
        import os
        for line in open(".env"):
            key, value = line.strip().split("=", 1)
            os.environ[key] = value
        os.environ.update(load_settings())
        os.environ.setdefault(args.var, "1")
        """)
    found = [(f.code, f.line) for f in r.findings]
    assert found == [("import-env-name-unknown", 4), ("import-env-name-unknown", 5), ("import-env-name-unknown", 6)]
    assert "os.environ under a name known only at run time (key)" in r.findings[0].message("en")


def test_a_guard_on_an_unset_variable_is_default_if_unset():
    r = reading("""\
        import os
        if "PYTORCH_NPU_ALLOC_CONF" not in os.environ:
            os.environ["PYTORCH_NPU_ALLOC_CONF"] = "expandable_segments:True"
        if not os.getenv("ASCEND_CACHE_PATH"):
            os.environ["ASCEND_CACHE_PATH"] = "/data/cache"
        os.environ["A"] = "set"
        if os.environ.get("A") is None:
            os.environ["A"] = "never"
        if "B" not in os.environ:
            os.environ["B"] = "b"
            os.environ["C"] = "c"
        """)
    states = {name: (s.value if s.known else s.shown(), s.inherited, s.empty_too) for name, s in r.env_state.items()}
    assert states == {"PYTORCH_NPU_ALLOC_CONF": ("expandable_segments:True", "PYTORCH_NPU_ALLOC_CONF", False),
                      "ASCEND_CACHE_PATH": ("/data/cache", "ASCEND_CACHE_PATH", True), "A": ("set", None, False),
                      "B": ("b", "B", False),
                      "C": ('c when "B" not in os.environ; not set here otherwise', None, False)}
