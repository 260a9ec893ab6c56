"""Flags every dataset writer (``generate tasks|text|openings|nav-scenes``) shares: ``--out``, the run flags and
``--overwrite`` (``maze_envs.cli.run_flags.run_options`` reads them), and what a writer reports when it is done."""

from __future__ import annotations

import argparse
import sys

from maze_envs.cli.run_flags import add_run_flags
from maze_envs.core.words import counted
from maze_envs.datasets import WriteSummary


def add_writer_flags(parser: argparse.ArgumentParser, out_help: str = "output directory") -> None:
    """Add ``--out``, the run flags and ``--overwrite`` to ``parser``; returns nothing."""
    parser.add_argument("--out", dest="output_dir", required=True, help=out_help)
    add_run_flags(parser, resume_help="continue the dataset in --out: keep the samples its log shows whole and "
                                      "make the others (the same files as one uninterrupted run)",
                  overwrite_help="replace the dataset in --out: remove the files its log lists and its index files, "
                                 "then make every sample (other files are left alone)")


def report_failures(summary: WriteSummary, what: str) -> int:
    """Return the exit status of a writer's run: 0 when every sample was made, else 1 after saying on stderr how
    many failed (``what`` names one sample), the first message and where the rest are."""
    if not summary.failures:
        return 0
    first = summary.failures[0]
    print(f"maze-envs generate: {counted(len(summary.failures), what)} failed ({first['id']}: {first['error']}); "
          f"all are in {summary.log}; --resume makes them again", file=sys.stderr)
    return 1
