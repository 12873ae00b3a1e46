"""Sentence pooling: PCA of pooling strategies x layers, with measured class separation."""
from functools import partial

import pandas as pd
import streamlit as st

from bertviz_core import figures, recipes
from bertviz_core.figures import grid_figures
from bertviz_core.figures.map_figures import axis_titles, map_drawing, map_spec
from bertviz_core.model.lengths import cut_note
from bertviz_core.views.page_views import layer_numbers, pooling_default_layers
from bertviz_core.measures.pooling import POOLINGS, supported_strategies
from bertviz_core.measures.pooling_grid import (
    Cell,
    LabelCheck,
    cell_title,
    cell_vectors,
    check_labels,
    grid_cells,
    sample_note,
    separation_scores,
)
from ui import (
    canvas_chart, corpus_digest, corpus_downloads, corpus_lengths, corpus_source, cut_warning, detached, download_csv,
    download_npy, embed_corpus, encoder, ensure_app_navigation, fragment, model_key, pooling_cell, pooling_cells,
    pooling_store_view, presenting, scatter_grid, score_grid_view, strategy_label, teaching_panel, with_progress,
)

ensure_app_navigation()

info = encoder().info
num_layers = info.num_layers
st.title("🧭 Sentence pooling")
corpus = corpus_source("Corpus", "sp", "sentence_pooling", "news topics")
if corpus is None:
    st.stop()  # no corpus results until a file can be used
if corpus.store is not None:
    pooling_store_view(corpus)
    st.stop()
texts, labels = corpus.texts, corpus.labels

available = supported_strategies(info.has_pooler)
key, corpus_id = model_key(), corpus_digest(tuple(texts))
cut_warning(cut_note(info.max_length, corpus_lengths(key, corpus_id, tuple(texts)).dropped))
pooled = with_progress("Encoding", lambda progress: embed_corpus(key, tuple(texts), progress))
label_check = check_labels(labels)
for level, message in label_check.messages:
    (st.warning if level == "warning" else st.info)(message)
labels_id = corpus_digest(tuple(label_check.scored)) if label_check.scored else None

c1, c2 = st.columns(2)
pick = c1.selectbox("Cell to reproduce in a notebook, draw large and download: strategy", available, key="sp_cell",
                    bind="query-params")
pick_layer = POOLINGS[pick].layer_of(
    c2.selectbox("… at layer", layer_numbers(num_layers), index=num_layers, format_func=figures.layer_label,
                 key="sp_cell_layer", bind="query-params", disabled=not POOLINGS[pick].per_layer,
                 help=None if POOLINGS[pick].per_layer else f"{pick} gives one vector per text, whatever the layer."))
picked = Cell(pick, pick_layer)


@fragment
@detached
def grid_view(key: tuple[str, str], texts: tuple[str, ...], corpus_id: str, labels: list[str] | None,
              check: LabelCheck, labels_id: str | None) -> None:
    """The PCA grid and its pickers: choosing strategies or layers reruns only this part of the page.

    Streamlit keeps a fragment's arguments for its reruns as long as the session lives, so it is given
    the corpus, not its pooled vectors: those stay in the shared store, within its byte budget. The page's code
    is drawn here, so that its share link carries the grid's pickers too."""
    teaching_panel(
        "Each panel is one way of turning a sentence into one vector (a pooling strategy, at one layer), flattened to "
        "2-D by PCA. Colours are the labels; the score is the silhouette on the full vectors (cosine): higher = topics "
        "apart.  \nThe PCA picture can hide what the silhouette measures, so trust the number more than the eye.",
        recipes.sentence_pooling(info, texts[:3], POOLINGS[pick].code, pick_layer),
        key="sentence_pooling",
    )
    pooled = embed_corpus(key, texts)
    c1, c2 = st.columns(2)
    # On a projector two strategies keep the grid to about one screen; the teacher adds more.
    strategies = c1.multiselect("Pooling strategies", available, available[:2] if presenting() else available,
                                key="sp_strats", bind="query-params",
                                format_func=strategy_label)
    layers = c2.multiselect("Layers (0 = embeddings)", layer_numbers(num_layers), pooling_default_layers(num_layers),
                            key="sp_layers", bind="query-params", format_func=figures.layer_label)
    if not strategies or not layers:
        st.info("Choose at least one pooling strategy and one layer.")
        return
    rows = grid_cells(strategies, layers, num_layers)
    places = [(r, c, cell) for r, row in enumerate(rows, start=1) for c, cell in enumerate(row, start=1)]
    results = pooling_cells(key, corpus_id, labels_id, tuple(cell for _, _, cell in places), pooled, check.scored)
    panels = [grid_figures.Panel(r, c, cell_title(cell, result, labels_id is not None), result.coords, cell.strategy)
              for (r, c, cell), result in zip(places, results)]
    scatter_grid(panels, len(layers), check.colour, texts, "sp_grid", "Download every panel's PCA coordinates (CSV)",
                 "pca_grid.csv")


grid_view(key, tuple(texts), corpus_id, labels, label_check, labels_id)

if labels_id:
    st.subheader("Which pooling and which layer separate the labels best?")
    st.caption("Every strategy at every layer, whichever the grid above shows.")
    scores = separation_scores(
        lambda cell: pooling_cell(key, corpus_id, labels_id, cell, pooled, label_check.scored),
        available, num_layers)
    score_grid_view(scores, "silhouette (cosine)", "sp_scores")
    sampled = sample_note(len(texts), mapped=True)
    if sampled:
        st.caption(sampled)
    download_csv(scores.table().reset_index(names="strategy"), "Download all scores (CSV)", "pooling_scores.csv",
                 "sp_scores_csv")

st.subheader(f"The chosen cell: {pick}, {figures.layer_label(pick_layer)}")
result = pooling_cell(key, corpus_id, labels_id, picked, pooled, label_check.scored)
vectors, coords = cell_vectors(pooled, picked), result.coords
stem = pick if pick_layer is None else f"{pick}_layer{pick_layer}"
drawn, downloads = st.columns([3, 1], vertical_alignment="center")
drawing = map_drawing(coords, label_check.colour, texts)
canvas_chart(partial(map_spec, drawing, axes=axis_titles("PCA", result.variance)),
             cell_title(picked, result, labels_id is not None), key="sp_cell_map", container=drawn)
with downloads:
    st.caption("Scroll to zoom, drag to pan, hover a point for its text, save the picture (the chart's download "
               "button, PNG), or take the numbers:")
    download_npy(vectors, "Vectors (.npy)", f"{stem}.npy", "sp_npy")
    download_csv(pd.DataFrame(vectors).assign(text=texts), "Vectors (CSV)", f"{stem}.csv", "sp_vec_csv")
    download_csv(pd.DataFrame({"text": texts, "label": labels or "", "pc1": coords[:, 0], "pc2": coords[:, 1]}),
                 "PCA coordinates (CSV)", f"pca_{stem}.csv", "sp_pca_csv")
    corpus_downloads(vectors, texts, labels, coords, stem, "sp_export")
