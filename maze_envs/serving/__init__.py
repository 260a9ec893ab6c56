"""Loopback HTTP servers: the shared plumbing (``http``) and the navigation render server (``render``)."""
