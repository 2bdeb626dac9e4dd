"""LazyChoices: loaded on first use, once, and then an ordinary sequence for argparse."""

import argparse

import pytest

from cann_config.app.cli.choices import LazyChoices


def test_nothing_is_loaded_until_asked_and_then_once():
    calls = []

    def load():
        calls.append(1)
        return iter(["tf1", "tf2"])  # an iterator: read once, kept

    choices = LazyChoices(load)
    parser = argparse.ArgumentParser(prog="t")
    parser.add_argument("--framework", choices=choices, metavar="ID", help="one of: %(choices)s")
    assert calls == []
    assert parser.parse_args(["--framework", "tf2"]).framework == "tf2"
    assert list(choices) == ["tf1", "tf2"] and len(choices) == 2 and choices[0] == "tf1" and "tf3" not in choices
    assert "one of: tf1, tf2" in parser.format_help()
    assert calls == [1]


def test_a_value_outside_the_choices_is_refused():
    parser = argparse.ArgumentParser(prog="t", exit_on_error=False)
    parser.add_argument("fmt", choices=LazyChoices(lambda: ("a", "b")))
    with pytest.raises(argparse.ArgumentError, match="invalid choice: 'c'"):
        parser.parse_args(["c"])
