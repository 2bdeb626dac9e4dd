# ruff: noqa - a model-zoo style script written for the corpus test; never executed
"""Settings a reader must not list: comments, strings, dead code and look-alike names.

Example (documentation only):
    torch.npu.set_option({"ACL_OP_COMPILER_CACHE_MODE": "disable"})
    os.environ["GE_USE_STATIC_MEMORY"] = "1"
"""
import os

import tensorflow as tf
from npu_bridge.npu_init import *
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

USE_OLD_CACHE = False

# torch.npu.set_option({"ACL_OP_COMPILER_CACHE_MODE": "disable"})
# os.environ["ASCEND_CACHE_PATH"] = "/old/cache"
HELP = 'set os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = "10" to shrink the cache'

if False:
    os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = "10"

if USE_OLD_CACHE:
    os.environ["ASCEND_CACHE_PATH"] = "/old/cache"

os.environ["ASCEND_GE_USE_STATIC_MEMORY"] = "1"
os.environ["ASCEND_WORK_PATH"] = "/data/work"

config = tf.ConfigProto()
config.graph_options.rewrite_options.memory_optimization = RewriterConfig.OFF
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["graph_compiler_cache_dir"].s = tf.compat.as_bytes("/data/graph_cache")
custom_op.parameter_map["graph_memory_max_size"].s = tf.compat.as_bytes(str(26 * 1024 * 1024 * 1024))
settings = {"memory_optimization": "on", "static_memory": 2, "cache_dir": "/tmp"}
print("run with memory_optimization_policy=BalanceMode to try")
