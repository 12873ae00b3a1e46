"""The background warm-up: after the model loads, the default views of every page are computed into the caches
those pages read, so a first visit finds its numbers ready.

Each page declares what its default view needs by naming steps of ``WARM_STEPS`` in its registry entry
(``page_registry.PageEntry.warm_up``); a new page that shows the same defaults as another names the same steps
and never edits this module. The steps run in ``WARM_STEPS`` order, each only once, at the lowest CPU priority,
and each waits until visitors' pages and fragments are quiet: without that a change made while the warm-up ran
took 2.8x as long (bench/warm_up_effect.py). A model run of a step in this process pauses the same way between its batches
(``between_batches``): once a visitor's page runs, the run stops within a batch, unless that page waits for its result.
"""
from __future__ import annotations

import functools
import gc
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import streamlit as st

from bertviz_core.model.models import ModelInfo
from bertviz_core.views.page_registry import PAGES
from ui.cached import corpus_contextuality, pooling_cell, probe_cell
from ui.picker import get_encoder, link_notice_above
from ui.results import (Progress, at_low_priority, corpus_digest, embed_corpus, encode_texts, offloaded, result_store,
                        token_index)

if TYPE_CHECKING:  # imported where used: transformers would add seconds to the first page
    from bertviz_core.model.encoder import Encoder

QUIET_S = 1.0  # the warm-up starts a step only when no page has run for this long
_visitor_runs = {"count": 0, "last_end": 0.0}
_visitor_lock = threading.Lock()

Key = tuple[str, str]
P = ParamSpec("P")
R = TypeVar("R")
Steps = Callable[[Key, ModelInfo], list[Callable[[], object]]]


def _news() -> tuple[tuple[str, ...], list[str]]:
    from bertviz_core.corpora import news_topics

    news = news_topics()
    return tuple(news["text"]), list(news["label"])


def _pooling_grid(key: Key, info: ModelInfo) -> list[Callable[[], object]]:
    """Every cell of Sentence pooling's grid and score table on the news corpus."""
    from bertviz_core.measures.pooling import supported_strategies
    from bertviz_core.measures.pooling_grid import check_labels, grid_cells

    texts, labels = _news()
    scored = check_labels(labels).scored
    news_id, scored_id = corpus_digest(texts), corpus_digest(tuple(scored))
    cells = grid_cells(supported_strategies(info.has_pooler), range(info.num_layers + 1), info.num_layers)
    return [lambda cell=cell: pooling_cell(key, news_id, scored_id, cell, embed_corpus(key, texts), scored)
            for row in cells for cell in row]


def _probe_grid(key: Key, info: ModelInfo) -> list[Callable[[], object]]:
    """Task measures' default probe cells on the news corpus."""
    from bertviz_core.measures.pooling_grid import grid_cells
    from bertviz_core.measures.task_measures import DEFAULT_STRATEGIES, probe_plan

    texts, labels = _news()
    news_id, labels_id, plan = corpus_digest(texts), corpus_digest(tuple(labels)), probe_plan(labels)
    cells = grid_cells(DEFAULT_STRATEGIES, range(info.num_layers + 1), info.num_layers)
    return [lambda cell=cell: probe_cell(key, news_id, labels_id, cell, embed_corpus(key, texts), labels, plan)
            for row in cells for cell in row]


def _reference() -> tuple[tuple[str, ...], str]:
    from bertviz_core.corpora import reference_corpus

    reference = reference_corpus()
    return reference, corpus_digest(reference)


def _default_pair(key: Key, info: ModelInfo) -> object:
    """Why similar's default attribution and MaxSim pairs."""
    from bertviz_core.measures.attribution import DEFAULT_STEPS, default_at_layer
    from bertviz_core.views.token_pairs import DEFAULT_PAIR
    from ui.results import model_of
    from ui.page_parts.why_similar import attribution, maxsim

    layer = info.num_layers
    maxsim(key, model_of(key), *DEFAULT_PAIR, layer, False)
    return attribution(key, *DEFAULT_PAIR, "mean", layer, default_at_layer(layer), DEFAULT_STEPS, "[PAD]", False,
                       report=between_batches)


def _tutorial() -> tuple[str, ...]:
    from bertviz_core.corpora import TUTORIAL

    return (TUTORIAL,)


def _first_preset() -> tuple[str, ...]:
    from bertviz_core.corpora import word_presets

    return tuple(next(iter(word_presets().values())).texts)


WARM_STEPS: dict[str, Steps] = {  # name -> (model key, info) -> the calls that fill the caches, in running order
    "news corpus pooled": lambda key, info: [lambda: embed_corpus(key, _news()[0], _pausing(_news()[0]))],
    "pooling grid": _pooling_grid,
    "tutorial sentence encoded": lambda key, info: [lambda: encode_texts(key, _tutorial())],
    "first word preset encoded": lambda key, info: [lambda: encode_texts(key, _first_preset())],
    "reference corpus indexed": lambda key, info: [lambda: token_index(
        key, _reference()[1], _reference()[0], _pausing(_reference()[0]))],
    "reference corpus pooled": lambda key, info: [lambda: embed_corpus(key, _reference()[0],
                                                                      _pausing(_reference()[0]))],
    "tutorial sentence pooled": lambda key, info: [lambda: embed_corpus(key, _tutorial())],
    "reference corpus contextuality": lambda key, info: [lambda: corpus_contextuality(
        key, _reference()[1], token_index(key, _reference()[1], _reference()[0]))],
    "probe grid": _probe_grid,
    "default pair attributed": lambda key, info: [lambda: _default_pair(key, info)],
}


