"""Which model?'s Streamlit glue: the models picked (the sidebar's list, loaded as Compare models' model B is), each
model's pooled vectors through the shared store with its speed measured while it encodes, every cell's score cached
per model (a change of measure, cells or order runs no model), the ranking (kept whole: a rerun back on one ranks
nothing again), the costs, and the code panel. The page only lays them out."""
from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

import cachetools
import numpy as np
import streamlit as st

from bertviz_core.model.models import UNTRAINED_TWIN
from bertviz_core.runtime.store import digest
from ui.cached import corpus_lengths, pooling_cell, probe_cell
from ui.display import cut_warning, literal, progress_over, with_progress
from ui.page_parts.compare_models import model_b_choices
from ui.picker import BUNDLED_MODEL, CUSTOM, get_encoder, load_or_remember_failure, model_info
from ui.results import embed_corpus, model_of
from ui.stores.models import store_names

if TYPE_CHECKING:
    from bertviz_core.measures.pooling_grid import Cell
    from bertviz_core.measures.uncertainty import Scored
    from bertviz_core.model.models import ModelInfo
    from bertviz_core.model_choice import Ranking, Scoring
    from bertviz_core.precompute.measures import ModelStores

MODELS = "wm_models"
Key = tuple[str, str]  # (model, device), as ui.picker keys a model


def model_infos(models: dict[str, Key]) -> dict[str, ModelInfo]:
    """Each model's facts, {name: ModelInfo}, read from its files where it is local."""
    return {name: model_info(*key) for name, key in models.items()}


def pick_models(device: str, container: Any) -> dict[str, Key] | None:
    """The models picked (up to ``MAX_MODELS``, bound to the link) that load, {its name: its key} in the order shown.
    One that cannot load (a hub id offline fails at once, ``models.hub_reachable``; the failure is remembered, as
    the sidebar's) is said right under the picker and left out, so the others are still ranked; None, with the
    reason shown, while the models that load cannot be ranked."""
    from bertviz_core.views.which_model import MAX_MODELS, check_models

    choices = [c for c in dict.fromkeys([BUNDLED_MODEL, *model_b_choices()]) if c != CUSTOM]
    chosen = container.multiselect(
        f"Models (two to {MAX_MODELS}, in the order shown)", choices, [BUNDLED_MODEL, UNTRAINED_TWIN],
        max_selections=MAX_MODELS, key=MODELS, bind="query-params",
        help="The sidebar's list and the bundled model's untrained twin (its configuration with random weights: "
             "beside it, what pre-training built shows). With a hub connection, add e.g. bert-base-uncased.")
    keys = {}
    for choice in chosen:
        try:
            with st.spinner(f"Loading {choice}…"):
                load_or_remember_failure((choice, device))
        except ValueError as err:
            container.error(f"{literal(choice)} could not be loaded, so it is left out of the ranking: "
                            f"{literal(str(err))}", icon="⚠️")
            continue
        keys[choice] = (choice, device)
    try:
        check_models(list(keys), [model_of(key)[0] for key in keys.values()])
    except ValueError as err:
        st.error(literal(str(err)), icon="✋")
        return None
    return keys


@st.cache_resource
def _speeds() -> dict[tuple[str, str], tuple[int, float]]:
    """{(model identity, corpus digest): (texts, seconds)} of each encoding this server timed, for every session."""
    return {}


def pooled_models(models: dict[str, Key], texts: tuple[str, ...]) -> dict[str, dict[str, np.ndarray]]:
    """Each model's pooled vectors of ``texts``, {name: {strategy: (n, layers+1, hidden)}}, from the shared store
    (a model added later encodes only itself), a progress bar each; the time of each model run is kept."""
    corpus_id, found = digest(texts), {}
    for name, key in models.items():
        started, ran = time.perf_counter(), []

        def report(progress: Any) -> Any:
            def step(done: int, total: int) -> None:
                ran.append(done)
                progress(done, total)
            step.stage = getattr(progress, "stage", None)  # the worker's steps before its first batch, shown too
            return step

        found[name] = with_progress(f"Encoding with {name}", lambda progress: embed_corpus(key, texts,
                                                                                          report(progress)))
        if ran:  # the model ran now: a result from the store calls no progress
            _speeds()[(model_of(key), corpus_id)] = (len(texts), time.perf_counter() - started)
    return found


def models_cut_warnings(models: dict[str, Key], texts: tuple[str, ...]) -> None:
    """What each model's truncation cut from ``texts``, in one warning naming the models."""
    from bertviz_core.model.lengths import cut_note

    notes = {name: cut_note(model_info(*key).max_length, corpus_lengths(key, digest(texts), texts).dropped)
             for name, key in models.items()}
    cut_warning("\n\n".join(f"{literal(name)}: {note}" for name, note in notes.items() if note) or None)


