"""The model picker: one Encoder per (model, device) for every session, the sidebar, remembered failures.

A model that failed to load is remembered for ``FAILURE_MEMORY_S``, so another visitor picking it gets
the message at once instead of waiting for the same failure.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import cachetools
import streamlit as st
from streamlit.runtime.scriptrunner import StopException

from bertviz_core.model.model_files import describe
from bertviz_core.model.models import BUNDLED_MODEL, KNOWN_HUB_MODELS, ModelInfo, available_devices

from ui.display import literal
from ui.links import judge_link, link_notice, link_said, PICTURE_FORMATS, PRESENT, remember_link, stop_lifted

if TYPE_CHECKING:  # imported where used: scikit-learn and plotly would add most of a second to the first page
    from bertviz_core.model.encoder import Encoder



CUSTOM = "Custom id or path…"
ACTIVE = "_active_model"  # session key: the (model, device) this session uses, checked when chosen
FAILED_NOTE = "_failed_model_note"  # session key: a failed model's message, shown once after the picker snaps back
OFFERED = "_offered_model"  # session key: the model a page's switch button asked for, until the page answered
FAILURE_MEMORY_S = 600  # a model that failed to load is not tried again for this long, by any session
_FAILURES_LOCK = threading.Lock()  # cachetools' caches are not thread-safe


@st.cache_resource(show_spinner="Loading the model (the first time takes a few seconds)…", max_entries=4)
def get_encoder(model: str, device: str) -> Encoder:
    """One shared Encoder per (model, device). Failures raise and are not cached."""
    from bertviz_core.model.encoder import load_encoder

    return load_encoder(None if model == BUNDLED_MODEL else model, device=device)


@st.cache_data(show_spinner=False, max_entries=16)
def model_info(model: str, device: str) -> ModelInfo:
    """A model's facts: read from its files when it is local, so the app opens without importing
    transformers (seconds); a hub model is loaded to learn them."""
    info = describe(None if model == BUNDLED_MODEL else model, device)
    return info if info is not None else get_encoder(model, device).info


def allowed_models() -> list[str] | None:
    """The models this server may load, from BERTVIZ_MODELS (comma-separated ids or paths); None = any."""
    listed = [m.strip() for m in os.environ.get("BERTVIZ_MODELS", "").split(",") if m.strip()]
    return listed or None


def model_choices(allowed: list[str] | None) -> list[str]:
    """The model picker's listed choices: the bundled model, then the known hub models or the allowlist."""
    return [BUNDLED_MODEL, *(KNOWN_HUB_MODELS if allowed is None else allowed)]


@st.cache_resource
def failed_models() -> cachetools.TTLCache:
    """{(model, device): its error message} for loads that failed, shared by every session and forgotten
    after ``FAILURE_MEMORY_S``: a model that cannot load (an unreachable hub) is not tried on every rerun."""
    return cachetools.TTLCache(maxsize=256, ttl=FAILURE_MEMORY_S)


def load_or_remember_failure(wanted: tuple[str, str]) -> None:
    """Load (or, for the bundled model, read the facts of) ``wanted``; ValueError, remembered, if it fails."""
    remembered = remembered_failure(wanted)
    if remembered is not None:
        raise ValueError(f"{remembered} (Not tried again for {FAILURE_MEMORY_S // 60} minutes after a failure.)")
    try:
        if wanted[0] == BUNDLED_MODEL:
            model_info(*wanted)  # its files are read now; the weights load on first use
        else:
            get_encoder(*wanted)  # loaded now, so a model that fails never becomes active
    except ValueError as err:
        with _FAILURES_LOCK:
            failed_models()[wanted] = str(err)
        raise


def remembered_failure(wanted: tuple[str, str]) -> str | None:
    """Why (model, device) failed to load, while ``failed_models`` remembers it; None when it has not failed."""
    with _FAILURES_LOCK:
        return failed_models().get(wanted)


def show_in_picker(model: str, choices: list[str]) -> None:
    """Set the model picker (before it is drawn) to ``model``: a listed choice, or a custom id or path."""
    if model in choices:
        st.session_state["model"] = model
    else:
        st.session_state["model"], st.session_state["custom_model"] = CUSTOM, model


