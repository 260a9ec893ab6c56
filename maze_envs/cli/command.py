"""Running a command line: one-line flag errors, typed library errors printed on one line naming the flag at
fault, Ctrl-C after what is done is written. ``maze-envs`` and the evaluators' ``python -m`` entry points share it."""

from __future__ import annotations

import argparse
import codecs
import sys
from typing import Sequence

from maze_envs.core.errors import MazeEnvsError, message_for_flags
from maze_envs.core.secrets import redact_text
from maze_envs.core.words import closest, did_you_mean

OUTPUT_ERRORS = "maze-envs-escape"


def _escape(exc: UnicodeError) -> tuple[str | bytes, int]:
    """Write an undecodable byte of a path back as that byte (``surrogateescape``), any other character the
    encoding lacks (a lone surrogate from a model reply) as a backslash escape."""
    if isinstance(exc, UnicodeEncodeError):
        chunk = exc.object[exc.start:exc.end]
        if all("\udc80" <= char <= "\udcff" for char in chunk):
            return bytes(ord(char) - 0xDC00 for char in chunk), exc.end
    return codecs.backslashreplace_errors(exc)


codecs.register_error(OUTPUT_ERRORS, _escape)
_SAFER = {"strict": "backslashreplace", "surrogateescape": OUTPUT_ERRORS}


def printable_output() -> None:
    """Make stdout and stderr write any string instead of raising ``UnicodeEncodeError``: a strict stream writes
    what it cannot encode as backslash escapes (its output stays valid text), a stream that already writes the
    undecodable bytes of paths back (``surrogateescape``) escapes only what is left (a lone surrogate); returns
    nothing."""
    for stream in (sys.stdout, sys.stderr):
        safer = _SAFER.get(getattr(stream, "errors", None))
        if safer is not None and hasattr(stream, "reconfigure"):
            stream.reconfigure(errors=safer)


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage block) pointing at ``--help``; its subparsers too."""

    def parse_known_args(self, args=None, namespace=None):
        """Parse like argparse, but a subcommand without subcommands of its own rejects flags it does not know
        itself, so the error names that subcommand and its ``--help`` (not the top-level one)."""
        namespace, extras = super().parse_known_args(args, namespace)
        if extras and self._subparsers is None:
            self.error(self.unrecognized(extras))
        return namespace, extras

    def parse_args(self, args=None, namespace=None):
        """Parse like argparse; arguments nobody knows end in a one-line error suggesting the closest flag."""
        namespace, extras = self.parse_known_args(args, namespace)
        if extras:
            self.error(self.unrecognized(extras))
        return namespace

    def unrecognized(self, extras: Sequence[str]) -> str:
        """Return the error message for the arguments ``extras`` this parser does not know, suggesting the flag
        closest to the first unknown one."""
        flags = {flag.lstrip("-"): flag for action in self._actions for flag in action.option_strings}
        first = next((extra.split("=", 1)[0] for extra in extras if extra.startswith("-")), None)
        match = closest(first.lstrip("-"), flags) if first else None
        hint = f" (did you mean {flags[match]!r}?)" if match is not None else ""
        return f"unrecognized arguments: {' '.join(extras)}{hint}"

    def _check_value(self, action, value):
        """Reject a value outside ``action.choices`` naming the closest choice, as argparse would otherwise."""
        if action.choices is not None and value not in action.choices:
            choices = ", ".join(map(repr, action.choices))
            raise argparse.ArgumentError(action, f"invalid choice: {value!r}"
                                                 f"{did_you_mean(str(value), map(str, action.choices))} "
                                                 f"(choose from {choices})")

    def error(self, message: str):
        """Print ``PROG: error: MESSAGE (see PROG --help)`` to stderr and exit with status 2."""
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parser_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, str]:
    """Return the flags of the (sub)command ``args`` was parsed with, down to its target (``generate
    nav-scenes``): parameter (dest) -> its first spelling."""
    flags = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None))
            if chosen is not None:
                flags.update(parser_flags(chosen, args))
        elif action.option_strings:
            flags[action.dest] = action.option_strings[0]
    return flags


def run_command(parser: argparse.ArgumentParser, argv: Sequence[str] | None, *, subcommand: str | None = None) -> int:
    """Parse ``argv`` with ``parser`` and run ``args.func(args)``; return the process exit status (errors print
    one line to stderr, prefixed with ``parser.prog`` and the chosen subcommand (the ``subcommand`` dest) and
    naming the flag at fault; Ctrl-C stops with status 130 after what is done is written)."""
    printable_output()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version or a flag error, already printed
        return int(exc.code or 0)
    prog = f"{parser.prog} {getattr(args, subcommand)}" if subcommand else parser.prog
    try:
        return int(args.func(args) or 0)
    except (MazeEnvsError, OSError) as exc:
        print(f"{prog}: error: {redact_text(message_for_flags(exc, parser_flags(parser, args)))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        hint = "; rerun with --resume to continue" if getattr(args, "resume", None) is not None else ""
        print(f"{prog}: interrupted (what was done is written{hint})", file=sys.stderr)
        return 130
