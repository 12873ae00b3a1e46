"""The stores a server offers its visitors: the folders its operator lists in ``BERTVIZ_CORPORA`` (comma-separated),
each offered by its folder's name. A visitor picks a name, never a path, so no link can open a folder the operator did
not list; ``open_offered`` says what is wrong with a listed store (unfinished, damaged, another model's).
"""
from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bertviz_core.checks as checks
from bertviz_core.precompute.layout import MANIFEST, read_json
from bertviz_core.precompute.reader import VectorStore, open_store

SETTING = "BERTVIZ_CORPORA"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class OfferedStore:
    """A listed store: ``name`` (its folder's name, what a link carries), ``folder``, and ``title`` as a picker
    shows it: the name, its texts and its model, or why it cannot be opened."""

    name: str
    folder: Path
    title: str


def _title(name: str, folder: Path) -> str:
    """"tickets: 20,000 texts, all-MiniLM-L6-v2", or the name with why it is not ready."""
    if not (folder / MANIFEST).is_file():
        return f"{name} (not a finished store)"
    try:
        manifest = read_json(folder / MANIFEST)
        return f"{name}: {manifest['rows']:,} texts, {manifest['model']['name']}"
    except (ValueError, KeyError, TypeError):
        return f"{name} (damaged)"


def offered_stores(setting: str | None = None) -> dict[str, OfferedStore]:
    """{name: store} of the folders listed in ``setting`` (``BERTVIZ_CORPORA`` when None), in the order listed;
    ``ValueError`` when two listed folders share a name (a link could not tell them apart)."""
    listed = os.environ.get(SETTING, "") if setting is None else setting
    offered: dict[str, OfferedStore] = {}
    for entry in (part.strip() for part in listed.split(",")):
        if not entry:
            continue
        folder = Path(entry).expanduser()
        name = folder.resolve().name
        if name in offered:
            # the folders go to the server's log only: a visitor sees this message, and no server path
            log.error("%s lists two stores named %r: %s and %s", SETTING, name, offered[name].folder, folder)
            raise ValueError(f"{SETTING} lists two stores named {name!r}: a visitor picks a store by its folder's "
                             "name, so give them different names (the server's log names both folders).")
        offered[name] = OfferedStore(name, folder, _title(name, folder))
    return offered


def open_offered(name: str, encoder: Any = None, setting: str | None = None) -> VectorStore:
    """The offered store called ``name``, opened (``open_store``) for ``encoder`` when given. ``ValueError`` with a
    sentence when the server does not offer it, or it is unfinished, damaged, or of another model."""
    offered = offered_stores(setting)
    if not isinstance(name, str) or name not in offered:
        listed = ", ".join(map(repr, offered)) or "none"
        raise ValueError(f"This server offers no store called {checks.shown(name)}; it offers {listed}. Its operator "
                         f"lists the stores it offers in {SETTING}; a visitor cannot open any other folder.")
    return open_store(str(offered[name].folder), encoder)
