"""Stand-in for npu_device.configs."""
