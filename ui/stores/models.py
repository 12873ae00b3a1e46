"""Which model? on precomputed stores: one store the server offers per model, all of the same texts (matched by
their input's content hash, ``measures.matched_stores``), each cell scored on the stores' shared sample from the
vectors on disk. No model runs: a large corpus is read, not encoded. The page only lays the results out."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import streamlit as st

from bertviz_core.corpora.corpus_sources import Corpus
from bertviz_core.precompute.offered import offered_stores
from ui.display import cut_warning, literal, progress_over
from ui.picker import model_info
from ui.results import model_of
from ui.stores.measures import store_cell_result, store_probe
from ui.stores.opened import opened_store, refuse_store, stamp

if TYPE_CHECKING:
    from bertviz_core.measures.pooling_grid import Cell
    from bertviz_core.model_choice import Ranking, Scoring
    from bertviz_core.precompute.measures import ModelStores

Key = tuple[str, str]  # (model, device), as ui.picker keys a model


def model_stores_source(models: dict[str, Key]) -> Callable[..., Corpus | None]:
    """The "Precomputed store" widget of Which model? (``ui.uploads.corpus_source``'s ``stores``): a store picker per
    model of ``models`` (keyed ``{key}_store_{i}``, bound to the link), the stores checked to hold the same labelled
    texts, each computed with its model. Its corpus is the stores' shared sample (texts (n,), labels (n,)) with
    ``store`` the ``ModelStores``; None, with the reason, while they cannot be ranked."""
    def source(key: str, url_path: str, built_in: str, with_labels: bool, min_texts: int, why: str) -> Corpus | None:
        from bertviz_core import recipes
        from bertviz_core.precompute.measures import matched_stores

        try:
            offered = offered_stores()
        except ValueError as err:
            refuse_store(str(err))
            return None
        names = list(offered)
        st.caption("One store per model, each precomputed with that model from the same file: the ranking reads "
                   "their vectors from disk, so no model runs on the corpus.")
        picked = {model: st.selectbox(f"Store of {literal(model)}", names, index=min(i, len(names) - 1),
                                      key=f"{key}_store_{i}", bind="query-params")
                  for i, model in enumerate(models)}
        try:
            stores = {model: opened_store(name, stamp(offered[name].folder)) for model, name in picked.items()}
            chosen = matched_stores(stores, {model: model_of(picked_key)[0] for model, picked_key in models.items()})
        except ValueError as err:
            refuse_store(str(err))
            return None
        sample, first = chosen.sample, next(iter(picked.values()))
        return Corpus(tuple(chosen.texts()), sample.labels,
                      recipes.store_corpus(first, len(sample.rows), sample.total), store=chosen,
                      name=", ".join(picked.values()))
    return source


def store_names(chosen: ModelStores) -> dict[str, tuple[str, float]]:
    """{model: (its store's name as the server offers it, the store's stamp)}: what keys a store's cached scores."""
    return {model: (store.folder.resolve().name, stamp(store.folder)) for model, store in chosen.stores.items()}


def held_model_cells(chosen: ModelStores, models: dict[str, Key],
                     cells: dict[str, list[Cell]]) -> dict[str, list[Cell]]:
    """Each model's chosen ``cells`` its store holds; the chosen cells a store lacks, the texts its model cut (from
    the store's counts) and the sample scored are said, and the page stopped, with what the stores hold, while a
    model's store holds none of them."""
    from bertviz_core.figures.charts import layer_label
    from bertviz_core.model.lengths import cut_note
    from bertviz_core.precompute.measures import chosen_cells, sample_note

    held, notes, partial = {}, [], []
    for model, store in chosen.stores.items():
        wanted = cells[model]
        held[model] = [cell for cell in chosen_cells(store, list(dict.fromkeys(c.strategy for c in wanted)),
                                                     [c.layer for c in wanted]) if cell in wanted]
        if not held[model]:
            st.info(f"The store of {literal(model)} holds none of the chosen cells: it holds "
                    f"{literal(', '.join(store.manifest['columns']))}. Choose those strategies and layers above.",
                    icon="🗄️")
            st.stop()
        if len(held[model]) < len(wanted):
            partial.append(f"{literal(model)}: its store holds {len(held[model])} of the {len(wanted)} chosen cells, "
                           "and only those are scored: "
                           + ", ".join(f"{cell.strategy} at {layer_label(cell.layer)}" for cell in held[model]) + ".")
        note = cut_note(model_info(*models[model]).max_length, store.rows["dropped"].tolist(), "stored text")
        if note:
            notes.append(f"{literal(model)}: {note}")
    if partial:
        st.info("\n\n".join(partial), icon="🗄️")
    cut_warning("\n\n".join(notes) or None)
    st.caption(literal(sample_note(chosen.sample)))
    return held


def stores_ranking(chosen: ModelStores, cells: dict[str, list[Cell]], task: Scoring) -> Ranking:
    """``model_choice.ranked`` over every model's stored ``cells`` on the stores' shared sample, each cell scored
    once per store and cached (the probe through Task measures' ``store_probe``, the silhouette through
    ``store_cell_result``), under one progress bar: the same ranking as ``rank_models`` on
    ``measures.model_store_vectors``."""
    from bertviz_core.model_choice import ranked

    names = store_names(chosen)
    work = [(model, cell) for model, chosen_cells in cells.items() for cell in chosen_cells]
    scored = {}
    for model, cell in progress_over(work, f"Scoring 0 of {len(work)} stored cells",
                                     lambda done, total: f"Scoring: {done} of {total} stored cells"):
        name, at = names[model]
        store = chosen.stores[model]
        scored[(model, cell.strategy, cell.layer)] = (
            store_probe(name, at, cell, store, chosen.sample, task.plan).scored(task.measure)
            if task.plan is not None else
            store_cell_result(name, at, cell, store, chosen.sample).scored(task.resampling))
    return ranked(task, scored)
