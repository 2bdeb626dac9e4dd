# ruff: noqa - a model-zoo style script written for the corpus test; never executed
# coding=utf-8
"""Run masked LM/next sentence pre-training for BERT on Ascend (TF1 Estimator)."""
import os

import tensorflow as tf
from npu_bridge.npu_init import *
from tensorflow.core.protobuf.rewriter_config_pb2 import RewriterConfig

import modeling
import optimization

os.environ["GE_USE_STATIC_MEMORY"] = "1"
# os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = "1024"

flags = tf.flags
FLAGS = flags.FLAGS
flags.DEFINE_string("output_dir", None, "The output directory.")
flags.DEFINE_integer("iterations_per_loop", 1000, "How many steps per loop.")
flags.DEFINE_bool("npu_bert_debug", False, "debug")


def model_fn_builder(bert_config, init_checkpoint, learning_rate):
    def model_fn(features, labels, mode, params):
        return None

    return model_fn


def main(_):
    tf.logging.set_verbosity(tf.logging.INFO)
    session_config = tf.ConfigProto(inter_op_parallelism_threads=0, intra_op_parallelism_threads=0,
                                    allow_soft_placement=True)
    # TensorFlow's own graph rewriter, not a CANN memory policy.
    session_config.graph_options.rewrite_options.memory_optimization = RewriterConfig.NO_MEM_OPT
    run_config = NPURunConfig(
        model_dir=FLAGS.output_dir,
        save_checkpoints_steps=1000,
        iterations_per_loop=FLAGS.iterations_per_loop,
        session_config=session_config,
        precision_mode="allow_mix_precision",
        keep_checkpoint_max=5,
        hcom_parallel=True,
    )
    estimator = NPUEstimator(model_fn=model_fn_builder(None, None, 1e-4), config=run_config)
    estimator.train(input_fn=None, max_steps=100)


if __name__ == "__main__":
    flags.mark_flag_as_required("output_dir")
    tf.app.run()
