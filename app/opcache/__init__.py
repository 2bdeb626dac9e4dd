"""CANN's operator-compile cache: where it is, how big it may grow, and what CANN deletes.

Owns the cache directory resolution (option › ASCEND_CACHE_PATH › $HOME/atc_data), op_cache.ini
as CANN reads it and line-preserving edits of it, the effective size values with their sources,
the disk scan and CANN's cleanup prediction. See docs/cann/op-cache.md.
"""
