"""BERT Embedding Explorer: entry point. Page config, the model sidebar, and navigation."""
import streamlit as st

from ui import model_key, model_sidebar, preload_encoder

st.set_page_config(page_title="BERT Embedding Explorer", page_icon="🔎", layout="wide")

PAGES = [
    st.Page("pages/overview.py", title="Overview", icon="🏠", default=True),
    st.Page("pages/tokenization.py", title="Tokenization", icon="🧩"),
    st.Page("pages/layer_values.py", title="Layer values", icon="📊"),
    st.Page("pages/word_similarity.py", title="Word in context", icon="🏦"),
    st.Page("pages/sentence_pooling.py", title="Sentence pooling", icon="🧭"),
    st.Page("pages/compare_sentences.py", title="Compare sentences", icon="⚖️"),
]

page = st.navigation(PAGES)
model_sidebar()
page.run()
preload_encoder(*model_key())  # the first page opens without the model; it loads now, in the background
