"""Stand-in for tensorflow/core/protobuf/rewriter_config_pb2 (RewriterConfig and its messages)."""

from tensorflow.core.protobuf._fields import Message


class AttrValue(Message):
    """tensorflow.AttrValue: `s` is bytes, `i` an int64; the record shows which one was set."""

    FIELDS = {"s": (bytes, b""), "i": (int, 0), "f": (float, 0.0), "b": (bool, False)}

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name in self.FIELDS:
            object.__setattr__(self, "_which", name)

    def _record(self):
        which = getattr(self, "_which", None)
        if which is None:
            return {}
        value = getattr(self, which)
        return {which: {"bytes": value.hex()} if isinstance(value, bytes) else value}


class _ParameterMap(dict):
    """map<string, AttrValue>: reading a missing key creates the entry; keys must be str."""

    def __missing__(self, key):
        if not isinstance(key, str):
            raise TypeError(f"{key!r} has type {type(key).__name__}, but expected one of: str")
        value = self[key] = AttrValue()
        return value


class CustomGraphOptimizer(Message):
    FIELDS = {"name": (str, "")}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._parameter_map = _ParameterMap()

    @property
    def parameter_map(self):
        return self._parameter_map

    def _record(self):
        return {"name": self.name, "parameter_map": {k: v._record() for k, v in self.parameter_map.items()}}


class _Repeated(list):
    def __init__(self, kind):
        super().__init__()
        self._kind = kind

    def add(self):
        item = self._kind()
        self.append(item)
        return item


class RewriterConfig(Message):
    # Toggle values as in rewriter_config.proto.
    DEFAULT = 0
    ON = 1
    OFF = 2
    AGGRESSIVE = 3
    # MemOptType values (memory_optimization is of this enum type).
    DEFAULT_MEM_OPT = 0
    NO_MEM_OPT = 1
    MANUAL = 2

    FIELDS = {"remapping": (int, 0), "memory_optimization": (int, 0)}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._custom_optimizers = _Repeated(CustomGraphOptimizer)

    @property
    def custom_optimizers(self):
        return self._custom_optimizers

    def _record(self):
        return {"remapping": self.remapping, "memory_optimization": self.memory_optimization,
                "custom_optimizers": [c._record() for c in self.custom_optimizers]}
