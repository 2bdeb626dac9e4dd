# ruff: noqa - a model-zoo style script written for the corpus test; never executed
"""BERT fine-tuning with DDP on torch_npu."""
import os

import torch
import torch_npu as tnpu
from torch_npu.contrib import transfer_to_npu

CACHE_MODE = "disable"
ALLOC_CONF = "expandable_segments:True"


def setup_env(local_rank):
    os.environ["ASCEND_CACHE_PATH"] = f"/tmp/ascend_cache_{local_rank}"
    os.environ["PYTORCH_NPU_ALLOC_CONF"] = ALLOC_CONF
    os.environ["HCCL_CONNECT_TIMEOUT"] = str(1200)


def train(model, loader, local_rank):
    for step, batch in enumerate(loader):
        loss = model(**batch).loss
        loss.backward()


if __name__ == "__main__":
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    setup_env(local_rank)
    tnpu.npu.set_option({"ACL_OP_COMPILER_CACHE_MODE": CACHE_MODE})
    torch.distributed.init_process_group(backend="hccl")
