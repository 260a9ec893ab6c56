"""``maze-envs demo --quick`` end to end: every step's summary, the summary table, a report that loads in a real
headless browser without console errors, the same report for the same seed, and a skipped step's note."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _browser import opened_page

from maze_envs.demo import GRID_ENVS, NAV_ENVS
from maze_envs.envs.registration import ENV_ENTRIES

REPO = Path(__file__).resolve().parents[2]


def run_demo(out: Path, *flags: str, prelude: str = "") -> subprocess.CompletedProcess:
    script = (f"import sys\n{prelude}from maze_envs.cli import main\n"
              f"sys.exit(main(['demo', '--quick', '--out', {str(out)!r}, *{list(flags)!r}]))\n")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600, cwd=out.parent,
                          env={"PATH": "/usr/bin:/bin", "HOME": str(out.parent), "PYTHONPATH": str(REPO)})


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("demo") / "maze-envs-demo"
    return out, run_demo(out, "--seed", "3")


def test_every_step_runs_and_the_summary_table_is_printed(demo):
    out, done = demo
    assert done.returncode == 0, done.stderr
    for start in ("datasets: 6 task image pairs", "baselines: goals reached",
                  "ppo: 2,048 steps on Maze-PartialObs-v0 3x3; held-out success ppo ", "nav: success",
                  "bench text2d (the local embedded server's oracle): 5x5 success 100%",
                  "generations: pixel evaluator scored 4 images", "Cohen's kappa 1.0",
                  "suite: 2 mazes in every modality; local:text-only perception gap on 2 of 2"):
        assert start in done.stdout
    table = done.stdout.split("step ", 1)[1]
    for env_id in [e.id for e in ENV_ENTRIES]:
        assert f"{env_id} " in table
    assert "Maze-v0                    oracle         3/3       100" in table
    assert (out / "ppo" / "model.pt").is_file()
    assert f"report: {out / 'report.html'}" in done.stdout
    assert (out / "tasks" / "metadata.jsonl").is_file() and (out / "bench" / "report.html").is_file()
    assert (out / "suite" / "index.html").is_file() and (out / "suite" / "summary.json").is_file()
    assert list((out / "nav_eval").glob("GaussianNav-PointGoal-v0-oracle/*/trajectories.png"))
    assert sorted(p.name for p in out.parent.iterdir()) == ["maze-envs-demo"]


def test_the_baselines_cover_every_registered_env():
    assert {env_id for env_id, _ in GRID_ENVS} | set(NAV_ENVS) == {e.id for e in ENV_ENTRIES}


def test_a_second_run_into_the_same_folder_starts_afresh_and_gives_the_same_report(demo):
    out, _ = demo
    first = (out / "report.html").read_bytes()
    again = run_demo(out, "--seed", "3")
    assert again.returncode == 0, again.stderr
    assert "FAILED" not in again.stdout and "not empty" not in again.stdout + again.stderr
    assert "suite: 2 mazes in every modality; local:text-only perception gap on 2 of 2; report" in again.stdout
    assert (out / "report.html").read_bytes() == first


def test_failed_items_are_named_in_the_summary_and_the_exit_status(tmp_path):
    from maze_envs.demo import StepOutcome, summary_table
    from maze_envs.demo.results import SuiteResult
    from maze_envs.demo.run import DemoRun

    suite = SuiteResult((("oracle", "nav3d", 0, 2),), {}, 2, tmp_path / "index.html", errors=2)
    outcomes = (StepOutcome("suite", suite, None, 1.0),)
    assert "2 items FAILED (see its report)" in suite.line
    assert "FAILED items: suite 2; each step's report lists them" in summary_table(outcomes)
    assert DemoRun(outcomes, tmp_path / "report.html").errors == 2


def test_report_loads_in_a_headless_browser_without_console_errors(demo):
    out, _ = demo
    with opened_page(out / "report.html") as (page, problems):
        sections = page.locator("section h2").all_inner_texts()
        bars = page.locator("svg[aria-label='success rate by env and agent'] rect.bar").count()
        images = page.locator("img").evaluate_all("imgs => imgs.map(i => i.complete && i.naturalWidth > 0)")
        baseline_rows = page.locator("table[aria-label='baselines'] tr").count()
        ppo_rows = page.locator("table[aria-label='ppo evaluation'] tr").all_inner_texts()
        curve_points = page.locator("svg[aria-label='learning curve'] polyline").count()
    assert problems == []
    assert sections == ["Datasets", "Grid envs: baseline agents", "PPO on Maze-PartialObs-v0, 3x3 cells",
                        "GaussianNav: navigation baselines (nav-eval)",
                        "LLM benchmark (text2d)", "Synthetic generations: pixel evaluator and judge",
                        "Suite: one maze set, every modality"]
    assert bars == 11 and baseline_rows == (1 + 7) + (1 + 4)
    assert [row.split("\t")[1] for row in ppo_rows[1:]] == ["ppo", "random", "oracle"] and curve_points == 1
    # two task images, three grid views, a nav view, two trajectory pictures, four judged generations
    assert len(images) == 12 and all(images)


# numba is hidden by a None entry; torch by an importer that refuses it (scipy looks up sys.modules["torch"])
HIDE_NUMBA_AND_TORCH = """sys.modules['numba'] = None
class NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] == 'torch':
            raise ImportError('No module named torch')
sys.meta_path.insert(0, NoTorch())
"""


def test_steps_whose_extra_is_missing_are_skipped_with_a_note(tmp_path):
    done = run_demo(tmp_path / "demo", prelude=HIDE_NUMBA_AND_TORCH)
    assert done.returncode == 0, done.stderr
    assert "nav: skipped" in done.stdout and "maze-envs[nav]" in done.stdout and "generations:" in done.stdout
    assert "ppo: skipped" in done.stdout and "maze-envs[rl]" in done.stdout
    report = (tmp_path / "demo" / "report.html").read_text()
    assert "nav: skipped" in report and "GaussianNav: navigation baselines" not in report
    assert "ppo: skipped" in report and "PPO on" not in report
