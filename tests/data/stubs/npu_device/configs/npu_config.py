"""Stand-in for npu_device/configs/npu_config.py: the global options the exports touch, and a
few neighbours so that a misspelt name fails as it would for real (ValueError)."""

from npu_device.configs.memory_config import MemoryConfig
from npu_device.configs.option_base import NpuBaseConfig, OptionValue


class NpuConfig(NpuBaseConfig):
    def __init__(self):
        self.graph_run_mode = OptionValue(1, [0, 1])
        self.precision_mode = OptionValue(None, ["force_fp32", "allow_fp32_to_fp16", "force_fp16",
                                                 "must_keep_origin_dtype", "allow_mix_precision"])
        self.op_compiler_cache_mode = OptionValue("enable", ["enable", "disable", "force"])
        self.op_compiler_cache_dir = OptionValue(None, None)
        self.op_debug_config = OptionValue(None, None)
        self.memory_config = MemoryConfig()
        self.graph_compiler_cache_dir = OptionValue(None, None)
        super().__init__()
