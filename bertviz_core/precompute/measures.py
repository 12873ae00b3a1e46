"""Which layer and pooling, measured on a labelled store: each stored column scored on one stated stratified sample
of the rows (the probe and the silhouette need every vector of their rows in memory, and cross-validating a million
rows would take minutes), and the store's own 2-D maps, with their trustworthiness on a stated sample.

The sample is drawn once per store (scikit-learn's ``resample(..., stratify=labels)``, seed 0), so every column is
scored on the same rows and two cells' fold scores stay paired.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.measures.pooling_grid import Cell
from bertviz_core.precompute.reader import VectorStore
from bertviz_core.precompute.views import stored_columns
from bertviz_core.measures.projection import TRUST_NEIGHBOURS, trust
from bertviz_core.measures.similarity import SILHOUETTE_SAMPLE

# Rows the probe and the silhouette score: the silhouette's own sample size. A 5-fold probe of 2,000 rows takes
# 1 to 13 s a cell on 2 cores (longer the harder its labels are to read: lbfgs runs to its 1,000 iterations); of
# 5,000 rows, up to 32 s, three minutes for six cells.
SAMPLE_ROWS = SILHOUETTE_SAMPLE
GRID_MAP_POINTS = 5_000  # points each map of a grid draws (one panel of many); a single map draws every row
TRUST_ROWS = 1_000  # rows of a stored map whose trustworthiness is computed (k nearest of 1,000 takes ~0.2 s)
SEED = 0


@dataclass(frozen=True)
class LabelledSample:
    """The rows (sorted, (n,)) of a store that its measures are computed on, their labels (n,), and how many rows
    the store holds."""

    rows: np.ndarray
    labels: tuple[str, ...]
    total: int

    @property
    def whole(self) -> bool:
        """True when the sample is every row of the store."""
        return len(self.rows) == self.total


def stored_cells(store: VectorStore) -> list[Cell]:
    """Every (strategy, layer) the store holds vectors of, in the manifest's order."""
    return [Cell(strategy, layer) for strategy, layers in stored_columns(store).items() for layer in layers]


def labelled_sample(store: VectorStore, size: int = SAMPLE_ROWS) -> LabelledSample:
    """A stratified random sample of ``size`` rows of a labelled store (every row when it holds no more): each
    label keeps its share of the rows. ``ValueError`` for a store without labels."""
    from sklearn.utils import resample

    checks.instance(store, VectorStore, "store", "open_store(path)")
    size = checks.whole_number(size, "size", 1)
    labels = store.labels
    if labels is None:
        raise ValueError("This store has no labels, and the probe and the silhouette score texts by their labels. "
                         "Precompute it with --label-column to keep them.")
    everything = np.arange(len(labels))
    rows = everything if len(labels) <= size else np.sort(
        resample(everything, replace=False, n_samples=size, stratify=np.asarray(labels), random_state=SEED))
    return LabelledSample(rows, tuple(labels[row] for row in rows), len(labels))


def sample_vectors(store: VectorStore, cell: Cell, sample: LabelledSample) -> np.ndarray:
    """float32 (sample rows, hidden): the stored ``cell`` vectors of the sample's rows, read from the memory-mapped
    column (rows in order, so the disk is read front to back)."""
    checks.instance(cell, Cell, "cell", "stored_cells(store)")
    checks.instance(sample, LabelledSample, "sample", "labelled_sample(store)")
    return np.asarray(store.vectors(cell.strategy, cell.layer)[sample.rows])


def sample_note(sample: LabelledSample) -> str:
    """What the probe and the silhouette were computed on, as a caption says it."""
    checks.instance(sample, LabelledSample, "sample", "labelled_sample(store)")
    counted = f"all {sample.total:,} rows of the store" if sample.whole else (
        f"a stratified random sample of {len(sample.rows):,} of the store's {sample.total:,} rows (seed {SEED}; each "
        "label keeps its share)")
    silhouette = "" if len(sample.rows) <= SILHOUETTE_SAMPLE else (
        f"; the silhouette on {SILHOUETTE_SAMPLE:,} of them, as for any corpus that size")
    return f"Measured on {counted}{silhouette}. The store's vectors are read from disk: no model runs here."


def stored_maps(store: VectorStore, cell: Cell) -> list[str]:
    """The projections the store holds a map of for ``cell``, in the order they were drawn."""
    checks.instance(cell, Cell, "cell", "stored_cells(store)")
    name = store.column(cell.strategy, cell.layer)
    return list(store.manifest.get("maps", {}).get(name, {}))


