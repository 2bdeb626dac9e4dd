# The shell twin of defaults.py (written for this test suite).
export PYTORCH_NPU_ALLOC_CONF="${PYTORCH_NPU_ALLOC_CONF-expandable_segments:True}"
export ASCEND_MAX_OP_CACHE_SIZE="${ASCEND_MAX_OP_CACHE_SIZE-1000}"
export ASCEND_REMAIN_CACHE_SIZE_RATIO="${CACHE_RATIO:-80}"
