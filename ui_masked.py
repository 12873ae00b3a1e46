"""Masked words' ui layer: the switch to a model with the head, which says where it was clicked when the model
cannot load, and the cached view for a model without the head (its masks' nearest input word embeddings).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from bertviz_core.masked import MAX_TOP_K
from ui import (
    allowed_models,
    encode_texts,
    get_encoder,
    literal,
    masks,
    model_choices,
    model_key,
    remembered_failure,
    show_in_picker,
)

if TYPE_CHECKING:
    from bertviz_core.embedding_lens import NearestEmbeddings

OFFERED = "_offered_model"  # session key: the model a page's switch button asked for, until the page answered


def _switch_to(model: str, choices: list[str]) -> None:
    """The switch button's callback: the sidebar's picker on ``model``, and the page told it was asked for."""
    show_in_picker(model, choices)
    st.session_state[OFFERED] = model


def offer_model(model: str, label: str) -> None:
    """A button that switches this session to ``model`` (through the sidebar's picker, so the URL follows), or
    a note when this server's BERTVIZ_MODELS allowlist leaves it out. When the model cannot load (offline, say),
    the current model stays and the reason shows right under the button: the sidebar says it too, but
    presentation mode folds the sidebar away."""
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


@st.cache_data(max_entries=32, show_spinner=False)
def nearest_embeddings(key: tuple[str, str], text: str) -> list[NearestEmbeddings]:
    """Cached ``embedding_lens.nearest_to_states`` of each mask of ``text`` at the largest k, from the text's
    shared encoding (``ui.encode_texts``): another k or mask is read from it without running the model.
    ``ValueError`` when the text has no usable mask, or the model's embeddings and hidden states differ in width."""
    from bertviz_core.embedding_lens import nearest_to_states

    positions = masks(key, text).positions
    return nearest_to_states(get_encoder(*key), encode_texts(key, (text,))[0].hidden_states, positions, MAX_TOP_K)