@contextmanager
def _visitor_at_work() -> Iterator[None]:
    """Counts a page's or a fragment's run as running until it ends, for ``wait_for_quiet``."""
    with _visitor_lock:
        _visitor_runs["count"] += 1
    try:
        yield
    finally:
        with _visitor_lock:
            _visitor_runs["count"] -= 1
            _visitor_runs["last_end"] = time.monotonic()


@contextmanager
def page_running() -> Iterator[None]:
    """Around each page's run (app.py), so that the warm-up yields to visitors, with the settings of the page's link
    it did not use said above it (``ui.picker.link_notice_above``)."""
    with _visitor_at_work(), link_notice_above():
        yield


def fragment(draw: Callable[P, R]) -> Callable[P, R]:
    """``st.fragment`` whose reruns count as a page running (``page_running``): they do not run app.py, yet they are
    a visitor at work, whom the warm-up waits for (docs/performance.md, "A fragment's rerun is a visitor too")."""
    @functools.wraps(draw)
    def counted(*args: P.args, **kwargs: P.kwargs) -> R:
        with _visitor_at_work():
            return draw(*args, **kwargs)

    return st.fragment(counted)


def wait_for_quiet(unless: Callable[[], bool] = lambda: False) -> None:
    """Return once no page is running and none has ended for QUIET_S seconds, or at once when ``unless()``
    holds (checked as often)."""
    while True:
        with _visitor_lock:
            idle = _visitor_runs["count"] == 0 and time.monotonic() - _visitor_runs["last_end"] >= QUIET_S
        if idle or unless():
            return
        time.sleep(0.05)


def between_batches(done: int, total: int) -> None:
    """The warm-up's progress report inside a step's model run in this process: it waits for quiet there too,
    except after the last batch and while a page waits for the result the step computes (pausing would keep that
    page waiting)."""
    if done < total:
        wait_for_quiet(unless=result_store().awaited)


def _pausing(texts: tuple[str, ...]) -> Progress | None:
    """``between_batches`` for a corpus run in this process; none for one the worker process runs (``offload``):
    its reports come while the worker's lock is held, which a visitor's large upload may be waiting for."""
    return None if offloaded(texts) else between_batches


def warm_steps() -> list[str]:
    """The names of the steps the pages declare, in running order, each once."""
    wanted = {name for entry in PAGES for name in entry.warm_up}
    return [name for name in WARM_STEPS if name in wanted]


def prime_thread_pools(encoder: Encoder) -> None:
    """Start the tokenizer's thread pool in the calling thread. The Rust library starts it, once per process, with
    the first batch tokenized, and a thread keeps the priority it was born with: born in the warm-up's thread at
    nice 19 (``at_low_priority``), that pool would tokenize every visitor's batches at the lowest priority. (So the
    warm-up's own tokenizing runs on it at normal priority, as its BLAS calls run on the BLAS libraries' threads,
    started when numpy and scipy were imported.)"""
    encoder.tokenizer(["thread", "pools"], padding=True)


def freeze_long_lived() -> None:
    """Once a model is loaded: keep what lives as long as the server (the libraries imported, the model, about
    500,000 objects) out of the garbage collector's full collections, each of which scanned them again holding
    the interpreter for 0.2-0.3 s (docs/performance.md, "The class server"). Garbage is collected first, so that
    no unreachable cycle is frozen (a frozen one is never freed); frozen objects are still freed by reference
    counting. What a page running at this instant holds is frozen with the rest: cycles among it (a plotly
    figure is one) stay after that run, once per model loaded by this thread. That first collection is itself a
    full one, 0.2-0.3 s holding the interpreter once, in the background after the first page."""
    gc.collect()
    gc.freeze()


def load(model: str, device: str) -> ModelInfo | None:
    """The preload: the model loaded, the tokenizer's pool started here, what lives as long as the server frozen;
    the model's facts, or None when it cannot load (the page that asked for it says why)."""
    try:
        encoder = get_encoder(model, device)
    except ValueError:
        return None
    prime_thread_pools(encoder)
    freeze_long_lived()
    return encoder.info


def warm_up(model: str, device: str) -> None:
    """Load the model, then run every step the pages declare (``warm_steps``). A page asking for a result
    meanwhile waits for it rather than computing it twice."""
    from bertviz_core.model.encoder import record

    key = (model, device)
    info = load(*key)
    if info is None:
        return
    steps = [call for name in warm_steps() for call in WARM_STEPS[name](key, info)]

    def run_steps(report: object) -> None:
        for step in steps:
            wait_for_quiet()
            step()

    at_low_priority(run_steps)  # a visitor's page wins the two cores (the model itself loaded at normal priority)
    record("warm-up done")


@st.cache_resource(show_spinner=False, max_entries=4)
def preload_encoder(model: str, device: str) -> threading.Thread:
    """Start loading (model, device) in a background thread, once per server, then ``warm_up`` its default
    views: called after a page is drawn, so the first page that runs the model usually finds it loaded and
    its default numbers computed."""
    warm = os.environ.get("BERTVIZ_WARM_UP", "1") != "0"  # the tests turn it off: its model runs would count as theirs
    thread = threading.Thread(target=warm_up if warm else load, args=(model, device), name="preload-encoder",
                              daemon=True)
    thread.start()
    return thread
