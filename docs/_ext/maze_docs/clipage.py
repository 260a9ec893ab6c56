"""The command-line reference, generated from ``maze-envs``' own argparse parsers: an index of the subcommands and
one page per subcommand (nested ones too) with its usage, a table of its flags (flag, default, choices, help) and
examples: the command lines the docs and README run, or else a call with only the required flags."""

from __future__ import annotations

import argparse
import re
import textwrap
from pathlib import Path

from maze_envs.cli import build_parser

from .files import write_if_changed

USAGE_COLUMNS = 78  # the usage block fits the page's column at a 1280-px window
FENCE = re.compile(r"^(`{3,})(bash|console|sh)\s*$")
MAX_EXAMPLES = 4


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


def page_name(command: str) -> str:
    """Return the file stem of a subcommand's page: ``maze-envs generate tasks`` -> ``generate-tasks``."""
    return command.removeprefix("maze-envs ").replace(" ", "-")


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(text: object) -> str:
    return f"`{text}`" if str(text) else ""


def flag_rows(parser: argparse.ArgumentParser) -> list[str]:
    """Return the Markdown table rows (flag, default, choices, help) of ``parser``'s own flags and positional
    arguments."""
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction, argparse._VersionAction)):
            continue
        names = ", ".join(f"`{name}`" for name in action.option_strings) or f"`{action.dest}` (positional)"
        if action.required:
            default = "required"
        elif action.nargs == 0:  # a switch: store_true, store_false, store_const, count
            default = "off"
        elif action.default in (None, argparse.SUPPRESS):
            default = ""
        else:
            default = _code(" ".join(map(str, action.default)) if isinstance(action.default, (list, tuple))
                            else action.default)
        choices = ", ".join(f"`{c}`" for c in action.choices) if action.choices else ""
        help_text = (action.help or "").replace("%(default)s", str(action.default)).replace("%%", "%")
        rows.append(f"| {names} | {_cell(default)} | {_cell(choices)} | {_cell(help_text)} |")
    return rows


def usage(command: str, parser: argparse.ArgumentParser) -> str:
    """Return ``command``'s usage wrapped at ``USAGE_COLUMNS``: each flag with its value's name (choices are in the
    flag table), ``...`` after a value that repeats, ``[...]`` around what is optional."""
    parts = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            parts.append("[-h]")
            continue
        if isinstance(action, argparse._SubParsersAction):
            parts.append(f"{action.metavar or 'COMMAND'} ...")
            continue
        value = action.metavar or (action.dest.upper() if action.option_strings else action.dest)
        value = " ".join(value) if isinstance(value, tuple) else value
        if action.nargs in ("+", "*", argparse.REMAINDER):
            value = f"{value} ..."
        elif isinstance(action.nargs, int) and action.nargs > 1 and not isinstance(action.metavar, tuple):
            value = " ".join([value] * action.nargs)
        if not action.option_strings:
            parts.append(value if action.nargs not in ("?", "*") else f"[{value}]")
            continue
        text = action.option_strings[0] + ("" if action.nargs == 0 else f" {value}")
        parts.append(text if action.required else f"[{text}]")
    lines = [command]
    for part in parts:  # a flag and its value stay on one line
        if len(lines[-1]) + 1 + len(part) > USAGE_COLUMNS:
            lines.append("   ")
        lines[-1] += " " + part
    return "\n".join(lines)


def doc_commands(sources: list[Path], root: Path) -> list[tuple[str, str]]:
    """Return every ``maze-envs ...`` command line (continuations joined) in the bash blocks of the Markdown files
    ``sources``, with the file it comes from relative to ``root``."""
    found = []
    for path in sources:
        fence, lines, pending = None, path.read_text(encoding="utf-8").splitlines(), ""
        for line in lines:
            stripped = line.strip()
            if fence is None:
                match = FENCE.match(stripped)
                fence = match.group(1) if match else None
                continue
            if stripped.startswith(fence):
                fence, pending = None, ""
                continue
            pending = f"{pending} {stripped}" if pending else stripped
            if pending.endswith("\\"):
                pending = pending[:-1].rstrip()
                continue
            for part in re.split(r"\s*(?:&&|;|\|\|)\s*", pending):
                part = re.sub(r"^(\w+=\S+\s+)+", "", part.strip())
                if part.startswith("maze-envs ") and "<" not in part:
                    found.append((part, path.relative_to(root).as_posix()))
            pending = ""
    return found


