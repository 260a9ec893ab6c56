"""How many mutated inputs each file reader handles: returns, or raises the project's typed error briefly; and
how many hostile records each writer handles.

Run: ``python3 benchmarks/fuzz_readers.py [--inputs 500] [--seed 0] [--reader NAME] [--resumed N] [--writes N]``.

- Readers: for every reader (maze JSON in both forms, openings annotations and ``--resume``, pixel
  ``metadata.jsonl``, judge manifests and task metadata, nav trajectories, map metadata, PNG/TIFF maps and
  PLY, the model YAML) it writes a valid sample, mutates its bytes ``--inputs`` times (byte edits, cut spans,
  huge or non-finite numbers, deep nesting, wrong types, other encodings, junk files) and prints handled/total
  with the first few unhandled failures (``tests/_hostile_inputs.py``, shared with the fuzz tests).
- Resumed logs: for the run engine and each consumer that resumes (eval-image, eval-video, bench, suite) it
  runs once, damages a record of the log ``--resumed`` times (a field removed, nulled or of another type, the
  status changed, only ``id`` and ``status`` kept, or a byte mutation) and resumes; handled when the resumed
  run returns or stops with a typed error (``tests/_hostile_runs.py``).
- Writers: ``--writes`` hostile records (lone surrogates, undecodable path bytes, credentials in URLs, headers
  and fields, 50 KB strings) per writer (JSON, result log, run engine, atomic text), half of them into a folder
  whose name is not UTF-8; handled when the file is valid UTF-8, holds no credential and reads back as written.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import shutil
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from _hostile_inputs import READERS, handled, mutate  # noqa: E402
from _hostile_runs import RESUMED_LOGS, WRITERS, mutate_record, write_handled  # noqa: E402


def _line(name: str, ok: int, total: int, failures: Counter[str]) -> None:
    print(f"{name:32s} {ok:5d}/{total}")
    for failure, count in failures.most_common(5):
        print(f"    {count:4d} x {failure}")


def _fuzz_readers(readers, inputs: int, rng: random.Random, scratch: Path, mutation) -> tuple[int, int]:
    """Fuzz ``readers`` with ``inputs`` mutated samples each (made once, copied per input); return handled, total."""
    total_handled = total = 0
    for index, reader in enumerate(readers):
        template = scratch / f"template-{index}"
        template.mkdir()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            relative = reader.write(template).relative_to(template)
        failures: Counter[str] = Counter()
        for attempt in range(inputs):
            directory = scratch / f"{index}-{attempt}"
            shutil.copytree(template, directory)
            target = directory / relative
            target.write_bytes(mutation(target.read_bytes(), rng))
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                failure = handled(reader, target)
            if failure is not None:
                failures[failure.split(":")[0] if len(failure) > 120 else failure] += 1
            shutil.rmtree(directory, ignore_errors=True)
        ok = inputs - sum(failures.values())
        total_handled, total = total_handled + ok, total + inputs
        _line(reader.name, ok, inputs, failures)
    return total_handled, total


def _fuzz_writers(writes: int, rng: random.Random, scratch: Path) -> tuple[int, int]:
    total_handled = total = 0
    for index, (name, write) in enumerate(WRITERS):
        failures: Counter[str] = Counter()
        for attempt in range(writes):
            directory = scratch / f"write-{index}-{attempt}"
            directory.mkdir()
            failure = write_handled(name, write, directory, rng)
            if failure is not None:
                failures[failure] += 1
            shutil.rmtree(directory, ignore_errors=True)
        ok = writes - sum(failures.values())
        total_handled, total = total_handled + ok, total + writes
        _line(f"writer: {name}", ok, writes, failures)
    return total_handled, total


def main() -> int:
    """Fuzz every reader, resumed log and writer and print handled/total per each; return 0 when every input was
    handled, else 1."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=500, help="mutated inputs per file reader (default 500)")
    parser.add_argument("--resumed", type=int, default=40, help="damaged logs per resuming consumer (default 40)")
    parser.add_argument("--writes", type=int, default=300, help="hostile records per writer (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the mutations (default 0)")
    parser.add_argument("--reader", help="fuzz only the readers whose name contains this text")
    args = parser.parse_args()
    rng = random.Random(args.seed)

    def chosen(readers):
        return [r for r in readers if args.reader is None or args.reader in r.name]

    with tempfile.TemporaryDirectory(prefix="maze-envs-fuzz-") as scratch:
        print("file readers")
        (Path(scratch) / "readers").mkdir()
        (Path(scratch) / "resumed").mkdir()
        counts = [_fuzz_readers(chosen(READERS), args.inputs, rng, Path(scratch) / "readers", mutate)]
        print("resumed logs")
        counts.append(_fuzz_readers(chosen(RESUMED_LOGS), args.resumed, rng, Path(scratch) / "resumed",
                                    mutate_record))
        if args.reader is None:
            print("writers")
            (Path(scratch) / "writers").mkdir()
            counts.append(_fuzz_writers(args.writes, rng, Path(scratch) / "writers"))
    total_handled, total = sum(c[0] for c in counts), sum(c[1] for c in counts)
    print(f"{'all':32s} {total_handled:5d}/{total}")
    return 0 if total_handled == total else 1


if __name__ == "__main__":
    sys.exit(main())
