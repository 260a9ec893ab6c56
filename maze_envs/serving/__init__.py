"""Loopback HTTP servers on uvicorn + Starlette: the shared plumbing (``app``), the checks every request passes
(``guard``: Host, Origin, JSON bodies, an optional bearer key), connection deadlines (``deadlines``), a budget of
work in flight (``budget``), work run one call at a time (``serial``), the error handlers raise (``errors``) and the
navigation render server (``render``)."""
