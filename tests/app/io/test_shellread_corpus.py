"""The launch-script corpus (issue 25): real public launch scripts (tests/data/shell/corpus/, origins
in its SOURCES.md) read by app/io/shellread.py, each against a golden reading checked by hand
against bash's rules, and every one, with every other shell fixture, against bash itself
(tests/bashoracle.py).

The golden reading of a file lists every variable it exports and every variable whose state is
not a plain value: plain(v), inherited(default, from) for default-if-unset, runtime(expression),
conditional(((condition, value or None), ...)), job(value, launcher) for a prefix onto the job's
launcher, unset(). A sourced file is read when it is in the corpus; nothing outside it is, so the
reading does not depend on this machine's /etc/profile.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cann_config.app.io.envfile import EnvFile, parse_env_text
from tests.bashoracle import BASH, check_file

DATA = Path(__file__).resolve().parents[2] / "data"
CORPUS = DATA / "shell" / "corpus"
SCRIPTS = sorted(CORPUS.glob("*.sh"))


def plain(value: str) -> tuple:
    return ("plain", value)


def inherited(value: str, source: str) -> tuple:
    return ("inherited", value, source)


def runtime(expression: str) -> tuple:
    return ("runtime", expression)


def conditional(branches: tuple) -> tuple:
    return ("conditional", branches)


def job(value: str, launcher: str) -> tuple:
    return ("job", value, launcher)


def unset() -> tuple:
    return ("unset",)


GOLDEN: dict[str, dict[str, tuple]] = {
    'ascendspeed_env_npu.sh': {
        'ASCEND_GLOBAL_EVENT_ENABLE': plain('0'),
        'ASCEND_GLOBAL_LOG_LEVEL': plain('1'),
        'ASCEND_LAUNCH_BLOCKING': plain('0'),
        'ASCEND_SLOG_PRINT_TO_STDOUT': plain('0'),
        'COMBINED_ENABLE': plain('1'),
        'DYNAMIC_OP': plain('ADD#MUL'),
        'HCCL_CONNECT_TIMEOUT': plain('1200'),
        'HCCL_WHITELIST_DISABLE': plain('1'),
        'PTCOPY_ENABLE': plain('1'),
        'TASK_QUEUE_ENABLE': plain('1'),
    },
    'cache_dit_parallelism_run.sh': {
        'CPU_AFFINITY_CONF': plain('2'),
        'FLUX_DIR': job('/home/weights/FLUX.1-dev/', 'torchrun'),
        'HCCL_OP_EXPANSION_MODE': plain('AIV'),
        'TASK_QUEUE_ENABLE': plain('2'),
    },
    'cambrian_llama_8p_msrun.sh': {
        'ASCEND_LAUNCH_BLOCKING': plain('1'),
        'ASCEND_RT_VISIBLE_DEVICES': plain('0,1,2,3,4,5,6,7'),
        'GLOG_v': plain('2'),
        'HCCL_DETERMINISTIC': plain('true'),
        'MS_DEV_RUNTIME_CONF': plain('synchronize:True'),
        'MS_ENABLE_NUMA': plain('0'),
        'MS_MEMORY_STATISTIC': plain('1'),
    },
    'drivingsdk_bevfusion_env_npu.sh': {
        'ACLNN_CACHE_LIMIT': plain('100000'),
        'ACL_OP_INIT_MODE': plain('0'),
        'ASCEND_GLOBAL_EVENT_ENABLE': plain('0'),
        'ASCEND_GLOBAL_LOG_LEVEL': plain('3'),
        'ASCEND_SLOG_PRINT_TO_STDOUT': plain('0'),
        'COMBINED_ENABLE': plain('1'),
        'CPU_AFFINITY_CONF': plain('2'),
        'HCCL_CONNECT_TIMEOUT': plain('1200'),
        'HCCL_IF_IP': runtime("$(hostname -I |awk '{print $1}')"),
        'HCCL_WHITELIST_DISABLE': plain('1'),
        'PYTORCH_NPU_ALLOC_CONF': plain('expandable_segments:True'),
        'TASK_QUEUE_ENABLE': plain('2'),
        'TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD': plain('1'),
        'path_lib': runtime('$(python3 -c """\nimport sys\nimport re\nresult=\'\'\nfor index in range(len(sys.path)):\n    match_sit = re.search(\'-packages\', sys.path[index])\n    if match_sit is not None:\n        match_lib = re.search(\'lib\', sys.path[index])\n\n        if match_lib is not None:\n            end=match_lib.span()[1]\n            result += sys.path[index][0:end] + \':\'\n\n        result+=sys.path[index] + \'/torch/lib:\'\nprint(result)"""\n)'),
    },
    'flagscale_vllm_serve_multinode_slave.sh': {
        'ASCEND_RT_VISIBLE_DEVICES': plain('2,3'),
        'GLOO_SOCKET_IFNAME': plain('enp67s0f5'),
        'HCCL_CONNECT_TIMEOUT': plain('3600'),
        'HCCL_OP_EXPANSION_MODE': plain('AIV'),
        'MOCK_CAPTURE_DIR': plain('/home/kc/capture/'),
        'MOCK_CAPTURE_FILE': plain('cache_test'),
        'MOCK_CAPTURE_FILE_LOCK': plain('.lock'),
        'PYTORCH_NPU_ALLOC_CONF': plain('expandable_segments:True'),
        'RANDOM_MODE': plain('RANDOM'),
        'RAY_DEDUP_LOGS': plain('1'),
        'RAY_EXPERIMENTAL_NOSET_ASCEND_RT_VISIBLE_DEVICES': plain('1'),
        'TP_SOCKET_IFNAME': plain('enp67s0f5'),
        'USING_LCCL_COM': plain('0'),
        'VLLM_DP_MASTER_IP': plain('7.150.15.29'),
        'VLLM_DP_SIZE_PER_NODE': plain('1'),
        'VLLM_ENABLE_MC2': plain('0'),
        'VLLM_USE_V1': plain('1'),
        'VLLM_WORKER_MULTIPROC_METHOD': plain('fork'),
    },
    'hixl_mooncake_store_run.sh': {
        'ASCEND_BUFFER_POOL': plain('4:8'),
        'ASCEND_GLOBAL_EVENT_ENABLE': plain('1'),
        'ASCEND_HOST_LOG_FILE_NUM': plain('500'),
    },
    'jiutian_57b_pretrain_dist.sh': {
        'CUDA_DEVICE_MAX_CONNECTIONS': plain('1'),
        'FORCE_TORCHRUN': plain('1'),
        'HCCL_CONNECT_TIMEOUT': plain('3600'),
        'HCCL_EXEC_TIMEOUT': plain('3600'),
        'HF_DATASETS_CACHE': plain('/workspace/mnt/cmss-hewu/cache'),
        'MASTER_ADDR': runtime('$MASTER_ADDR'),
        'MASTER_PORT': runtime('$MASTER_PORT'),
        'MODELSCOPE_CACHE': plain('/workspace/mnt/cmss-hewu/cache'),
        'NNODES': runtime('$PET_NNODES'),
        'RANK': runtime('$RANK'),
    },
    'llamafactory_ds_zero0.sh': {
        'ASCEND_RT_VISIBLE_DEVICES': job('0,1,2,3', 'torchrun'),
    },
    'long_vita_set_env_mg_npu.sh': {
        'ASCEND_GLOBAL_EVENT_ENABLE': plain('0'),
        'ASCEND_GLOBAL_LOG_LEVEL': plain('3'),
        'ASCEND_LAUNCH_BLOCKING': plain('0'),
        'ASCEND_SLOG_PRINT_TO_STDOUT': plain('0'),
        'COMBINED_ENABLE': plain('1'),
        'CUDA_DEVICE_MAX_CONNECTIONS': plain('1'),
        'DISTRIBUTED_BACKEND': plain('hccl'),
        'DYNAMIC_OP': plain('ADD#MUL'),
        'HCCL_CONNECT_TIMEOUT': plain('7200'),
        'HCCL_EXEC_TIMEOUT': plain('7200'),
        'HCCL_INTRA_PCIE_ENABLE': plain('0'),
        'HCCL_INTRA_ROCE_ENABLE': plain('1'),
        'HCCL_RDMA_SL': plain('5'),
        'HCCL_RDMA_TC': plain('160'),
        'HCCL_RDMA_TIMEOUT': plain('20'),
        'HCCL_WHITELIST_DISABLE': plain('1'),
        'INF_NAN_MODE_ENABLE': plain('1'),
        'MULTI_STREAM_MEMORY_REUSE': plain('1'),
        'PTCOPY_ENABLE': plain('1'),
        'TASK_QUEUE_ENABLE': plain('1'),
    },
    'mask2former_env_npu.sh': {
        'ASCEND_GLOBAL_EVENT_ENABLE': plain('0'),
        'ASCEND_GLOBAL_LOG_LEVEL': plain('3'),
        'ASCEND_SLOG_PRINT_TO_STDOUT': plain('0'),
        'COMBINED_ENABLE': plain('1'),
        'CPU_AFFINITY_CONF': plain('1'),
        'CURRENT_DIR': runtime('$(cd $(dirname "${BASH_SOURCE[0]}"); pwd)'),
        'DYNAMIC_OP': plain('ADD#MUL'),
        'HCCL_CONNECT_TIMEOUT': plain('1200'),
        'HCCL_IF_IP': runtime("$(hostname -I |awk '{print $1}')"),
        'HCCL_WHITELIST_DISABLE': plain('1'),
        'HOST_CACHE_CAPACITY': plain('20'),
        'PYTHONPATH': runtime('$(readlink -f "${CURRENT_DIR}/../mmsegmentation/"):$PYTHONPATH'),
        'ROOT_DIR': runtime('$(readlink -f "${CURRENT_DIR}/../mmsegmentation/")'),
        'TASK_QUEUE_ENABLE': plain('2'),
    },
    'mindie_container_run.sh': {
        'ASCEND_DIR': plain('/usr/local/Ascend'),
        'ASCEND_GLOBAL_EVENT_ENABLE': plain('1'),
        'ASCEND_GLOBAL_LOG_LEVEL': plain('3'),
        'ASCEND_SLOG_PRINT_TO_STDOUT': plain('0'),
        'ASDOPS_LOG_LEVEL': plain('ERROR'),
        'ASDOPS_LOG_TO_FILE': plain('1'),
        'ASDOPS_LOG_TO_STDOUT': plain('1'),
        'ATB_LLM_COMM_BACKEND': conditional((('[ $MULTI -eq 1 ]', 'hccl'), ('otherwise', None))),
        'ATB_LLM_HCCL_ENABLE': conditional((('[ $MULTI -eq 1 ]', '1'), ('otherwise', None))),
        'ATB_LOG_LEVEL': conditional((('[ ${mindie_ver%.*} = 2.0 ]', 'ERROR'), ('otherwise', None))),
        'ATB_LOG_TO_FILE': conditional((('[ ${mindie_ver%.*} = 2.0 ]', '1'), ('otherwise', None))),
        'ATB_LOG_TO_FILE_FLUSH': conditional((('[ ${mindie_ver%.*} = 2.0 ]', '0'), ('otherwise', None))),
        'ATB_LOG_TO_STDOUT': conditional((('[ ${mindie_ver%.*} = 2.0 ]', '1'), ('otherwise', None))),
        'ATB_OPERATION_EXECUTE_ASYNC': plain('1'),
        'CONF_PATH': inherited('/data/config.json', 'CONF_PATH'),
        'HCCL_BUFFSIZE': conditional((('[ $MULTI -eq 1 ]', '120'), ('otherwise', None))),
        'HCCL_CONNECT_TIMEOUT': conditional((('[ $MULTI -eq 1 ]', '7200'), ('otherwise', None))),
        'HCCL_DETERMINISTIC': conditional((('[ $MULTI -eq 1 ]', 'true'), ('otherwise', None))),
        'HCCL_EXEC_TIMEOUT': conditional((('[ $MULTI -eq 1 ]', '0'), ('otherwise', None))),
        'LD_LIBRARY_PATH': runtime('/usr/local/Ascend/mindie/latest/mindie-service/lib:/usr/local/Ascend/mindie/latest/mindie-service/lib/grpc:${LD_LIBRARY_PATH}'),
        'MIES_CONTAINER_IP': runtime('${addr[$HOSTNAME]}'),
        'MIES_INSTALL_PATH': plain('/usr/local/Ascend/mindie/latest/mindie-service'),
        'MINDIE_LLM_LOG_LEVEL': conditional((('[ ${mindie_ver%.*} = 2.0 ]', 'ERROR'), ('otherwise', None))),
        'MINDIE_LLM_LOG_TO_FILE': conditional((('[ ${mindie_ver%.*} = 2.0 ]', None), ('otherwise', None))),
        'MINDIE_LLM_LOG_TO_STDOUT': conditional((('[ ${mindie_ver%.*} = 2.0 ]', '1'), ('otherwise', None))),
        'MINDIE_LLM_PYTHON_LOG_LEVEL': conditional((('[ ${mindie_ver%.*} = 2.0 ]', None), ('otherwise', None))),
        'MINDIE_LLM_PYTHON_LOG_PATH': conditional((('[ ${mindie_ver%.*} = 2.0 ]', None), ('otherwise', None))),
        'MINDIE_LLM_PYTHON_LOG_TO_FILE': conditional((('[ ${mindie_ver%.*} = 2.0 ]', None), ('otherwise', None))),
        'MINDIE_LLM_PYTHON_LOG_TO_STDOUT': conditional((('[ ${mindie_ver%.*} = 2.0 ]', 'ERROR'), ('otherwise', None))),
        'MINDIE_LOG_LEVEL': plain('ERROR'),
        'MINDIE_LOG_PATH': plain('/data/mindie'),
        'MINDIE_LOG_TO_FILE': plain('1'),
        'MINDIE_LOG_TO_STDOUT': plain('1'),
        'MODEL_PATH': inherited('/data2/hf/models/DeepSeek-V3', 'MODEL_PATH'),
        'MULTI': inherited('1', 'MULTI'),
        'NPU_MEMORY_FRACTION': plain('0.96'),
        'OCK_LOG_LEVEL': conditional((('[ ${mindie_ver%.*} = 2.0 ]', 'ERROR'), ('otherwise', None))),
        'OCK_LOG_TO_STDOUT': conditional((('[ ${mindie_ver%.*} = 2.0 ]', '1'), ('otherwise', None))),
        'OMP_NUM_THREADS': plain('1'),
        'PYTHONPATH': runtime('/usr/local/Ascend/mindie/latest/mindie-service/bin:${PYTHONPATH}'),
        'RANKTABLEFILE': conditional((('[ ${mindie_ver%.*} = 2.0 ]', '/data/rank_table.json'), ('otherwise', None))),
        'RANK_TABLE_FILE': conditional((('[ $MULTI -eq 1 ]', '/data/rank_table.json'), ('otherwise', None))),
        'TASK_QUEUE_ENABLE': plain('1'),
        'WORLD_SIZE': conditional((('[ $MULTI -eq 1 ]', '32'), ('otherwise', None))),
        'mindie_ver': runtime('$(readlink /usr/local/Ascend/mindie/latest)'),
    },
    'mindie_llm_a3_single.sh': {
        'ATB_LLM_ENABLE_AUTO_TRANSPOSE': plain('0'),
        'ATB_LLM_HCCL_ENABLE': plain('1'),
        'ATB_OPERATION_EXECUTE_ASYNC': plain('1'),
        'ATB_WORKSPACE_MEM_ALLOC_ALG_TYPE': plain('3'),
        'HCCL_CONNECT_TIMEOUT': plain('7200'),
        'HCCL_EXEC_TIMEOUT': plain('0'),
        'HCCL_OP_EXPANSION_MODE': plain('AIV'),
        'HCCL_RDMA_PCIE_DIRECT_POST_NOSTRICT': plain('TRUE'),
        'INF_NAN_MODE_ENABLE': plain('1'),
        'MINDIE_ASYNC_SCHEDULING_ENABLE': plain('1'),
        'MINDIE_LOG_TO_STDOUT': plain('1'),
        'NPU_MEMORY_FRACTION': plain('0.96'),
        'OMP_NUM_THREADS': plain('16'),
        'PYTORCH_NPU_ALLOC_CONF': plain('expandable_segments:True'),
        'WORLD_SIZE': plain('16'),
    },
    'mindspeed_llm_fsdp2_step35.sh': {
        'CPU_AFFINITY_CONF': plain('1'),
        'HCCL_CONNECT_TIMEOUT': plain('1800'),
        'MULTI_STREAM_MEMORY_REUSE': plain('2'),
        'PYTORCH_NPU_ALLOC_CONF': plain('expandable_segments:True'),
        'TASK_QUEUE_ENABLE': plain('2'),
        'TORCH_COMPILE_DEBUG': plain('0'),
        'TRAINING_BACKEND': plain('mindspeed_fsdp'),
        'WORLD_SIZE': runtime('$(($NPUS_PER_NODE*$NNODES))'),
    },
    'mindspeed_llm_qwen3_32b_ms.sh': {
        'CUDA_DEVICE_MAX_CONNECTIONS': plain('1'),
        'DISTRIBUTED_ARGS': runtime('\n    --worker_num $(($NPUS_PER_NODE*$NNODES))     --local_worker_num 8     --node_rank 0     --master_addr localhost     --master_port 6000     --log_dir=msrun_log\n'),
        'HCCL_CONNECT_TIMEOUT': plain('1800'),
        'NPU_ASD_ENABLE': plain('0'),
        'WORLD_SIZE': runtime('$(($NPUS_PER_NODE*$NNODES))'),
    },
    'mindspeed_mm_finetune_qwen3_5.sh': {
        'MULTI_STREAM_MEMORY_REUSE': plain('2'),
        'NON_MEGATRON': plain('true'),
        'WORLD_SIZE': runtime('$(($NPUS_PER_NODE*$NNODES))'),
        'logfile': runtime('$(date +%Y%m%d)_$(date +%H%M%S)'),
    },
    'mindspeed_rl_orm_qwen25_32b.sh': {
        'CUDA_DEVICE_MAX_CONNECTIONS': plain('1'),
        'GLOO_SOCKET_IFNAME': plain(''),
        'HCCL_SOCKET_IFNAME': plain(''),
        'HYDRA_FULL_ERROR': plain('1'),
        'PYTORCH_NPU_ALLOC_CONF': plain('expandable_segments:True'),
        'Project_Path': runtime('$(dirname $(dirname $(dirname $(readlink -f "$0"))))'),
        'TP_SOCKET_IFNAME': plain(''),
        'WORLD_SIZE': runtime('$(($NPUS_PER_NODE*$NNODES))'),
    },
    'modelzoo_mmoe_npu_set_env.sh': {
        'ASCEND_GLOBAL_LOG_LEVEL': plain('3'),
        'ASCEND_OPP_PATH': plain('/usr/local/Ascend/opp'),
        'ASCEND_SLOG_PRINT_TO_STDOUT': plain('0'),
        'CUSTOM_OP_LIB_PATH': plain('/usr/local/Ascend/fwkacllib/ops/framework/built-in/tensorflow/'),
        'DDK_VERSION_PATH': plain('/usr/local/Ascend/fwkacllib/ddk_info'),
        'DISABLE_REUSE_MEMORY': plain('0'),
        'LD_LIBRARY_PATH': plain('/usr/local/lib/:/usr/lib/:/usr/local/python3/lib/:/usr/local/Ascend/fwkacllib/lib64/:/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/driver/lib64/common:/usr/local/Ascend/add-ons/:/usr/lib/x86_64-linux-gnu'),
        'OPTION_EXEC_EXTERN_PLUGIN_PATH': plain('/usr/local/Ascend/fwkacllib/lib64/plugin/opskernel/libfe.so:/usr/local/Ascend/fwkacllib/lib64/plugin/opskernel/libaicpu_plugin.so:/usr/local/Ascend/fwkacllib/lib64/plugin/opskernel/libge_local_engine.so:/usr/local/Ascend/fwkacllib/lib64/plugin/opskernel/librts_engine.so'),
        'OP_PROTOLIB_PATH': plain('/usr/local/Ascend/opp'),
        'PATH': runtime('$PATH:/usr/local/Ascend/fwkacllib/ccec_compiler/bin:/usr/local/Ascend/fwkacllib/bin'),
        'PROFILING_MODE': plain('false'),
        'PROFILING_OPTIONS': plain('{"output":"/autotest/profiling","task_trace":"on","training_trace":"on","aicpu":"on","fp_point":"","bp_point":"","aic_metrics":"PipeUtilization"}'),
        'PYTHONPATH': runtime('/usr/local/Ascend/fwkacllib/ops/op_impl/built-in/ai_core/tbe/:/usr/local/Ascend/fwkacllib/python/site-packages/te:/usr/local/Ascend/fwkacllib/python/site-packages/topi:/usr/local/Ascend/fwkacllib/python/site-packages/schedule_search.egg:/usr/local/Ascend/fwkacllib/python/site-packages/auto_tune.egg/auto_tune:/usr/local/Ascend/opp/op_impl/built-in/ai_core/tbe:$PYTHONPATH'),
        'SOC_VERSION': plain('Ascend910'),
    },
    'modelzoo_pytorch_mobilenetv2_env_npu.sh': {
        'ASCEND_GLOBAL_EVENT_ENABLE': plain('0'),
        'ASCEND_GLOBAL_LOG_LEVEL': plain('3'),
        'ASCEND_SLOG_PRINT_TO_STDOUT': plain('0'),
        'CANN_INSTALL_PATH': conditional((('[ -f $CANN_INSTALL_PATH_CONF ]', None), ('otherwise', '/usr/local/Ascend'))),
        'HCCL_WHITELIST_DISABLE': plain('1'),
        'TASK_QUEUE_ENABLE': plain('1'),
    },
    'modelzoo_tf_centernet_env.sh': {
        'ASCEND_OPP_PATH': plain('/usr/local/Ascend/nnae/latest/opp'),
        'LD_LIBRARY_PATH': runtime('/usr/local/Ascend/nnae/latest/fwkacllib/lib64:/usr/local/Ascend/add-ons:/usr/local/Ascend/driver/lib64/common/:/usr/local/Ascend/driver/lib64/driver:$LD_LIBRARY_PATH'),
        'PATH': runtime('/usr/local/Ascend/nnae/latest/fwkacllib/ccec_compiler/bin:/usr/local/Ascend/nnae/latest/fwkacllib/bin:$PATH'),
        'PYTHONPATH': runtime('/usr/local/Ascend/tfplugin/latest/tfplugin/python/site-packages:/usr/local/Ascend/nnae/latest/fwkacllib/python/site-packages:/usr/local/Ascend/nnae/latest/fwkacllib/python/site-packages/auto_tune.egg/auto_tune:/usr/local/Ascend/nnae/latest/fwkacllib/python/site-packages/schedule_search.egg:$PYTHONPATH'),
        'install_path': plain('/usr/local/Ascend/nnae/latest'),
    },
    'orangepi_cnnctc_env.sh': {
        'ASCEND_AICPU_PATH': plain('/usr/local/Ascend/ascend-toolkit/latest/opp/..'),
        'ASCEND_OPP_PATH': plain('/usr/local/Ascend/ascend-toolkit/latest/opp'),
        'GLOG_v': plain('2'),
        'LD_LIBRARY_PATH': runtime('/usr/local/Ascend/ascend-toolkit/latest/lib64:/usr/local/Ascend/driver/lib64:/usr/local/Ascend/ascend-toolkit/latest/opp/built-in/op_impl/ai_core/tbe/op_tiling:${LD_LIBRARY_PATH}'),
        'MS_DEV_FORCE_ACL': plain('1'),
        'MS_ENABLE_GE': plain('1'),
        'PATH': runtime('/usr/local/Ascend/ascend-toolkit/latest/compiler/ccec_compiler/bin/:${PATH}'),
        'PYTHONPATH': runtime('/usr/local/Ascend/thirdpart/aarch64/acllite/:$PYTHONPATH'),
        'TBE_IMPL_PATH': plain('/usr/local/Ascend/ascend-toolkit/latest/opp/built-in/op_impl/ai_core/tbe'),
    },
    'seed_x_launch.sh': {
        'ASCEND_HOME_PATH': plain('/usr/local/Ascend/ascend-toolkit/latest'),
        'PYTHONPATH': runtime('$PYTHONPATH:/usr/local/Ascend/ascend-toolkit/latest/python/site-packages:/usr/local/Ascend/ascend-toolkit/latest/opp/built-in/op_impl/ai_core/tbe:/usr/local/Ascend/ascend-toolkit/latest/opp/op_impl/built-in/ai_core/tbe'),
        'script_path': runtime('$1'),
    },
    'torch_npu_env.sh': {
        'ASCEND_GLOBAL_EVENT_ENABLE': plain('0'),
        'ASCEND_GLOBAL_LOG_LEVEL': plain('3'),
        'ASCEND_SLOG_PRINT_TO_STDOUT': plain('0'),
        'CANN_INSTALL_PATH': runtime('${1:-${DEFAULT_CANN_INSTALL_PATH}}'),
        'DEFAULT_CANN_INSTALL_PATH': conditional((('[ -f $CANN_INSTALL_PATH_CONF ]', None), ('otherwise', '/usr/local/Ascend/'))),
        'HCCL_WHITELIST_DISABLE': plain('1'),
        'LD_LIBRARY_PATH': runtime('${LD_LIBRARY_PATH}:/usr/local/openblas/lib:/usr/local/lib/:/usr/lib64/:/usr/lib/:/usr/lib/aarch64_64-linux-gnu'),
    },
    'uniworld_osp2_14b_multinode.sh': {
        'ACL_DEVICE_SYNC_TIMEOUT': plain('3600'),
        'ASCEND_GLOBAL_LOG_LEVEL': plain('3'),
        'ASCEND_SLOG_PRINT_TO_STDOUT': plain('0'),
        'COMBINED_ENABLE': plain('1'),
        'CPU_AFFINITY_CONF': plain('1'),
        'CUDA_DEVICE_MAX_CONNECTIONS': plain('1'),
        'HCCL_CONNECT_TIMEOUT': plain('3600'),
        'HCCL_EXEC_TIMEOUT': plain('0'),
        'MASTER_ADDR': inherited('127.0.0.1', 'MASTER_ADDR'),
        'MASTER_PORT': inherited('29501', 'MASTER_PORT'),
        'MULTI_STREAM_MEMORY_REUSE': plain('1'),
        'NNODES': inherited('1', 'PET_NNODES'),
        'NODE_RANK': inherited('0', 'RANK'),
        'NPRC_PER_NODE': inherited('8', 'NPRC_PER_NODE'),
        'PYTORCH_NPU_ALLOC_CONF': plain('expandable_segments:True'),
        'TASK_QUEUE_ENABLE': plain('1'),
        'TOKENIZERS_PARALLELISM': plain('false'),
        'WANDB_API_KEY': plain('TRIMMED_WANDB_KEY'),
        'WANDB_MODE': plain('online'),
        'WORLD_SIZE': runtime('$(($NNODES * $NPRC_PER_NODE))'),
    },
    'verl_k8s_test_1.sh': {
        'CURRENT_IP': runtime("$(ifconfig ${TP_SOCKET_IFNAME} | grep -Eo 'inet (addr:)?([0-9]{1,3}\\.){3}[0-9]{1,3}' | awk '{print $NF}')"),
        'DashboardPort': plain('8888'),
        'GLOO_SOCKET_IFNAME': plain('ens45'),
        'HCCL_SOCKET_IFNAME': plain('ens45'),
        'HYDRA_FULL_ERROR': plain('1'),
        'LD_LIBRARY_PATH': runtime('/opt/python3.10/lib/:${LD_LIBRARY_PATH}'),
        'LOCAL_RANK': unset(),
        'LOCAL_WORLD_SIZE': unset(),
        'NNODES': runtime('$((WORLD_SIZE/NPU_PER_NODE))'),
        'NPU_PER_NODE': plain('8'),
        'ServerPort': plain('6666'),
        'TP_SOCKET_IFNAME': plain('ens45'),
        'WORLD_SIZE': unset(),
        'kwargs': conditional((('[ "$RANK" = "0" ]', None), ('otherwise', None))),
    },
    'vllm_ascend_run_dp_template.sh': {
        'ASCEND_RT_VISIBLE_DEVICES': runtime('$1'),
        'GLOO_SOCKET_IFNAME': plain('your_socket_ifname_here'),
        'HCCL_BUFFSIZE': plain('1024'),
        'HCCL_DETERMINISTIC': plain('True'),
        'HCCL_IF_IP': plain('your_ip_here'),
        'HCCL_SOCKET_IFNAME': plain('your_socket_ifname_here'),
        'OMP_NUM_THREADS': plain('10'),
        'OMP_PROC_BIND': plain('false'),
        'PYTORCH_NPU_ALLOC_CONF': plain('expandable_segments:True'),
        'TASK_QUEUE_ENABLE': plain('1'),
        'TP_SOCKET_IFNAME': plain('your_socket_ifname_here'),
        'VLLM_LOGGING_LEVEL': plain('info'),
    },
}


