# ruff: noqa - a sample of customer code, kept as customers write it
# A TF1 Estimator training script as customers send them (read by tests/app/test_importers.py;
# never executed).
import os

import tensorflow as tf
from npu_bridge.npu_init import *

CACHE_DIR = "/data/op_cache"
os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = "2048"
os.environ.setdefault("ASCEND_REMAIN_CACHE_SIZE_RATIO", "80")
os.environ["ASCEND_CACHE_PATH"] = "/fallback/cache"


def model_fn(features, labels, mode):
    return None


def main():
    mem_config = MemoryConfig(static_memory_policy=2, atomic_clean_policy=1,
                              memory_optimization_policy=None)
    session_config = tf.ConfigProto(allow_soft_placement=True)
    config = NPURunConfig(
        memory_config=mem_config,
        session_config=session_config,
        iterations_per_loop=100,
        op_compiler_cache_mode="force",
        op_compiler_cache_dir=CACHE_DIR,
    )
    estimator = NPUEstimator(model_fn=model_fn, config=config)
    return estimator


if __name__ == "__main__":
    main()
