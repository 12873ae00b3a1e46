"""Sentence pooling and Task measures on a labelled precomputed store: every stored column scored on one stated
sample of the rows, and the store's own maps. Nothing here runs the model: the vectors are read from disk.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import streamlit as st

from bertviz_core.corpora.corpus_sources import Corpus
from bertviz_core.precompute.measures import GRID_MAP_POINTS, TRUST_ROWS
from ui.display import chart, download_csv, literal, or_stop, probe_grids_view, progress_over, scatter_grid
from ui.display import score_grid_view, teaching_panel
from ui.stores.exports import APP_PROJECTOR_ROWS, export_downloads
from ui.stores.opened import stamp_of, stops_on_damage

if TYPE_CHECKING:
    from bertviz_core.measures.pooling_grid import Cell, CellResult
    from bertviz_core.precompute.measures import LabelledSample
    from bertviz_core.precompute.reader import VectorStore
    from bertviz_core.measures.task_measures import ProbePlan, ProbeScore


@st.cache_data(max_entries=16, show_spinner="Drawing the store's sample…")
def store_sample(name: str, stamp: float, _store: VectorStore) -> LabelledSample:
    """Cached ``measures.labelled_sample`` of the offered store ``name`` (opened at ``stamp``)."""
    from bertviz_core.precompute.measures import labelled_sample

    return labelled_sample(_store)


@st.cache_data(max_entries=256, show_spinner=False)
def store_cell_result(name: str, stamp: float, cell: Cell, _store: VectorStore, _sample: LabelledSample) -> CellResult:
    """Cached ``pooling_grid.score_cell`` (the silhouette) of one stored column on the store's sample."""
    from bertviz_core.measures.pooling_grid import score_cell
    from bertviz_core.precompute.measures import sample_vectors

    return score_cell(sample_vectors(_store, cell, _sample), list(_sample.labels))


@st.cache_data(max_entries=256, show_spinner=False)
def store_probe(name: str, stamp: float, cell: Cell, _store: VectorStore, _sample: LabelledSample,
                _plan: ProbePlan) -> ProbeScore:
    """Cached ``task_measures.probe`` of one stored column on the store's sample."""
    from bertviz_core.precompute.measures import sample_vectors
    from bertviz_core.measures.task_measures import probe

    return probe(sample_vectors(_store, cell, _sample), list(_sample.labels), _plan)


@st.cache_data(max_entries=64, show_spinner=False)
def store_trust(name: str, stamp: float, cell: Cell, projection: str, _store: VectorStore) -> float:
    """Cached ``measures.map_trust`` of a stored map."""
    from bertviz_core.precompute.measures import map_trust

    return map_trust(_store, cell, projection)


@st.cache_resource(max_entries=8, show_spinner="Reading the store's maps…")
def store_grid(name: str, stamp: float, cells: tuple[Cell, ...], projection: str,
               _store: VectorStore) -> tuple[pd.DataFrame, dict[Cell, np.ndarray]]:
    """``measures.grid_maps`` of stored maps, read once per server and shared read-only."""
    from bertviz_core.precompute.measures import grid_maps

    return grid_maps(_store, list(cells), projection, GRID_MAP_POINTS)


@st.cache_resource(max_entries=8, show_spinner="Reading the store's map…")
def store_map(name: str, stamp: float, cell: Cell, projection: str, _store: VectorStore) -> pd.DataFrame:
    """``measures.map_points`` of a stored map, read once per server and shared read-only (a million rows' texts
    would be copied on every rerun by ``st.cache_data``)."""
    from bertviz_core.precompute.measures import map_points

    return map_points(_store, cell, projection)


@st.cache_data(max_entries=16, show_spinner="Drawing the store's map…")
def store_map_figure(name: str, stamp: float, cell: Cell, projection: str, title: str, _store: VectorStore) -> Any:
    """``map_figures.map_figure`` of a stored map, built once (~2 s at a million points); each hit is a copy, which
    ``chart`` may restyle for presentation mode."""
    from bertviz_core.figures.map_figures import map_figure

    points = store_map(name, stamp, cell, projection, _store)
    labels = points["label"].tolist() if _store.labels is not None else None
    return map_figure(points[["x", "y"]].to_numpy(), labels, points["text"].tolist(), title)


def _cell_name(cell: Cell) -> str:
    from bertviz_core.figures import layer_label

    return f"{cell.strategy} · {layer_label(cell.layer)}"


