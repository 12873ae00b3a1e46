"""Which model?: models × pooling × layer ranked on one corpus, each cell with its 95 % interval and a best named
only beyond the noise, and what each model costs."""
from functools import partial

import streamlit as st

from bertviz_core import figures
from bertviz_core.model_choice import cell_name
from bertviz_core.measures.similarity import CORRECTIONS
from bertviz_core.measures.pooling_grid import Cell, sample_note
from bertviz_core.precompute.measures import ModelStores
from bertviz_core.views.model_comparison import LAYER_STRATEGIES
from bertviz_core.views.which_model import (
    DEFAULT_STRATEGIES,
    LABEL_MEASURES,
    TASKS,
    layer_choices,
    layers_spec,
    layers_title,
    leaderboard,
    model_cells,
    model_grid_figure,
    pairs_corpus,
    shared_scale_sentence,
)
from ui import (
    canvas_chart, chart, columns, corpus_digest, corpus_source, detached, download_csv, ensure_app_navigation,
    fragment, held_model_cells, literal_but_bold, model_costs, model_infos, model_key, model_ranking,
    model_stores_source, models_cut_warnings, or_stop, pick_models, pooled_models, scored_pairs, stores_ranking,
    table, task_scoring, teaching_panel, which_model_code,
)

ensure_app_navigation()

st.title("🏁 Which model for my data?")
st.caption("Every chosen model scored on the same texts, at every chosen pooling and layer, with the same folds or "
           "resamples for all: a best is named only when it leads beyond the noise. What each model costs is listed "
           "below.")
models = pick_models(model_key()[1], st)
if models is None:
    st.stop()
infos = model_infos(models)
task = st.radio("Task", list(TASKS), format_func=TASKS.get, horizontal=True, key="wm_task", bind="query-params")
c1, c2 = columns(2)
strategies = c1.multiselect("Pooling strategies", LAYER_STRATEGIES, list(DEFAULT_STRATEGIES), key="wm_strats",
                            bind="query-params")
every_layer = layer_choices(infos.values())
layers = c2.multiselect("Layers", every_layer, every_layer, key="wm_layers", bind="query-params",
                        format_func=figures.layer_label)
if not strategies or not layers:
    st.info("Choose at least one pooling strategy and one layer.")
    st.stop()

if task == "labels":
    corpus = corpus_source("Labelled corpus", "wm", "which_model", "news topics", stores=model_stores_source(models))
    if corpus is None:
        st.stop()
    if corpus.labels is None:
        st.error("Ranking by labels needs a label column: choose one above. Nothing is ranked until one is chosen.",
                 icon="🏷️")
        st.stop()
    texts, corpus_code, labels, pairs = tuple(corpus.texts), corpus.code, tuple(corpus.labels), None
    stored = corpus.store  # one store per model (their shared sample is ``texts``), or None
else:
    scored, corpus_code = scored_pairs("wm", "which_model")
    texts_list, first, second, gold = pairs_corpus(scored)
    texts, stored, labels, pairs = tuple(texts_list), None, None, (first, second, gold)
cells = {name: model_cells(strategies, layers, info.num_layers) for name, info in infos.items()}
if stored is None:
    models_cut_warnings(models, texts)
else:  # the stores' vectors, read from disk: no model runs on the corpus
    cells = held_model_cells(stored, models, cells)


@fragment
@detached
def ranked_views(models: dict[str, tuple[str, str]], cells: dict[str, list[Cell]], texts: tuple[str, ...],
                 labels: tuple[str, ...] | None, pairs: tuple[list[int], list[int], list[float]] | None,
                 stored: ModelStores | None,
                 corpus_code: str) -> None:
    """The score's picker and everything it changes (the ranking, the leaderboard, every cell, the code): a change
    of the score reruns only this part of the page. Streamlit keeps these arguments for its reruns, so it is given
    the texts and the cells, not their vectors: those stay in the shared store."""
    if labels is not None:
        measure = st.radio("Score", LABEL_MEASURES, horizontal=True, key="wm_measure", bind="query-params",
                           help="Probe accuracy or macro-F1: a logistic regression on each cell's vectors, the same "
                                "folds for every model. Silhouette (cosine): how far apart the labels lie, nothing "
                                "trained.")
        scored_by = or_stop(lambda: task_scoring(measure, len(texts), labels), icon="🏷️")
        task_id = (corpus_digest(labels), measure)
    else:
        correction = st.radio("Cosines", list(CORRECTIONS), horizontal=True, key="wm_correction",
                              bind="query-params", help="Raw, or after mean-centering or whitening fitted on the "
                                                        "pairs' own sentences, as on Task measures.")
        scored_by = or_stop(lambda: task_scoring("spearman", len(texts), pairs=pairs, correction=correction))
        task_id = (corpus_digest(tuple(map(str, (*pairs[0], *pairs[1], *pairs[2])))), correction)
    for note in scored_by.notes:
        st.info(note, icon="🏷️")
    ranked = (model_ranking(models, cells, texts, task_id, scored_by, pooled_models(models, texts)) if stored is None
              else stores_ranking(stored, cells, scored_by))
    order = list(models)
    count = scored_by.resampling.count
    panel = st.container()
    st.subheader("Leaderboard: each model's best cell")
    if ranked.verdict is not None:
        # model names are the user's: shown as typed, the best cell's in bold
        st.info(literal_but_bold(ranked.verdict.sentence, cell_name(ranked.verdict.cells[0])), icon="🏁")
    sampled = sample_note(len(texts), mapped=False) if scored_by.measure == "silhouette" else ""
    if sampled:
        st.caption(sampled)
    table(leaderboard(ranked.table, order), key="wm_leaderboard", height=220)
    st.subheader("Every cell")
    # Only the open tab is drawn (on_change="rerun"): a change of the score or the cells redraws one view of them,
    # not three, which took most of a change's time (docs/performance.md, "Which model?'s views of every cell in
    # tabs").
    by_layer, grids, every_cell = st.tabs(["Score by layer", "Each model's grid", "Table"], key="wm_view",
                                          bind="query-params", on_change="rerun")
    with by_layer:
        if by_layer.open:
            canvas_chart(partial(layers_spec, ranked.table, order, scored_by.name),
                         layers_title(scored_by.name, count), key="wm_layers_chart")
    with grids:
        if grids.open:
            st.caption(shared_scale_sentence(ranked.table))
            for i, (where, name) in enumerate(zip(columns(len(order)), order)):
                chart(model_grid_figure(ranked.table, name, scored_by.name), key=f"wm_grid_{i}", container=where)
    with every_cell:
        if every_cell.open:
            table(ranked.table, key="wm_table")
    download_csv(ranked.table, "Download the full table (CSV)", "which_model.csv", "wm_csv")
    with panel:
        teaching_panel(
            f"Each model's vectors of the same texts, pooled by each strategy at each layer, scored by the "
            f"{scored_by.name} on {count} ({scored_by.resampling.method}, the same for every model and cell). The "
            "leaderboard names a best only when it leads every other cell beyond the noise of those replicates.",
            which_model_code(models, cells, corpus_code, scored_by),
            key="which_model",
        )


ranked_views(models, cells, texts, labels, pairs, stored, corpus_code)
# outside the fragment: no score changes it, so a score change leaves it as drawn
st.subheader("What each model costs")
table(model_costs(models, texts, stored), key="wm_costs", height=220)
