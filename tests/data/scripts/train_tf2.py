# ruff: noqa - a sample of customer code, kept as customers write it
# A TF2 script that reaches global_options() through variables (read by
# tests/app/test_importers.py; never executed).
import sys

import npu_device as npu

opts = npu.global_options()
memory = npu.global_options().memory_config
opts.memory_config.static_memory_policy = 3
memory.variable_use_1g_huge_page = 2
memory.atomic_clean_policy = "1"
npu.global_options().op_compiler_cache_mode = sys.argv[1]
npu.global_options().op_compiler_cache_dir = "/cache/数据"
npu.open().as_default()
