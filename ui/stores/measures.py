"""Sentence pooling and Task measures on a labelled precomputed store: every stored column scored on one stated
sample of the rows, and the store's own maps. Nothing here runs the model: the vectors are read from disk.
"""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import streamlit as st

from bertviz_core.corpora.corpus_sources import Corpus
from ui.display import download_csv, literal, or_stop, progress_over, score_grid_view, teaching_panel
from ui.page_parts.task_measures import probe_grids_view
from ui.stores.maps import cell_name, cell_picker, held_cells, map_view
from ui.picker import active_info
from ui.stores.opened import stamp_of, stops_on_damage
from ui.warm import fragment

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


def _scored_over(cells: list[Cell], sample: LabelledSample, what: str) -> Iterator[Cell]:
    """Each of ``cells`` in turn, under a bar that says how many of ``what`` (e.g. "silhouettes") on the sample are
    done and names the column being scored: it moves from the first column on (a cached column passes at once)."""
    rows = f"{len(sample.rows):,} rows"

    def said(done: int, total: int) -> str:
        scoring = f"; scoring {cell_name(cells[done])}" if done < total else ""
        return f"{what.capitalize()} on {rows}: {done} of {total} stored columns done{scoring}"

    return progress_over(cells, said(0, len(cells)), said)


def _silhouettes(corpus: Corpus, cells: list[Cell], sample: LabelledSample) -> dict[Cell, CellResult]:
    """Each stored column's silhouette on the sample, {cell: CellResult}, under ``_scored_over``'s bar."""
    name, stamp = corpus.name, stamp_of(corpus)
    return {cell: store_cell_result(name, stamp, cell, corpus.store, sample)
            for cell in _scored_over(cells, sample, "silhouettes")}


@stops_on_damage
def pooling_store_view(corpus: Corpus) -> None:
    """Sentence pooling on a store: the silhouette of every stored column on the store's sample, and a stored map of
    every row of the chosen column, which opens on the verdict's top cell."""
    from bertviz_core.measures.pooling_grid import silhouette_grid
    from bertviz_core.precompute.measures import sample_note, stored_cells

    store = corpus.store
    cells = stored_cells(store)
    sample = None
    opened_on = len(cells) - 1
    if store.labels is not None:
        sample = store_sample(corpus.name, stamp_of(corpus), store)
        st.subheader("Which stored vector separates the labels best?")
        scores = silhouette_grid(cells, _silhouettes(corpus, cells, sample).__getitem__)
        score_grid_view(scores, "silhouette (cosine)", "sp_store_scores")
        st.caption(literal(sample_note(sample)))
        download_csv(scores.table().reset_index(names="strategy"), "Download all scores (CSV)",
                     "store_pooling_scores.csv", "sp_store_scores_csv")
        opened_on = scores.top_position(cells)
    _chosen_column(corpus, cells, opened_on, None if sample is None else (len(sample.rows), sample.total))


@fragment
@stops_on_damage
def _chosen_column(corpus: Corpus, cells: list[Cell], opened_on: int, sampled: tuple[int, int] | None) -> None:
    """The stored column to draw, opened on position ``opened_on`` of the stored ``cells`` (the scores' top), its
    teaching code and the store's map of it: choosing another reruns only this part, not the scores above.
    ``sampled``: (rows in the sample, rows in the store), or None when the store has no labels."""
    from bertviz_core import recipes
    from bertviz_core.measures.pooling import supported_strategies
    from bertviz_core.precompute.measures import stored_maps
    from bertviz_core.precompute.views import lacking_layers_note, lacking_strategies_note

    store = corpus.store
    cell = cell_picker("Stored vector to draw and reproduce", cells, opened_on, "sp_store_cell")
    lacking = [note for note in (lacking_strategies_note(store, supported_strategies(active_info().has_pooler)),
                                 lacking_layers_note(store)) if note]
    if lacking:  # the grid and the picker hold the stored cells only: say which the model has and the store lacks
        st.caption(" ".join(lacking))
    column = store.column(cell.strategy, cell.layer)
    if sampled is None:
        st.info(f"The store {literal(corpus.name)} has no labels, so no stored vector can be scored on how well "
                "it separates them: its map is drawn below. Precompute it with --label-column to keep them.",
                icon="🏷️")
    else:
        teaching_panel(
            "Each cell above scores one stored way of turning a sentence into a vector (a pooling strategy at a "
            "layer): the silhouette (cosine) of the labels, higher = labels apart. Below, the store's own 2-D map of "
            "the chosen column, every row.  \nThe store was computed once, in advance: nothing here runs the model.",
            recipes.store_measures(corpus.name, column, *sampled), key="store_pooling")
    st.subheader(f"The store's map of {cell_name(cell)}")
    drawn = stored_maps(store, cell)
    if not drawn:
        st.info(f"The store holds no map of {column}: precompute it with --maps PCA to draw one.", icon="🗺️")
        return
    projection = st.radio("Map", drawn, horizontal=True, key="sp_store_projection", bind="query-params")
    map_view(corpus, cell, projection, "sp_store")


@stops_on_damage
def probe_store_view(corpus: Corpus, strategies: list[str], layers: list[int]) -> None:
    """Task measures' probe on a store: the probe and the silhouette of each chosen stored column, on the store's
    sample, side by side, with whether they agree."""
    from bertviz_core.views.page_views import folds_note
    from bertviz_core.measures.pooling_grid import silhouette_grid
    from bertviz_core.precompute.measures import sample_note
    from bertviz_core.measures.task_measures import PROBE_PROTOCOL, probe_plan

    store, name, stamp = corpus.store, corpus.name, stamp_of(corpus)
    if store.labels is None:
        st.error(f"The store {literal(name)} has no labels, and the probe learns labels. Nothing is probed until a "
                 "labelled store or corpus is chosen: precompute it with --label-column to keep them.", icon="🏷️")
        return
    cells = held_cells(store, strategies, layers)
    if cells is None:
        return
    sample = store_sample(name, stamp, store)
    labels = list(sample.labels)
    plan = or_stop(lambda: probe_plan(labels))
    for note in plan.notes:
        st.info(note, icon="🏷️")
    _probe_code_cell(corpus, cells, sample, plan.folds)
    probed = {cell: store_probe(name, stamp, cell, store, sample, plan)
              for cell in _scored_over(cells, sample, "probes")}
    st.caption(f"Protocol: {PROBE_PROTOCOL}. A best is named only when it leads every other cell over the same "
               "folds (95 % t interval); otherwise no clear best." + folds_note(plan.folds) + " "
               + literal(sample_note(sample)))
    silhouettes = silhouette_grid(cells, _silhouettes(corpus, cells, sample).__getitem__)
    probe_grids_view(cells, probed, labels, plan, silhouettes)


@fragment
@stops_on_damage
def _probe_code_cell(corpus: Corpus, cells: list[Cell], sample: LabelledSample, folds: int) -> None:
    """The picker of the stored column whose code the teaching panel shows, and the panel: choosing another reruns
    only this part, not the probe's and the silhouette's grids below."""
    from bertviz_core import recipes

    picked = cell_picker("Cell for the code panel", cells, len(cells) - 1, "tm_probe_cell")
    teaching_panel(
        "A linear probe: a logistic regression learns each stored text's label from its stored vector, scored on "
        f"texts it did not see ({folds}-fold cross-validation). Beside it, the silhouette of the labels.  \n"
        "The store was computed once, in advance: nothing here runs the model.",
        recipes.store_measures(corpus.name, corpus.store.column(picked.strategy, picked.layer), len(sample.rows),
                               sample.total, folds),
        key="store_measures")
