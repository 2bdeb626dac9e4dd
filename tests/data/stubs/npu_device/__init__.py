"""Stand-in for TF Adapter 2.x `npu_device`: global_options() and open().

As in the real module, open() reads global_options() once, when the device opens, and hands
the options to the device as strings; the stand-in records that snapshot, so a test sees what
the device would get, and that options set after npu.open() are not in it.
"""

import _stub_record

from npu_device.configs.npu_config import NpuConfig

_global_options = None
_instances = {}


def global_options():
    global _global_options
    if _global_options is None:
        _global_options = NpuConfig()
    return _global_options


class NpuDeviceHandle:
    def __init__(self, device_id):
        self.device_id = device_id

    def as_default(self):
        _stub_record.event("as_default", device_id=self.device_id)
        return self


def open(device_id=None):
    device_id = 0 if device_id is None else device_id
    if device_id in _instances:
        return _instances[device_id]
    _stub_record.event("open", device_id=device_id, options=global_options().as_dict())
    _instances[device_id] = NpuDeviceHandle(device_id)
    return _instances[device_id]
