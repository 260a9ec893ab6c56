"""Protocols as registered parts: the registry (``registry``) and one package per protocol.

``default`` (this project's rules), ``mazebench`` (MazeBench's) and ``abot`` (ABot-Navigation's) register
themselves when this package is imported. Consumers ask ``protocol(name, part)`` for what they need and offer
``protocol_names(part)`` as choices; no module outside a protocol's package imports it (an import-linter contract
holds that). Adding a protocol is one new package that calls ``register_protocol`` with its parts, imported
before use (``import my_protocol``); see ``registry`` for the parts and the entry-point strings of the parts that
live in higher layers.
"""

from . import abot, default, mazebench  # noqa: F401  (the built-in protocols register themselves)
from .registry import (
    DEFAULT,
    PARTS,
    BenchRules,
    GridRules,
    NavRules,
    Protocol,
    SandboxRules,
    TextMazes,
    about,
    canonical_name,
    load,
    protocol,
    protocol_aliases,
    protocol_names,
    register_protocol,
    unregister_protocol,
)

__all__ = ["DEFAULT", "PARTS", "BenchRules", "GridRules", "NavRules", "Protocol", "SandboxRules", "TextMazes",
           "about", "canonical_name", "load", "protocol", "protocol_aliases", "protocol_names", "register_protocol",
           "unregister_protocol"]
