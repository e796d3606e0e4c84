"""The one reader of rule packs: the packaged ``rules/`` or a ``--rules-dir``, chosen once at start.

The composition root builds one ``RulePacks`` and hands it to every stage, so a rules directory given
on the command line changes every stage alike (sampling, flags, PII, numeric, golden text, abstention,
the local judge). Each pack is read and validated by its pydantic model once; an invalid pack is a
``ConfigError`` naming the file and the field.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from monitor.exceptions import ConfigError

M = TypeVar("M", bound=BaseModel)
V = TypeVar("V", bound=Mapping[str, Any])


def known_names(value: V, known: Collection[str], what: str) -> V:
    """``value`` if a pack names only ``known`` keys; else a ValueError listing the unknown and the known."""
    unknown = sorted(set(value) - set(known))
    if unknown:
        raise ValueError(f"unknown {what}(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return value


class RulePacks:
    """Rule packs under one root; ``root`` None means the packs shipped in the package."""

    def __init__(self, root: Path | None = None) -> None:
        if root is not None and not root.is_dir():
            raise ConfigError(f"rules_dir: {root} is not a directory")
        self.root = root
        self._base: Traversable = root if root is not None else files("monitor") / "rules"
        self._parsed: dict[tuple[str, type[BaseModel]], BaseModel] = {}
        self._lock = threading.Lock()

    def path(self, name: str) -> Traversable:
        """A pack file or directory under the root (``numeric``, ``abstention``, ``flags.yaml``)."""
        return self._base / name

    def directory(self, name: str) -> Path | None:
        """A pack directory for loaders that take one (None: the packaged one)."""
        return self.root / name if self.root is not None else None

    def label(self, name: str) -> str:
        """How errors name a pack: its path, or ``rules/NAME`` for a packaged one."""
        return str(self.root / name) if self.root is not None else f"rules/{name}"

    def read(self, name: str) -> Any:
        """The decoded YAML of one pack file."""
        try:
            return yaml.safe_load(self.path(name).read_text(encoding="utf-8"))
        except FileNotFoundError as exc:
            raise ConfigError(f"{self.label(name)}: not found") from exc
        except OSError as exc:
            raise ConfigError(f"{self.label(name)}: cannot read: {exc.strerror or exc}") from exc
        except yaml.YAMLError as exc:
            raise ConfigError(f"{self.label(name)}: invalid YAML: {exc}") from exc

    def load(self, name: str, model: type[M]) -> M:
        """One pack validated by ``model``, parsed once per process (a missing file means all defaults)."""
        key = (name, model)
        with self._lock:
            cached = self._parsed.get(key)
        if cached is not None:
            return cached  # type: ignore[return-value]  # stored under its own model
        data = self.read(name) if self.path(name).is_file() else {}
        try:
            parsed = model.model_validate(data if data is not None else {})
        except ValidationError as exc:
            raise pack_error(self.label(name), exc) from exc
        with self._lock:
            self._parsed[key] = parsed
        return parsed


def pack_error(label: str, exc: ValidationError) -> ConfigError:
    """Name the file and the first offending field of a rule pack."""
    first = exc.errors(include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"]) or "(top level)"
    message = str(first["msg"]).removeprefix("Value error, ")
    return ConfigError(f"{label}: {field}: {message}")


def load_file(path: Path, model: type[M]) -> M:
    """One pack file outside any rules directory (tools, tests), validated like the packs are."""
    packs = RulePacks(path.parent) if path.parent.is_dir() else RulePacks()
    if not path.is_file():
        raise ConfigError(f"{path}: not found")
    return packs.load(path.name, model)
