"""The `cann-config` command line: the headless twin of the wizard.

Each subcommand lives in its own module `app/cli/cmd_<name>.py` with `register(subparsers,
common)` and `run(args) -> int`; this module only dispatches and turns the core's two failure
types into exit status 2 with a one-line reason (docs/architecture.md#exit-status). The GUI command
imports PySide6 lazily, so every other command runs where PySide6 is not installed.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import sys
from collections.abc import Sequence

from cann_config.app import __version__
from cann_config.app.errors import InputError, Message, UsageError
from cann_config.app.i18n import language_from_environment, normalize_language, set_language

PROG = "cann-config"
# Subcommands in the order `--help` lists them.
COMMANDS = ("gui", "options", "detect", "diagnose", "export", "scan", "collect")


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (no usage dump) and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse's own text stays English (it has no zh_CN catalog); the sentence around it does not.
        raise UsageError.from_code("core-cli-usage", detail=message, prog=self.prog)


def _language(text: str) -> str:
    try:
        return normalize_language(text)
    except ValueError:
        raise argparse.ArgumentTypeError(Message("core-cli-unknown-language", lang=text).text()) from None


def _language_asked(args: Sequence[str]) -> str:
    """The language of `--lang` (else LANG) before argparse has run, so its errors use it too."""
    lang = language_from_environment()
    tokens = iter(args)
    for token in tokens:
        if token == "--":
            break
        value = next(tokens, "") if token == "--lang" else token[7:] if token.startswith("--lang=") else None
        if value is not None:
            with contextlib.suppress(ValueError):
                lang = normalize_language(value)
    return lang


def available_commands() -> list[str]:
    """The subcommands whose module is present (all of COMMANDS in a complete install)."""
    return [name for name in COMMANDS if importlib.util.find_spec(f"cann_config.app.cli.cmd_{name}") is not None]


def _wizard_only(args: Sequence[str]) -> list[str] | None:
    """["gui"] when the command line opens the wizard, else None (every command).

    Registering the other commands imports most of the core, which would delay the window by
    more than the whole of Qt's start-up (tests/bench/bench_startup.py).
    """
    tokens = iter(args)
    for token in tokens:
        if token == "--lang":
            next(tokens, None)
        elif token in ("-h", "--help", "--version"):
            return None
        elif not token.startswith("-"):
            return ["gui"] if token == "gui" else None
    return ["gui"] if "gui" in available_commands() else None


def build_parser(only: Sequence[str] | None = None) -> argparse.ArgumentParser:
    lang_help = "language of messages and reports (default: from LANG)"
    # Subcommands take --lang too; SUPPRESS keeps an absent one from overwriting a global one
    # (`cann-config --lang zh_CN diagnose ...`).
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--lang", type=_language, default=argparse.SUPPRESS, metavar="zh_CN|en", help=lang_help)
    parser = _Parser(
        prog=PROG,
        description="CANN Config Assistant: configure CANN memory policies and the operator-compile "
                    "cache for Huawei Ascend devices. Without a subcommand it opens the wizard.",
    )
    parser.add_argument("--lang", type=_language, default=None, metavar="zh_CN|en", help=lang_help)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in (available_commands() if only is None else only):
        module = importlib.import_module(f"cann_config.app.cli.cmd_{name}")
        module.register(subparsers, common)
    return parser


def _printable_stdout() -> None:
    """Bytes of a file that are not UTF-8 reach the output as lone surrogates (the readers keep
    them with surrogateescape); under a UTF-8 locale printing one raised UnicodeEncodeError. As
    `\\udc9b` they print everywhere, and inside a JSON string they are a valid escape."""
    reconfigure = getattr(sys.stdout, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    _printable_stdout()
    try:
        set_language(_language_asked(args_list))
        parser = build_parser(_wizard_only(args_list))
        args = parser.parse_args(args_list)
        set_language(args.lang or language_from_environment())
        if args.command is None:
            if "gui" not in available_commands():
                parser.print_help()
                return 0
            args = parser.parse_args(["gui", *args_list])
        return int(args.run(args) or 0)
    except (UsageError, InputError) as exc:
        print(f"{PROG}: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: {Message('core-cli-interrupted')}", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`cann-config options | head`): not an error worth a traceback.
        sys.stderr.close()
        return 0