def examples_for(command: str, parser: argparse.ArgumentParser, found: list[tuple[str, str]]) -> list[str]:
    """Return the Markdown of ``command``'s examples: the docs' command lines that run it (its own subcommands'
    left to their pages), else a call with its required flags only."""
    deeper = {f"{command} {name}" for action in parser._actions if isinstance(action, argparse._SubParsersAction)
              for name in action.choices}
    mine = [(line, where) for line, where in found if (line + " ").startswith(command + " ")
            and not any((line + " ").startswith(d + " ") for d in deeper)]
    unique = list(dict.fromkeys(line for line, _ in mine))[:MAX_EXAMPLES]
    if unique:
        sources = ", ".join(f"`{w}`" for w in dict.fromkeys(where for line, where in mine if line in unique))
        wrapped = [" \\\n    ".join(textwrap.wrap(line, USAGE_COLUMNS, break_on_hyphens=False,
                                                  break_long_words=False)) for line in unique]
        return [f"From the docs ({sources}):", "", "```bash", *wrapped, "```", ""]
    if deeper:
        return ["Run one of its subcommands below.", ""]
    required = []
    for action in parser._actions:
        if action.required and action.option_strings:
            required.append(f"{action.option_strings[0]} {action.metavar or action.dest.upper()}")
        elif not action.option_strings and not isinstance(action, argparse._SubParsersAction):
            required.append(str(action.metavar or action.dest.upper()))
    return ["The smallest call (required arguments only; every other flag keeps its default):", "", "```bash",
            " ".join([command, *required]), "```", ""]


def command_page(command: str, summary: str, parser: argparse.ArgumentParser, found: list[tuple[str, str]]) -> str:
    """Return the Markdown page of one subcommand."""
    lines = [f"# {command}", "", summary[:1].upper() + summary[1:] + ("." if summary and summary[-1] != "." else ""),
             "", parser.description or "", "", "## Usage", "", "```text", usage(command, parser), "```", ""]
    deeper = [(c, s) for c, s, _ in subcommands(parser, command) if c.count(" ") == command.count(" ") + 1]
    if deeper:
        lines += ["## Subcommands", "", "| subcommand | what it does |", "| --- | --- |",
                  *(f"| [`{c}`]({page_name(c)}.md) | {_cell(s)} |" for c, s in deeper), ""]
    rows = flag_rows(parser)
    if rows:
        lines += ["## Flags", "", "| flag | default | choices | help |", "| --- | --- | --- | --- |", *rows, ""]
    lines += ["## Examples", "", *examples_for(command, parser, found)]
    return "\n".join(lines)


def cli_pages(sources: list[Path], root: Path) -> dict[str, str]:
    """Return the reference's pages (file stem -> Markdown): ``index`` and one per subcommand."""
    top = build_parser()
    found = doc_commands(sources, root)
    commands = subcommands(top, "maze-envs")
    pages = {page_name(c): command_page(c, s, p, found) for c, s, p in commands}
    index = ["# Command line", "",
             "Every `maze-envs` subcommand and flag, generated from the parsers themselves when the site is built. "
             "`maze-envs COMMAND --help` prints the same flags; a mistyped subcommand, flag or choice gets the "
             "closest one suggested.", "", "```text", usage("maze-envs", top), "```", "",
             "| command | what it does |", "| --- | --- |",
             *(f"| [`{c}`]({page_name(c)}.md) | {_cell(s)} |" for c, s, _ in commands), "",
             "```{toctree}", ":hidden:", "", *pages, "```", ""]
    return {"index": "\n".join(index), **pages}


def write_cli_reference(out: Path, sources: list[Path], root: Path) -> None:
    """Write ``cli/index.md`` and a page per subcommand under ``out``, with the examples found in ``sources``
    (Markdown files under ``root``); remove pages of subcommands that are gone."""
    pages = cli_pages(sources, root)
    folder = out / "cli"
    for stem, text in pages.items():
        write_if_changed(folder / f"{stem}.md", text)
    for stale in folder.glob("*.md"):
        if stale.stem not in pages:
            stale.unlink()
    (out / "cli.md").unlink(missing_ok=True)
