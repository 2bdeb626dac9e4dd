"""Which language the user reads, and picking a text in it.

The catalog and the message tables carry every user-facing text as `{en = ..., zh = ...}`;
this module chooses between them. The languages are `zh_CN` and `en` (docs/architecture.md#command-line: `--lang
zh_CN|en`, default from `LANG`). JSON keys and finding codes never depend on the language.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

LANGUAGES = ("zh_CN", "en")
DEFAULT_LANGUAGE = "en"

_current = DEFAULT_LANGUAGE


def language_from_environment(environ: Mapping[str, str] | None = None) -> str:
    """`zh_CN` when the POSIX locale variables ask for Chinese, otherwise `en`.

    The variables are read in the order the C library reads them for messages.
    """
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name, "")
        if value:
            return "zh_CN" if value.lower().startswith("zh") else "en"
    return DEFAULT_LANGUAGE


def normalize_language(lang: str) -> str:
    """Accept `zh_CN`, `zh`, `zh-CN`, `en`, `en_US`, ...; raise ValueError for others."""
    key = lang.replace("-", "_").split(".")[0].lower()
    if key.startswith("zh"):
        return "zh_CN"
    if key.startswith("en") or key in ("c", "posix"):
        return "en"
    raise ValueError(f"unknown language {lang!r}; use zh_CN or en")


def set_language(lang: str) -> None:
    """Make `lang` the language of every text picked without an explicit language."""
    global _current
    _current = normalize_language(lang)


def current_language() -> str:
    return _current


def pick(text: Mapping[str, str], lang: str | None = None) -> str:
    """The text of a `{en, zh}` table in `lang` (default: the current language)."""
    lang = normalize_language(lang or _current)
    key = "zh" if lang == "zh_CN" else "en"
    return text.get(key) or text.get("en") or ""


def colon(lang: str | None = None) -> str:
    """What follows a label in text output: a full-width colon in Chinese, ": " in English."""
    return "：" if normalize_language(lang or _current) == "zh_CN" else ": "
