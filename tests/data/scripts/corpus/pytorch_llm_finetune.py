# ruff: noqa - a model-zoo style script written for the corpus test; never executed
"""LLM fine-tuning launcher: torch_npu options from the command line."""
import argparse
import os

import torch
from torch_npu import npu

os.environ.setdefault("ACL_OP_COMPILER_CACHE_DIR", "/cache/torch_npu")
os.environ.update({"HCCL_BUFFSIZE": "200", "TASK_QUEUE_ENABLE": "2"})
os.environ.update(MULTI_STREAM_MEMORY_REUSE="1")


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--jit-compile", action="store_true")
    parser.add_argument("--cache-dir", default=None)
    return parser.parse_args()


def configure_npu(args):
    options = dict(ACL_OP_COMPILER_CACHE_MODE="force")
    if args.cache_dir:
        options["ACL_OP_COMPILER_CACHE_DIR"] = args.cache_dir
    npu.set_option(options)
    torch.npu.set_compile_mode(jit_compile=args.jit_compile)


def main():
    args = get_args()
    configure_npu(args)


if __name__ == "__main__":
    main()
