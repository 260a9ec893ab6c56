"""The image/video generation task family, kept together: ``spec`` (task specs and the puzzle/solution files of
each), ``render`` (the pure-colour puzzle and solution images) and ``files`` (task-file names, media suffixes and
matching a model's generated file back to its task). It builds on the maze core only; the writer is
``maze_envs.datasets.generate_tasks``."""
