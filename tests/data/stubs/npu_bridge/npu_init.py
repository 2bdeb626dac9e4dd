"""Stand-in for `npu_bridge.npu_init`: what `from npu_bridge.npu_init import *` brings in.

The real module imports tensorflow as tf, RewriterConfig and the NPU classes; the snippets may
rely on any of them, so the stand-in offers the same names.
"""

import tensorflow as tf
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

from npu_bridge.estimator.npu.npu_config import MemoryConfig, NPURunConfig
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator

__all__ = ["MemoryConfig", "NPUEstimator", "NPURunConfig", "RewriterConfig", "tf"]
