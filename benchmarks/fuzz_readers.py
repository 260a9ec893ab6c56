"""How many mutated inputs each file reader handles: returns, or raises the project's typed error briefly.

Run: ``python3 benchmarks/fuzz_readers.py [--inputs 500] [--seed 0] [--reader NAME]``. For every reader
(maze JSON in both forms, openings annotations and ``--resume``, pixel ``metadata.jsonl``, judge
manifests and task metadata, nav trajectories, map metadata, PNG/TIFF maps and PLY, the model YAML)
it writes a valid sample, mutates its bytes ``--inputs`` times (byte edits, cut spans, huge or
non-finite numbers, deep nesting, wrong types, other encodings, junk files) and prints handled/total
with the first few unhandled failures. The mutations live in ``tests/_hostile_inputs.py``, which the
fuzz tests share.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from _hostile_inputs import READERS, handled, mutate  # noqa: E402


def main() -> int:
    """Fuzz every reader and print handled/total per reader; return 0 when every input was handled, else 1."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=500, help="mutated inputs per reader (default 500)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the mutations (default 0)")
    parser.add_argument("--reader", help="fuzz only the readers whose name contains this text")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    total_handled = total = 0
    with tempfile.TemporaryDirectory(prefix="maze-envs-fuzz-") as scratch:
        for index, reader in enumerate(r for r in READERS if args.reader is None or args.reader in r.name):
            failures: Counter[str] = Counter()
            for attempt in range(args.inputs):
                directory = Path(scratch) / f"{index}-{attempt}"
                directory.mkdir()
                target = reader.write(directory)
                target.write_bytes(mutate(target.read_bytes(), rng))
                failure = handled(reader, target)
                if failure is not None:
                    failures[failure.split(":")[0] if len(failure) > 120 else failure] += 1
            ok = args.inputs - sum(failures.values())
            total_handled, total = total_handled + ok, total + args.inputs
            print(f"{reader.name:32s} {ok:5d}/{args.inputs}")
            for failure, count in failures.most_common(5):
                print(f"    {count:4d} x {failure}")
    print(f"{'all readers':32s} {total_handled:5d}/{total}")
    return 0 if total_handled == total else 1


if __name__ == "__main__":
    sys.exit(main())
