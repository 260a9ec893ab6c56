"""``python -m maze_envs.cli.nav_metrics --task point|poi --result-dir RUN ...``: the metrics of a run, runnable while
the evaluation is still writing (the same as ``maze-envs nav-metrics``)."""

from __future__ import annotations

import sys

from .nav_eval import metrics_main

if __name__ == "__main__":
    sys.exit(metrics_main())
