# -*- coding: gbk -*-
import os
import torch_npu

# 缓存目录
os.environ["ACL_OP_COMPILER_CACHE_DIR"] = "/data/缓存"
