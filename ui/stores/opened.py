"""A store opened once per server, what keys its cached results, and what a page says when a store cannot be used:
unfinished, damaged when opened, or found damaged by a view since (``stops_on_damage``)."""
from __future__ import annotations

import functools
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import streamlit as st

from bertviz_core.corpora.corpus_sources import Corpus
from bertviz_core.precompute.layout import MANIFEST
from bertviz_core.precompute.offered import offered_stores, open_offered
from ui.display import literal

if TYPE_CHECKING:
    from bertviz_core.precompute.reader import VectorStore

P, T = ParamSpec("P"), TypeVar("T")
log = logging.getLogger(__name__)


@st.cache_resource(max_entries=8, show_spinner="Opening the store…")
def opened_store(name: str, stamp: float) -> VectorStore:
    """The offered store ``name``, opened once per server: its rows are read once, its vectors stay on disk. The
    manifest's modification time ``stamp`` is in the key, so a store computed again is opened again."""
    return open_offered(name)


def stamp(folder: Path) -> float:
    """The modification time of the manifest in ``folder`` (0 without one), which keys the store's opening."""
    path = folder / MANIFEST
    return path.stat().st_mtime if path.is_file() else 0.0


def _folders() -> dict[str, str]:
    """{a folder as a message may spell it: the store's name} of every offered store, longest first (a folder
    inside another is replaced whole); none when the setting itself is refused (its message names no folder)."""
    try:
        offered = offered_stores()
    except ValueError:
        return {}
    spelled = {str(form): store.name for store in offered.values()
               for form in (store.folder, store.folder.expanduser().absolute(), store.folder.resolve())}
    return dict(sorted(spelled.items(), key=lambda item: -len(item[0])))


# A file's place inside a store's folder, after the folder: up to a space, quote, bracket or punctuation mark.
_IN_STORE = r"""((?:/[^\s'"`():;,]+)*)"""


def in_store_names(reason: str) -> str:
    """Markdown of a store's message (the core's, written for a notebook, names folders and files by their path)
    that names each store by the name the server offers it under and each of its files by its place in the store
    (``vectors/mean@6.npy``), in a code span: the README promises that the server shows none of its paths, and a
    file's name is the server's, so it is shown exactly, without ``literal``'s autolink breaks. The rest is
    ``literal``: a message may quote a visitor's text. The message with its paths goes to the server's log."""
    folders = _folders()
    found = re.compile(f"({'|'.join(map(re.escape, folders))})(?![\\w-]){_IN_STORE}") if folders else None
    shown, start = [], 0
    for match in found.finditer(reason) if found else ():
        before, name = reason[start:match.start()], folders[match.group(1)]
        path = match.group(2).rstrip(".")  # a sentence's full stop is not the file's
        store = name if before.endswith(("store ", "Store ")) else f"the store {name}"
        shown += [literal(before), f"the file `{path.strip('/')}` of {literal(store)}" if path else literal(store)]
        start = match.start(2) + len(path)
    if not shown:
        return literal(reason)
    log.warning("A store's message, shown with its paths replaced: %s", reason)
    text = "".join(shown) + literal(reason[start:])
    return text[:1].upper() + text[1:]


def refuse_store(reason: str) -> None:
    """A store that cannot be used: the reason (``in_store_names``), and that nothing is shown until one can be."""
    st.error(f"{in_store_names(reason)} Nothing is shown from a store until one can be used: pick another, or choose "
             "the built-in corpus above.", icon="🗄️")


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
