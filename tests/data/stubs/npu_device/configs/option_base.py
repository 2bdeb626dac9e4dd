"""Stand-in for npu_device/configs/option_base.py (hicann/tensorflow tf_adapter_2.x).

The value checks are the real ones (docs/cann/memory.md#validation): an option with a list of allowed
values refuses anything else, with TypeError when the type differs from the default's and
ValueError otherwise (so `True` passes where 1 is allowed, as in the real code, because
True == 1); a config refuses attributes it does not declare with ValueError; values are handed
to the device as strings.
"""


class OptionValue:
    def __init__(self, default, optional):
        self._default = default
        self._optional = optional
        self._value = default

    @property
    def value(self):
        if self._value is None:
            return None
        if str(self._value) == "True":
            return "1"
        if str(self._value) == "False":
            return "0"
        return str(self._value)

    @value.setter
    def value(self, v):
        if isinstance(self._optional, (tuple, list)) and v not in self._optional:
            if self._default is not None and not isinstance(v, type(self._default)):
                raise TypeError(f"Expected {type(self._default).__name__}, got {type(v).__name__}")
            raise ValueError(f"'{v}' not in optional list {self._optional}")
        self._value = v


class NpuBaseConfig:
    def __init__(self):
        self._fixed_attrs = [k for k, v in self.__dict__.items() if isinstance(v, (OptionValue, NpuBaseConfig))]

    def __setattr__(self, key, value):
        if hasattr(self, "_fixed_attrs"):
            if key not in self._fixed_attrs:
                raise ValueError(f"{type(self).__name__} has no option {key}, all options {self._fixed_attrs}")
            current = getattr(self, key)
            if isinstance(current, OptionValue):
                current.value = value
                return
        super().__setattr__(key, value)

    def as_dict(self):
        """The options that have a value, as the device receives them (strings)."""
        options = {}
        for key in self._fixed_attrs:
            item = getattr(self, key)
            if isinstance(item, OptionValue) and item.value is not None:
                options[key] = item.value
            elif isinstance(item, NpuBaseConfig):
                options.update(item.as_dict())
        return options
