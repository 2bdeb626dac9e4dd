"""The `cann-config` command line: the headless twin of the wizard.

The commands are a fixed table, `COMMANDS`: name -> (module path, one-line summary), like pip's
`commands_dict`. Each command module has `DESCRIPTION`, `add_arguments(parser)` and `run(args) ->
int`; this module imports only the module of the command being run (none for `--help`, which
lists the table's summaries), and turns the core's two failure types into exit status 2 with a
one-line reason (docs/architecture.md#exit-status). So `cann-config --help` pays for no command, and a
command pays only for its own imports at start-up (tests/bench/bench_cli.py).

The `gui` command is the front end's: its module is ui/gui_command.py, named here only by its
path, so the core never imports the front end (nor PySide6) and every other command runs where
PySide6 is not installed (tests/test_import_contracts.py).
"""

# No `from __future__ import annotations` here: typing compiles a NamedTuple's string annotations at
# import, and a process's first compile() costs ~3 ms (tests/app/cli/test_cli_basics.py).

import argparse
import contextlib
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

from cann_config.app import __version__
from cann_config.app.cli.helptext import HelpFormatter, argparse_language
from cann_config.app.errors import InputError, Message, UsageError
from cann_config.app.i18n import language_from_environment, normalize_language, set_language

PROG = "cann-config"
DEFAULT_COMMAND = "gui"


class Command(NamedTuple):
    module: str  # imported only when this command runs
    summary: str  # its line in `cann-config --help`


# In the order `--help` lists them.
COMMANDS: dict[str, Command] = {
    "gui": Command("cann_config.ui.gui_command", "open the wizard (the default without a subcommand)"),
    "options": Command("cann_config.app.cli.cmd_options", "list every option the assistant knows"),
    "detect": Command("cann_config.app.cli.cmd_detect", "detect the Ascend device (SoC version and product series)"),
    "diagnose": Command("cann_config.app.cli.cmd_diagnose",
                        "show the op cache values CANN will use, where they come from, and why"),
    "export": Command("cann_config.app.cli.cmd_export",
                      "write the choices as a snippet, env file, op_cache.ini or profile"),
    "scan": Command("cann_config.app.cli.cmd_scan", "measure the op cache per SoC dir and predict CANN's next cleanup"),
    "clean": Command("cann_config.app.cli.cmd_clean",
                     "delete what CANN's cache cleaner means to delete, under CANN's own lock"),
    "collect": Command("cann_config.app.cli.cmd_collect",
                       "write a support bundle (JSON) of this host's CANN configuration"),
    "fleet": Command("cann_config.app.cli.cmd_fleet", "compare the support bundles of several nodes"),
    "triage": Command("cann_config.app.cli.cmd_triage",
                      "find the NPU out-of-memory errors in a log, what holds the memory and which setting helps"),
}


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error (no usage dump) and exit status 2, and its help in the
    reader's language (app/cli/helptext.py)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse's own text comes in the reader's language too (helptext.argparse_language).
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


def chosen_command(args: Sequence[str]) -> str | None:
    """The command a command line runs, found before argparse runs: the first word that is not an
    option (or `--lang`'s value); DEFAULT_COMMAND when there is none; None when only the top-level
    help or version is asked for, or the word is no command (argparse then says so)."""
    tokens = iter(args)
    for token in tokens:
        if token == "--lang":
            next(tokens, None)
        elif token in ("-h", "--help", "--version"):
            return None
        elif token == "--" or not token.startswith("-"):
            return token if token in COMMANDS else None
    return DEFAULT_COMMAND


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser with `command`'s module imported and its options added; with no command
    (top-level help, or a word that is no command) every command is listed."""
    lang_help = "language of messages and reports (default: from LANG)"
    # Subcommands take --lang too; SUPPRESS keeps an absent one from overwriting a global one
    # (`cann-config --lang zh_CN diagnose ...`).
    common = _Parser(add_help=False)
    common.add_argument("--lang", type=_language, default=argparse.SUPPRESS, metavar="zh_CN|en", help=lang_help)
    parser = _Parser(
        prog=PROG,
        description="CANN Config Assistant: configure CANN memory policies and the operator-compile "
                    "cache for Huawei Ascend devices. Without a subcommand it opens the wizard.",
    )
    parser.add_argument("--lang", type=_language, default=None, metavar="zh_CN|en", help=lang_help)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, entry in COMMANDS.items():
        if name != command:
            # The other commands matter only to the top-level help and to a word that is no
            # command (argparse lists the choices); once a command is chosen, neither can happen,
            # and each parser costs ~0.1 ms (tests/bench/bench_cli.py).
            if command is None:
                subparsers.add_parser(name, help=entry.summary)
            continue
        module = importlib.import_module(entry.module)
        sub = subparsers.add_parser(name, parents=[common], help=entry.summary, description=module.DESCRIPTION)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
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
        asked = _language_asked(args_list)
        set_language(asked)
        # argparse's own strings (headings, usage, errors) in the language asked (app/cli/helptext.py)
        with argparse_language(asked):
            command = chosen_command(args_list)
            parser = build_parser(command)
            args = parser.parse_args(args_list)
            set_language(args.lang or language_from_environment())
            if args.command is None:  # only global options: the wizard
                args = parser.parse_args([DEFAULT_COMMAND, *args_list])
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
