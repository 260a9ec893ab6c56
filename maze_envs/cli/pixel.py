"""Command lines of the pixel evaluators: ``maze-envs eval-image`` / ``eval-video`` and
``python -m maze_envs.evaluators.pixel.image`` / ``.video`` share one argument definition (the spec's flags and
defaults).
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Sequence

from maze_envs.cli.command import OneLineErrorParser, run_command
from maze_envs.cli.run_flags import add_run_flags, run_options
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.validate import number, positive_int
from maze_envs.core.words import counted
from maze_envs.evaluators.pixel.batch import BatchConfig, Kind, batch_files, evaluate_batch, setup_logging
from maze_envs.evaluators.pixel.colours import ColourThresholds
from maze_envs.evaluators.pixel.image import ImageParams
from maze_envs.evaluators.pixel.video import DEFAULT_FRAMES, EXTRACTION_METHODS, VideoParams, frames_for_model

AUTO = "auto"
DEFAULT_LOG_DIR = "./evaluation_logs"
DEFAULT_MODELS = {"image": "nano_banana_pro", "video": "veo3"}
DESCRIPTIONS = {
    "image": "Score generated maze-solution images (blue route on the puzzle) against solution images, "
             "pixel by pixel: wall crossing, layout match, path match, reflection, overall score.",
    "video": "Score generated maze-solution videos (a green marker moving from start to goal) against "
             "solution images: the image metrics plus per-frame layout checks and the gated pass/fail metrics.",
}


def _flag(parser: argparse.ArgumentParser, name: str, **kwargs) -> None:
    """Add ``--kebab-name`` with the spec's ``--snake_name`` spelling as a hidden alias."""
    spellings = [f"--{name.replace('_', '-')}"] + ([f"--{name}"] if "_" in name else [])
    parser.add_argument(*spellings, dest=name, **kwargs)


def add_arguments(parser: argparse.ArgumentParser, kind: Kind) -> None:
    """Add the evaluator's flags (spec names and defaults) to ``parser``."""
    folder = "image_results" if kind == "image" else "video_results"
    _flag(parser, "single", metavar="FILE", help=f"evaluate one generated {kind} file and print its result")
    _flag(parser, "input_dir", metavar="DIR",
          help=f"directory of generated {kind}s (default ./{folder}/<model_name>)")
    _flag(parser, "solution_dir", metavar="DIR", default="./data/solution",
          help="directory of {stem}_solution.png images (default ./data/solution)")
    _flag(parser, "output_dir", metavar="DIR",
          help="results directory "
               f"(default ./evaluation_results/pixel_based_evaluation/{kind}_evaluation_results/<model_name>; "
               "with --single: none, the result is printed and nothing is written)")
    _flag(parser, "model_name", default=DEFAULT_MODELS[kind], help=f"model name (default {DEFAULT_MODELS[kind]})")
    _flag(parser, "metadata", metavar="JSONL",
          help="task metadata.jsonl giving each solution's exact grid (default <solution_dir>/metadata.jsonl "
               "when present; otherwise the grid is auto-detected)")
    _flag(parser, "no_visualizations", action="store_true", help="do not write the 2x2 visualisation PNGs")
    _flag(parser, "log_dir", default=None,
          help=f"log directory (default {DEFAULT_LOG_DIR}; with --single and no --output-dir: no log)")
    if kind == "image":
        _flag(parser, "tolerance_pixels", type=int, default=3,
              help="wall erosion kernel in pixels for edge tolerance (default 3)")
        _flag(parser, "min_crossing_ratio", type=float, default=0.01,
              help="min path share on walls to flag a crossing (default 0.01)")
        _flag(parser, "position_tolerance", type=float, default=20.0,
              help="max start/goal centroid distance in pixels (default 20)")
    else:
        _flag(parser, "num_frames", type=int, default=DEFAULT_FRAMES,
              help="frames to extract per video "
                   "(default 192; 360 when model_name contains 'sora' and this is left at 192)")
        _flag(parser, "extraction_method", default="green_marker_tracking", choices=EXTRACTION_METHODS,
              help="path extraction: green_marker_tracking (default) or frame_differencing")
        _flag(parser, "min_crossing_ratio", type=float, default=0.05,
              help="min path share on walls to flag a crossing (default 0.05)")
        _flag(parser, "position_tolerance", type=float, default=50.0,
              help="max start/goal centroid distance in pixels (default 50)")
        _flag(parser, "wall_erosion", type=int, default=None,
              help="wall erosion kernel in pixels (default: a quarter of the cell size)")
        _flag(parser, "frame_workers", type=int, default=4, help="threads checking frames of one video (default 4)")
    _flag(parser, "dilation_size", type=int, default=None, help="path dilation in pixels (default: the cell width)")
    _flag(parser, "black_threshold", type=_level, default=30,
          help="walls: max(R,G,B) below this (default 30), or 'auto' to calibrate it on each solution and generation")
    _flag(parser, "white_threshold", type=_level, default=200,
          help="free space: brightness above this (default 200), or 'auto' to calibrate it on each solution")
    add_run_flags(parser, resume_help="skip files already scored in the output directory's log (an interrupted "
                                      "run's results are kept)")


