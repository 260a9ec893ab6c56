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

``--special`` runs the special files instead (``tests/_special_files.py``, shared with ``test_special_files.py``
and ``test_policy_files.py``), each case in a child process limited to ``--memory`` GiB of address space and
``--guard`` seconds: a FIFO, a link to ``/dev/zero``, a directory and a link leading outside, named as every file
reader's input; YAML bombs (billion laughs, merge-key alias, deep nesting) for every YAML reader, with
``yaml.safe_load`` plus ``json.dumps`` (what a record writer does with the document) as the unguarded peer; and
hostile policy files for the torch loader. ``Path.read_bytes`` on the FIFO and ``/dev/zero`` is the unguarded peer
of the special files. It prints each case's outcome (refused with a typed error, answered
None, untyped error, MemoryError, hang), the time of the reader's call and the memory it added (peak resident
set), and handled/total.

``--envs`` fuzzes the envs instead (``tests/_env_arguments.py``, shared with ``test_envs_argument_budget.py``):
``--inputs`` hostile actions and a set of hostile ``reset`` options per registered id (each must step or raise
``InvalidActionError``, and options that are not a mapping ``MazeConfigError``), then every numeric or path
constructor argument of every id with 10**6, 10**9, 10**30, 1e308, nan, inf, -1 or huge paths, each made, reset and
stepped in a forked child under ``--guard`` seconds. It prints handled/total per id, every hang and untyped
error, the count of hangs, the over-budget products and legitimate configurations, and the largest sizes the
budget accepts.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
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

# (label, env id, keyword arguments of n, vector): the largest n each is made with is printed by --envs.
LARGEST_ACCEPTED = (
    ("Maze-v0 rows=cols=n", "Maze-v0", lambda n: {"rows": n, "cols": n}, False),
    ("Maze-v0 rows=cols=n, algorithm=wilson", "Maze-v0", lambda n: {"rows": n, "cols": n, "algorithm": "wilson"},
     False),
    ("Maze-PartialObs-v0 rows=cols=n (visibility 3)", "Maze-PartialObs-v0", lambda n: {"rows": n, "cols": n}, False),
    ("Maze-PartialObs-v0 visibility=n (10x10)", "Maze-PartialObs-v0", lambda n: {"visibility": n}, False),
    ("Maze-v0 vector num_envs=n (10x10)", "Maze-v0", lambda n: {"num_envs": n}, True),
    ("Maze-PartialObs-v0 vector num_envs=n (10x10)", "Maze-PartialObs-v0", lambda n: {"num_envs": n}, True),
    ("Maze-Openings-v0 rows=cols=n", "Maze-Openings-v0", lambda n: {"rows": n, "cols": n}, False),
    ("Maze-Openings-v0 margin=n", "Maze-Openings-v0", lambda n: {"margin": n}, False),
    ("GaussianNav-PointGoal-v0 view_width=view_height=n", "GaussianNav-PointGoal-v0",
     lambda n: {"view_width": n, "view_height": n, "scenes": 1, "maze_size": (3, 3)}, False),
    ("GaussianNav-PointGoal-v0 scenes=n (4x4 mazes)", "GaussianNav-PointGoal-v0", lambda n: {"scenes": n}, False),
    ("GaussianNav-PointGoal-v0 maze_size=(n, n), 1 scene", "GaussianNav-PointGoal-v0",
     lambda n: {"scenes": 1, "maze_size": (n, n)}, False),
    ("GaussianNav-PointGoal-v0 num_waypoints=n", "GaussianNav-PointGoal-v0",
     lambda n: {"num_waypoints": n, "scenes": 1, "maze_size": (3, 3)}, False),
)


def largest_accepted(env_id: str, kwargs_of, vector: bool) -> int:
    """Return the largest ``n`` below 2**24 that ``env_id`` is made with (``kwargs_of(n)``), by bisection over the
    budget's refusals."""
    import _env_arguments as cases

    from maze_envs.core.errors import MazeConfigError

    def made(n: int) -> bool:
        try:
            cases.make(env_id, kwargs_of(n), vector).close()
        except MazeConfigError:
            return False
        return True

    low, high = 1, 1 << 24
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if made(middle) else (low, middle)
    return low


