"""A training entry point that keeps what its launcher exported (written for this test suite,
in the shape of LLM fine-tuning entry points). The twin of defaults.sh: both leave the same
environment, default-if-unset for every variable."""
import os

os.environ.setdefault("PYTORCH_NPU_ALLOC_CONF", "expandable_segments:True")
os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = os.environ.get("ASCEND_MAX_OP_CACHE_SIZE", "1000")
os.environ["ASCEND_REMAIN_CACHE_SIZE_RATIO"] = os.getenv("CACHE_RATIO") or "80"

import torch  # noqa: E402
import torch_npu  # noqa: E402,F401


def train():
    model = torch.nn.Linear(8, 8).npu()
    return model


if __name__ == "__main__":
    train()
