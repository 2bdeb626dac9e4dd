# ruff: noqa - a model-zoo style script written for the corpus test; never executed
"""ResNet-50 training with sess.run on Ascend (TF1, custom_op parameter_map)."""
import argparse
import os

import tensorflow as tf
from npu_bridge.npu_init import *
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

CACHE_DIR = "/home/HwHiAiUser/op_cache"


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--static_memory", action="store_true")
    parser.add_argument("--data_dir", default="/data/imagenet")
    return parser.parse_args()


def make_session_config(args):
    config = tf.ConfigProto(allow_soft_placement=True)
    custom_op = config.graph_options.rewrite_options.custom_optimizers.add()
    custom_op.name = "NpuOptimizer"
    custom_op.parameter_map["use_off_line"].b = True
    custom_op.parameter_map["precision_mode"].s = tf.compat.as_bytes("allow_mix_precision")
    custom_op.parameter_map["op_compiler_cache_mode"].s = tf.compat.as_bytes("enable")
    custom_op.parameter_map["op_compiler_cache_dir"].s = tf.compat.as_bytes(CACHE_DIR)
    # graph_compiler_cache_dir is a different thing: the compiled graph cache.
    custom_op.parameter_map["graph_compiler_cache_dir"].s = tf.compat.as_bytes("/home/HwHiAiUser/graph_cache")
    if args.static_memory:
        custom_op.parameter_map["static_memory_policy"].i = 2
    config.graph_options.rewrite_options.remapping = RewriterConfig.OFF
    config.graph_options.rewrite_options.memory_optimization = RewriterConfig.OFF
    return config


def main():
    args = parse_args()
    os.environ["ASCEND_REMAIN_CACHE_SIZE_RATIO"] = "70"
    with tf.Session(config=make_session_config(args)) as sess:
        sess.run(tf.global_variables_initializer())


if __name__ == "__main__":
    main()