def _silhouettes(corpus: Corpus, cells: list[Cell], sample: LabelledSample) -> dict[Cell, CellResult]:
    name, stamp = corpus.name, stamp_of(corpus)
    return {cell: store_cell_result(name, stamp, cell, corpus.store, sample)
            for cell in progress_over(cells, "Scoring the stored columns",
                                      lambda done, total: f"Scoring: {done} of {total} stored columns")}


@stops_on_damage
def pooling_store_view(corpus: Corpus) -> None:
    """Sentence pooling on a store: the silhouette of every stored column on the store's sample, and the chosen
    column's stored map of every row."""
    from bertviz_core import recipes
    from bertviz_core.measures.pooling_grid import silhouette_grid
    from bertviz_core.precompute.measures import sample_note, stored_cells, stored_maps

    store = corpus.store
    cells = stored_cells(store)
    names = [_cell_name(cell) for cell in cells]
    cell = cells[names.index(st.selectbox("Stored vector to draw and reproduce", names, index=len(names) - 1,
                                          key="sp_store_cell", bind="query-params"))]
    column = store.column(cell.strategy, cell.layer)
    if store.labels is None:
        st.info(f"The store {literal(corpus.name)} has no labels, so no stored vector can be scored on how well it "
                "separates them: its map is drawn below. Precompute it with --label-column to keep them.", icon="🏷️")
    else:
        sample = store_sample(corpus.name, stamp_of(corpus), store)
        teaching_panel(
            "Each cell scores one stored way of turning a sentence into a vector (a pooling strategy at a layer): the "
            "silhouette (cosine) of the labels, higher = labels apart. Below, the store's own 2-D map of that column, "
            "every row.  \nThe store was computed once, in advance: nothing here runs the model.",
            recipes.store_measures(corpus.name, column, len(sample.rows), sample.total), key="store_pooling")
        st.subheader("Which stored vector separates the labels best?")
        scores = silhouette_grid(cells, _silhouettes(corpus, cells, sample).__getitem__)
        score_grid_view(scores, "silhouette (cosine)", "sp_store_scores")
        st.caption(literal(sample_note(sample)))
        download_csv(scores.table().reset_index(names="strategy"), "Download all scores (CSV)",
                     "store_pooling_scores.csv", "sp_store_scores_csv")
    st.subheader(f"The store's map of {_cell_name(cell)}")
    drawn = stored_maps(store, cell)
    if not drawn:
        st.info(f"The store holds no map of {column}: precompute it with --maps PCA to draw one.", icon="🗺️")
        return
    projection = st.radio("Map", drawn, horizontal=True, key="sp_store_projection", bind="query-params")
    _map_view(corpus, cell, projection, "sp_store")


def _map_view(corpus: Corpus, cell: Cell, projection: str, key: str) -> None:
    """One stored map, every point, coloured by label, with its trustworthiness and its points as a CSV."""
    from bertviz_core.figures.map_figures import map_note
    from bertviz_core.precompute.export import store_export
    from bertviz_core.precompute.measures import trust_note

    store, name, stamp = corpus.store, corpus.name, stamp_of(corpus)
    points = store_map(name, stamp, cell, projection, store)
    trust = store_trust(name, stamp, cell, projection, store)
    title = f"{projection} of {_cell_name(cell)}: {len(points):,} points · trustworthiness {trust:.2f}"
    chart(store_map_figure(name, stamp, cell, projection, title, store), key=f"{key}_map")
    st.caption(literal(map_note(len(points)) + " " + trust_note(store, cell, projection))
               + " Zoom in and hover a point for its text.")
    download_csv(points, "Download the map's points (CSV)", f"store_{projection}_map.csv", f"{key}_map_csv")
    column = store.column(cell.strategy, cell.layer)
    shown = min(APP_PROJECTOR_ROWS, len(store.rows))
    export_downloads(lambda to: store_export(store, column, to, APP_PROJECTOR_ROWS, projection),
                     f"{name}_{column}", key, "" if shown == len(store.rows) else f": a random {shown:,} rows")


