import os

os.environ["ASCEND_MAX_OP_CACHE_SIZE"] = "1000"
