"""The two ways a command can fail before it has anything to say about CANN.

Both end the CLI with exit status 2 and a one-line reason on stderr
(docs/architecture.md#exit-status); neither ever becomes a traceback.

The reason is kept as a message code and its parameters (`Message`), like a finding's text
(resources/messages/*.toml, app/messages.py), and is rendered only when it is read: `str()`,
`one_line()` and `reason` give it in the current language (app.i18n), so the CLI prints it in
the language of `--lang`, and a wizard that switches language shows an error already caught in
the new one. Texts that come from the system or a third-party parser (an OSError's strerror, a
JSON decoder's message) stay as they are, as parameters inside a translated sentence. A plain
string still works (`InputError("reason", file, line)`) and is shown as given.
"""

from __future__ import annotations

import errno
from collections.abc import Mapping
from pathlib import Path, PurePath
from typing import Any, TypeVar

from cann_config.app.i18n import current_language, normalize_language
from cann_config.app.messages import message_table


class Message:
    """A text of the message tables, by code and parameters, rendered in a language on demand.

    A parameter that is itself a Message (or an ExplainedError, giving its reason) is rendered in
    the same language. `Message.literal(text)` carries a text that has no translation.
    """

    __slots__ = ("code", "params")

    def __init__(self, code: str | None, **params: Any):
        self.code = code
        self.params: dict[str, Any] = params

    @classmethod
    def literal(cls, text: str) -> Message:
        return cls(None, text=text)

    def text(self, lang: str | None = None) -> str:
        """The text in `lang` (default: the current language)."""
        if self.code is None:
            return str(self.params.get("text", ""))
        lang = normalize_language(lang or current_language())
        template = message_table().get(self.code)
        params = localized_params(self.params, lang)
        if template is None:
            # Never a traceback while explaining a failure: the code and its values still say it.
            return " ".join([self.code, *(f"{k}={v}" for k, v in params.items())])
        key = "zh" if lang == "zh_CN" else "en"
        try:
            return template.text[key].format_map(params)
        except (KeyError, IndexError, ValueError, AttributeError, TypeError):
            # A parameter missing or of an unexpected kind: the placeholder stays visible.
            try:
                return template.text[key].format_map(_Lenient(params))
            except (IndexError, ValueError, AttributeError, TypeError):
                return " ".join([self.code, *(f"{k}={v}" for k, v in params.items())])

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Message({self.code!r}, {self.params!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and (self.code, self.params) == (other.code, other.params)

    __hash__ = None  # type: ignore[assignment]


class Bilingual(str):
    """A text composed of translated words that travels through a field typed `str`.

    It is the English text wherever a plain str is used (a JSON document, a comparison, a slice)
    and the reader's language wherever a message takes it in as a parameter (`localized_params`):
    e.g. a launch script's value that differs by run-time branch, "2000 when [ "$RANK" = 0 ];
    800 otherwise", which is an expression in JSON and a sentence in the diagnosis."""

    zh: str

    def __new__(cls, en: str, zh: str) -> Bilingual:
        text = super().__new__(cls, en)
        text.zh = zh
        return text

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]  # pickling keeps both texts
        return str(self), self.zh

    @classmethod
    def of(cls, message: Message) -> Bilingual:
        return cls(message.text("en"), message.text("zh_CN"))

    def text(self, lang: str | None = None) -> str:
        return self.zh if normalize_language(lang or current_language()) == "zh_CN" else str(self)


class _Lenient(dict):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


def localized_params(params: Mapping[str, Any], lang: str) -> dict[str, Any]:
    """`params` with every Message (and ExplainedError) value rendered in `lang`, and every text
    or path made safe to show (app.textsafe.inline_text): values come from files the user did
    not write, and this is where every message - on a terminal, in a report, in the wizard -
    takes them in."""
    # Imported here, not at the top: `--help` and `options` import this module and must not pay
    # for the sanitizer's patterns (tests/app/cli/test_cli_basics.py keeps their import sets).
    from cann_config.app.textsafe import inline_text

    out: dict[str, Any] = {}
    for name, value in params.items():
        if isinstance(value, (Message, Bilingual)):
            value = value.text(lang)
        elif isinstance(value, ExplainedError):
            value = value.reason_text(lang)
        if isinstance(value, (str, PurePath)):
            value = inline_text(value)
        out[name] = value
    return out


def explain(exc: BaseException) -> Message:
    """The reason an exception gives, as a Message: its own when it has one (ExplainedError,
    InvalidValue), a translated sentence for the usual OSErrors, otherwise its text as is."""
    message = getattr(exc, "message", None)
    if isinstance(message, Message):
        return message
    if isinstance(exc, OSError):
        return os_reason(exc)
    return Message.literal(str(exc) or type(exc).__name__)


# errno -> code in resources/messages/core.toml. The English text is the system's own strerror
# (a parameter), the Chinese one the translation of what these errors mean.
_ERRNO_CODES = {
    errno.ENOENT: "core-os-no-such-file",
    errno.EACCES: "core-os-permission-denied",
    errno.EPERM: "core-os-not-permitted",
    errno.EISDIR: "core-os-is-a-directory",
    errno.ENOTDIR: "core-os-not-a-directory",
    errno.ENOSPC: "core-os-no-space",
    errno.EROFS: "core-os-read-only",
    errno.ELOOP: "core-os-symlink-loop",
    errno.ENAMETOOLONG: "core-os-name-too-long",
}


def os_reason(exc: OSError) -> Message:
    """Why an OSError happened: the system's text, translated for the common errno values."""
    detail = exc.strerror or str(exc) or type(exc).__name__
    code = _ERRNO_CODES.get(exc.errno) if exc.errno is not None else None
    return Message(code, detail=detail) if code else Message.literal(detail)


def _as_message(reason: str | Message) -> Message:
    return reason if isinstance(reason, Message) else Message.literal(str(reason))


class ExplainedError(Exception):
    """An error whose one-line reason is a Message (what UsageError and InputError share)."""

    message: Message
    file: str | None = None
    line: int | None = None

    def reason_text(self, lang: str | None = None) -> str:
        """The reason alone, in `lang` (default: the current language), on one line."""
        return " ".join(self.message.text(lang).split())

    @property
    def reason(self) -> str:
        """The reason alone in the current language (the attribute older callers read)."""
        return self.reason_text()

    @property
    def code(self) -> str | None:
        return self.message.code

    def _where(self) -> str:
        if self.file is None:
            return ""
        from cann_config.app.textsafe import terminal_text  # see localized_params

        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return terminal_text(where) + ": "

    def one_line(self, lang: str | None = None) -> str:
        """`file:line: reason` (as far as file and line are known), on one line."""
        return self._where() + self.reason_text(lang)

    def line_message(self) -> Message:
        """The whole line as a Message, for a finding or a note that quotes this error."""
        return Message("core-error-line", where=self._where(), reason=self)

    def __str__(self) -> str:
        return self.one_line()


# Bound to the class itself, not to its name: a name is compiled at run time (typing.ForwardRef),
# and the first compile() of a process costs ~3 ms (it builds every AST node type).
_E = TypeVar("_E", bound=ExplainedError)


class UsageError(ExplainedError):
    """The command line itself is wrong (unknown option id, bad --set syntax, ...)."""

    def __init__(self, reason: str | Message):
        self.message = _as_message(reason)
        super().__init__(self.message)

    @classmethod
    def from_code(cls: type[_E], code: str, **params: Any) -> _E:
        """The error with the text `code` of the message tables, `params` filling it in."""
        return cls(Message(code, **params))


class InputError(ExplainedError):
    """An input file cannot be used at all: missing, unreadable, not the expected format.

    The message names the file and, where known, the line, as `file:line: reason`.
    """

    def __init__(self, reason: str | Message, file: str | Path | None = None, line: int | None = None):
        self.message = _as_message(reason)
        self.file = str(file) if file is not None else None
        self.line = line
        super().__init__(self.message, self.file, self.line)

    @classmethod
    def from_code(cls: type[_E], code: str, file: str | Path | None = None, line: int | None = None,
                  **params: Any) -> _E:
        """The error with the text `code` of the message tables, naming `file` and `line`."""
        return cls(Message(code, **params), file, line)


class InvalidValue(ExplainedError, ValueError):
    """A ValueError whose reason is a Message: a value the user typed that cannot be used
    (Option.parse, device_from_choice). Callers that catch ValueError keep working."""

    def __init__(self, reason: str | Message):
        self.message = _as_message(reason)
        super().__init__(self.message)

    @classmethod
    def from_code(cls: type[_E], code: str, **params: Any) -> _E:
        return cls(Message(code, **params))
