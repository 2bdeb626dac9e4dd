"""Stand-in for TensorFlow 1.15, only what the exported snippets touch.

`tf.ConfigProto` behaves like the protobuf message where the snippets rely on it: unknown
constructor fields raise ValueError, string fields refuse bytes, bytes fields refuse str and
integer fields refuse anything but int, each with TypeError, as protobuf's Python runtime does.
"""

from tensorflow import compat
from tensorflow.core.protobuf.config_pb2 import ConfigProto

__version__ = "1.15.0-stand-in"

__all__ = ["ConfigProto", "compat"]
