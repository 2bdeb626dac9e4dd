#!/usr/bin/env python3
# vim: set fileencoding=latin-1 :
import os
os.environ["ASCEND_CACHE_PATH"] = "/data/café"