def fuzz_env_calls(actions: int, rng: random.Random) -> int:
    """Step every env id with ``actions`` hostile actions and reset it with hostile options; print the unhandled
    calls per id; return how many there were."""
    import _env_arguments as cases

    from maze_envs.envs.registration import ENV_ENTRIES, VARIANT_ENTRIES

    unhandled = 0
    for entry in ENV_ENTRIES + VARIANT_ENTRIES:
        failures = cases.fuzz_calls(entry.id, rng, actions)
        unhandled += len(failures)
        calls = actions + len(cases.HOSTILE_LEAVES)
        print(f"{'calls: ' + entry.id:48s} {calls - len(failures):5d}/{calls}")
        for failure in failures[:5]:
            print(f"    {failure}")
    return unhandled


def fuzz_env_arguments(guard: float) -> int:
    """Try every hostile argument of every env id (``tests/_env_arguments.py``); print handled/total per id, each
    failure and the hang count; return 0 when every value was handled, else 1."""
    import _env_arguments as cases

    cases.warm_up()
    per_id: Counter[str] = Counter()
    handled_per_id: Counter[str] = Counter()
    failures: list[str] = []
    for probe in cases.probes():
        for outcome in cases.run_probe(probe, guard=guard, full=True):
            per_id[probe.env_id] += 1
            if outcome.handled(probe):
                handled_per_id[probe.env_id] += 1
            else:
                failures.append(f"{probe.name}={outcome.value!r:.40}: {outcome.status} {outcome.detail[:150]}")
    for label, table, refused in (("over budget", cases.PRODUCTS, True), ("legitimate", cases.LEGITIMATE, False)):
        for env_id, kwargs, vector in table:
            status, detail, _ = cases.run(env_id, [(kwargs, refused)], vector=vector, guard=guard)[0]
            key = f"{label}: {env_id}{'+vector' if vector else ''}"
            per_id[key] += 1
            if status == ("typed" if refused else "accepted"):
                handled_per_id[key] += 1
            else:
                failures.append(f"{key} {kwargs}: {status} {detail[:150]}")
    for key in per_id:
        print(f"{key:48s} {handled_per_id[key]:5d}/{per_id[key]}")
    for failure in failures:
        print(f"    {failure}")
    hangs = sum(" hang " in f for f in failures)
    print(f"{'all env arguments':48s} {sum(handled_per_id.values()):5d}/{sum(per_id.values())}, "
          f"{hangs} hangs over {guard:g} s")
    print("largest accepted under the budget:")
    for label, env_id, kwargs_of, vector in LARGEST_ACCEPTED:
        print(f"    {label:56s} n = {largest_accepted(env_id, kwargs_of, vector):,}")
    return 0 if not failures else 1


def _child(kind: str, name: str, case: str, scratch: Path) -> None:
    """Run one special case in this (child) process (``name``: the index of its reader) and print its outcome,
    seconds and added peak memory as JSON."""
    import _special_files as special

    from maze_envs.core.errors import MazeEnvsError

    if kind == "reader":
        reader = special.READERS[int(name)]
        path = special.make_case(reader, case, scratch)
        call = lambda: reader.read(path)  # noqa: E731
    elif kind == "yaml":
        reader = special.YAML_READERS[int(name)]
        path = scratch / reader.name
        path.write_text(special.YAML_COSTS[case])
        call = lambda: reader.read(path)  # noqa: E731
    elif kind == "read-peer":
        path = special.make_case(special.READERS[0], case, scratch)
        call = lambda: path.read_bytes()  # noqa: E731
    elif kind == "yaml-peer":
        import yaml

        text = special.YAML_COSTS[case]
        call = lambda: json.dumps(yaml.safe_load(text))  # noqa: E731
    else:
        from maze_envs.agents.rl.ppo_native import load_policy

        (scratch / "hostile_mod.py").write_text(special.HOSTILE)
        sys.path.insert(0, str(scratch))
        path = scratch / "model.pt"
        special.POLICY_CASES[case](path)
        call = lambda: load_policy(path)  # noqa: E731
    print("ready", flush=True)  # the hang guard starts here, after the imports and the case's files
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    try:
        result = call()
        outcome = "answered None" if result is None else "accepted"
    except MazeEnvsError as exc:
        outcome = f"refused: {type(exc).__name__}"
    except MemoryError:
        outcome = "MemoryError"
    except Exception as exc:  # the defect being measured
        outcome = f"untyped {type(exc).__name__}"
    seconds = time.perf_counter() - start
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    if (scratch / "ran.txt").exists():
        outcome += ", HOSTILE CODE RAN"
    print(json.dumps({"outcome": outcome, "seconds": seconds, "peak_mb": grown}))


