# ruff: noqa - a sample of customer code, kept as customers write it
# A TF1 sess.run script (read by tests/app/test_importers.py; never executed).
import tensorflow as tf
from npu_bridge.npu_init import *
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

config = tf.ConfigProto()
custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
custom_op.name = "NpuOptimizer"
custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_mix_precision")
custom_op.parameter_map["static_memory_policy"].i = 4
custom_op.parameter_map["variable_use_1g_huge_page"].i = 1
custom_op.parameter_map["op_compiler_cache_mode"].s = b"enable"
custom_op.parameter_map["op_compiler_cache_dir"].s = tf.compat.as_bytes("/home/test/kernel_cache")
custom_op.parameter_map["atomic_clean_policy"].s = b"1"
custom_op.parameter_map["memory_optimization_policy"].s = "MemoryPriority".encode()
config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
config.graph_options.rewrite_options.memory_optimization = RewriterConfig.OFF

with tf.Session(config=config) as sess:
    pass
