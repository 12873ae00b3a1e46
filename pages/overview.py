"""Home: what the explorer shows and where to start."""
import streamlit as st

from ui import active_info, through_navigation

through_navigation()

info = active_info()  # from the model's files: the first page opens without loading it
st.title("BERT Embedding Explorer")
st.markdown(
    f"""
Look inside a BERT-family encoder and **measure** what you see. The loaded model, **{info.name}**,
has {info.num_layers} transformer layers, so every token gets **{info.num_layers + 1} hidden states**:
the embedding layer's output plus one per layer, each a vector of {info.hidden_size} numbers.

| Page | Question it answers |
|---|---|
| 🧩 Tokenization | How does text become WordPiece tokens, IDs, segments and an attention mask? |
| 📊 Layer values | How are the hidden-state values distributed in each layer, and which dimensions are outliers? |
| 🏦 Word in context | How different is "bank" in "bank vault" and "river bank", at each layer, and which layer tells senses apart best? |
| 🧭 Sentence pooling | Which vector is "the sentence embedding": [CLS], pooler, mean or max, and from which layer? Measured by class separation |
| ⚖️ Compare sentences | Why can "what is your age?" and "Today is monday" score 0.93? Ranking, a random-pair baseline, centering and whitening |

Every page shows what you are looking at, the plain `transformers` code that reproduces its numbers,
and a link that reopens the same view. Pick another model or device in the sidebar.
"""
)
st.page_link("pages/tokenization.py", label="Start with tokenization", icon="🧩")
