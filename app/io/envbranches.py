"""The words for a variable whose value differs by run-time branch, in both languages.

The shell reader (app/io/shellread.py) and the Python reader (app/io/scripts.py) both say such
a value as "v1 when COND; v2 otherwise" (docs/cann/launch-scripts.md#run-time-branches); the
words come from resources/messages/shell.toml, so a Chinese diagnosis says them in Chinese, and
the result is a `Bilingual` text: English where a str is stored (the JSON `expression`), the
reader's language where a message shows it.
"""

from __future__ import annotations

from collections.abc import Iterable

from cann_config.app.errors import Bilingual, Message

OTHERWISE = "otherwise"  # the label of the way no condition names (else, *), as both readers use it


def branch_message(label: str, value: str | None) -> Message:
    """One way through: its value (None: the way leaves the variable unset) and its condition."""
    if label == OTHERWISE:
        return Message("shell-branch-otherwise-not-set") if value is None else Message("shell-branch-otherwise", value=value)
    if value is None:
        return Message("shell-branch-when-not-set", condition=label)
    return Message("shell-branch-when", value=value, condition=label)


def describe_branches(branches: Iterable[tuple[str, str | None]]) -> Bilingual:
    """Every way's value with its condition, joined in the order the script gives them."""
    parts = [branch_message(label, value) for label, value in branches]
    # Each way rendered once per language and then joined: nesting the joins would render (and
    # make safe, app.textsafe) the growing rest again at every level - quadratic in the ways.
    separator = Message("shell-branch-separator")
    return Bilingual(separator.text("en").join(part.text("en") for part in parts),
                     separator.text("zh_CN").join(part.text("zh_CN") for part in parts))


def unless_inherited(value: str, variable: str) -> Bilingual:
    """A default-if-unset value inside a branch: `value` unless the launching environment sets `variable`."""
    return Bilingual.of(Message("shell-branch-unless", value=value, variable=variable))


__all__ = ["OTHERWISE", "branch_message", "describe_branches", "unless_inherited"]
