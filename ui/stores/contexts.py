"""Similar contexts' token views on a precomputed store: the chosen token's nearest stored tokens at two stored
layers, and the contextuality section, the measures of the layers it keeps every token of on a stated sample of its
sentences (``precompute.contexts``). Nothing here runs the model but the user's sentence."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import streamlit as st

from bertviz_core.corpora.corpus_sources import Corpus
from ui.display import chart, download_csv, literal, table, teaching_panel
from ui.picker import active_info, model_key
from ui.results import encode_texts
from ui.stores.opened import stamp_of, stops_on_damage

if TYPE_CHECKING:
    from bertviz_core.measures.neighbours import Contextuality
    from bertviz_core.precompute.reader import VectorStore


@st.cache_data(max_entries=64, show_spinner=False)
def store_token_neighbours(name: str, stamp: float, sentence: str, token: int, layer: int, k: int, metric: str,
                           _store: VectorStore, _vector: np.ndarray) -> pd.DataFrame:
    """Cached ``views.nearest_stored_tokens`` of token ``token`` of ``sentence`` (``_vector``, its hidden state at
    ``layer``) in the offered store ``name`` (``_store``, opened at ``stamp``)."""
    from bertviz_core.precompute.views import nearest_stored_tokens

    return nearest_stored_tokens(_store, _vector, layer, k, metric, sentence)


@st.cache_data(max_entries=64, show_spinner=False)
def store_word_tokens(name: str, stamp: float, word: str, sentence: str, _store: VectorStore) -> int:
    """Cached ``similar_contexts.tokens_of_word``: the stored tokens of ``word`` outside the store's copies of
    ``sentence``, in the offered store ``name`` (opened at ``stamp``)."""
    from bertviz_core.measures.neighbours import own_sentences
    from bertviz_core.views.similar_contexts import tokens_of_word

    return tokens_of_word(_store.token_rows, word, own_sentences(_store.rows["text"].tolist(), sentence))


@st.cache_data(max_entries=16, show_spinner="Measuring the store's layers…")
def store_contexts(name: str, stamp: float, _store: VectorStore) -> tuple[Contextuality, int]:
    """Cached ``contexts.store_contextuality`` of the offered store ``name`` (opened at ``stamp``)."""
    from bertviz_core.precompute.contexts import store_contextuality

    return store_contextuality(_store)


@st.cache_data(max_entries=64, show_spinner="Measuring the word…")
def store_word_contexts(name: str, stamp: float, word: str, _store: VectorStore,
                        _corpus: Contextuality) -> tuple[pd.DataFrame, int]:
    """Cached ``contexts.store_word_contextuality`` of ``word`` in the offered store ``name``."""
    from bertviz_core.precompute.contexts import store_word_contextuality

    return store_word_contextuality(_store, word, _corpus)


@stops_on_damage
def contextuality_view(corpus: Corpus, word: str | None) -> None:
    """The store's contextuality by stored token layer, with ``word``'s self-similarity beside it when given,
    raw or adjusted, as a chart, a table and a CSV; nothing for a store without token vectors."""
    from bertviz_core.precompute.contexts import contextuality_note

    name, stamp, store = corpus.name, stamp_of(corpus), corpus.store
    if not store.manifest["token_layers"]:
        return  # the token views said why already
    st.subheader("How contextual is each stored layer?")
    measured, read = store_contexts(name, stamp, store)
    measures, mine = measured.table, 0
    if word is not None:
        try:
            rows, mine = store_word_contexts(name, stamp, word, store, measured)
            measures = measures.merge(rows, on="layer")
        except ValueError as err:
            st.info(literal(str(err)), icon="🔎")
    st.caption("After Ethayarajh (2019), as for the page's own corpora: self-similarity (a word's vectors in "
               f"different sentences; for the store, every word in {measured.min_contexts} sentences or more, "
               f"{measured.words:,} here), intra-sentence similarity, and the anisotropy baseline that the adjusted "
               "measures subtract. " + literal(contextuality_note(store, read, word if mine else None, mine)))
    measures_view(measures, "sc_store", "Contextuality by stored layer", "store_contextuality.csv")


def measures_view(measures: pd.DataFrame, key: str, title: str, file_name: str) -> None:
    """Contextuality measures by layer (``neighbours.contextuality``'s table, with a word's beside it), raw or
    adjusted as a radio chooses (``{key}_adjusted``), as a chart, a table and a CSV: the page's own corpus's and a
    store's."""
    from bertviz_core import figures
    from bertviz_core.views.page_views import rounded

    kind = st.radio("Show", ["raw", "adjusted"], horizontal=True, key=f"{key}_adjusted", bind="query-params")
    shown = [c for c in measures.columns if c != "layer" and (c.endswith("adjusted") == (kind == "adjusted"))
             and (kind == "raw" or "baseline" not in c)]
    chart(figures.measures_figure(measures, shown, f"{title} ({kind})", "mean cosine"), key=f"{key}_context")
    table(rounded(measures), key=f"{key}_context_table")
    download_csv(measures, "Download the measures (CSV)", file_name, f"{key}_context_csv")


