"""The labelled-openings puzzle, kept together: ``puzzle`` (generation and validation), ``render`` (the PIL image
with its labels and font, ``fonts/``) and ``dataset`` (settings, variants and each sample's record). It builds on
the maze core only; the env is ``maze_envs.envs.openings.env`` and the dataset writer ``maze_envs.datasets``."""
