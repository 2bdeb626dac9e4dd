# ruff: noqa - a model-zoo style script written for the corpus test; never executed
"""A TF1 Estimator job whose NPU settings live in helper functions."""
import os

import tensorflow as tf
from npu_bridge.estimator.npu.npu_config import MemoryConfig, NPURunConfig
from npu_bridge.estimator.npu.npu_estimator import NPUEstimator

FLAGS = tf.app.flags.FLAGS
tf.app.flags.DEFINE_bool("fast_ageing", False, "keep less of the op cache")

os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = str(4096)


def cache_ratio():
    if FLAGS.fast_ageing:
        ratio = "20"
    else:
        ratio = "80"
    os.environ["ASCEND_REMAIN_CACHE_SIZE_RATIO"] = ratio


def get_run_config(model_dir):
    kernel_dir = "./kernel_meta"
    mem = MemoryConfig(
        atomic_clean_policy=1,
        static_memory_policy=4,
    )
    return NPURunConfig(
        model_dir=model_dir,
        memory_config=mem,
        op_compiler_cache_mode="enable",
        op_compiler_cache_dir=kernel_dir,
        iterations_per_loop=10,
    )


def main(_):
    cache_ratio()
    estimator = NPUEstimator(model_fn=None, config=get_run_config("./model"))


if __name__ == "__main__":
    tf.app.run()
