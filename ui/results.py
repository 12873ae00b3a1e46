"""Results shared by every session: the byte-bounded store, and the model runs that fill it.

Encodings, attention weights and summaries, pooled corpora and token indexes are kept once per (model
identity, content) in ``result_store`` (``bertviz_core.runtime.store.ByteBoundedStore``). A large corpus is encoded
in the worker process of ``bertviz_core.runtime.offload``, so that it does not slow other visitors' pages.
"""
from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
from collections.abc import Callable, Hashable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import numpy as np
import streamlit as st

from bertviz_core.runtime.jobs import JOBS
from bertviz_core.runtime.offload import Offload
from bertviz_core.runtime.worker import Cancelled
from bertviz_core.model.models import BUNDLED_MODEL
from bertviz_core.runtime.store import ByteBoundedStore, cache_budget, spill_budget
from bertviz_core.runtime.store import digest as corpus_digest

from ui.picker import get_encoder

if TYPE_CHECKING:  # imported where used: scikit-learn and plotly would add most of a second to the first page
    from bertviz_core.measures.attention import AttentionSummary
    from bertviz_core.model.encoding import Encoding, ModelInput
    from bertviz_core.model.token_index import TokenIndex

T = TypeVar("T")
P = ParamSpec("P")
_HANDED: ContextVar[tuple[str, Any] | None] = ContextVar("handed", default=None)


def _name(function: Callable[..., Any]) -> str:
    return f"{function.__module__}.{function.__qualname__}"


@contextlib.contextmanager
def handing(into: Callable[..., Any], value: Any) -> Iterator[None]:
    """Within it, the first call of ``into`` in this thread takes ``value``, and keeps it as its result if it misses
    its cache, instead of computing one: ``shared`` (for the store), or a cached function declared ``@takes_handed``
    (which is called only on a miss). How the background warm-up's worker process hands its results to the caches
    pages read (``ui.warm``); the calls made for ``into``'s arguments compute as they always do."""
    token = _HANDED.set((_name(into), value))
    try:
        yield
    finally:
        _HANDED.reset(token)


def _taken(into: Callable[..., Any]) -> tuple[bool, Any]:
    """Whether a value is handed to ``into`` now (``handing``), and that value, which no other call then takes."""
    handed = _HANDED.get()
    if handed is None or handed[0] != _name(into):
        return False, None
    _HANDED.set(None)
    return True, handed[1]


def takes_handed(compute: Callable[P, T]) -> Callable[P, T]:
    """``compute``, or within ``handing(it, value)`` that value: under ``st.cache_data``, so the value is cached
    as the call's result, keyed by the call's arguments."""
    @functools.wraps(compute)
    def computed(*args: P.args, **kwargs: P.kwargs) -> T:
        taken, value = _taken(computed)
        return value if taken else compute(*args, **kwargs)

    return computed


@st.cache_resource
def result_store() -> ByteBoundedStore:
    """Pooled corpora, encodings and token indexes of every session (see ``store.ByteBoundedStore``)."""
    return ByteBoundedStore(cache_budget(), spill_budget())


def model_of(key: tuple[str, str]) -> tuple[str, str]:
    """What stored results are keyed by for the model picked as ``key``: its identity (the content of its files,
    or its hub revision, and the library versions; ``identity.model_identity``) and the device, not its label."""
    encoder = get_encoder(*key)
    return encoder.info.identity, encoder.info.device


def shared(entry: Hashable, compute: Callable[[], Any]) -> Any:
    """``entry``'s result from the store every session shares, computed on a miss (``get_or_compute``), or
    within ``handing(shared, value)`` that value kept."""
    taken, value = _taken(shared)
    return result_store().get_or_compute(entry, (lambda: value) if taken else compute)


def encode_texts(key: tuple[str, str], texts: tuple[str, ...],
                 text_pairs: tuple[str, ...] | None = None) -> list[Encoding]:
    """``Encoder.encode`` through the shared store: the model runs once per (model, texts, pairs)."""
    def run() -> list[Encoding]:
        with st.spinner("Running the model…"):
            return get_encoder(*key).encode(list(texts), None if text_pairs is None else list(text_pairs))

    pairs_id = None if text_pairs is None else corpus_digest(text_pairs)
    return shared(("encode", model_of(key), corpus_digest(texts), pairs_id), run)


def attention_weights(key: tuple[str, str], text: str, text_pair: str | None) -> np.ndarray:
    """``Encoder.attentions`` of one text (or pair) through the shared store: (layers, heads, tokens, tokens)."""
    def run() -> list[np.ndarray]:
        with st.spinner("Running the model with eager attention…"):
            return get_encoder(*key).attentions([text], None if text_pair is None else [text_pair])

    return shared(("attention", model_of(key), corpus_digest((text, text_pair or "")), text_pair is None), run)[0]


@st.cache_data(max_entries=64, show_spinner=False)
def model_input(key: tuple[str, str], text: str, text_pair: str | None) -> ModelInput:
    """Cached ``Encoder.inputs`` of one text (or pair): its tokens, segments and what truncation dropped."""
    return get_encoder(*key).inputs([text], None if text_pair is None else [text_pair])[0]


