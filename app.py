"""BERT Embedding Explorer: entry point. Page config, the model sidebar, and navigation over the page registry."""
import streamlit as st

from bertviz_core.views.page_registry import PAGES
from ui import (
    model_key, model_sidebar, page_running, preload_encoder, PRESENT, presentation_style, served_by_app,
)

st.set_page_config(page_title="BERT Embedding Explorer", page_icon="🔎", layout="wide",
                   initial_sidebar_state="collapsed" if st.query_params.get(PRESENT) == "true" else "auto")

page = st.navigation([st.Page(entry.file, title=entry.title, icon=entry.icon, default=entry is PAGES[0])
                      for entry in PAGES])
model_sidebar()
presentation_style()
with page_running(), served_by_app():  # the background warm-up waits while a page runs
    page.run()
preload_encoder(*model_key())  # the first page opens without the model; it loads now, in the background