@stops_on_damage
def tokens_view(corpus: Corpus, sentence: str, query_input: Any, token: int, word: str | None, k: int,
                 metric: str) -> None:
    """The chosen token's nearest stored tokens at two stored token layers side by side, each with the share of them
    that are its own ``word`` (None for a marker the tokenizer adds, which is refused)."""
    from bertviz_core import recipes
    from bertviz_core.figures import layer_label, token_labels
    from bertviz_core.views.similar_contexts import share_of_word, share_said
    from bertviz_core.precompute.views import token_search_note
    from bertviz_core.measures.similarity import METRICS

    store, held = corpus.store, corpus.store.manifest["token_layers"]
    if word is None:
        st.error(f"{literal(token_labels(query_input.tokens)[token])} is a marker the tokenizer adds, not a word of "
                 "your sentence, and the store holds only its texts' words. Pick another token.", icon="✋")
        return
    states = encode_texts(model_key(), (sentence,))[0].hidden_states  # (layers+1, tokens, hidden), shared store
    of_word = store_word_tokens(corpus.name, stamp_of(corpus), word, sentence, store)
    c1, c2 = st.columns(2)
    chosen = [c1.selectbox("Token layer, left", held, index=0, key="sc_store_left", bind="query-params",
                           format_func=layer_label),
              c2.selectbox("Token layer, right", held, index=len(held) - 1, key="sc_store_right", bind="query-params",
                           format_func=layer_label)]
    st.subheader(f"Where else the model puts “{literal(query_input.tokens[token])}”, token {token}")
    teaching_panel(
        "The store's tokens whose hidden states lie nearest to your token's, at two of the layers the store keeps "
        f"every token of, by {metric}.  \nLow layers group a token with the same word wherever it stands; higher "
        "layers with tokens in similar contexts: the store was computed once, and only your sentence runs here.",
        recipes.store_tokens(active_info(), corpus.name, sentence, token, tuple(chosen), k, metric),
        key="store_tokens")
    st.caption(f"By {metric} ({METRICS[metric].note}). " + literal(token_search_note(store, chosen[0], metric))
               + " The token is between « »; tokens of your "
               "sentence's own copies in the store are left out.")
    for column, layer, side in zip(st.columns(2), chosen, ("left", "right")):
        with column:
            shown = store_token_neighbours(corpus.name, stamp_of(corpus), sentence, token, layer, k, metric, store,
                                           states[layer, token])
            share = share_of_word(layer, shown["key"], word, of_word)
            st.markdown(f"**{layer_label(layer).capitalize()}**: {literal(share_said(share, word))}")
            table(shown[["rank", "score", "context"]], key=f"sc_near_{side}", height=420)
            download_csv(shown, "Download (CSV)", f"stored_neighbours_layer{layer}.csv", f"sc_near_{side}_csv")
