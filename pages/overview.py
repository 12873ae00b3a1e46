"""Home: what the explorer shows and where to start."""
import streamlit as st

from bertviz_core.model.models import BUNDLED_MODEL_NOTE
from bertviz_core.views.page_registry import PAGES
from bertviz_core.views.page_views import state_count
from ui import active_info, ensure_app_navigation, literal

ensure_app_navigation()

info = active_info()  # from the model's files: the first page opens without loading it
states = state_count(info.num_layers)
st.title("BERT Embedding Explorer")
rows = "\n".join(f"| {entry.icon} {entry.title} | {literal(entry.question)} |" for entry in PAGES[1:])
st.markdown(
    f"""
Look inside a BERT-family encoder and **measure** what you see. The loaded model, **{literal(info.name)}**,
has {info.num_layers} transformer layers, so every token gets **{states} hidden states**:
the embedding layer's output plus one per layer, each a vector of {info.hidden_size} numbers. A text of
*n* tokens becomes an array of shape **({states}, n, {info.hidden_size})** = (layers+1, tokens,
hidden).

| Page | Question it answers |
|---|---|
{rows}

Every page shows what you are looking at, the plain `transformers` code that reproduces its numbers,
and a link that reopens the same view. Pick another model or device in the sidebar.
"""
)
if info.kind == "bundled":
    st.info(BUNDLED_MODEL_NOTE + " The tutorial's sentence is 22 tokens: its hidden states have shape "
            f"({states}, 22, {info.hidden_size}).", icon="📦")
st.page_link(PAGES[1].file, label=f"Start with {PAGES[1].title.lower()}", icon=PAGES[1].icon)
