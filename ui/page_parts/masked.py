"""Masked words' ui layer: the cached view for a model without the head (its masks' nearest input word
embeddings)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from bertviz_core.measures.masked import MAX_TOP_K
from ui.cached import masks
from ui.picker import get_encoder
from ui.results import encode_texts

if TYPE_CHECKING:
    from bertviz_core.words.embedding_lens import NearestEmbeddings


@st.cache_data(max_entries=32, show_spinner=False)
def nearest_embeddings(key: tuple[str, str], text: str) -> list[NearestEmbeddings]:
    """Cached ``embedding_lens.nearest_to_states`` of each mask of ``text`` at the largest k, from the text's
    shared encoding (``ui.encode_texts``): another k or mask is read from it without running the model.
    ``ValueError`` when the text has no usable mask, or the model's embeddings and hidden states differ in width."""
    from bertviz_core.words.embedding_lens import nearest_to_states

    positions = masks(key, text).positions
    return nearest_to_states(get_encoder(*key), encode_texts(key, (text,))[0].hidden_states, positions, MAX_TOP_K)
