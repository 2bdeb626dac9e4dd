"""Which Ascend device this is, and what it can take.

Owns the device table (SoC versions and product series, from resources/devices.toml), the
parsers of `npu-smi` output, the host probe that runs `npu-smi` with a time limit, and the
availability verdict of each catalog option for a device and framework. See docs/cann/devices.md.
"""
