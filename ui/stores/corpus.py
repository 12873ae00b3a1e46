"""A precomputed store as a page's corpus: the store picker, its cached searches, and the views of Similar contexts
and Compare sentences on it. Only the stores the server's operator lists (``BERTVIZ_CORPORA``) are offered, by name.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import streamlit as st

from bertviz_core.corpora.corpus_sources import Corpus
from bertviz_core.model.models import BUNDLED_MODEL
from bertviz_core.precompute.offered import offered_stores
from ui.display import cut_warning, download_csv, literal, table, teaching_panel
from ui.links import link_said
from ui.picker import active_info, encoder, model_key, offer_model
from ui.results import embed_corpus
from ui.stores.contexts import tokens_view
from ui.stores.opened import opened_store, refuse_store, stamp, stamp_of, stops_on_damage
from ui.warm import fragment

if TYPE_CHECKING:
    from bertviz_core.precompute.reader import VectorStore

STORE_CODE = ("import pandas as pd\n"
              "store = {folder!r}   # the store's folder, made by: python -m bertviz_core precompute\n"
              "texts = pd.read_parquet(store + '/rows.parquet')['text'].tolist()\n")


def store_source(key: str, url_path: str, built_in: str, with_labels: bool, min_texts: int,
                 why: str) -> Corpus | None:
    """The corpus of the store picked in a selectbox (keyed ``{key}_store``, bound to the link), or None, with a
    message, while it cannot be used: the server lists none, it is unfinished or damaged, it was computed with
    another model than the session's (a switch to that model is offered), or it holds too few texts. A store without
    labels is a corpus without labels: each measure that needs them says so. ``with_labels`` is the uploader's."""
    try:
        offered = offered_stores()
    except ValueError as err:
        refuse_store(str(err))
        return None
    linked = st.query_params.get(f"{key}_store")
    if linked is not None and linked not in offered:
        link_said(f"{key}_store")  # said here, with the stores offered
        st.warning(f"The link names the store {literal(linked)}, which this server does not offer; it offers "
                   f"{literal(', '.join(offered))}. The first is shown.", icon="🗄️")
    # the link carries the store's name, which stays when the store is computed again (its title may not)
    name = st.selectbox("Store", list(offered), key=f"{key}_store", bind="query-params")
    st.caption(literal(offered[name].title))
    try:
        store = opened_store(name, stamp(offered[name].folder))
        texts = len(store.rows)  # read once per server: a damaged rows file is said here
    except ValueError as err:
        refuse_store(str(err))
        return None
    stored, info = store.manifest["model"], encoder().info  # loaded: the query needs it, and only it has the identity
    if stored["identity"] != info.identity:
        st.warning(f"The store {literal(name)} was computed with **{literal(stored['name'])}**; this session uses "
                   f"**{literal(info.name)}**. Their vectors cannot be compared: switch to the store's model to "
                   "search it.", icon="🔀")
        offer_model(stored["argument"] or BUNDLED_MODEL, f"Switch to {stored['name']}")
        return None
    if texts < min_texts:
        refuse_store(f"The store {name} holds {texts:,} text(s); this page needs at least {min_texts:,}{why}.")
        return None
    return Corpus((), None, STORE_CODE.format(folder=name), store=store, name=name)


@st.cache_data(max_entries=64, show_spinner=False)
def store_neighbours(name: str, stamp: float, sentence: str, strategy: str, layer: int | None, k: int, metric: str,
                     _store: VectorStore, _query: np.ndarray) -> pd.DataFrame:
    """Cached ``views.nearest_stored_sentences`` of ``sentence`` (``_query``, its vector (hidden,)) in the offered
    store ``name`` (``_store``, opened at ``stamp``)."""
    from bertviz_core.precompute.views import nearest_stored_sentences

    return nearest_stored_sentences(_store, _query, strategy, layer, k, metric, sentence)


@st.cache_data(max_entries=32, show_spinner="Scoring random pairs of the store's texts…")
def store_random_pairs(name: str, stamp: float, strategy: str, layer: int | None, metric: str,
                       _store: VectorStore) -> np.ndarray:
    """Cached ``comparison.store_baseline`` of the offered store ``name``'s column, once per column and metric."""
    from bertviz_core.views.comparison import store_baseline

    return store_baseline(_store.vectors(strategy, layer), metric)


@st.cache_data(max_entries=16, show_spinner=False)
def store_cut_note(name: str, stamp: float, max_length: int, _store: VectorStore) -> str | None:
    """Cached ``lengths.cut_note`` of the offered store ``name``'s texts: a million counts are checked once."""
    from bertviz_core.model.lengths import cut_note

    return cut_note(max_length, _store.rows["dropped"].tolist(), "stored sentence")


@stops_on_damage
def store_view(corpus: Corpus, sentence: str, query_input: Any, token: int) -> str | None:
    """Similar contexts on a store: token ``token`` of ``sentence`` (``query_input``, its ``model_input``) among the
    store's tokens at its stored token layers, then the stored sentences nearest to the sentence. The sentence is
    the only model run; k and the metric are shared by both. The token's word, or None (no token vectors, or a
    marker the tokenizer adds)."""
    from bertviz_core.model.token_index import index_rows

    cut_warning(store_cut_note(corpus.name, stamp_of(corpus), active_info().max_length, corpus.store))
    word = None
    if corpus.store.manifest["token_layers"] and not query_input.special[token]:
        words = index_rows([query_input], [sentence])
        word = words.loc[words["position"] == token, "word"].iloc[0]
    _searches(corpus, sentence, query_input, token, word)
    return word


