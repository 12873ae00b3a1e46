"""A store opened once per server, what keys its cached results, and what a page says when a store cannot be used:
unfinished, damaged when opened, or found damaged by a view since (``stops_on_damage``)."""
from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import streamlit as st

from bertviz_core.corpora.corpus_sources import Corpus
from bertviz_core.precompute.layout import MANIFEST
from bertviz_core.precompute.offered import open_offered
from ui.display import literal

if TYPE_CHECKING:
    from bertviz_core.precompute.reader import VectorStore

P, T = ParamSpec("P"), TypeVar("T")


@st.cache_resource(max_entries=8, show_spinner="Opening the store…")
def opened_store(name: str, stamp: float) -> VectorStore:
    """The offered store ``name``, opened once per server: its rows are read once, its vectors stay on disk. The
    manifest's modification time ``stamp`` is in the key, so a store computed again is opened again."""
    return open_offered(name)


def stamp(folder: Path) -> float:
    """The modification time of the manifest in ``folder`` (0 without one), which keys the store's opening."""
    path = folder / MANIFEST
    return path.stat().st_mtime if path.is_file() else 0.0


def refuse_store(reason: str) -> None:
    """A store that cannot be used: the reason, and that nothing is shown until one can be."""
    st.error(f"{literal(reason)} Nothing is shown from a store until one can be used: pick another, or choose the "
             "built-in corpus above.", icon="🗄️")


def stops_on_damage(view: Callable[P, T]) -> Callable[P, T]:
    """``view``, a store's view, stopping the page with the core's sentence (``refuse_store``) where a store's file
    cannot be read: one damaged since the store was opened, whichever the view reads first (a ``ValueError``, as
    every core error), rather than Streamlit's exception box. Every public store view is wrapped in it."""
    @functools.wraps(view)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return view(*args, **kwargs)
        except ValueError as err:
            refuse_store(str(err))
            st.stop()
    return guarded


def stamp_of(corpus: Corpus) -> float:
    """The modification time of a store corpus's manifest, which keys its cached results."""
    return stamp(corpus.store.folder)
