import os
import torch_npu
x = "a\udcffb"
os.environ["ASCEND_CACHE_PATH"] = "\ud800".encode()
os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = x.upper()
os.environ["ACL_OP_COMPILER_CACHE_DIR"] = "/d/" + x
os.environ["ASCEND_REMAIN_CACHE_SIZE_RATIO"] = f"{x}"
os.environ["PYTORCH_NPU_ALLOC_CONF"] = "expandable_segments:True\udcff"
torch.npu.set_option({"ACL_OP_COMPILER_CACHE_DIR": tf.compat.as_bytes("\udc80")})
