# ruff: noqa - a model-zoo style script written for the corpus test; never executed
"""ImageNet training with torch_npu (one process per NPU)."""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch_npu

parser = argparse.ArgumentParser(description="PyTorch ImageNet Training")
parser.add_argument("data", metavar="DIR")
parser.add_argument("--addr", default="127.0.0.1", type=str)
parser.add_argument("--device-list", default="0,1,2,3,4,5,6,7", type=str)
parser.add_argument("--amp", action="store_true")


def main():
    args = parser.parse_args()
    os.environ["MASTER_ADDR"] = args.addr
    os.environ["MASTER_PORT"] = "29688"
    ngpus_per_node = len(args.device_list.split(","))
    mp.spawn(main_worker, nprocs=ngpus_per_node, args=(ngpus_per_node, args))


def main_worker(gpu, ngpus_per_node, args):
    option = {}
    option["ACL_OP_COMPILER_CACHE_MODE"] = "enable"
    option["ACL_OP_COMPILER_CACHE_DIR"] = "./cache"
    option["ACL_OP_SELECT_IMPL_MODE"] = "high_performance"
    print("option", option)
    torch.npu.set_option(option)
    loc = "npu:{}".format(gpu)
    torch.npu.set_device(loc)
    dist.init_process_group(backend="hccl", world_size=ngpus_per_node, rank=gpu)


if __name__ == "__main__":
    main()
