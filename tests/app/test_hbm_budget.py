"""app.hbm_budget: one card's HBM, with every input the tool cannot know named, never guessed."""

from __future__ import annotations

from cann_config.app.hbm_budget import hbm_budget, hccl_buffsize_mb

MB = 1 << 20
TOTAL = round(60.96 * (1 << 30))


def test_hccl_takes_two_buffers_per_communicator_and_p2p_its_own():
    budget = hbm_budget(TOTAL, framework="pytorch", environ={"HCCL_BUFFSIZE": "512", "P2P_HCCL_BUFFSIZE": "0"},
                        communicators=3)
    assert budget.hccl_per_communicator == 2 * 512 * MB
    assert budget.hccl_bytes == 3 * 2 * 512 * MB
    assert budget.p2p_bytes == 0 and "p2p_communicators" not in budget.unknown  # 0: no P2P communicator
    assert budget.left == TOTAL - 3 * 2 * 512 * MB
    assert budget.unknown == ()


def test_defaults_and_invalid_values():
    assert hccl_buffsize_mb({}) == (200, "default")
    assert hccl_buffsize_mb({"HCCL_BUFFSIZE": "0"}) == (200, "invalid")
    assert hccl_buffsize_mb({"HCCL_BUFFSIZE": "64MB"}) == (200, "invalid")
    assert hbm_budget(TOTAL).p2p_buffsize_mb == 20


def test_serving_takes_total_times_utilisation():
    budget = hbm_budget(TOTAL, framework="vllm-ascend", gpu_memory_utilization=0.9, communicators=1,
                        p2p_communicators=1)
    assert budget.framework_bytes == round(TOTAL * 0.9)
    assert budget.left == TOTAL - round(TOTAL * 0.9) - 400 * MB - 40 * MB


def test_unknown_inputs_are_named_and_their_sums_stay_unknown():
    budget = hbm_budget(None, framework="vllm-ascend")
    assert set(budget.unknown) == {"total", "gpu_memory_utilization", "communicators", "p2p_communicators"}
    assert budget.framework_bytes is None and budget.hccl_bytes is None and budget.left is None


def test_mindspore_takes_fifteen_sixteenths_of_free_down_to_2_mb_minus_10_mb():
    free = 60 * 1024 * MB + 12345
    budget = hbm_budget(TOTAL, framework="mindspore", free=free, communicators=0, p2p_communicators=0)
    share = free * 15 // 16
    assert budget.framework_bytes == share - share % (2 * MB) - 10 * MB
