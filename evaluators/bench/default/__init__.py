"""The default protocol's half in the evaluators' layer: this benchmark's own trial rules (``trial``), registered
by ``maze_envs.protocols.default`` beside MazeBench's (``evaluators.bench.mazebench``)."""