def map_axes(store: VectorStore, cell: Cell, projection: str) -> tuple[str, str]:
    """The axis titles of the stored ``projection`` map of ``cell`` (``map_figures.axis_titles``): a PCA map's say
    the share of variance the store recorded of each axis."""
    from bertviz_core.figures.map_figures import axis_titles

    facts = store.manifest.get("maps", {}).get(store.column(cell.strategy, cell.layer), {}).get(projection, {})
    return axis_titles(projection, facts.get("explained_variance_ratio"))


def map_trust(store: VectorStore, cell: Cell, projection: str, size: int = TRUST_ROWS) -> float:
    """The trustworthiness (k = ``TRUST_NEIGHBOURS``) of the stored ``projection`` map of ``cell``, on a random
    ``size`` of its points (all when it has no more; seed 0): 1 when each point's map neighbours among them are
    near it in the full space too. Neighbours among a sample lie further apart than among every row, so it is the
    map's trustworthiness at that sample's scale."""
    size = checks.whole_number(size, "size", 3)
    drawn = store.map(projection, cell.strategy, cell.layer)
    pick = np.arange(len(drawn)) if len(drawn) <= size else np.sort(
        np.random.default_rng(SEED).choice(len(drawn), size, replace=False))
    rows = drawn["row"].to_numpy()[pick]
    order = np.argsort(rows)  # the memory-mapped column is read front to back
    vectors = np.asarray(store.vectors(cell.strategy, cell.layer)[rows[order]])
    coords = drawn[["x", "y"]].to_numpy()[pick][order]
    return trust(vectors, coords)


def trust_note(store: VectorStore, cell: Cell, projection: str, size: int = TRUST_ROWS) -> str:
    """How ``map_trust`` was computed, as a caption says it."""
    points = len(store.map(projection, cell.strategy, cell.layer))
    on = f"all {points:,} points" if points <= size else f"a random {size:,} of its {points:,} points (seed {SEED})"
    return (f"Trustworthiness (k = {TRUST_NEIGHBOURS}) of each stored map, on {on}: 1 when every point's map "
            "neighbours are true neighbours.")


def map_points(store: VectorStore, cell: Cell, projection: str, size: int | None = None) -> pd.DataFrame:
    """The stored ``projection`` map of ``cell`` with each point's text and label: row, x, y, text, label; every
    point, or a random ``size`` of them (seed 0) when ``size`` is given and the map has more."""
    drawn = store.map(projection, cell.strategy, cell.layer)
    if size is not None and len(drawn) > checks.whole_number(size, "size", 1):
        drawn = drawn.iloc[np.sort(np.random.default_rng(SEED).choice(len(drawn), size, replace=False))]
    picked, rows = drawn["row"].to_numpy(), store.rows
    return drawn.assign(text=rows["text"].to_numpy()[picked], label=rows["label"].to_numpy()[picked])


def chosen_cells(store: VectorStore, strategies: list[str], layers: list[int]) -> list[Cell]:
    """The stored cells among ``strategies`` at ``layers`` (a strategy without layers, whatever the layers), in
    the store's order."""
    strategies, layers = checks.strings(strategies, "strategies"), set(checks.items(layers, "layers", "layer numbers"))
    return [cell for cell in stored_cells(store)
            if cell.strategy in strategies and (cell.layer is None or cell.layer in layers)]


def grid_maps(store: VectorStore, cells: list[Cell], projection: str,
              size: int = GRID_MAP_POINTS) -> tuple[pd.DataFrame, dict[Cell, np.ndarray]]:
    """The rows every stored ``projection`` map of ``cells`` places (a random ``size`` of them, seed 0, when there
    are more), as row, text, label, and each map's (those rows, 2) coordinates, in the same order: a grid of
    panels shows the same texts in each."""
    size = checks.whole_number(size, "size", 1)
    maps = {cell: store.map(projection, cell.strategy, cell.layer).set_index("row") for cell in cells}
    common = np.sort(list(set.intersection(*(set(drawn.index) for drawn in maps.values()))))
    if len(common) > size:
        common = common[np.sort(np.random.default_rng(SEED).choice(len(common), size, replace=False))]
    rows = store.rows
    points = pd.DataFrame({"row": common, "text": rows["text"].to_numpy()[common],
                           "label": rows["label"].to_numpy()[common]})
    return points, {cell: drawn.loc[common, ["x", "y"]].to_numpy() for cell, drawn in maps.items()}


