"""Similar contexts' contextuality section on a precomputed store: the measures of the layers it keeps every token
of, on a stated sample of its sentences (``precompute.contexts``). Nothing here runs the model."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from bertviz_core.corpora.corpus_sources import Corpus
from ui.display import chart, download_csv, literal, table
from ui.stores.opened import stamp_of, stops_on_damage

if TYPE_CHECKING:
    from bertviz_core.measures.neighbours import Contextuality
    from bertviz_core.precompute.reader import VectorStore


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
