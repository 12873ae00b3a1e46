"""Task measures: which layer and which pooling for a task, by a classification probe and by the rank
correlation with gold similarity scores, beside maps that say how faithful they are."""
import pandas as pd
import streamlit as st

from bertviz_core import figures, recipes
from bertviz_core.figures import grid_figures
from bertviz_core.model.lengths import cut_note
from bertviz_core.views.page_views import (
    DEFAULT_PAIR_CORRECTION,
    default_cell,
    folds_note,
    grid_panels,
    layer_numbers,
    map_title,
)
from bertviz_core.measures.pooling import POOLINGS, supported_strategies
from bertviz_core.measures.pooling_grid import Cell, check_labels, grid_cells, sample_note, silhouette_grid
from bertviz_core.measures.projection import PROJECTIONS, TRUST_NEIGHBOURS
from bertviz_core.measures.similarity import CORRECTIONS
from bertviz_core.precompute.views import (
    lacking_layers_note,
    lacking_strategies_note,
    stored_layers,
    stored_strategies,
)
from bertviz_core.measures.task_measures import (
    DEFAULT_STRATEGIES,
    PROBE_PROTOCOL,
    distinct_rows,
    probe_plan,
)
from ui import (
    columns, corpus_digest, corpus_lengths, corpus_source, correlation_scores, cut_warning, detached, download_csv,
    embed_corpus, encoder, ensure_app_navigation, map_cell, maps_store_view, model_key, or_stop, pooling_cell,
    probe_cell, probe_grids_view, probe_store_view, progress_over, scatter_grid, score_grid_view, scored_pairs,
    teaching_panel, with_progress,
)

ensure_app_navigation()

info = encoder().info
num_layers = info.num_layers
key = model_key()
strategies = supported_strategies(info.has_pooler)
TABS = ["Classification probe", "Similarity correlation", "Maps"]
# The chosen corpus (a file, or a store) cannot be used yet; the message above says why.
NO_CORPUS = "{what} the labelled corpus chosen above: {shown} once it can be used."

st.title("🎯 Which layer and pooling for my task?")
st.caption("Practitioners ask which layer and which vector to use; the honest answer is to measure on your own task. "
           "Each measure below scores every chosen pooling strategy at every chosen layer.")
# One corpus for the probe and the maps, chosen above the tabs: an upload stays while the tabs change.
corpus = corpus_source("Labelled corpus (the probe and the maps)", "tm", "task_measures", "news topics")
# Until a file can be used, the probe and the maps show nothing (the pairs do not use it).
texts, labels, corpus_code = (None, None, recipes.UPLOADED_CODE) if corpus is None else (
    corpus.texts, corpus.labels, corpus.code)
stored = corpus is not None and corpus.store is not None  # a precomputed store: its views read its vectors
c1, c2 = st.columns(2)
# a store: only the strategies and layers it holds, and what it lacks said under each picker
pooled_by = stored_strategies(corpus.store, strategies) if stored else strategies
chosen = c1.multiselect("Pooling strategies", pooled_by,
                        [s for s in DEFAULT_STRATEGIES if s in pooled_by] or pooled_by, key="tm_strats",
                        bind="query-params")
offered = stored_layers(corpus.store) if stored else layer_numbers(num_layers)
layers = c2.multiselect("Layers", offered, offered, key="tm_layers", bind="query-params",
                        format_func=figures.layer_label)
for column, lacking in zip((c1, c2), (lacking_strategies_note(corpus.store, strategies) if stored else "",
                                      lacking_layers_note(corpus.store) if stored else "")):
    if lacking:
        column.caption(lacking)
if not chosen or not layers:
    st.info("Choose at least one pooling strategy and one layer.")
    st.stop()
cells = [cell for row in grid_cells(chosen, layers, num_layers) for cell in row]
if texts is not None and not stored:
    cut_warning(cut_note(info.max_length, corpus_lengths(key, corpus_digest(tuple(texts)), tuple(texts)).dropped))
probe_tab, pairs_tab, maps_tab = st.tabs(TABS, key="tm_tab", bind="query-params", on_change="rerun")


@detached
def pick_cell(prefix: str) -> Cell:
    """A cell picker (strategy, layer) for the teaching code and downloads, among the chosen cells."""
    names = [f"{cell.strategy} · {figures.layer_label(cell.layer)}" for cell in cells]
    return cells[names.index(st.selectbox("Cell for the code panel", names, index=default_cell(names, layers),
                                          key=f"{prefix}_cell", bind="query-params"))]


with probe_tab:
    if probe_tab.open and stored:
        probe_store_view(corpus, chosen, layers)
    elif probe_tab.open and texts is None:
        st.info(NO_CORPUS.format(what="The probe uses", shown="it appears"), icon="📄")
    elif probe_tab.open and labels is None:
        st.error("The probe needs a label column: choose one above. Nothing is probed until one is chosen.",
                 icon="🏷️")
    elif probe_tab.open:
        plan = or_stop(lambda: probe_plan(labels))
        for note in plan.notes:
            st.info(note, icon="🏷️")
        corpus_id, labels_id = corpus_digest(tuple(texts)), corpus_digest(tuple(labels))
        pooled = with_progress("Encoding", lambda progress: embed_corpus(key, tuple(texts), progress))
        picked = pick_cell("tm_probe")
        panel = st.container()  # filled once the cells are probed: it states the folds they used
        probed = {cell: probe_cell(key, corpus_id, labels_id, cell, pooled, labels, plan)
                  for cell in progress_over(cells, "Probing", lambda done, total: f"Probing: {done} of {total} cells")}
        folds = probed[picked].folds
        with panel:
            teaching_panel(
                "A linear probe: a logistic regression learns each text's label from its vector, and is scored on "
                f"texts it did not see ({folds}-fold cross-validation). High accuracy means the labels are linearly "
                "readable.  \nBeside it, the silhouette measures how far apart the labels lie without training "
                "anything; where the two disagree, the probe is the one that speaks for a classifier.",
                recipes.probe(info, corpus_code, POOLINGS[picked.strategy].code, picked.layer, folds),
                key="probe",
            )
            st.caption(f"Protocol: {PROBE_PROTOCOL}. A best is named only when it leads every other cell over the same "
                       "folds (95 % t interval); otherwise no clear best."
                       + folds_note(folds) + " " + sample_note(len(texts), mapped=False))
        check = check_labels(labels)
        silhouettes = silhouette_grid(cells, lambda cell: pooling_cell(key, corpus_id, labels_id, cell, pooled,
                                                                       check.scored))
        probe_grids_view(cells, probed, labels, plan, silhouettes)