def attention_summary(key: tuple[str, str], text: str, text_pair: str | None,
                      weights: np.ndarray) -> AttentionSummary:
    """``attention.summarize`` through the shared store: head statistics, rollout and thumbnails of one text's
    weights. In the store, not in a ``st.cache_data`` of 32 entries, as its rollout (13 MB on 512 tokens) counts
    in the byte budget: 32 of them held 400 MB beside it."""
    def run() -> AttentionSummary:
        from bertviz_core.measures.attention import summarize, token_roles

        with st.spinner("Measuring the heads…"):
            tokenizer = get_encoder(*key).tokenizer
            roles = token_roles(model_input(key, text, text_pair).tokens, tokenizer.cls_token, tokenizer.sep_token)
            return summarize(weights, roles)

    return shared(("attention summary", model_of(key), corpus_digest((text, text_pair or "")), text_pair is None), run)


LARGE_CORPUS = 500  # texts from which a corpus is encoded in the low-priority worker process (``offload``)
Progress = Callable[[int, int], None]


def _lowest_priority() -> None:
    """The calling thread at nice 19, else as it is (a sandbox may refuse it; the work runs all the same). Not
    Linux's idle policy, as the worker process has: a thread of the server holds the interpreter's lock between
    its steps, and under that policy it would wait five times longer for a core while another process (a class
    server's) keeps both busy, and it gained nothing measurable (docs/performance.md, "The garbage collector, the
    warm-up under the idle policy"). Elsewhere a thread id is no process id: left as it is."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


def at_low_priority(run: Callable[[Progress], T], progress: Progress | None = None) -> T:
    """``run(report)`` in a fresh thread at the lowest CPU priority, waited for; its result or its exception
    (the warm-up's keeping of its worker's results, ``ui.warm``; a large corpus goes to ``offload``'s process).
    Torch's worker threads for the model runs are started by that thread and inherit its priority (a thread
    cannot raise its own again without privileges, hence the fresh one).

    ``run`` calls ``report(done, total)`` as it goes; this thread, the page's, hands each new report to
    ``progress`` (a progress bar). Streamlit stops or reruns a page only in its own thread, at such a call: then
    ``report`` raises ``Cancelled`` in ``run`` at its next call, so a closed tab or a changed setting still
    stops the work within one step."""
    outcome: dict[str, Any] = {}
    latest: list[tuple[int, int]] = []
    cancel = threading.Event()

    def report(done: int, total: int) -> None:
        if cancel.is_set():
            raise Cancelled
        latest.append((done, total))

    def body() -> None:
        try:
            _lowest_priority()
            outcome["value"] = run(report)
        except BaseException as err:  # noqa: BLE001 - handed to the page's thread, which raises it
            outcome["error"] = err

    worker = threading.Thread(target=body, name="low-priority", daemon=True)
    worker.start()
    shown = 0
    try:
        while worker.is_alive():
            worker.join(0.1)
            if progress is not None and len(latest) > shown:
                shown = len(latest)
                progress(*latest[-1])
    except BaseException:
        cancel.set()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@st.cache_resource(show_spinner=False)
def offload() -> Offload:
    """The server's one worker process for model runs over large corpora (``offload.Offload``)."""
    return Offload()


def offloaded(texts: tuple[str, ...]) -> bool:
    """Whether the shared store computes a corpus of ``texts`` in the worker process (``offload``), not here."""
    return len(texts) >= LARGE_CORPUS


def worker_model(key: tuple[str, str]) -> str | None:
    """The model of ``key`` as a worker process loads it (``offload.Offload.run``): None for the bundled one."""
    return None if key[0] == BUNDLED_MODEL else key[0]


def _sized(key: tuple[str, str], job: str, texts: tuple[str, ...], progress: Progress | None) -> Callable[[], Any]:
    """``offload.JOBS[job]`` over ``texts`` as the shared store computes it: for a large corpus in the worker
    process at the lowest priority, so that other visitors' pages keep the cores and the interpreter (the
    fairness goal of bench-load), results over the store's budget coming back memory-mapped; else here."""
    if offloaded(texts):
        return lambda: offload().run(job, worker_model(key), key[1], texts, progress, in_memory_up_to=result_store().budget)
    return lambda: JOBS[job](get_encoder(*key), texts, progress)


def embed_corpus(key: tuple[str, str], texts: tuple[str, ...],
                 progress: Callable[[int, int], None] | None = None) -> dict[str, np.ndarray]:
    """Pooled vectors of a corpus, {strategy: (n, layers, hidden)}, computed once and shared read-only.

    Not an st.cache_* function: the model run reports progress to the page, which a cached
    function may not do, and a hit returns the arrays themselves, without a copy.
    """
    return shared(("embed", model_of(key), corpus_digest(texts)),
                   _sized(key, "embed", texts, progress))


def token_index(key: tuple[str, str], corpus_id: str, texts: tuple[str, ...],
                progress: Callable[[int, int], None] | None = None) -> TokenIndex:
    """``Encoder.token_index`` of a corpus (``corpus_id`` its digest), built once per (model, corpus) and
    shared read-only by every session, within the shared store's byte budget."""
    return shared(("token index", model_of(key), corpus_id), _sized(key, "token index", texts, progress))
