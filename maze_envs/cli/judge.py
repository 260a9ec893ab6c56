"""``maze-envs judge``: score generated maths or maze solutions with a vision-language model as judge."""

from __future__ import annotations

import argparse

from maze_envs.cli.run_flags import add_run_flags, run_options
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.words import counted

from .model_flags import add_model_flags, model_client


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``judge`` subcommand."""
    parser = sub.add_parser(
        "judge", help="score generated math/maze solution images or videos with a VLM judge",
        description="Ask a vision-language model to grade each generated image or video against its ground truth. "
                    "Appends each result to OUTPUT_DIR/results.jsonl as it is done (use --resume to continue) and "
                    "writes OUTPUT_DIR/results.json and summary.json at the end. API keys come only from the "
                    "environment.")
    parser.add_argument("--task", required=True, choices=["math", "maze"], help="which judge to run")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--manifest", help="JSONL/JSON list of items (math: file, solution_text, subtask; "
                                           "maze: file and maze or task_id)")
    source.add_argument("--input-dir", help="directory of generated outputs (math: reads its manifest.jsonl; "
                                            "maze: every image/video, matched to --tasks by file name)")
    parser.add_argument("--tasks", help="maze: task directory or metadata.jsonl from `maze-envs generate tasks`")
    parser.add_argument("--output-dir", required=True, help="where results.jsonl, results.json and summary.json go")
    parser.add_argument("--template", help="prompt template file with {placeholders} (default: the bundled prompt)")
    parser.add_argument("--pixel-results", help="maze: pixel-evaluator results JSON; adds an agreement report "
                                                "(confusion matrices, Cohen's kappa)")
    parser.add_argument("--temperature", type=float, default=0.0, help="sampling temperature (default 0)")
    parser.add_argument("--max-tokens", type=int, default=1024, help="reply token limit (default 1024)")
    add_model_flags(parser)
    add_run_flags(parser, resume_help="skip items already judged in OUTPUT_DIR/results.jsonl")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Judge every item, print where the summary is and its headline numbers; return the exit status 0."""
    from maze_envs.evaluators.judge import agreement_report, judge_inputs, load_pixel_results, run_judge

    task, items, unmatched = judge_inputs(args.task, manifest=args.manifest, input_dir=args.input_dir,
                                          tasks=args.tasks, template=args.template)
    if args.pixel_results and args.task != "maze":
        raise MazeConfigError("applies to the maze judge only", parameter="pixel_results")
    # Read the pixel results before judging, so a bad file fails at once instead of after the whole run.
    pixel = load_pixel_results(args.pixel_results) if args.pixel_results else None

    def extra(records: list[dict]) -> dict:
        out: dict = {"unmatched_files": unmatched} if unmatched else {}
        if args.pixel_results:
            out["agreement"] = agreement_report(records, args.pixel_results, pixel)
        return out

    with model_client(args) as client:
        result = run_judge(task, items, client, args.output_dir, options=run_options(args),
                           params={"temperature": args.temperature, "max_tokens": args.max_tokens},
                           extra_summary=extra)
    overall = result.summary["metrics"]["overall"]
    accuracy = "n/a" if overall["accuracy"] is None else f"{overall['accuracy']:.3f}"
    local = " [answers from the local embedded server, not a hosted model]" \
        if result.summary["endpoint"]["local_embedded_server"] else ""
    print(f"judge {task.name}: {overall['n_judged']}/{overall['n']} judged, accuracy ({task.primary}) {accuracy}, "
          f"{counted(overall['parse_errors'], 'parse error')}, {counted(overall['errors'], 'error')}; "
          f"{counted(result.summary['usage']['total_tokens'], 'token')}{local}; summary: "
          f"{result.summary_path}, report: {result.report_path}")
    if "agreement" in result.summary:
        agree = result.summary["agreement"]["success"]
        print(f"agreement with pixel evaluator on success: n={agree['n']} kappa={agree['cohen_kappa']}")
    return 0
