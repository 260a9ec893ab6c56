"""MazeBench's own rules (https://github.com/Aileen-90/MazeBench) for ``--protocol mazebench``: its text2d prompt,
perturbation, validator and v1/v2 metrics, its sandbox and model loops, and its summaries."""
