"""Stand-in for npu_device/configs/memory_config.py: the three TF2 memory options and their lists.

TF2 has no memory_optimization_policy (docs/cann/memory.md#validation).
"""

from npu_device.configs.option_base import NpuBaseConfig, OptionValue


class MemoryConfig(NpuBaseConfig):
    def __init__(self):
        self.atomic_clean_policy = OptionValue(0, [0, 1])
        self.static_memory_policy = OptionValue(0, [0, 1, 2, 3, 4])
        self.variable_use_1g_huge_page = OptionValue(0, [0, 1, 2])
        super().__init__()
