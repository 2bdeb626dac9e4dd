#!/bin/bash
# The misreadings listed in issue 25, in one launch script (written for the tests).
SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source /usr/local/Ascend/ascend-toolkit/set_env.sh
. "$SCRIPT_DIR/issue_cases_env.sh"
export PYTORCH_NPU_ALLOC_CONF="${PYTORCH_NPU_ALLOC_CONF:-expandable_segments:True}"
if [ "$A3" = 1 ]; then
    export ASCEND_REMAIN_CACHE_SIZE_RATIO=80
fi
line="key=value"
[[ $line =~ ^[a-z]+ ]] && x=${line#*"${BASH_REMATCH[0]}"}
export ASCEND_MAX_OP_CACHE_SIZE=1000
eval "export ASCEND_CACHE_PATH=/data/$USER"
cat > job.env <<EOT
ACL_OP_COMPILER_CACHE_MODE=disable
EOT
HCCL_CONNECT_TIMEOUT=1200 \
ACL_OP_COMPILER_CACHE_MODE=enable \
accelerate launch --config_file ds.yaml train.py
