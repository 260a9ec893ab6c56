"""Prompt templates: text files with ``{placeholder}`` fields, filled by name and recorded with every result
(the judges', the benchmark's and the LLM agents' prompts all load through ``PromptTemplate``)."""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from maze_envs.core.datafiles import read_data_text
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.words import plural
from maze_envs.core.yamlfiles import MAX_CONFIG_BYTES

_FIELD = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


@dataclass(frozen=True)
class PromptTemplate:
    """A prompt template read from ``path``; ``fields`` are its ``{lowercase_name}`` placeholders."""

    path: Path
    text: str

    @classmethod
    def load(cls, path: str | os.PathLike) -> "PromptTemplate":
        """Return the template in ``path``; raises ``MazeConfigError`` naming the file if it cannot be read."""
        path = Path(path)
        try:
            return cls(path, read_data_text(path, max_bytes=MAX_CONFIG_BYTES))
        except OSError as exc:
            raise MazeConfigError(f"{path}: cannot read: {getattr(exc, 'detail', None) or exc.strerror or exc}",
                                  parameter="template") from exc

    @property
    def fields(self) -> tuple[str, ...]:
        """Return the placeholder names in order of first use."""
        return tuple(dict.fromkeys(_FIELD.findall(self.text)))

    @property
    def sha256(self) -> str:
        """Return the SHA-256 of the template text (recorded so results name the exact prompt)."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    def require(self, names: tuple[str, ...]) -> "PromptTemplate":
        """Return ``self`` if it uses every placeholder in ``names``; else raise ``MazeConfigError``."""
        missing = [n for n in names if n not in self.fields]
        if missing:
            raise MazeConfigError(
                f"template {self.path} lacks {plural('placeholder', len(missing))} "
                f"{', '.join('{' + n + '}' for n in missing)}"
            )
        return self

    def fill(self, values: dict[str, Any]) -> str:
        """Return the text with each placeholder replaced by ``str(values[name])``; raises if one has no value."""
        missing = [n for n in self.fields if n not in values]
        if missing:
            raise MazeConfigError(f"template {self.path}: no value for {', '.join(missing)}")
        return _FIELD.sub(lambda m: str(values[m.group(1)]), self.text)

    def describe(self) -> dict[str, str]:
        """Return the template's path and hash for reports."""
        return {"path": str(self.path), "sha256": self.sha256}
