"""Stand-in for torch_npu.npu: set_option with the checks of `_option_map`
(Ascend/pytorch torch_npu/npu/npu_config.py): a value outside an option's list is a ValueError."""

import _stub_record

_option_map = {
    "ACL_OP_COMPILER_CACHE_MODE": ["disable", "enable", "force"],
    "ACL_OP_COMPILER_CACHE_DIR": None,
}


def set_option(option):
    if not isinstance(option, dict):
        raise TypeError("npu option must be a dict.")
    for key, value in option.items():
        if key not in _option_map:
            raise ValueError(f"stand-in: set_option key {key!r} is not one the tool should write")
        if not isinstance(value, str):
            raise TypeError(f"value of {key} must be a str")
        allowed = _option_map[key]
        if allowed is not None and value not in allowed:
            raise ValueError(f"value of {key} should be in {allowed} but got {value}")
    _stub_record.event("set_option", options=dict(option))
