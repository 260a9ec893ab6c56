"""The grid maze envs: ``Maze-v0`` (full view), ``Maze-PartialObs-v0`` (line-of-sight window), their native
vector envs and observation variants, and the step rules, layouts and keys they share."""
