"""Loopback HTTP servers on uvicorn + Starlette: the shared plumbing (``app``) and the navigation render server
(``render``)."""
