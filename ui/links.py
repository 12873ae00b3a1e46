"""Links that reopen a view, and presentation mode: the page's settings kept in its URL."""
from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager
from streamlit.runtime.scriptrunner_utils.script_requests import ScriptRequestType
from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
from streamlit.runtime.state.query_params import parse_url_param

from ui.layout import html_table, present

if TYPE_CHECKING:
    from streamlit.runtime.state.common import WidgetMetadata


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
    modes columns wrap rather than squeeze a picker's choice (``present.COLUMNS_STYLE``), and static tables look like
    Streamlit's (``html_table.TABLE_STYLE``)."""
    st.html(html_table.TABLE_STYLE + present.CHART_TITLE_STYLE + present.COLUMNS_STYLE
            + (present.STYLE if presenting() else ""))


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


# ---- a link's settings the page could not use ---------------------------------------------------------------

LINK_GIVEN = "_link_given"  # session key: (page, {setting: [values]}) the page's link gave, those not yet judged
LINK_NOTICE = "_link_notice"  # session key: (page, [(setting, why, shown)] of its link it did not use), unsaid
QUOTED = 60  # characters of a link's value quoted in the message
LISTED = 8  # a setting's choices named in the message, when it has no more


def this_page() -> str:
    """The page this run draws (its script's hash)."""
    return get_script_run_ctx().page_script_hash


def remember_link() -> None:
    """On a page's first run in this session (a link opened, or a visit from another page), the settings its URL
    gives, read before any widget (the sidebar's calls it first): Streamlit takes out of the URL both a bound widget's
    value it cannot use and one equal to the widget's default, so the URL after the run cannot tell them apart
    (``judge_link`` can)."""
    page = this_page()
    if st.session_state.get(LINK_GIVEN, (None, {}))[0] != page:
        st.session_state[LINK_GIVEN] = (page, {name: st.query_params.get_all(name) for name in st.query_params})


def link_said(*names: str) -> None:
    """The page said itself why it did not use the link's settings ``names`` (the store picker, the model picker):
    ``judge_link`` leaves them out."""
    given = st.session_state.get(LINK_GIVEN, (None, {}))[1]
    for name in names:
        given.pop(name, None)


def _as_link(value: Any) -> list[str]:
    """A widget's serialized value, or a parsed link value, as the URL spells it: numbers without a needless ".0",
    booleans in lower case."""
    items = [] if value is None else value if isinstance(value, (list, tuple)) else [value]
    return [str(v).lower() if isinstance(v, bool) else str(int(v)) if isinstance(v, float) and v.is_integer()
            else str(v) for v in items]


def _quoted(values: list[str]) -> str:
    text = ", ".join(values)
    return text if len(text) <= QUOTED else text[:QUOTED] + "…"


def _why(values: list[str], held: list[str], meta: WidgetMetadata) -> str:
    """Why a widget did not take the link's ``values`` (it holds ``held``), from what the widget declares."""
    options = meta.formatted_options
    if not "".join(values):
        return "empty"
    if options is not None:
        if len(options) > LISTED:
            return f"not one of this setting's {len(options):,} choices here"
        return f"not one of this setting's choices here ({_quoted(options)})"
    if meta.value_type == "bool_value":
        return "neither true nor false"
    if meta.value_type in ("double_value", "double_array_value", "int_value", "int_array_value"):
        try:
            [float(value) for value in values]
        except ValueError:
            return "not a number"
        return "outside the values this setting takes"
    if meta.value_type == "string_value" and held and held[0] and values[-1].startswith(held[0]):
        return f"longer than this box takes ({len(held[0]):,} characters)"
    return "not one of this setting's choices"


def judge_link() -> None:
    """Each setting the page's link gave whose widget this run drew, judged once: not used when the widget holds
    another value than the link's (a value equal to the default is used). Call after the page (``link_notice``
    gives what it found). It reads the session's widget metadata, which st.session_state does not show."""
    ctx = get_script_run_ctx()
    state = ctx.session_state._state if ctx is not None else None
    if state is None or LINK_GIVEN not in state or not state[LINK_GIVEN][1]:
        return
    page, given = state[LINK_GIVEN]
    lines: list[tuple[str, str, str]] = []
    for name in [name for name in given if state.get_widget_id_from_key(name) in ctx.shared.widget_ids_this_run]:
        values, widget = given.pop(name), state.get_widget_id_from_key(name)
        meta = state.get_widget_metadata(widget)
        if meta is None or meta.bind != "query-params":
            continue
        held = _as_link(meta.serializer(state.get_widget_value(widget)))
        try:
            asked = _as_link(parse_url_param(values[0] if len(values) == 1 else values, meta.value_type))
        except ValueError:  # not a number, not a boolean
            asked = None
        if asked != held:
            lines.append((f"{name}={_quoted(values)}", _why(values, held, meta), _quoted(held) or "nothing"))
    if lines:
        state[LINK_NOTICE] = (page, [*(state[LINK_NOTICE][1] if LINK_NOTICE in state else []), *lines])


def link_notice() -> list[tuple[str, str, str]]:
    """Once: the settings of this page's link it did not use, as ("name=value", why, what the page shows)."""
    found = st.session_state.pop(LINK_NOTICE, None)
    return found[1] if found is not None and found[0] == this_page() else []


@contextmanager
def stop_lifted() -> Iterator[None]:
    """Within, a page that ended with st.stop() may still draw (the link's notice above it); stopped again after.
    Streamlit refuses every element once a stop is requested, and a page's st.stop() ends app.py's run too."""
    requests = get_script_run_ctx().script_requests
    with requests._lock:
        requests._state = ScriptRequestType.CONTINUE
    try:
        yield
    finally:
        requests.request_stop()


_served = threading.local()  # .by_app: app.py's navigation is running a page in this thread (a session's runner)


@contextmanager
def served_by_app() -> Iterator[None]:
    """Around app.py's ``page.run()``: the page it runs is served by app.py's st.navigation."""
    _served.by_app = True
    try:
        yield
    finally:
        _served.by_app = False


def ensure_app_navigation() -> None:
    """Call first on every page: make sure app.py's st.navigation (and its sidebar) serves it.

    Until st.navigation first runs, Streamlit treats pages/ beside the entry point as a legacy multipage app: a
    server's first visitors opening a deep link (/tokenization) get the page file alone, and the mode would stick
    for the process. Leave it and rerun, so app.py serves the same URL. Each run checks that app.py serves it, not
    only the process's mode: of two first visitors at once, the first to leave it would leave the other alone."""
    if not getattr(_served, "by_app", False):
        PagesManager.uses_pages_directory = False
        st.rerun()
