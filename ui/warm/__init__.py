"""The background warm-up: after the model loads, the default views of every page are computed into the caches
those pages read, so a first visit finds its numbers ready.

Each page declares what its default view needs by naming steps of ``WARM_STEPS`` (``ui.warm.steps``) in its
registry entry (``page_registry.PageEntry.warm_up``); a new page that shows the same defaults as another names the
same steps and never edits this module. The steps run in ``WARM_STEPS`` order, each only once, in a worker process
of their own (``offload.Offload(pausable=True)``) at the idle priority, whose results are handed to the pages'
caches (``ui.results.handing``). The worker is stopped where it stands (SIGSTOP) the moment a visitor's page or
fragment starts, and continued once they have been quiet for ``QUIET_S``: in a thread of the server, the step
begun in the quiet second before a change ran on into it, and its Python held the interpreter's lock from the
visitor's page (docs/performance.md, "The warm-up in a process of its own").
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
from bertviz_core.runtime.offload import Offload
from bertviz_core.views.page_registry import PAGES
from ui.picker import get_encoder, link_notice_above
from ui.results import at_low_priority, handing, worker_model
from ui.warm.steps import WARM_STEPS, WarmCall

if TYPE_CHECKING:  # imported where used: transformers would add seconds to the first page
    from bertviz_core.model.encoder import Encoder

QUIET_S = 1.0  # the warm-up's worker runs only when no page has run for this long
_visitor_runs = {"count": 0, "last_end": 0.0}
_visitor_lock = threading.Lock()
_warming: list[Offload] = []  # the workers of the warm-ups running now (one per model), paused by visitors

P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def _visitor_at_work() -> Iterator[None]:
    """Counts a page's or a fragment's run as running until it ends, for ``wait_for_quiet``; the warm-up's
    workers stop at once."""
    with _visitor_lock:
        _visitor_runs["count"] += 1
        for worker in _warming:
            worker.pause()
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


def _quiet() -> bool:
    """No page is running and none has ended for QUIET_S seconds (called holding ``_visitor_lock``)."""
    return _visitor_runs["count"] == 0 and time.monotonic() - _visitor_runs["last_end"] >= QUIET_S


def wait_for_quiet() -> None:
    """Return once no page is running and none has ended for QUIET_S seconds."""
    while True:
        with _visitor_lock:
            if _quiet():
                return
        time.sleep(0.05)


def _resume_when_quiet(worker: Offload, done: threading.Event) -> None:
    """Until ``done``: continue the paused ``worker`` whenever visitors are quiet (checked every 50 ms)."""
    while not done.wait(0.05):
        with _visitor_lock:  # a page starting now pauses it after this, not before
            if _quiet():
                worker.resume()


def _run_in(worker: Offload, key: tuple[str, str], call: WarmCall) -> None:
    """``call``'s job in the worker, its result kept by the page's own call (``handing``); a job that fails
    leaves its view to be computed by the page, as without the warm-up."""
    from bertviz_core.model.encoder import record

    try:
        value = worker.run(call.job, worker_model(key), key[1], call.texts, extra=call.extra)
    except (ValueError, RuntimeError) as err:
        record(f"warm-up job {call.job} failed: {err}")
        return
    wait_for_quiet()
    with handing(call.into, value):
        call.keep()


def warm_steps() -> list[str]:
    """The names of the steps the pages declare, in running order, each once."""
    wanted = {name for entry in PAGES for name in entry.warm_up}
    return [name for name in WARM_STEPS if name in wanted]


def prime_thread_pools(encoder: Encoder) -> None:
    """Start the tokenizer's thread pool in the calling thread. The Rust library starts it, once per process, with
    the first batch tokenized, and a thread keeps the priority it was born with: born in the warm-up's keeping
    thread at nice 19 (``at_low_priority``; it tokenizes when a view it keeps is missing something, such as a
    pooled corpus the store dropped), that pool would tokenize every visitor's batches at the lowest priority."""
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
    """Load the model, then run every call of every step the pages declare (``warm_steps``) in a pausable
    worker process, each result kept where its page reads it; the worker ends with the warm-up."""
    from bertviz_core.model.encoder import record

    key = (model, device)
    info = load(*key)
    if info is None:
        return
    calls = [call for name in warm_steps() for call in WARM_STEPS[name](key, info)]
    worker, done = Offload(pausable=True, idle_seconds=3600.0), threading.Event()  # busy visitors may hold it long
    resumer = threading.Thread(target=_resume_when_quiet, args=(worker, done), name="warm-up-resumer", daemon=True)
    with _visitor_lock:
        _warming.append(worker)

    def run_calls(report: object) -> None:
        for call in calls:
            _run_in(worker, key, call)

    wait_for_quiet()  # the worker starts (an interpreter, torch, the model: seconds) once visitors are quiet
    resumer.start()
    try:  # the keeping, in this thread, at the lowest priority (a page's cached call computes on a miss)
        at_low_priority(run_calls)
    finally:
        with _visitor_lock:
            _warming.remove(worker)
        done.set()
        worker.stop()
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
