"""A distributed training script whose settings depend on the run (written for this test suite,
in the shape of model-zoo DDP entry points: a rank-0-only cache path, an allocator chosen by a
command-line flag, a fallback when torch_npu is missing, a helper called from main, a method
only a trainer calls)."""
import argparse
import os
import sys

CACHE_LIMIT = "2048"


def set_cache_limit():
    # called from main(), which the __main__ block calls: plain
    os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = CACHE_LIMIT


def main(args):
    if not args.device.startswith("npu"):
        sys.exit("this script runs on Ascend NPUs only")  # the job stops: the rest is plain
    set_cache_limit()
    if args.local_rank == 0:
        os.environ["ASCEND_CACHE_PATH"] = "/data/rank0_cache"
    if args.expandable:
        os.environ["PYTORCH_NPU_ALLOC_CONF"] = "expandable_segments:True"
    else:
        os.environ["PYTORCH_NPU_ALLOC_CONF"] = "max_split_size_mb:256"
    try:
        import torch_npu  # noqa: F401
        os.environ["ACL_OP_COMPILER_CACHE_MODE"] = "enable"
    except ImportError:
        os.environ["ACL_OP_COMPILER_CACHE_MODE"] = "disable"


class Trainer:
    def configure(self):
        os.environ["ASCEND_REMAIN_CACHE_SIZE_RATIO"] = "70"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="npu")
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--expandable", action="store_true")
    main(parser.parse_args())
