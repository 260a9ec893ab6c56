"""``maze-envs generate openings``: the labelled-openings puzzle dataset (images and annotations.jsonl)."""

from __future__ import annotations

import argparse

from maze_envs.cli.run_flags import run_options
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.words import counted
from maze_envs.openings.dataset import VARIANTS

from .writer_flags import add_writer_flags


def register_target(targets: argparse._SubParsersAction) -> None:
    """Add the ``openings`` target to ``maze-envs generate``."""
    parser = targets.add_parser(
        "openings", help="labelled-openings puzzles: which two border openings connect?",
        description="Write images/maze_00000.png ... and annotations.jsonl (one record per image) of mazes with "
                    "one connected pair of labelled border openings and walled-off decoys. Per-sample failures "
                    "go to errors.jsonl; config.json records the settings. Explicit flags override --variant.")
    parser.add_argument("--count", type=int, default=100, help="number of samples (default 100)")
    parser.add_argument("--rows", type=int, nargs="+", metavar="N", default=None,
                        help="rows per maze: LOW HIGH, or one value (default 8 20)")
    parser.add_argument("--cols", type=int, nargs="+", metavar="N", default=None,
                        help="columns per maze: LOW HIGH, or one value (default 8 20)")
    parser.add_argument("--openings", type=int, nargs="+", metavar="N", default=None,
                        help="openings per maze: LOW HIGH, or one value (default 3 6)")
    parser.add_argument("--seed", type=int, default=0, help="dataset seed (default 0)")
    parser.add_argument("--variant", nargs="+", default=[], choices=list(VARIANTS), metavar="NAME", dest="variants",
                        help="spec variants: small-grids (8-12) | large-grids (14-20), few-openings (3-4) | "
                             "many-openings (5-6), opposite-sides | any-sides, fixed-size (one size for all) | "
                             "variable-size, thick-walls (8 px) | thin-walls (2 px)")
    parser.add_argument("--opposite-sides", action="store_true", default=None,
                        help="put the connected pair on opposite sides (same as --variant opposite-sides)")
    parser.add_argument("--no-balance", action="store_true",
                        help="skip the position balancing that keeps the connected pair from being guessable by "
                             "where it sits (gives the spec's procedure as written)")
    parser.add_argument("--cell-size", type=int, default=None, help="cell size in pixels (default 32)")
    parser.add_argument("--wall-width", type=int, default=None, help="wall thickness in pixels (default 5)")
    parser.add_argument("--margin", type=int, default=None, help="white margin around the maze in pixels (default 8)")
    parser.add_argument("--label-padding", type=int, default=None,
                        help="band outside the margin for the labels, in pixels (default 20)")
    parser.add_argument("--font", default=None,
                        help="TrueType font file for the labels (default: the shipped DejaVu Sans)")
    parser.add_argument("--no-extras", action="store_true",
                        help="write only the spec's record fields (no wall arrays, pixel boxes, path, decoy cells)")
    add_writer_flags(parser)
    parser.set_defaults(func=run)


def _range(flag: str, values: list[int] | None) -> tuple[int, int] | None:
    """Return ``values`` as an inclusive ``(low, high)`` range (None when the flag is not given)."""
    if values is None:
        return None
    if len(values) not in (1, 2):
        raise MazeConfigError(f"--{flag} takes one value or LOW HIGH, got {len(values)} values")
    return (values[0], values[-1])


def run(args: argparse.Namespace) -> int:
    """Write the dataset, print a summary and return the exit status 0."""
    from maze_envs.datasets import write_openings_dataset
    from maze_envs.openings.dataset import OpeningsDatasetConfig, apply_variants

    config = apply_variants(
        OpeningsDatasetConfig(count=args.count, seed=args.seed, extras=not args.no_extras,
                              balance=not args.no_balance), args.variants,
        rows=_range("rows", args.rows), cols=_range("cols", args.cols), openings=_range("openings", args.openings),
        opposite_sides=args.opposite_sides, cell_size=args.cell_size, wall_width=args.wall_width,
        margin=args.margin, label_padding=args.label_padding, font=args.font)
    summary = write_openings_dataset(config, args.output_dir, options=run_options(args),
                                     overwrite=args.overwrite)
    print(f"wrote {counted(summary.written, 'sample')} ({summary.resumed} already there, "
          f"{counted(len(summary.failures), 'error')}) "
          f"and {summary.indexes[0]}")
    return 0
