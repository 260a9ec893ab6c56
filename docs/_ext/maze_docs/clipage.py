"""The command-line reference, generated from ``maze-envs``' own argparse parsers: every subcommand (nested ones
too) with its description, a table of its flags and its full ``--help`` text."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from maze_envs.cli import build_parser

from .files import write_if_changed

HELP_COLUMNS = "100"


def subcommands(parser: argparse.ArgumentParser, prefix: str) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """Return ``(command line, one-line help, parser)`` for every subcommand below ``parser``, depth first."""
    found = []
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
        for name, sub in action.choices.items():
            command = f"{prefix} {name}"
            found.append((command, helps.get(name, ""), sub))
            found += subcommands(sub, command)
    return found


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def flag_rows(parser: argparse.ArgumentParser) -> list[str]:
    """Return the Markdown table rows of ``parser``'s own flags and positional arguments."""
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        names = ", ".join(f"`{name}`" for name in action.option_strings) or f"`{action.dest}` (positional)"
        default = "" if action.default in (None, argparse.SUPPRESS) or action.required else f"`{action.default!r}`"
        choices = ", ".join(f"`{c}`" for c in action.choices) if action.choices else ""
        help_text = (action.help or "").replace("%(default)s", str(action.default)).replace("%%", "%")
        rows.append(f"| {names} | {_cell(help_text)} | {_cell(choices)} | {_cell(default)} |")
    return rows


def cli_reference() -> str:
    """Return the Markdown of the command-line reference page."""
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_COLUMNS
    try:
        top = build_parser()
        lines = ["# Command line", "",
                 "Every `maze-envs` subcommand and flag, generated from the parsers themselves when the site is "
                 "built. `maze-envs COMMAND --help` prints the same text.", "", "```text", top.format_help().rstrip(),
                 "```", ""]
        for command, summary, parser in subcommands(top, "maze-envs"):
            depth = command.count(" ") + 1
            lines += [f"{'#' * min(depth, 4)} `{command}`", "", summary, ""]
            rows = flag_rows(parser)
            if rows:
                lines += ["| flag | meaning | choices | default |", "| --- | --- | --- | --- |", *rows, ""]
            lines += ["```text", parser.format_help().rstrip(), "```", ""]
        return "\n".join(lines)
    finally:
        if previous is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = previous


def write_cli_reference(out: Path) -> None:
    """Write ``cli.md`` under ``out``."""
    write_if_changed(out / "cli.md", cli_reference())
