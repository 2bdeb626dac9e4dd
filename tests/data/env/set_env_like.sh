#!/bin/bash
# a set_env.sh-like file
source /usr/local/Ascend/ascend-toolkit/set_env.sh
if [ -d /data ]; then
    export ASCEND_CACHE_PATH=/data/cache
fi
export ASCEND_OPP_PATH=${ASCEND_HOME_PATH:-/usr/local/Ascend/ascend-toolkit/latest}/opp
export PATH=$PATH:/usr/local/bin
export ASCEND_MAX_OP_CACHE_SIZE=$(cat /etc/size)