def within(root: Path):
    """`see_file` that reads a sourced file only under `root` (the corpus, or a fixture's folder)."""
    def see(path: Path) -> str | None:
        path = Path(path).resolve()
        return path.read_text(encoding="utf-8") if root.resolve() in path.parents and path.is_file() else None
    return see


def read(path: Path, text: str | None = None, base: dict[str, str] | None = None) -> EnvFile:
    text = path.read_bytes().decode("utf-8", "surrogateescape") if text is None else text
    return parse_env_text(text, str(path), base or {}, within(path.parent))


def states(env: EnvFile) -> dict[str, tuple]:
    """The tool's reading in the golden's terms (plain values only for exported variables)."""
    out: dict[str, tuple] = {}
    for name in sorted(set(env.values) | set(env.runtime) | env.unset):
        if name in env.launcher and name in env.values:
            state = job(env.values[name], env.launcher[name])
        elif name in env.values:
            state = (inherited(env.values[name], env.inherited[name]) if name in env.inherited
                     else plain(env.values[name]))
        elif name in env.runtime:
            value = env.runtime[name]
            state = conditional(value.branches) if value.branches else runtime(value.expression)
        else:
            state = unset()
        if state[0] != "plain" or name in env.exported:
            out[name] = state
    return out


def sources() -> dict[str, dict[str, str]]:
    rows = {}
    for line in (CORPUS / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        match = re.fullmatch(r"\| `([^`]+)` \| \[([^\]]+)\]\(https://github\.com/\2\) \| `([^`]+)` \| `([0-9a-f]{40})` \| (.+) \|",
                             line)
        if match:
            rows[match.group(1)] = {"repository": match.group(2), "path": match.group(3), "commit": match.group(4),
                                    "licence": match.group(5)}
    return rows


def test_every_corpus_file_has_its_origin_and_they_come_from_twenty_repositories():
    """Twenty projects new to the project: a fork counts with its origin (same name), and the
    repositories the project used before (vllm-ascend, torch_npu) do not count."""
    rows = sources()
    files = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.sh")}
    assert set(rows) == files
    projects = {row["repository"].split("/")[1].lower() for row in rows.values()}
    assert len(SCRIPTS) >= 20 and len(projects - {"vllm-ascend", "pytorch"}) >= 20
    for name, row in rows.items():
        assert Path(row["path"]).name == Path(name).name or name.endswith(".sh"), name
        assert row["licence"].strip()


def test_no_secret_is_left_in_the_corpus():
    for path in CORPUS.rglob("*.sh"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"\b[0-9a-f]{32,}\b", text), path.name  # wandb/HF keys are 40 hex digits
        assert not re.search(r"hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9]{20,}", text), path.name


def test_the_golden_covers_the_corpus():
    assert set(GOLDEN) == {p.name for p in SCRIPTS}


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_each_script_reads_as_its_golden(path):
    assert states(read(path)) == GOLDEN[path.name]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("path", [*SCRIPTS, *sorted((DATA / "shell").glob("*.sh")), *sorted((DATA / "env").iterdir())],
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_each_shell_fixture_agrees_with_bash(path):
    """Every fixture and corpus file against bash (tests/bashoracle.py): plain values, defaults
    with and without the inherited value, conditionals under both ways of each condition, unsets,
    and a prefix onto the launcher as the launched command sees it."""
    assert check_file(path, lambda text, base: read(path, text, base)) == []


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_diagnose_reads_each_script_whole(path, capsys):
    """`diagnose --env-file` on every corpus script: a diagnosis (exit 0 or 1, never 2 or a
    traceback), and each CANN cache or allocator variable the golden reading has plainly is the
    value the diagnosis starts from (its line and file)."""
    import json

    from cann_config.app.cli import main

    code = main(["diagnose", "--json", "--lang", "en", "--env-file", str(path)])
    data = json.loads(capsys.readouterr().out)
    assert code in (0, 1)
    by_line = {(entry.get("file"), entry.get("line")) for entry in data["effective"].values() if entry.get("source") == "env"}
    env = read(path)
    for name in ("ASCEND_MAX_OP_CACHE_SIZE", "ASCEND_REMAIN_CACHE_SIZE_RATIO", "ASCEND_CACHE_PATH",
                 "ACL_OP_COMPILER_CACHE_MODE", "PYTORCH_NPU_ALLOC_CONF"):
        if GOLDEN[path.name].get(name, ("",))[0] == "plain":
            assert (env.files[name], env.lines[name]) in by_line, name
