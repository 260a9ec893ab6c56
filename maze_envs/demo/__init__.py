"""``maze-envs demo``: every part of the suite once on embedded defaults (no network, no API key, no GPU), ending
in ``OUT/report.html`` and a summary table.

    from maze_envs.demo import DemoSettings, run_demo, summary_table
    run = run_demo("maze-envs-demo", DemoSettings.quick(seed=0))
    print(summary_table(run.outcomes))

``steps`` holds one function per part of the suite, ``results`` what each returns, ``report`` the page drawn from
them and ``run`` the loop over the steps. The package sits above ``agents`` and ``evaluators`` and below the CLI,
which only parses the demo's flags.
"""

from .results import DemoSettings, StepOutcome
from .run import DemoRun, run_demo, summary_table
from .steps import (
    DEMO_STEPS,
    GRID_ENVS,
    NAV_ENVS,
    baselines_step,
    bench_step,
    datasets_step,
    generations_step,
    nav_step,
    ppo_step,
    suite_step,
)

__all__ = ["DEMO_STEPS", "GRID_ENVS", "NAV_ENVS", "DemoRun", "DemoSettings", "StepOutcome", "baselines_step",
           "bench_step", "datasets_step", "generations_step", "nav_step", "ppo_step", "run_demo", "suite_step",
           "summary_table"]
