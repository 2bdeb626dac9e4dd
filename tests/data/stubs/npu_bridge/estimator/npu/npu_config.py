"""Stand-in for npu_bridge/estimator/npu/npu_config.py (hicann/tensorflow, CANN 9.x).

The signatures are the real ones: MemoryConfig has exactly four keywords (older adapters lack
variable_use_1g_huge_page and raise TypeError for it) and checks nothing; NPURunConfig accepts
its real keywords, so a misspelt one raises TypeError. Both record exactly the arguments the
snippet passed (docs/cann/memory.md#validation).
"""

import inspect

import _stub_record

# The real signatures (keyword names and defaults), bound to check what a snippet passes: an
# unknown keyword raises TypeError exactly as calling the real class would.


def _memory_config(atomic_clean_policy=0, static_memory_policy=0, memory_optimization_policy=None,
                   variable_use_1g_huge_page=0):
    pass


def _npu_run_config(iterations_per_loop=1, profiling_config=None, model_dir=None, tf_random_seed=None,
                    save_summary_steps=0, save_checkpoints_steps=None, save_checkpoints_secs=None,
                    session_config=None, keep_checkpoint_max=5, keep_checkpoint_every_n_hours=10000,
                    log_step_count_steps=100, distribute=None, enable_data_pre_proc=True, precision_mode=None,
                    enable_reduce_precision=False, variable_format_optimize=None, mix_compile_mode=False,
                    hcom_parallel=True, graph_memory_max_size=None, variable_memory_max_size=None, dump_config=None,
                    stream_max_parallel_num=None, is_tailing_optimization=False, horovod_mode=False,
                    graph_run_mode=1, op_debug_level=None, enable_scope_fusion_passes=None, enable_exception_dump=2,
                    op_select_implmode=None, optypelist_for_implmode=None, dynamic_input_config=None,
                    aoe_mode=None, work_path=None, buffer_optimize="l2_optimize", enable_small_channel=0,
                    fusion_switch_file=None, enable_compress_weight=False, compress_weight_conf=None,
                    op_compiler_cache_mode=None, op_compiler_cache_dir=None, debug_dir=None, hcom_multi_mode=False,
                    dynamic_input=None, dynamic_graph_execute_mode="dynamic_execute", dynamic_inputs_shape_range=None,
                    train_distribute=None, eval_distribute=None, local_rank_id=None, local_device_list=None,
                    session_device_id=None, distribute_config=None, modify_mixlist=None, op_precision_mode=None,
                    device_type="default_device_type", soc_config=None, hccl_timeout=None, op_wait_timeout=None,
                    op_execute_timeout=None, HCCL_algorithm=None, customize_dtypes=None, op_debug_config=None,
                    memory_config=None, experimental_config=None, topo_sorting_mode=None, aoe_config_file=None,
                    insert_op_file=None, stream_sync_timeout=-1, event_sync_timeout=-1, external_weight=False,
                    deterministic=0, frozen_variable=False, variable_placement="Device", jit_compile="auto",
                    precision_mode_v2=None, ac_parallel_enable=None, quant_dumpable=None, input_fusion_size=131072,
                    compile_dynamic_mode=None, graph_max_parallel_model_num=1, export_compile_stat=1, aicore_num=None,
                    oo_constant_folding=True, input_batch_cpy=False, shape_generalization_mode="STRICT",
                    all_tensor_not_empty=False, auto_multistream_parallel_mode=None, oo_level="O3",
                    optimization_switch=None):
    pass


def _bind(signature_of, args, kwargs):
    bound = inspect.signature(signature_of).bind(*args, **kwargs)
    return dict(bound.arguments)


class MemoryConfig:
    def __init__(self, *args, **kwargs):
        self._given = _bind(_memory_config, args, kwargs)
        _stub_record.register(self)

    def _record(self):
        return {"type": "MemoryConfig", "kwargs": _stub_record.to_json(self._given)}


class NPURunConfig:
    def __init__(self, *args, **kwargs):
        self._given = _bind(_npu_run_config, args, kwargs)
        if not isinstance(self._given.get("jit_compile", "auto"), str):
            raise TypeError("Expected str, got " + type(self._given["jit_compile"]).__name__)
        _stub_record.register(self)

    def _record(self):
        return {"type": "NPURunConfig", "kwargs": _stub_record.to_json(self._given)}
