# ruff: noqa - a model-zoo style script written for the corpus test; never executed
"""Keras training on Ascend with TF2 (npu_device)."""
import argparse
import os

import npu_device as npu
import tensorflow as tf

parser = argparse.ArgumentParser()
parser.add_argument("--output_dir", default="./output")
parser.add_argument("--batch_size", type=int, default=256)
args = parser.parse_args()

# Not GE_USE_STATIC_MEMORY: a look-alike some scripts carry around.
os.environ["ASCEND_GE_USE_STATIC_MEMORY"] = "1"


def npu_config():
    npu_config = npu.global_options()
    npu_config.memory_config.static_memory_policy = 2
    npu_config.memory_config.atomic_clean_policy = 1
    npu_config.op_compiler_cache_mode = "enable"
    npu_config.op_compiler_cache_dir = os.path.join(args.output_dir, "op_cache")
    npu_config.precision_mode = "allow_mix_precision"
    npu.open().as_default()


def main():
    npu_config()
    model = tf.keras.applications.ResNet50(weights=None)
    model.compile(optimizer="sgd", loss="categorical_crossentropy")


if __name__ == "__main__":
    main()