def _level(text: str) -> int | str:
    """Return a grey level flag's value: an integer, or ``"auto"``."""
    if text == AUTO:
        return AUTO
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer level or {AUTO!r}, got {text!r}") from None


def _params(args: argparse.Namespace, kind: Kind) -> ImageParams | VideoParams:
    defaults = ColourThresholds()
    auto_black, auto_white = args.black_threshold == AUTO, args.white_threshold == AUTO
    colours = ColourThresholds(black_threshold=defaults.black_threshold if auto_black else args.black_threshold,
                               white_threshold=defaults.white_threshold if auto_white else args.white_threshold,
                               auto_black=auto_black, auto_white=auto_white)
    if kind == "image":
        return ImageParams(args.tolerance_pixels, args.min_crossing_ratio, args.position_tolerance, args.dilation_size,
                           colours)
    return VideoParams(frames_for_model(args.model_name, args.num_frames), args.min_crossing_ratio,
                       args.position_tolerance, args.wall_erosion, args.dilation_size, args.extraction_method, colours,
                       args.frame_workers)


def _check(args: argparse.Namespace) -> None:
    for name in ("num_frames", "frame_workers", "tolerance_pixels", "wall_erosion", "dilation_size"):
        positive_int(getattr(args, name, None), optional=True, parameter=name)
    for name in ("min_crossing_ratio", "position_tolerance"):
        number(getattr(args, name), 0, parameter=name)


def run(args: argparse.Namespace, kind: Kind) -> int:
    """Run an evaluation from parsed flags; print the summary (or the single result); return 0, or 1 when
    the ``--single`` file could not be scored (its record holds the error).

    Nothing is written (no log, no folder) before the inputs check out. ``--single`` without ``--output-dir`` only
    prints its result: its run goes to a temporary folder that is removed, with no log unless ``--log-dir`` asks.
    """
    _check(args)
    single = Path(args.single) if args.single else None
    if single is not None and not single.is_file():
        raise MazeConfigError(f"{single} is not a file", parameter="single")
    if single is not None and args.output_dir is None:
        with tempfile.TemporaryDirectory(prefix="maze-envs-single-") as folder:
            return _evaluate(args, kind, single, Path(folder), keep=False)
    model = args.model_name
    output_dir = Path(args.output_dir
                      or f"./evaluation_results/pixel_based_evaluation/{kind}_evaluation_results/{model}")
    return _evaluate(args, kind, single, output_dir, keep=True)


def _evaluate(args: argparse.Namespace, kind: Kind, single: Path | None, output_dir: Path, *, keep: bool) -> int:
    """Check the inputs, then log (when ``keep`` or ``--log-dir``), score and print; return the exit status."""
    model = args.model_name
    folder = "image_results" if kind == "image" else "video_results"
    config = BatchConfig(
        kind=kind, solution_dir=Path(args.solution_dir), output_dir=output_dir, model_name=model,
        params=_params(args, kind), input_dir=None if single else Path(args.input_dir or f"./{folder}/{model}"),
        files=[single] if single else None, metadata=Path(args.metadata) if args.metadata else None,
        run=run_options(args), visualize=keep and not args.no_visualizations)
    batch_files(config)
    log_path = setup_logging(kind, args.log_dir or DEFAULT_LOG_DIR if keep or args.log_dir else None)
    summary, final, outputs = evaluate_batch(config)
    status = 0
    if single is not None:
        record = outputs.records[single.name]
        print(json.dumps(record, indent=2))
        status = 1 if "error" in record else 0
    else:
        overall = summary["overall"]
        print(f"{kind}s: {summary['evaluated']} evaluated, {counted(summary['errors']['count'], 'error')}; "
              f"mean overall {overall['mean_score']:.3f}, "
              f"{counted(summary['wall_crossing']['count'], 'wall crossing')}, "
              f"mean target achievement {summary['path_matching']['mean_target_achievement']:.3f}")
        if "gated_metrics" in summary:
            print(f"overall_score_gated rate {summary['gated_metrics']['overall_score_gated_rate']:.3f}")
    print(f"results: {final}" if keep else "results: not kept (give --output-dir to keep them)")
    if log_path is not None:
        print(f"log: {log_path}")
    return status


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``eval-image`` and ``eval-video`` subcommands."""
    for kind in ("image", "video"):
        parser = sub.add_parser(f"eval-{kind}", help=f"score generated maze-solution {kind}s pixel by pixel",
                                description=DESCRIPTIONS[kind])
        add_arguments(parser, kind)
        parser.set_defaults(func=lambda args, kind=kind: run(args, kind))


def main(kind: Kind, argv: Sequence[str] | None = None) -> int:
    """Run ``python -m maze_envs.evaluators.pixel.KIND`` on ``argv``; return the process exit status (the same flags and
    errors as ``maze-envs eval-KIND``)."""
    parser = OneLineErrorParser(prog=f"python -m maze_envs.evaluators.pixel.{kind}", description=DESCRIPTIONS[kind])
    add_arguments(parser, kind)
    parser.set_defaults(func=lambda args: run(args, kind))
    return run_command(parser, argv)

