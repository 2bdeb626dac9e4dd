# coding: utf-8
import os
os.environ["ASCEND_CACHE_PATH"] = "/data/»º"
