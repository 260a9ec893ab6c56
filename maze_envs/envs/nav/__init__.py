"""The Gaussian-splat navigation envs and the protocol they share with ``evaluators.nav``: settings
(``config``), the waypoint motion model (``motion``), one task's play (``session``), scene sources
(``world``) and ``ShortMemory`` (``memory``)."""
