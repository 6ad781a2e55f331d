"""Machines and workloads as editable descriptions (``cosched.Machine``,
``cosched.Workload``): the TOML file's structure as nested dicts and lists,
edited by dotted path, checked by the Rust loader on every change
(docs/architecture.md, "Workloads as data"), and written back as TOML.
"""

from __future__ import annotations

import copy
import difflib
import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from . import _cosched
from ._knobs import Values, _shown, known
from .errors import ConfigError, OptionError

__all__ = ["DEFAULT_MACHINE", "DEFAULT_WORKLOAD", "Machine", "Workload"]

#: The defaults of ``machine`` and ``workload``, read from their Rust declarations (``cosched list knobs``).
DEFAULT_MACHINE: str = known()["machine"]["default"]
DEFAULT_WORKLOAD: str = known()["workload"]["default"]


def _plain_value(v: Any) -> Any:
    """numpy scalars as the Python numbers they stand for (json's ``default``)."""
    if isinstance(v, np.bool_):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    raise TypeError(type(v).__name__)


class _Spec:
    """A machine or workload description held as nested dicts and lists (the
    TOML file's structure), editable in place and written back as TOML; the
    Rust loader checks it on every :meth:`to_toml`."""

    _kind = ""

    def __init__(self, source: str, *, toml: str | None = None) -> None:
        load = _cosched.machine_spec if self._kind == "machine" else _cosched.workload_spec
        self.source = source
        self.spec: dict[str, Any] = load(source, toml)

    @classmethod
    def from_toml(cls, text: str, name: str = "<memory>") -> Any:
        """Parse TOML text (``name`` is cited in errors)."""
        return cls(name, toml=text)

    @property
    def name(self) -> str:
        """The ``name`` field."""
        return str(self.spec["name"])

    def _walk(self, spec: Any, parts: list[str], path: str) -> Any:
        """The node at ``parts`` of ``spec``; a missing key or index is a
        :class:`ConfigError` naming ``path`` and what is there instead."""
        node: Any = spec
        for k, part in enumerate(parts):
            where = ".".join(parts[:k]) or "the top level"
            if isinstance(node, list):
                if not part.lstrip("-").isdigit() or not 0 <= int(part) < len(node):
                    raise ConfigError.of(
                        self.name, path, f"`{where}` has {len(node)} entries (0 to {len(node) - 1}); no entry `{part}`"
                    )
                node = node[int(part)]
            elif isinstance(node, dict):
                if part not in node:
                    close = difflib.get_close_matches(part, list(node), n=1)
                    hint = f" (did you mean `{close[0]}`?)" if close else ""
                    raise ConfigError.of(self.name, path, f"no field `{part}` in {where}{hint}")
                node = node[part]
            else:
                raise ConfigError.of(self.name, path, f"`{where}` is a value, not a table or list")
        return node

    def _path(self, path: Any) -> str:
        """``path`` checked: a dotted string of field names and list indices."""
        if not isinstance(path, str) or not path:
            raise ConfigError.of(
                self.name, None, f"a field is named by a dotted string such as 'job.0.instances', got {path!r}"
            )
        return path

    def __getitem__(self, path: str) -> Any:
        """The value at dotted ``path``: a copy, so editing it changes nothing until it is set back."""
        path = self._path(path)
        return copy.deepcopy(self._walk(self.spec, path.split("."), path))

    def __setitem__(self, path: str, value: Any) -> None:
        """Set the field at dotted ``path`` (list entries by index: ``job.0.instances``).
        The change is checked at once by the loader, as a file would be; a refused
        value raises :class:`ConfigError` naming the field and leaves this object as it was."""
        path = self._path(path)
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError.of(self.name, path, f"must be a finite number, got {value!r}")
        *parents, last = path.split(".")
        new = copy.deepcopy(self.spec)
        node = self._walk(new, parents, path)
        if isinstance(node, list):
            if not last.lstrip("-").isdigit() or not 0 <= int(last) < len(node):
                raise ConfigError.of(
                    self.name, path, f"has {len(node)} entries (0 to {len(node) - 1}); no entry `{last}`"
                )
            node[int(last)] = value
        elif isinstance(node, dict):
            node[last] = value
        else:
            raise ConfigError.of(self.name, path, "the parent is a value, not a table or list")
        try:
            text = json.dumps(new, allow_nan=False, default=_plain_value)
        except ValueError:
            raise ConfigError.of(self.name, path, "every number must be finite (no NaN or infinity)") from None
        except TypeError:
            raise ConfigError.of(
                self.name, path, f"must be a number, string, bool, list or table, got {type(value).__name__}"
            ) from None
        dump = _cosched.machine_toml if self._kind == "machine" else _cosched.workload_toml
        dump(self.name, text)
        self.spec = new

    def copy(self) -> Any:
        """An independent copy."""
        new = object.__new__(type(self))
        new.source = self.source
        new.spec = copy.deepcopy(self.spec)
        return new

    def to_toml(self) -> str:
        """The description as TOML, checked by loading it back as a file would be."""
        dump = _cosched.machine_toml if self._kind == "machine" else _cosched.workload_toml
        return str(dump(self.name, json.dumps(self.spec)))

    def save(self, path: str | Path) -> Path:
        """Write :meth:`to_toml` to ``path`` (loadable by ``cosched --machine/--workload PATH``):
        a regular file whole, a device or FIFO written into, never replaced."""
        p = Path(path)
        _cosched.write_output(str(p), self.to_toml().encode("utf-8"), f"path {p}")
        return p

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


class Machine(_Spec):
    """A machine: preset name or TOML file path (``cosched.list_machines()``).

    >>> m = Machine("i5-2500")
    >>> m["memory.bandwidth_gbs"] *= 0.5   # edit any field by dotted path
    >>> m.save("/tmp/half-bw.toml")         # doctest: +SKIP
    """

    _kind = "machine"

    def __init__(self, source: str = DEFAULT_MACHINE, *, toml: str | None = None) -> None:
        super().__init__(source, toml=toml)


class Workload(_Spec):
    """A workload: preset name or TOML file path (``cosched.list_workloads()``); jobs
    that copy a preset (``preset = "…"``) come resolved."""

    _kind = "workload"

    def __init__(self, source: str = DEFAULT_WORKLOAD, *, toml: str | None = None) -> None:
        super().__init__(source, toml=toml)


def _input(what: str, value: str | _Spec) -> tuple[Values, str | None]:
    """The (keyword, value) pair and in-memory TOML of a machine or workload argument."""
    if isinstance(value, _Spec):
        return [(what, value.name)], value.to_toml()
    if not isinstance(value, (str, os.PathLike)):
        raise OptionError(
            f"{what}: give a preset name, a TOML file path or a cosched.{what.title()}, got {_shown(value)}"
        )
    return [(what, os.fspath(value))], None
