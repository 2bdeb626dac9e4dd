"""Stand-in for tensorflow/core/protobuf/config_pb2 (ConfigProto, GraphOptions)."""

import _stub_record

from tensorflow.core.protobuf._fields import Message
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig


class GraphOptions(Message):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._rewrite_options = RewriterConfig()

    @property
    def rewrite_options(self):
        return self._rewrite_options


class ConfigProto(Message):
    FIELDS = {"allow_soft_placement": (bool, False), "log_device_placement": (bool, False)}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._graph_options = GraphOptions()
        _stub_record.register(self)

    @property
    def graph_options(self):
        return self._graph_options

    def _record(self):
        return {"type": "ConfigProto", "allow_soft_placement": self.allow_soft_placement,
                "rewrite_options": self.graph_options.rewrite_options._record()}