@stops_on_damage
def probe_store_view(corpus: Corpus, strategies: list[str], layers: list[int]) -> None:
    """Task measures' probe on a store: the probe and the silhouette of each chosen stored column, on the store's
    sample, side by side, with whether they agree."""
    from bertviz_core import recipes
    from bertviz_core.views.page_views import folds_note
    from bertviz_core.measures.pooling_grid import silhouette_grid
    from bertviz_core.precompute.measures import sample_note
    from bertviz_core.measures.task_measures import PROBE_PROTOCOL, probe_grid, probe_plan

    store, name, stamp = corpus.store, corpus.name, stamp_of(corpus)
    if store.labels is None:
        st.error(f"The store {literal(name)} has no labels, and the probe learns labels. Nothing is probed until a "
                 "labelled store or corpus is chosen: precompute it with --label-column to keep them.", icon="🏷️")
        return
    cells = _chosen(store, strategies, layers)
    if cells is None:
        return
    sample = store_sample(name, stamp, store)
    labels = list(sample.labels)
    plan = or_stop(lambda: probe_plan(labels))
    for note in plan.notes:
        st.info(note, icon="🏷️")
    names = [_cell_name(cell) for cell in cells]
    picked = cells[names.index(st.selectbox("Cell for the code panel", names, index=len(names) - 1,
                                            key="tm_probe_cell", bind="query-params"))]
    teaching_panel(
        "A linear probe: a logistic regression learns each stored text's label from its stored vector, scored on "
        f"texts it did not see ({plan.folds}-fold cross-validation). Beside it, the silhouette of the labels.  \n"
        "The store was computed once, in advance: nothing here runs the model.",
        recipes.store_measures(corpus.name, store.column(picked.strategy, picked.layer), len(sample.rows),
                               sample.total, plan.folds),
        key="store_measures")
    measure = st.radio("Probe score", ["accuracy", "macro-F1"], horizontal=True, key="tm_probe_score",
                       bind="query-params")
    probed = {cell: store_probe(name, stamp, cell, store, sample, plan)
              for cell in progress_over(cells, "Probing", lambda done, total: f"Probing: {done} of {total} cells")}
    st.caption(f"Protocol: {PROBE_PROTOCOL}. A best is named only when it leads every other cell over the same "
               "folds (95 % t interval); otherwise no clear best." + folds_note(plan.folds) + " "
               + literal(sample_note(sample)))
    probe_scores = probe_grid(cells, probed, labels, plan, measure)
    silhouettes = silhouette_grid(cells, _silhouettes(corpus, cells, sample).__getitem__)
    probe_grids_view(probe_scores, silhouettes, measure)


def _chosen(store: VectorStore, strategies: list[str], layers: list[int]) -> list[Cell] | None:
    """The chosen cells the store holds, or None, with a message naming what it holds, when it holds none."""
    from bertviz_core.precompute.measures import chosen_cells

    cells = chosen_cells(store, strategies, layers)
    if not cells:
        st.info("The store holds none of the chosen cells: it holds "
                f"{literal(', '.join(store.manifest['columns']))}. Choose those strategies and layers above.",
                icon="🗄️")
        return None
    return cells


@stops_on_damage
def maps_store_view(corpus: Corpus, strategies: list[str], layers: list[int], projection: str) -> None:
    """Task measures' maps on a store: the store's ``projection`` map of each chosen stored column, a sample of
    each's points, in a grid, each titled with its trustworthiness."""
    from bertviz_core.figures import grid_figures
    from bertviz_core.views.page_views import grid_panels, map_title
    from bertviz_core.precompute.measures import grid_note, grid_rows, stored_maps, trust_note

    store, name, stamp = corpus.store, corpus.name, stamp_of(corpus)
    cells = _chosen(store, strategies, layers)
    if cells is None:
        return
    drawn = [cell for cell in cells if projection in stored_maps(store, cell)]
    if not drawn:
        st.info(f"The store holds no {projection} map of the chosen cells: precompute it with --maps {projection}.",
                icon="🗺️")
        return
    from bertviz_core import recipes

    teaching_panel(
        f"Each panel is the store's own {projection} map of one stored column, drawn when the store was computed"
        f"; its title gives its trustworthiness (1 when every point's map neighbours are true neighbours).  \n"
        "Read clusters on a map with a low score as the map's, not the model's.", recipes.store_map(
            corpus.name, store.column(drawn[-1].strategy, drawn[-1].layer), projection, TRUST_ROWS), "store_map")
    points, coords = store_grid(name, stamp, tuple(drawn), projection, store)
    positions, width = grid_panels(grid_rows(drawn))
    panels = [grid_figures.Panel(r, c, map_title(cell.layer, store_trust(name, stamp, cell, projection, store)),
                                 coords[cell], cell.strategy) for r, c, cell in positions]
    scatter_grid(panels, width, points["label"].tolist() if store.labels is not None else None,
                 points["text"].tolist(), "tm_maps", "Download every map (CSV)", "maps.csv")
    st.caption(literal(grid_note(len(points), store.manifest["rows"]) + " " + trust_note(store, drawn[0], projection)))
