"""The background warm-up's steps, by name (``WARM_STEPS``): what each page's default view needs, each a list of
``WarmCall``. A call names the job the warm-up's worker process runs (``bertviz_core.runtime.jobs.JOBS``) and the
page's own cached call, which keeps the worker's result where the page reads it (``ui.results.handing``)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bertviz_core.model.models import ModelInfo
from ui.cached import corpus_contextuality, pooling_cell, probe_cell
from ui.results import corpus_digest, embed_corpus, encode_texts, shared, token_index

Key = tuple[str, str]


@dataclass(frozen=True)
class WarmCall:
    """``JOBS[job]`` over ``texts`` with ``extra`` in the worker; ``keep()`` is the page's call of ``into`` (a
    cached function, or ``shared`` for the store), which keeps that result, handed to it, as its own."""
    job: str
    texts: tuple[str, ...]
    extra: tuple[Any, ...]
    into: Callable[..., Any]
    keep: Callable[[], object]


Steps = Callable[[Key, ModelInfo], list[WarmCall]]


def _news() -> tuple[tuple[str, ...], list[str]]:
    from bertviz_core.corpora import news_topics

    news = news_topics()
    return tuple(news["text"]), list(news["label"])


def _reference() -> tuple[tuple[str, ...], str]:
    from bertviz_core.corpora import reference_corpus

    reference = reference_corpus()
    return reference, corpus_digest(reference)


def _tutorial() -> tuple[str, ...]:
    from bertviz_core.corpora import TUTORIAL

    return (TUTORIAL,)


def _first_preset() -> tuple[str, ...]:
    from bertviz_core.corpora import word_presets

    return tuple(next(iter(word_presets().values())).texts)


def _pooling_grid(key: Key, info: ModelInfo) -> list[WarmCall]:
    """Every cell of Sentence pooling's grid and score table on the news corpus."""
    from bertviz_core.measures.pooling import supported_strategies
    from bertviz_core.measures.pooling_grid import check_labels, grid_cells

    texts, labels = _news()
    scored = check_labels(labels).scored
    news_id, scored_id = corpus_digest(texts), corpus_digest(tuple(scored))
    cells = grid_cells(supported_strategies(info.has_pooler), range(info.num_layers + 1), info.num_layers)
    return [WarmCall("pooling cell", texts, (cell, scored), pooling_cell, lambda cell=cell: pooling_cell(
        key, news_id, scored_id, cell, embed_corpus(key, texts), scored)) for row in cells for cell in row]


def _probe_grid(key: Key, info: ModelInfo) -> list[WarmCall]:
    """Task measures' default probe cells on the news corpus."""
    from bertviz_core.measures.pooling_grid import grid_cells
    from bertviz_core.measures.task_measures import DEFAULT_STRATEGIES, probe_plan

    texts, labels = _news()
    news_id, labels_id, plan = corpus_digest(texts), corpus_digest(tuple(labels)), probe_plan(labels)
    cells = grid_cells(DEFAULT_STRATEGIES, range(info.num_layers + 1), info.num_layers)
    return [WarmCall("probe cell", texts, (cell, labels, plan), probe_cell, lambda cell=cell: probe_cell(
        key, news_id, labels_id, cell, embed_corpus(key, texts), labels, plan)) for row in cells for cell in row]


def _default_pair(key: Key, info: ModelInfo) -> list[WarmCall]:
    """Why similar's default MaxSim pairs and attribution."""
    from bertviz_core.measures.attribution import DEFAULT_STEPS, default_at_layer
    from bertviz_core.views.token_pairs import DEFAULT_PAIR
    from ui.page_parts.why_similar import attribution, maxsim
    from ui.results import model_of

    layer = info.num_layers
    settings = ("mean", layer, DEFAULT_STEPS, "[PAD]", default_at_layer(layer), False)  # pair_attribution's order
    return [WarmCall("maxsim", DEFAULT_PAIR, (layer, False), maxsim,
                     lambda: maxsim(key, model_of(key), *DEFAULT_PAIR, layer, False)),
            WarmCall("attribution", DEFAULT_PAIR, settings, shared, lambda: attribution(
                key, *DEFAULT_PAIR, "mean", layer, default_at_layer(layer), DEFAULT_STEPS, "[PAD]", False,
                report=lambda done, total: None))]  # a report: no progress bar and no "Start" button


def _texts(job: str, texts: Callable[[], tuple[str, ...]], keep: Callable[[Key], object]) -> Steps:
    """A step of one corpus-long job (``into`` the store) over ``texts()``, kept by ``keep(key)``."""
    return lambda key, info: [WarmCall(job, texts(), (), shared, lambda: keep(key))]


WARM_STEPS: dict[str, Steps] = {  # name -> (model key, info) -> its calls, in running order
    "news corpus pooled": _texts("kept embed", lambda: _news()[0], lambda key: embed_corpus(key, _news()[0])),
    "pooling grid": _pooling_grid,
    "tutorial sentence encoded": _texts("encode", _tutorial, lambda key: encode_texts(key, _tutorial())),
    "first word preset encoded": _texts("encode", _first_preset, lambda key: encode_texts(key, _first_preset())),
    "reference corpus indexed": _texts("kept token index", lambda: _reference()[0],
                                       lambda key: token_index(key, _reference()[1], _reference()[0])),
    "reference corpus pooled": _texts("embed", lambda: _reference()[0], lambda key: embed_corpus(key, _reference()[0])),
    "tutorial sentence pooled": _texts("embed", _tutorial, lambda key: embed_corpus(key, _tutorial())),
    "reference corpus contextuality": lambda key, info: [WarmCall(
        "contextuality", _reference()[0], (), corpus_contextuality, lambda: corpus_contextuality(
            key, _reference()[1], token_index(key, _reference()[1], _reference()[0])))],
    "probe grid": _probe_grid,
    "default pair attributed": _default_pair,
}