with pairs_tab:
    if pairs_tab.open:
        pairs, pairs_code = scored_pairs("tm", "task_measures")
        for column, noun in (("sentence1", "first sentence"), ("sentence2", "second sentence")):
            texts_of = tuple(pairs[column])
            cut_warning(cut_note(info.max_length, corpus_lengths(key, corpus_digest(texts_of), texts_of).dropped, noun))
        pairs_id = corpus_digest(tuple(pairs["sentence1"]) + tuple(pairs["sentence2"]) + tuple(map(str, pairs["score"])))
        first = with_progress("Encoding the first sentences",
                              lambda progress: embed_corpus(key, tuple(pairs["sentence1"]), progress))
        second = with_progress("Encoding the second sentences",
                               lambda progress: embed_corpus(key, tuple(pairs["sentence2"]), progress))
        corrections = [c for c in CORRECTIONS if c != "none"]
        correction = st.radio("Beside raw cosines", corrections, index=corrections.index(DEFAULT_PAIR_CORRECTION),
                              horizontal=True, key="tm_correction", bind="query-params")
        picked = pick_cell("tm_pairs")
        teaching_panel(
            "Each pair's cosine against its gold similarity, as STS benchmarks score sentence embeddings: Spearman's "
            "rank correlation, 1 when the cosines order the pairs exactly as people did.  \n"
            f"Right: the same after {correction}, fitted on the pairs' own sentences (each distinct one once), as the "
            "whitening papers do; it removes the direction all vectors share. Whitening keeps a quarter as many "
            "axes as sentences: on all of them every whitened cosine would be the same.",
            recipes.correlation(info, pairs_code, POOLINGS[picked.strategy].code, picked.layer, correction),
            key="correlation",
        )
        gold = tuple(pairs["score"])
        distinct = distinct_rows([*pairs["sentence1"], *pairs["sentence2"]])
        raw = correlation_scores(key, pairs_id, "none", tuple(cells), first, second, gold, distinct)
        fixed = correlation_scores(key, pairs_id, correction, tuple(cells), first, second, gold, distinct)
        left, right = columns(2)
        score_grid_view(raw, "Spearman ρ, raw cosine", "tm_corr_raw", left)
        score_grid_view(fixed, f"Spearman ρ after {correction}", "tm_corr_fixed", right)
        st.caption(f"{len(pairs)} pairs; a best is named only when its lead over every other cell holds in 95 % of "
                   "1,000 bootstrap resamples of the pairs. nan: every vector of that cell is the same (e.g. [CLS] "
                   "before any layer), so there is no order to correlate.")
        download_csv(pd.concat([raw.table().reset_index(names="strategy").assign(correction="none"),
                                fixed.table().reset_index(names="strategy").assign(correction=correction)]),
                     "Download both grids (CSV)", "pair_correlations.csv", "tm_corr_csv")

with maps_tab:
    if maps_tab.open and texts is None:
        st.info(NO_CORPUS.format(what="The maps use", shown="they appear"), icon="📄")
    elif maps_tab.open:
        projection = st.radio("Map", list(PROJECTIONS), horizontal=True, key="tm_projection", bind="query-params",
                              help=" · ".join(f"{name}: {p.note}" for name, p in PROJECTIONS.items()))
        if stored:
            maps_store_view(corpus, chosen, layers, projection)
            st.stop()
        corpus_id = corpus_digest(tuple(texts))
        pooled = with_progress("Encoding", lambda progress: embed_corpus(key, tuple(texts), progress))
        picked = pick_cell("tm_map")
        teaching_panel(
            f"Each panel is a {projection} map of the corpus ({len(texts):,} texts) for one strategy at one layer"
            + (", coloured by label" if labels else "") + f". A map keeps only part of {info.hidden_size} dimensions: "
            "its title gives its trustworthiness "
            f"(k = {TRUST_NEIGHBOURS}), 1 when every point's map neighbours are true neighbours.  \n"
            "Read clusters on a map with a low score as the map's, not the model's.",
            recipes.projection_map(info, corpus_code, POOLINGS[picked.strategy].code, picked.layer, projection),
            key="projection",
        )
        positions, width = grid_panels(grid_cells(chosen, layers, num_layers))
        panels = []
        for r, c, cell in progress_over(positions, f"{projection}: 0 of {len(positions)} maps",
                                        lambda done, total: f"{projection}: {done} of {total} maps"):
            coords, trust = or_stop(lambda: map_cell(key, corpus_id, cell, projection, pooled), icon="🗺️")
            panels.append(grid_figures.Panel(r, c, map_title(cell.layer, trust), coords, cell.strategy))
        scatter_grid(panels, width, labels, texts, "tm_maps", "Download every map (CSV)", "maps.csv")