def grid_rows(cells: list[Cell]) -> list[list[Cell]]:
    """``cells`` as the rows of a grid: one row per strategy, its layers left to right."""
    rows: dict[str, list[Cell]] = {}
    for cell in cells:
        rows.setdefault(cell.strategy, []).append(cell)
    return list(rows.values())


def grid_note(points: int, total: int) -> str:
    """How many of a store's rows a grid of its maps draws, as a caption says it."""
    return (f"Every one of the store's {total:,} rows is drawn." if points == total else
            f"Each panel draws the same {points:,} of the store's {total:,} rows (a random sample, seed {SEED}), so "
            "the grid stays quick to draw; Sentence pooling draws one map with every row.")


@dataclass(frozen=True)
class ModelStores:
    """One store per model of the same texts (``matched_stores``): ``stores`` {model name: VectorStore} in the
    models' order, and the ``sample`` of rows every model is scored on, the same rows in each store."""

    stores: dict[str, VectorStore]
    sample: LabelledSample

    def texts(self) -> list[str]:
        """The sample's texts (sample rows,), as the first store holds them."""
        return next(iter(self.stores.values())).rows["text"].to_numpy()[self.sample.rows].tolist()


def _input(store: VectorStore) -> str:
    """A store's input as a refusal names it: its texts, their column and the content hash of its file."""
    found = store.manifest["input"]
    return (f"{store.manifest['rows']:,} texts of the column {found['text_column']!r} of an input of content hash "
            f"{found['digest'][:12]}")


def matched_stores(stores: Mapping[str, VectorStore], identities: Mapping[str, str]) -> ModelStores:
    """The labelled ``stores`` ({model name: its store}) checked to rank those models on the same texts: each was
    computed with its model (``identities``: {model name: ``ModelInfo.identity``}), all from the same input (its
    content hash, text column and rows, as the manifests record them) with the same labels, so their rows are the
    same texts in the same order; scored on the first store's ``labelled_sample``. ``ValueError`` naming the store
    and what differs otherwise."""
    if not isinstance(stores, Mapping) or not stores:
        raise ValueError(f"stores must map each model's name to its store; it is {checks.shown(stores)}.")
    for model, store in stores.items():
        checks.instance(store, VectorStore, f"the store of {model}", "open_store(path)")
        stored = store.manifest["model"]
        if stored["identity"] != identities.get(model):
            raise ValueError(f"The store {store.folder} was computed with {stored['name']}, not with {model}: its "
                             f"vectors are another model's. Choose a store precomputed with {model}.")
        if store.labels is None:
            raise ValueError(f"The store {store.folder} (of {model}) has no labels, and ranking by labels (the probe, "
                             "the silhouette) needs one per text. Precompute it with --label-column to keep them.")
    first_model, first = next(iter(stores.items()))
    for model, store in stores.items():
        if _input(store) != _input(first):
            raise ValueError(f"The store {first.folder} (of {first_model}) and the store {store.folder} (of {model}) "
                             f"hold different texts: {_input(first)}, against {_input(store)}. Models are ranked on "
                             "the same texts only: precompute each model's store from the same file and column.")
        if store.manifest["input"]["label_column"] != first.manifest["input"]["label_column"]:
            raise ValueError(f"The store {first.folder} and the store {store.folder} label their texts from different "
                             f"columns ({first.manifest['input']['label_column']!r} and "
                             f"{store.manifest['input']['label_column']!r}): precompute both with the same "
                             "--label-column.")
    return ModelStores(dict(stores), labelled_sample(first))


def model_store_vectors(chosen: ModelStores, cells: Mapping[str, Sequence[Cell]]) -> dict[str, dict[tuple, np.ndarray]]:
    """``rank_models``' vectors from the stores: {model: {(strategy, layer): (sample rows, hidden) float32}} of each
    model's ``cells`` (stored ones, see ``chosen_cells``), on the shared sample's rows."""
    checks.instance(chosen, ModelStores, "chosen", "matched_stores(stores, identities)")
    return {model: {(cell.strategy, cell.layer): sample_vectors(chosen.stores[model], cell, chosen.sample)
                    for cell in cells[model]} for model in chosen.stores}

