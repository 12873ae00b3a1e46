"""Sentence pooling: PCA of pooling strategies x layers, with measured class separation."""
import io
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from bertviz_core import figures, recipes
from bertviz_core.corpora import max_rows, news_topics, read_table, table_texts
from bertviz_core.pooling import POOLINGS
from bertviz_core.projection import pca_2d
from bertviz_core.similarity import best_cell, separation
from ui import (
    corpus_digest,
    download_csv,
    embed_corpus,
    encoder,
    literal,
    model_key,
    teaching_panel,
    through_navigation,
)

through_navigation()

info = encoder().info
L = info.num_layers
BUILT_IN = "Built-in news topics (160 sentences, 4 topics)"
UPLOAD = "Upload a CSV"
NONE = "(no labels)"


@st.cache_data(max_entries=16, show_spinner=False)
def parse_upload(data: bytes, limit: int):
    return read_table(data, limit)


@st.cache_data(max_entries=512, show_spinner=False)
def panel(corpus_id: str, key: tuple[str, str], strategy: str, layer: int, labels_id: str | None,
          _labels: list[str] | None, _vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """PCA coordinates, explained variance and silhouette of one (strategy, layer): computed once.

    Keyed by content digests (corpus_id, labels_id): hashing the texts or labels on every call of a
    20-panel grid would cost more than the lookup saves."""
    coords, ratio = pca_2d(_vectors)
    return coords, ratio, separation(_vectors, _labels) if labels_id else float("nan")


st.title("🧭 Sentence pooling")
source = st.radio("Corpus", [BUILT_IN, UPLOAD], horizontal=True, key="sp_source", bind="query-params")
texts, labels = list(news_topics()["text"]), list(news_topics()["label"])
if source == UPLOAD:
    upload = st.file_uploader(f"CSV with a text column and an optional label column (up to {max_rows():,} rows)",
                              type=["csv"], key="sp_upload")
    if upload is None:
        st.info("Upload a CSV to use your own sentences. Until then the built-in corpus is shown.")
    else:
        try:
            table = parse_upload(upload.getvalue(), max_rows())
        except ValueError as err:
            st.error(literal(str(err)) + " The built-in corpus is shown meanwhile.", icon="📄")
            table = None
        if table is not None:
            columns = list(table.frame.columns)
            c1, c2 = st.columns(2)
            text_col = c1.selectbox("Text column", columns, index=columns.index(table.text_column)
                                    if table.text_column else None, placeholder="Which column holds the texts?")
            label_choices = [NONE, *[c for c in columns if c != text_col]]
            label_col = c2.selectbox("Label column", label_choices, index=label_choices.index(table.label_column)
                                     if table.label_column in label_choices else 0)
            if text_col is None:
                st.info("Two columns could hold the texts: choose one above.")
                st.stop()
            found, found_labels, empty = table_texts(table, text_col, None if label_col == NONE else label_col)
            if empty:
                st.caption(f"{empty} empty row(s) skipped.")
            if not found:
                st.error("Every row of the text column is empty. The built-in corpus is shown meanwhile.")
            else:
                texts, labels = found, found_labels

available = [name for name, p in POOLINGS.items() if info.has_pooler or not p.needs_pooler]
per_layer = [s for s in available if POOLINGS[s].per_layer]
single = [s for s in available if not POOLINGS[s].per_layer]

key, corpus_id = model_key(), corpus_digest(tuple(texts))
bar = st.empty()
pooled = embed_corpus(key, tuple(texts), lambda done, total: bar.progress(
    done / total, text=f"Encoding: {done:,} of {total:,} texts"))
bar.empty()
label_key = corpus_digest(tuple(labels)) if labels else None
classes = len(set(labels)) if labels else 0
if labels is None:
    st.info("No labels: points are not coloured and separation scores are skipped.")
elif classes < 2:
    st.warning("Every text has the same label, so there is no separation to score. Points are shown uncoloured.")
    labels, label_key = None, None
elif classes >= len(labels):
    st.warning("Every text has a label of its own, so no class has two texts to compare: separation is not "
               "scored. Points are coloured by label.")
    label_key = None


def cell(strategy: str, layer: int) -> tuple[np.ndarray, np.ndarray, float]:
    vectors = pooled[strategy][:, layer if POOLINGS[strategy].per_layer else 0]
    return panel(corpus_id, key, strategy, layer if POOLINGS[strategy].per_layer else -1, label_key, labels, vectors)


c1, c2 = st.columns(2)
pick = c1.selectbox("Cell to reproduce in a notebook and to download: strategy", available, key="sp_cell",
                    bind="query-params")
pick_per_layer = POOLINGS[pick].per_layer
pick_layer = c2.selectbox("… at layer", list(range(L + 1)), index=L, format_func=figures.layer_label,
                          key="sp_cell_layer", bind="query-params", disabled=not pick_per_layer,
                          help=None if pick_per_layer else f"{pick} gives one vector per text, whatever the layer.")
teaching_panel(
    "Each panel is one way of turning a sentence into one vector (a pooling strategy, at one layer), flattened to 2-D "
    "by PCA. Colours are the labels; the score is the silhouette on the full vectors (cosine): higher = topics apart.  \n"
    "The PCA picture can hide what the silhouette measures, so trust the number more than the eye.",
    recipes.sentence_pooling(info, texts[:3], POOLINGS[pick].code, pick_layer if pick_per_layer else None),
)


@st.fragment
def grid_view() -> None:
    """The PCA grid and its pickers: choosing strategies or layers reruns only this part of the page."""
    c1, c2 = st.columns(2)
    strategies = c1.multiselect("Pooling strategies", available, available, key="sp_strats", bind="query-params",
                                format_func=lambda s: s if POOLINGS[s].per_layer else f"{s} (one vector)")
    layers = c2.multiselect("Layers (0 = embeddings)", list(range(L + 1)), sorted({0, L // 2, max(0, L - 1), L}),
                            key="sp_layers", bind="query-params", format_func=figures.layer_label)
    if not strategies or not layers:
        st.info("Choose at least one pooling strategy and one layer.")
        return
    rows = [s for s in per_layer + single if s in strategies]  # per-layer strategies first
    panels = []
    for r, strategy in enumerate(rows, start=1):
        for c, layer in enumerate(layers if POOLINGS[strategy].per_layer else [L], start=1):
            coords, ratio, score = cell(strategy, layer)
            where = figures.layer_label(layer) if POOLINGS[strategy].per_layer else "one vector"
            sil = f" · silhouette {score:.2f}" if label_key else ""
            spread = f"PCA var {ratio.sum():.0%}" if ratio.sum() > 0 else "all vectors identical"
            panels.append(figures.Panel(r, c, f"{strategy} · {where}\n{spread}{sil}", coords))
    st.plotly_chart(figures.pca_grid_figure(panels, len(rows), len(layers), labels, texts), key="sp_grid")
    download_csv(pd.concat([pd.DataFrame({"panel": p.title.replace("\n", " · "), "text": texts, "label": labels or "",
                                           "pc1": p.coords[:, 0], "pc2": p.coords[:, 1]}) for p in panels]),
                 "Download every panel's PCA coordinates (CSV)", "pca_grid.csv", "sp_grid_csv")


grid_view()

if label_key:
    st.subheader("Which pooling and which layer separate the labels best?")
    st.caption("Every strategy at every layer, whichever the grid above shows.")
    scores = pd.DataFrame({figures.layer_label(k): [cell(s, k)[2] for s in per_layer] for k in range(L + 1)},
                          index=per_layer)
    one = pd.Series({s: cell(s, L)[2] for s in single}, dtype=float)
    best_grid = best_cell(scores)
    best_name, best_score = (None, -np.inf)
    if best_grid is not None:
        best_name, best_score = f"{scores.index[best_grid[0]]} at {scores.columns[best_grid[1]]}", scores.iat[best_grid]
    if not one.empty and one.max() > best_score:
        best_name, best_score, best_grid = f"{one.idxmax()} (one vector)", one.max(), None
    if not scores.empty:
        st.plotly_chart(figures.heatmap_figure(scores.to_numpy(), list(scores.columns), list(scores.index),
                                               "silhouette (cosine) per strategy × layer", colorscale="Greens",
                                               annotate=True, best_cell=best_grid), key="sp_scores")
    if not one.empty:
        st.dataframe(one.rename("silhouette").to_frame().rename_axis("layer-independent strategy").round(3))
    st.success(f"Best separation on this corpus: **{literal(best_name)}** (silhouette {best_score:.3f}).", icon="🏆")
    download_csv(pd.concat([scores, one.rename("one vector").to_frame()], axis=1).reset_index(names="strategy"),
                 "Download all scores (CSV)", "pooling_scores.csv", "sp_scores_csv")

st.subheader(f"Download the cell: {pick}, {figures.layer_label(pick_layer) if pick_per_layer else 'one vector'}")
vectors = pooled[pick][:, pick_layer if pick_per_layer else 0]
coords = cell(pick, pick_layer)[0]
stem = f"{pick}_layer{pick_layer}" if pick_per_layer else pick


def npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


c1, c2, c3 = st.columns(3)
with c1:
    st.download_button("Vectors (.npy)", partial(npy_bytes, vectors), f"{stem}.npy", key="sp_npy", on_click="ignore")
with c2:
    download_csv(pd.DataFrame(vectors).assign(text=texts), "Vectors (CSV)", f"{stem}.csv", "sp_vec_csv")
with c3:
    download_csv(pd.DataFrame({"text": texts, "label": labels or "", "pc1": coords[:, 0], "pc2": coords[:, 1]}),
                 "PCA coordinates (CSV)", f"pca_{stem}.csv", "sp_pca_csv")
