"""A precomputed store's own 2-D maps on a page: one map of every row (Sentence pooling) or a grid of each chosen
column's map (Task measures), each with its trustworthiness; the maps are read from disk, nothing runs the model.
"""
from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import streamlit as st

from bertviz_core.corpora.corpus_sources import Corpus
from bertviz_core.precompute.measures import GRID_MAP_POINTS, TRUST_ROWS
from ui.display import download_csv, literal, scatter_grid, teaching_panel
from ui.layout.canvas import canvas_chart
from ui.stores.exports import APP_PROJECTOR_ROWS, export_downloads
from ui.stores.opened import stamp_of, stops_on_damage

if TYPE_CHECKING:
    from bertviz_core.figures.map_figures import MapDrawing
    from bertviz_core.measures.pooling_grid import Cell
    from bertviz_core.precompute.reader import VectorStore


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


@st.cache_resource(max_entries=16, show_spinner="Drawing the store's map…")
def store_drawing(name: str, stamp: float, cell: Cell, projection: str, _store: VectorStore) -> MapDrawing:
    """``map_figures.map_drawing`` of a stored map (its points and density image), built once per server (~0.3 s
    at a million points) and shared read-only: a rerun builds only the small spec around it, for the title, text
    size and height of the moment (presentation mode's among them), and copies nothing."""
    from bertviz_core.figures.map_figures import map_drawing

    points = store_map(name, stamp, cell, projection, _store)
    labels = points["label"].tolist() if _store.labels is not None else None
    return map_drawing(points[["x", "y"]].to_numpy(), labels, points["text"].tolist())


def cell_name(cell: Cell) -> str:
    """A stored cell as pickers and titles name it: "mean · layer 6"."""
    from bertviz_core.figures import layer_label

    return f"{cell.strategy} · {layer_label(cell.layer)}"


def cell_picker(label: str, cells: list[Cell], index: int, key: str) -> Cell:
    """A selectbox of ``cells`` by their ``cell_name``, opened on position ``index``, bound to the link; the chosen
    cell."""
    names = [cell_name(cell) for cell in cells]
    return cells[names.index(st.selectbox(label, names, index=index, key=key, bind="query-params"))]


def map_view(corpus: Corpus, cell: Cell, projection: str, key: str) -> None:
    """One stored map, every point, coloured by label, with its trustworthiness and its points as a CSV."""
    from bertviz_core.figures.map_figures import map_note, map_spec
    from bertviz_core.precompute.export import store_export
    from bertviz_core.precompute.measures import map_axes, trust_note

    store, name, stamp = corpus.store, corpus.name, stamp_of(corpus)
    points = store_map(name, stamp, cell, projection, store)
    trust = store_trust(name, stamp, cell, projection, store)
    title = f"{projection} of {cell_name(cell)}: {len(points):,} points · trustworthiness {trust:.2f}"
    drawing = store_drawing(name, stamp, cell, projection, store)
    canvas_chart(partial(map_spec, drawing, axes=map_axes(store, cell, projection)), title, f"{key}_map")
    st.caption(literal(map_note(len(points)) + " " + trust_note(store, cell, projection))
               + " Scroll to zoom, drag to pan, hover a point for its text.")
    download_csv(points, "Download the map's points (CSV)", f"store_{projection}_map.csv", f"{key}_map_csv")
    column = store.column(cell.strategy, cell.layer)
    shown = min(APP_PROJECTOR_ROWS, len(store.rows))
    export_downloads(lambda to: store_export(store, column, to, APP_PROJECTOR_ROWS, projection),
                     f"{name}_{column}", key, "" if shown == len(store.rows) else f"; a random {shown:,} of its rows")


@stops_on_damage
def maps_store_view(corpus: Corpus, strategies: list[str], layers: list[int], projection: str) -> None:
    """Task measures' maps on a store: the store's ``projection`` map of each chosen stored column, a sample of
    each's points, in a grid, each titled with its trustworthiness."""
    from bertviz_core.figures import grid_figures
    from bertviz_core.views.page_views import grid_panels, map_title
    from bertviz_core.precompute.measures import grid_note, grid_rows, stored_maps, trust_note

    store, name, stamp = corpus.store, corpus.name, stamp_of(corpus)
    cells = held_cells(store, strategies, layers)
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


def held_cells(store: VectorStore, strategies: list[str], layers: list[int]) -> list[Cell] | None:
    """The chosen cells the store holds, or None, with a message naming what it holds, when it holds none."""
    from bertviz_core.precompute.measures import chosen_cells

    cells = chosen_cells(store, strategies, layers)
    if not cells:
        st.info("The store holds none of the chosen cells: it holds "
                f"{literal(', '.join(store.manifest['columns']))}. Choose those strategies and layers above.",
                icon="🗄️")
        return None
    return cells
