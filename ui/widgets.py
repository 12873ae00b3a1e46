"""Functions the pages give to widgets (``format_func``, ``on_change``, ``on_select``), defined here, not in a page.

A session keeps every widget's functions in its widget metadata until the session is gone, and a closed tab's
session is kept for its reconnection. A function defined in a page script holds that script's whole namespace
through its ``__globals__`` (Attention's weights, 75 MB on a 600-word text), so each visitor's arrays stayed
in memory after the shared store had let them go. A function defined here holds this module instead, and
what it needs from the page comes in ``args``. A function a page must define (a fragment, which the session
keeps for its reruns) is ``detached`` from the page's namespace. ``tests/test_page_memory.py`` checks both.
"""
from __future__ import annotations

import builtins
import dis
from collections.abc import Callable, Iterator
from types import CodeType, FunctionType
from typing import TypeVar

import streamlit as st

from bertviz_core.corpora import preset_of, word_presets
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.measures.similarity import UNKNOWN_SENSE
from ui.links import forget_shared_senses, set_shared_senses

F = TypeVar("F", bound=Callable)
OPENED = "_at_opened"  # session key: set by a click on an Attention statistics cell, for the run that follows
OWN = "(your own texts)"  # Word in context's Preset box once the texts or the word are no preset's


def head_label(head: int) -> str:
    """Attention's heads picker: ``head 3``."""
    return f"head {head}"


def strategy_label(name: str) -> str:
    """Sentence pooling's strategies picker: a strategy that gives one vector per text says so."""
    return name if POOLINGS[name].per_layer else f"{name} (one vector)"


def open_head(chart_key: str) -> None:
    """A click on an Attention statistics cell: show that layer and head in the head view."""
    points = st.session_state[chart_key].selection.points
    if points:
        layer, head = int(str(points[0]["y"]).removeprefix("layer ")), int(str(points[0]["x"]).removeprefix("h"))
        st.session_state.update(at_layer=layer, at_heads=[head], at_tab="Head view", **{OPENED: True})


def apply_preset() -> None:
    """Word in context, a preset chosen: its texts and word fill the boxes (OWN keeps the texts as they are)."""
    name = st.session_state["ws_preset"]
    presets = word_presets()
    if name in presets:
        st.session_state["ws_texts"] = "\n".join(presets[name].texts)
        st.session_state["ws_word"] = presets[name].word
    forget_shared_senses()


def texts_edited() -> None:
    """Word in context, texts or word edited: the Preset box names the preset they still are, or OWN."""
    forget_shared_senses()
    st.session_state["ws_preset"] = preset_of(st.session_state["ws_texts"].splitlines(),
                                              st.session_state["ws_word"]) or OWN


def keep_senses_in_link(editor_key: str, start: list[str], defaults: list[str]) -> None:
    """Word in context, sense labels edited in the table ``editor_key`` (which started from ``start``): put
    them in the page's link, unless they are the ``defaults``; a cleared cell reads UNKNOWN_SENSE."""
    edits = {int(row): change for row, change in st.session_state[editor_key].get("edited_rows", {}).items()}
    current = [str(edits.get(i, {}).get("sense", sense)).strip() or UNKNOWN_SENSE for i, sense in enumerate(start)]
    set_shared_senses(current, defaults)


def _global_names(code: CodeType) -> Iterator[tuple[str, str]]:
    """(opname, name) of every global a function's code (and the code nested in it) reads or writes."""
    for instruction in dis.get_instructions(code):
        if instruction.opname in ("LOAD_GLOBAL", "STORE_GLOBAL", "DELETE_GLOBAL", "LOAD_NAME"):
            yield instruction.opname, instruction.argval
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _global_names(const)


def detached(function: F) -> F:
    """``function``, a page's own, bound to a copy of only the page globals it reads, taken now: kept by the
    session (``@fragment`` above it keeps it for its reruns), it then holds those names, not the page's
    whole namespace with every array the page made, and the namespace forms no reference cycle, so it is
    freed when the run ends. Every global it reads must be defined before it (NameError here otherwise), and
    it may not assign globals."""
    used = list(_global_names(function.__code__))
    if any(opname in ("STORE_GLOBAL", "DELETE_GLOBAL") for opname, _ in used):
        raise ValueError(f"{function.__name__} assigns a global: a detached function may only read them")
    page = function.__globals__
    missing = sorted({name for _, name in used if name not in page and not hasattr(builtins, name)})
    if missing:
        raise NameError(f"{function.__name__} reads {', '.join(missing)}, not defined before it")
    own = {name: page[name] for _, name in used if name in page} | {"__builtins__": page.get("__builtins__", builtins),
                                                                   "__name__": page.get("__name__")}
    copy = FunctionType(function.__code__, own, function.__name__, function.__defaults__, function.__closure__)
    copy.__kwdefaults__, copy.__doc__ = function.__kwdefaults__, function.__doc__
    copy.__annotations__, copy.__qualname__ = function.__annotations__, function.__qualname__
    copy.__module__ = function.__module__
    return copy  # type: ignore[return-value]
