"""Links that reopen a view, and presentation mode: the page's settings kept in its URL."""
from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ui.layout import present


MAX_LINK_VALUE = 2000  # characters of one setting in a shared link; longer texts stay out of it


def text_bind(key: str) -> str | None:
    """``bind`` for the text widget keyed ``key``: "query-params" while its text fits a link, None once it is
    longer than ``MAX_LINK_VALUE``, so that the address bar keeps the rule the shared link keeps (``share_link``):
    Streamlit takes an unbound widget's value out of the URL, and the widget's identity, hence its text, does not
    depend on ``bind``. A link that brings a longer text is read (the widget holds no text before its first run) and
    leaves the address bar at the next run."""
    text = st.session_state.get(key, "")
    return None if isinstance(text, str) and len(text) > MAX_LINK_VALUE else "query-params"


def share_link() -> tuple[str, list[str]]:
    """A URL that reopens this page with its current settings, and the settings too long to carry."""
    params = [(name, value) for name in st.query_params for value in st.query_params.get_all(name)]
    too_long = sorted({name for name, value in params if len(value) > MAX_LINK_VALUE})
    query = urlencode([(name, value) for name, value in params if name not in too_long])
    base = st.context.url or ""
    return (f"{base}?{query}" if query else base), too_long


PRESENT = "present"  # query parameter: presentation mode, for a projector
PICTURE_FORMATS = ("png", "svg")


def presenting() -> bool:
    """Whether this view is in presentation mode (``?present=true``, so a prepared link opens in it)."""
    return bool(st.session_state.get(PRESENT)) or st.query_params.get(PRESENT) == "true"


def presentation_style() -> None:
    """Presentation mode's larger text (every size in Streamlit's CSS is relative to the root font), tables
    that scroll within the screen and multiselects that show all their tags (``present.STYLE``); in both
    modes columns wrap rather than squeeze a picker's choice (``present.COLUMNS_STYLE``)."""
    st.html(present.COLUMNS_STYLE + (present.STYLE if presenting() else ""))


SENSES = "ws_senses"  # query parameter: the Word in context page's sense labels, "|"-separated


def shared_senses(count: int) -> list[str] | None:
    """The sense labels a shared link carries for ``count`` occurrences; None when it carries none (or a
    number of labels that does not fit these texts)."""
    labels = st.query_params.get(SENSES)
    found = labels.split("|") if labels else []
    return found if len(found) == count else None


def forget_shared_senses() -> None:
    """New texts or a new word: the link's sense labels were for other occurrences."""
    st.query_params.pop(SENSES, None)


def set_shared_senses(senses: list[str], defaults: list[str]) -> None:
    """Put edited sense labels in the page's link (and take them out when they are the defaults again)."""
    if senses == defaults:
        forget_shared_senses()
    else:
        st.query_params[SENSES] = "|".join(s.replace("|", "/") for s in senses)