@fragment
@stops_on_damage
def _searches(corpus: Corpus, sentence: str, query_input: Any, token: int, word: str | None) -> None:
    """k and the metric with the searches they change, the tokens' and the sentences': a change of either reruns
    only this part of the page, not the store's contextuality below it."""
    from bertviz_core.measures.similarity import METRICS

    c1, c2 = st.columns(2)
    k = c1.slider("Neighbours (k)", 1, 50, 10, key="sc_k", bind="query-params")
    metric = c2.selectbox("Metric", list(METRICS), key="sc_metric", bind="query-params")
    if not corpus.store.manifest["token_layers"]:
        st.info("This store holds no token vectors, so the token views (nearest tokens, layer by layer) are not shown: "
                "precompute it with --token-layers to keep them.", icon="🗄️")
    else:
        tokens_view(corpus, sentence, query_input, token, word, k, metric)
    sentences_view(corpus, sentence, k, metric, "sc")


@stops_on_damage
def ranking_store_view(sentence: str, metric: str, url_path: str) -> None:
    """Compare sentences on a store: ``sentence`` ranked against a store the server offers, by ``metric``; nothing
    when the server lists no store."""
    from bertviz_core.corpora.corpus_sources import stores_listed

    if not stores_listed():
        return
    st.subheader("Rank it against a precomputed store")
    corpus = store_source("cs", url_path, "news topics", False, 1, "")
    if corpus is not None:
        k = st.slider("Neighbours (k)", 1, 50, 10, key="cs_store_k", bind="query-params")
        st.caption("The query is the one chosen above. The store's vectors are compared raw: the anisotropy "
                   "correction above is fitted to the page's sentences, not applied to the store.")
        sentences_view(corpus, sentence, k, metric, "cs", against_random_pairs=True)


def sentences_view(corpus: Corpus, sentence: str, k: int, metric: str, key: str,
                   against_random_pairs: bool = False) -> None:
    """The stored sentences nearest to ``sentence``, by a stored column, with how they were searched, its teaching
    code and a download, and ``against_random_pairs``, each score's share of the store's own random pairs below it;
    its widgets are keyed ``{key}_store_strategy``, ``{key}_store_layer``, ``{key}_sentences``."""
    from bertviz_core import recipes
    from bertviz_core.figures import layer_label
    from bertviz_core.measures.pooling import POOLINGS, vectors_at
    from bertviz_core.precompute.layout import column_name
    from bertviz_core.precompute.views import default_strategy, search_note, stored_columns
    from bertviz_core.measures.similarity import METRICS, share_below
    from bertviz_core.views.comparison import store_baseline_note

    store, info = corpus.store, active_info()
    stored = stored_columns(store)
    s1, s2 = st.columns(2)
    strategy = s1.selectbox("Sentence vector", list(stored), index=list(stored).index(default_strategy(store)),
                            key=f"{key}_store_strategy",
                            bind="query-params", help="The strategies the store holds (see Sentence pooling).")
    layers = stored[strategy]
    layer = s2.selectbox("Layer (sentences)", layers, index=len(layers) - 1, key=f"{key}_store_layer", bind="query-params",
                         format_func=lambda shown: "no layer" if shown is None else layer_label(shown),
                         disabled=not POOLINGS[strategy].per_layer)
    query = vectors_at(embed_corpus(model_key(), (sentence,)), strategy, layer, "query")[0]  # (hidden,)
    near = store_neighbours(corpus.name, stamp_of(corpus), sentence, strategy, layer, k, metric, store, query)
    st.subheader(f"Nearest sentences in the store “{literal(corpus.name)}”")  # its pickers sit just above
    where = "one per text" if layer is None else layer_label(layer)
    teaching_panel(
        f"The stored sentences whose “{strategy}” vectors ({where})"
        f" lie nearest to your sentence's, by {metric}; the store's vectors were computed once, in advance.  \n"
        "Only your sentence runs through the model here: the store is read from disk, so a million sentences "
        "answer as fast as a hundred.",
        recipes.store_sentences(info, corpus.name, column_name(strategy, layer), sentence,
                                POOLINGS[strategy].code, layer, k, metric, against_random_pairs),
        key="store_sentences",
    )
    st.caption(f"By {metric} ({METRICS[metric].note}). " + literal(search_note(store, strategy, layer, metric))
               + " Your sentence's own copies in the store are "
               "left out.")
    beats = []
    if against_random_pairs:  # the band the page's own ranking has, from the store's own texts
        baseline = store_random_pairs(corpus.name, stamp_of(corpus), strategy, layer, metric, store)
        beats = ["above this share of the store's random pairs"]
        near = near.assign(**{beats[0]: share_below(baseline, near["score"].to_numpy())})
        st.caption(literal(store_baseline_note(baseline, f"“{strategy}” vectors ({where})", metric)))
    shown = ["rank", "score", *beats, "text"] + (["label"] if store.labels is not None else [])
    table(near[shown], key=f"{key}_sentences", height=420)
    download_csv(near, "Download (CSV)", "nearest_stored_sentences.csv", f"{key}_sentences_csv")
