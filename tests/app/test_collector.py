"""app.collector: the cyclic collector stays off while any holder is inside, and comes back as it was."""

from __future__ import annotations

import gc
import threading

import pytest

from cann_config.app.collector import collector_paused


@pytest.fixture(autouse=True)
def _collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    gc.unfreeze()
    (gc.enable if was else gc.disable)()


def test_the_last_holder_out_turns_it_back_on_even_from_another_thread():
    inside, leave = threading.Event(), threading.Event()

    def hold():
        with collector_paused():
            inside.set()
            leave.wait(10)

    other = threading.Thread(target=hold)
    with collector_paused():
        other.start()
        assert inside.wait(10)
    assert not gc.isenabled()  # the other thread still holds it
    leave.set()
    other.join(10)
    assert gc.isenabled()


def test_a_collector_that_was_off_stays_off():
    gc.disable()
    with collector_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()


def test_freeze_moves_what_is_alive_to_the_permanent_generation():
    kept = [[] for _ in range(100)]
    with collector_paused(freeze=True):
        assert not gc.isenabled()
    assert gc.get_freeze_count() >= len(kept) and gc.isenabled()


def test_an_exception_inside_still_turns_it_back_on():
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("stop")
    assert gc.isenabled()