def _run_child(args: list[str], guard: float, memory_gib: float) -> dict:
    """Return the outcome a child process printed for one special case (``hang`` when the reader's call has not
    returned ``guard`` seconds after the child said it was ready)."""
    def limit() -> None:
        size = int(memory_gib * (1 << 30))
        resource.setrlimit(resource.RLIMIT_AS, (size, size))

    with tempfile.TemporaryDirectory(prefix="maze-envs-special-") as scratch:
        command = [sys.executable, __file__, "--child", *args, scratch]
        with open(Path(scratch) / "stderr.txt", "w+") as err:
            child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True, preexec_fn=limit,
                                     cwd=scratch)
            ready = child.stdout.readline()  # imports may take long on a loaded machine: not timed
            try:
                child.wait(timeout=guard if ready else None)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
                return {"outcome": "hang", "seconds": guard, "peak_mb": float("nan")}
            lines = [line for line in child.stdout.read().splitlines() if line.startswith("{")]
            if not lines:
                err.seek(0)
                return {"outcome": f"child died ({child.returncode}): {err.read().strip().splitlines()[-1:]}",
                        "seconds": float("nan"), "peak_mb": float("nan")}
    return json.loads(lines[-1])


def fuzz_special(guard: float, memory_gib: float) -> int:
    """Run every special case in a child process; print each outcome with its time and memory, and
    handled/total per group; return 0 when every guarded reader handled every case, else 1."""
    import _special_files as special

    groups = {
        "special files": [("reader", i, r.label, c) for i, r, c in special.reader_cases()],
        "special files, unguarded peer (Path.read_bytes)": [("read-peer", 0, "read_bytes", c)
                                                           for c in ("FIFO", "link to /dev/zero")],
        "YAML bombs": [("yaml", i, r.label, c) for i, r in enumerate(special.YAML_READERS) for c in special.YAML_COSTS],
        "YAML bombs, unguarded peer (yaml.safe_load + json.dumps)": [("yaml-peer", 0, "safe_load", c)
                                                                     for c in special.YAML_COSTS],
        "hostile policy files (ppo_native.load_policy)": [("policy", 0, "load_policy", c)
                                                          for c in special.POLICY_CASES],
    }
    unhandled = 0
    for group, cases in groups.items():
        print(group)
        ok = 0
        for kind, index, name, case in cases:
            result = _run_child([kind, str(index), case], guard, memory_gib)
            handled = result["outcome"].startswith(("refused", "answered None"))
            ok += handled
            print(f"    {name[:34]:34s} {case[:28]:28s} {result['outcome'][:44]:44s} "
                  f"{result['seconds']:8.3f} s {result['peak_mb']:8.1f} MB")
        print(f"{'  handled':40s} {ok}/{len(cases)}")
        if "peer" not in group:
            unhandled += len(cases) - ok
    return 0 if unhandled == 0 else 1


def main() -> int:
    """Fuzz every reader, resumed log and writer and print handled/total per each; return 0 when every input was
    handled, else 1."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=500, help="mutated inputs per file reader (default 500)")
    parser.add_argument("--resumed", type=int, default=40, help="damaged logs per resuming consumer (default 40)")
    parser.add_argument("--writes", type=int, default=300, help="hostile records per writer (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the mutations (default 0)")
    parser.add_argument("--reader", help="fuzz only the readers whose name contains this text")
    parser.add_argument("--envs", action="store_true", help="fuzz the env constructors' arguments instead")
    parser.add_argument("--special", action="store_true",
                        help="run the special files, YAML bombs and hostile policy files instead")
    parser.add_argument("--memory", type=float, default=2.0,
                        help="with --special: address-space limit of each child in GiB (default 2)")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--guard", type=float, default=20.0,
                        help="with --envs or --special: seconds without an answer that count as a hang (default 20)")
    args = parser.parse_args()
    if args.child:
        _child(*args.child[:3], Path(args.child[3]))
        return 0
    if args.special:
        return fuzz_special(args.guard, args.memory)
    if args.envs:
        unhandled_calls = fuzz_env_calls(args.inputs, random.Random(args.seed))
        return max(fuzz_env_arguments(args.guard), int(unhandled_calls > 0))
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