@st.cache_data(max_entries=4096, show_spinner=False)
def _scored(model: tuple, corpus_id: str, task_id: tuple, cell: Cell, _task: Scoring,
            _pooled: dict[str, np.ndarray]) -> Scored:
    from bertviz_core.measures.pooling_grid import cell_vectors

    return _task.score(cell_vectors(_pooled, cell))


def cell_score(key: Key, corpus_id: str, task_id: tuple, task: Scoring, pooled: dict[str, np.ndarray],
               cell: Cell) -> Scored:
    """One cell's ``task.score``, cached per model and cell: a probe through ``ui.cached.probe_cell`` (both of its
    measures at once, shared with Task measures and the warm-up), a silhouette through ``pooling_cell``, Spearman
    here; ``task_id`` names the task's labels or pairs (its first item the labels' digest for labels)."""
    if task.plan is not None:
        return probe_cell(key, corpus_id, task_id[0], cell, pooled, task.labels, task.plan).scored(task.measure)
    if task.measure == "silhouette":
        return pooling_cell(key, corpus_id, task_id[0], cell, pooled, task.labels).scored(task.resampling)
    return _scored(model_of(key), corpus_id, task_id, cell, task, pooled)


# Whole rankings, so that a rerun that changes nothing they depend on (a chart's setting, another task's return,
# the score flipped back) does not look up and rank every cell again: 60 cached calls hashed a rerun.
_RANKINGS: cachetools.LRUCache = cachetools.LRUCache(maxsize=64)
_RANKINGS_LOCK = threading.Lock()  # cachetools' caches are not thread-safe


def model_ranking(models: dict[str, Key], cells: dict[str, list[Cell]], texts: tuple[str, ...], task_id: tuple,
            task: Scoring, pooled: dict[str, dict[str, np.ndarray]]) -> Ranking:
    """``model_choice.ranked`` over every model's ``cells``, each cell scored (``cell_score``) under one progress
    bar; the same ranking as ``rank_models`` on the same vectors. Kept per models, texts, task and cells."""
    from bertviz_core.model_choice import ranked

    corpus_id = digest(texts)
    entry = (tuple((name, model_of(key)) for name, key in models.items()), corpus_id, task_id,
             tuple((name, tuple(chosen)) for name, chosen in cells.items()))
    with _RANKINGS_LOCK:
        kept = _RANKINGS.get(entry)
    if kept is not None:
        return kept
    work = [(name, cell) for name, chosen in cells.items() for cell in chosen]
    scored = {(name, cell.strategy, cell.layer): cell_score(models[name], corpus_id, task_id, task, pooled[name], cell)
              for name, cell in progress_over(work, f"Scoring 0 of {len(work)} cells",
                                              lambda done, total: f"Scoring: {done} of {total} cells")}
    ranking = ranked(task, scored)
    with _RANKINGS_LOCK:
        _RANKINGS[entry] = ranking
    return ranking


@st.cache_data(max_entries=16, show_spinner=False)
def _facts(model: tuple, key: Key) -> tuple[int, int | None]:
    from bertviz_core.views.which_model import disk_bytes, parameter_count

    encoder = get_encoder(*key)
    return parameter_count(encoder.model), disk_bytes(encoder.info)


def model_costs(models: dict[str, Key], texts: tuple[str, ...], stored: ModelStores | None = None) -> Any:
    """``which_model.cost_table`` of the models: their facts, and each one's speed: measured while it encoded
    ``texts`` here, or, when its vectors come from its store of ``stored``, what that store says of it."""
    from bertviz_core.views.which_model import cost_table, encoding_speed, stored_speed

    infos = {name: get_encoder(*key).info for name, key in models.items()}
    facts = {name: _facts(model_of(key), key) for name, key in models.items()}
    if stored is None:
        speeds = {name: encoding_speed(_speeds().get((model_of(key), digest(texts))), infos[name].device)
                  for name, key in models.items()}
    else:  # no model ran on the corpus: what each store recorded when it was built
        named = store_names(stored)
        speeds = {name: stored_speed(named[name][0], store.manifest) for name, store in stored.stores.items()}
    return cost_table(list(models), infos, {name: f[0] for name, f in facts.items()},
                      {name: f[1] for name, f in facts.items()}, speeds)


def which_model_code(models: dict[str, Key], cells: dict[str, list[Cell]], corpus_code: str, task: Scoring) -> str:
    """The plain transformers + scikit-learn (or scipy) code that reproduces every score of every model's ``cells``
    on screen, and the leaderboard (``recipes.which_model``): the probe, the silhouette or Spearman's ρ after the
    task's correction."""
    from bertviz_core import recipes

    infos: dict[str, ModelInfo] = {name: get_encoder(*key).info for name, key in models.items()}
    return recipes.which_model({name: (infos[name], [(c.strategy, c.layer) for c in cells[name]]) for name in models},
                               corpus_code, task.measure, task.plan.folds if task.plan is not None else 0,
                               task.correction)