def model_sidebar() -> None:
    """Model and device pickers with the loaded model's facts. A failed load keeps the last good model
    and puts the picker (and so the URL) back on it, with the failure's message."""
    remember_link()  # before any widget takes its value out of the URL
    side = st.sidebar
    side.header("Model")
    allowed = allowed_models()
    choices = model_choices(allowed)
    failure = st.session_state.pop(FAILED_NOTE, None)
    if failure is not None:
        show_in_picker(model_key()[0], choices)
    choice = side.selectbox("Model", list(dict.fromkeys([*choices, CUSTOM])), key="model", bind="query-params",
                            help="The bundled model works offline. Hub models download on first use.")
    model = choice
    if choice == CUSTOM:
        model = side.text_input("Hub id or local folder", key="custom_model", bind="query-params",
                                placeholder="e.g. prajjwal1/bert-tiny or /models/my-bert").strip()
    device = side.selectbox("Device", available_devices(), key="device", bind="query-params",
                            help="auto = CUDA if present, then Apple MPS, then CPU.")
    wanted = (model or BUNDLED_MODEL, device)
    if allowed is not None and wanted[0] not in choices:
        side.error(f"This server only loads the models its operator listed in BERTVIZ_MODELS: "
                   f"{literal(', '.join(choices))}. Custom ids and paths are turned off here.", icon="🔒")
        wanted = st.session_state.get(ACTIVE, (BUNDLED_MODEL, device))
    if failure is not None:
        link_said("model", "custom_model", "device")  # the failure says why the link's model is not the one in use
        offered = st.session_state.get(OFFERED)
        if offered is None:
            side.error(literal(failure), icon="⚠️")
        else:  # a page's switch button asked for it: offer_model says why beside that button, once
            side.caption(f"{literal(offered)} could not be loaded: the page says why, beside its button.")
        side.caption(f"Still using **{literal(model_key()[0])}**.")
    elif wanted != st.session_state.get(ACTIVE):
        try:
            with side, st.spinner(f"Loading {wanted[0]}…"):
                load_or_remember_failure(wanted)
            st.session_state[ACTIVE] = wanted
        except ValueError as err:
            st.session_state.setdefault(ACTIVE, (BUNDLED_MODEL, "auto"))
            st.session_state[FAILED_NOTE] = str(err)
            st.rerun()  # draw the picker again, back on the model in use
    info = active_info()
    side.markdown(
        f"**{literal(info.name)}**  \n"
        f"{info.num_layers} layer{'s' if info.num_layers != 1 else ''} · hidden {info.hidden_size} · vocab {info.vocab_size:,}  \n"
        f"max {info.max_length} tokens · device `{info.device}` · pooler {'yes' if info.has_pooler else 'no'} · "
        f"MLM head {'yes' if info.has_mlm_head else 'no'}"
    )
    side.header("View")
    side.toggle("Presentation mode", key=PRESENT, bind="query-params",
                help="For a projector: larger text, no code panels or downloads, the sidebar folded away. "
                     "It is in the link, so a prepared link opens in it.")
    side.radio("Charts' camera button saves", PICTURE_FORMATS, horizontal=True, key="picture_format",
               bind="query-params", format_func=str.upper,
               help="At the chart's own size, with its title: SVG for slides that scale, PNG for anything else. "
                    "Charts drawn on a canvas (the matrices, score grids, maps, rankings, the head view and Which "
                    "model?'s score by layer) save as PNG from their toolbar.")


@contextmanager
def link_notice_above() -> Iterator[None]:
    """Around a page's run (``ui.warm.page_running``): above it, once, each setting of its link that it did not use and why
    (``ui.links.judge_link``), also when the page ends with st.stop(). A rerun asked for meanwhile (a visitor's
    change) keeps what was found for the run that follows."""
    where = st.empty()
    try:
        yield
    except StopException:
        judge_link()
        with stop_lifted():
            say_link_notice(where)
        raise
    finally:
        judge_link()
    say_link_notice(where)


def say_link_notice(where: Any) -> None:
    """In ``where`` (a placeholder above the page), once, each setting of the page's link that it did not use and
    why (``ui.links.judge_link``), as the sidebar says a model that did not load."""
    unused = [[literal(text) for text in line] for line in link_notice()]
    if len(unused) == 1:
        (setting, why, shown), = unused
        where.warning(f"The link's setting {setting} was not used: it is {why}. The page shows {shown}.", icon="🔗")
    elif unused:
        where.warning("The link's settings below were not used.\n" + "\n".join(
            f"- {setting}: {why}; the page shows {shown}." for setting, why, shown in unused), icon="🔗")


def encoder() -> Encoder:
    """The Encoder of this session's active model, loaded on first use."""
    return get_encoder(*model_key())


def active_info() -> ModelInfo:
    """The facts of this session's active model, without loading it when it is local."""
    return model_info(*model_key())


def model_key() -> tuple[str, str]:
    """Hashable identity of the active model, for keying cached results."""
    return st.session_state.get(ACTIVE, (BUNDLED_MODEL, "auto"))


def _switch_to(model: str, choices: list[str]) -> None:
    """The switch button's callback: the sidebar's picker on ``model``, and the page told it was asked for."""
    show_in_picker(model, choices)
    st.session_state[OFFERED] = model


def offer_model(model: str, label: str) -> None:
    """A button that switches this session to ``model`` (through the sidebar's picker, so the URL follows), or
    a note when this server's BERTVIZ_MODELS allowlist leaves it out. When the model cannot load (offline, say),
    the current model stays and the reason shows right under the button, once: the sidebar only points here, since
    presentation mode folds it away."""
    allowed = allowed_models()
    if allowed is not None and model not in allowed:
        st.caption(f"This server's operator has not listed {literal(model)} in BERTVIZ_MODELS, so it cannot be "
                   "loaded here.")
        return
    st.button(label, on_click=_switch_to, args=(model, model_choices(allowed)), type="primary")
    if st.session_state.pop(OFFERED, None) != model or model_key()[0] == model:
        return
    failure = remembered_failure((model, model_key()[1]))
    if failure is not None:
        st.error(f"{literal(model)} could not be loaded, so this page stays on **{literal(model_key()[0])}**: "
                 f"{literal(failure)}", icon="⚠️")
