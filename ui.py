"""Streamlit glue shared by every page: the model picker, cached core calls, the teaching panel.

The core (bertviz_core) never imports Streamlit; this module is the only bridge. One Encoder
per (model, device) lives in ``st.cache_resource`` and serves every browser session; results
are cached with bounded ``st.cache_data`` as numpy arrays and pandas frames.
"""
from __future__ import annotations

import io
import os
import re
import sys
import threading
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlencode

import cachetools
import numpy as np
import pandas as pd
import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from bertviz_core.lengths import Lengths
from bertviz_core.models import BUNDLED_MODEL, KNOWN_HUB_MODELS, ModelInfo, available_devices, describe
from bertviz_core.store import ByteBoundedStore, cache_budget, spill_budget
from bertviz_core.store import digest as corpus_digest
from bertviz_core.word_vectors import Occurrence, occurrences

import ui_present

if TYPE_CHECKING:  # imported where used: scikit-learn and plotly would add most of a second to the first page
    from bertviz_core.attention import AttentionSummary
    from bertviz_core.comparison import Comparison
    from bertviz_core.encoder import Encoder
    from bertviz_core.encoding import Encoding, ModelInput
    from bertviz_core.masked import MaskLens, Masks
    from bertviz_core.neighbours import Contextuality
    from bertviz_core.token_index import TokenIndex
    from bertviz_core.pooling_grid import Cell, CellResult, SeparationScores
    from bertviz_core.task_measures import ProbePlan, ProbeScore

T = TypeVar("T")
CUSTOM = "Custom id or path…"
ACTIVE = "_active_model"  # session key: the (model, device) this session uses, checked when chosen
FAILED_NOTE = "_failed_model_note"  # session key: a failed model's message, shown once after the picker snaps back
FAILURE_MEMORY_S = 600  # a model that failed to load is not tried again for this long, by any session
_FAILURES_LOCK = threading.Lock()  # cachetools' caches are not thread-safe
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
# GFM turns bare URLs, www. names and e-mail addresses into links, escaped or not. An invisible word
# joiner (U+2060) where the autolink rule looks breaks it; the text still reads the same.
_AUTOLINK = re.compile(r"(?i)(?<=:)(?=//)|(?<=w)(?=ww\.)|(?=@)")


def literal(text: str) -> str:
    """Escape Markdown so user text inside a message shows as typed, never rendered: no formatting, no links."""
    return _MARKDOWN.sub(r"\\\1", _AUTOLINK.sub("\u2060", text))


@st.cache_resource(show_spinner="Loading the model (the first time takes a few seconds)…", max_entries=4)
def get_encoder(model: str, device: str) -> Encoder:
    """One shared Encoder per (model, device). Failures raise and are not cached."""
    from bertviz_core.encoder import load_encoder

    return load_encoder(None if model == BUNDLED_MODEL else model, device=device)


@st.cache_data(show_spinner=False, max_entries=16)
def model_info(model: str, device: str) -> ModelInfo:
    """A model's facts: read from its files when it is local, so the app opens without importing
    transformers (seconds); a hub model is loaded to learn them."""
    info = describe(None if model == BUNDLED_MODEL else model, device)
    return info if info is not None else get_encoder(model, device).info


def ensure_app_navigation() -> None:
    """Call first on every page: make sure app.py's st.navigation (and its sidebar) serves it.

    Streamlit treats a folder named pages/ beside the entry point as a legacy multipage app until
    st.navigation first runs. When a server's first visitor opens a deep link (/tokenization), the
    page file would run alone, without app.py, and the legacy mode would stick for the whole
    process. Leave that mode and rerun, so app.py serves the same URL.
    """
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def allowed_models() -> list[str] | None:
    """The models this server may load, from BERTVIZ_MODELS (comma-separated ids or paths); None = any."""
    listed = [m.strip() for m in os.environ.get("BERTVIZ_MODELS", "").split(",") if m.strip()]
    return listed or None


def model_choices(allowed: list[str] | None) -> list[str]:
    """The model picker's listed choices: the bundled model, then the known hub models or the allowlist."""
    return [BUNDLED_MODEL, *(KNOWN_HUB_MODELS if allowed is None else allowed)]


@st.cache_resource
def failed_models() -> cachetools.TTLCache:
    """{(model, device): its error message} for loads that failed, shared by every session and forgotten
    after ``FAILURE_MEMORY_S``: a model that cannot load (an unreachable hub) is not tried on every rerun."""
    return cachetools.TTLCache(maxsize=256, ttl=FAILURE_MEMORY_S)


def _load_or_remember_failure(wanted: tuple[str, str]) -> None:
    """Load (or, for the bundled model, read the facts of) ``wanted``; ValueError, remembered, if it fails."""
    remembered = remembered_failure(wanted)
    if remembered is not None:
        raise ValueError(f"{remembered} (Not tried again for {FAILURE_MEMORY_S // 60} minutes after a failure.)")
    try:
        if wanted[0] == BUNDLED_MODEL:
            model_info(*wanted)  # its files are read now; the weights load on first use
        else:
            get_encoder(*wanted)  # loaded now, so a model that fails never becomes active
    except ValueError as err:
        with _FAILURES_LOCK:
            failed_models()[wanted] = str(err)
        raise


def remembered_failure(wanted: tuple[str, str]) -> str | None:
    """Why (model, device) failed to load, while ``failed_models`` remembers it; None when it has not failed."""
    with _FAILURES_LOCK:
        return failed_models().get(wanted)


def show_in_picker(model: str, choices: list[str]) -> None:
    """Set the model picker (before it is drawn) to ``model``: a listed choice, or a custom id or path."""
    if model in choices:
        st.session_state["model"] = model
    else:
        st.session_state["model"], st.session_state["custom_model"] = CUSTOM, model


def model_sidebar() -> None:
    """Model and device pickers with the loaded model's facts. A failed load keeps the last good model
    and puts the picker (and so the URL) back on it, with the failure's message."""
    side = st.sidebar
    side.header("Model")
    allowed = allowed_models()
    choices = model_choices(allowed)
    failure = st.session_state.pop(FAILED_NOTE, None)
    if failure is not None:
        show_in_picker(model_key()[0], choices)
    choice = side.selectbox("Model", list(dict.fromkeys([*choices, CUSTOM])), key="model", bind="query-params",
                            help="The bundled model works offline. Hub models download on first use.")
    model = choice
    if choice == CUSTOM:
        model = side.text_input("Hub id or local folder", key="custom_model", bind="query-params",
                                placeholder="e.g. prajjwal1/bert-tiny or /models/my-bert").strip()
    device = side.selectbox("Device", available_devices(), key="device", bind="query-params",
                            help="auto = CUDA if present, then Apple MPS, then CPU.")
    wanted = (model or BUNDLED_MODEL, device)
    if allowed is not None and wanted[0] not in choices:
        side.error(f"This server only loads the models its operator listed in BERTVIZ_MODELS: "
                   f"{literal(', '.join(choices))}. Custom ids and paths are turned off here.", icon="🔒")
        wanted = st.session_state.get(ACTIVE, (BUNDLED_MODEL, device))
    if failure is not None:
        side.error(literal(failure), icon="⚠️")
        side.caption(f"Still using **{literal(model_key()[0])}**.")
    elif wanted != st.session_state.get(ACTIVE):
        try:
            with side, st.spinner(f"Loading {wanted[0]}…"):
                _load_or_remember_failure(wanted)
            st.session_state[ACTIVE] = wanted
        except ValueError as err:
            st.session_state.setdefault(ACTIVE, (BUNDLED_MODEL, "auto"))
            st.session_state[FAILED_NOTE] = str(err)
            st.rerun()  # draw the picker again, back on the model in use
    info = active_info()
    side.markdown(
        f"**{literal(info.name)}**  \n"
        f"{info.num_layers} layer{'s' if info.num_layers != 1 else ''} · hidden {info.hidden_size} · vocab {info.vocab_size:,}  \n"
        f"max {info.max_length} tokens · device `{info.device}` · pooler {'yes' if info.has_pooler else 'no'} · "
        f"MLM head {'yes' if info.has_mlm_head else 'no'}"
    )
    side.header("View")
    side.toggle("Presentation mode", key=PRESENT, bind="query-params",
                help="For a projector: larger text, no code panels or downloads, the sidebar folded away. "
                     "It is in the link, so a prepared link opens in it.")
    side.radio("Charts' camera button saves", PICTURE_FORMATS, horizontal=True, key="picture_format",
               bind="query-params", format_func=str.upper,
               help="At the chart's own size, with its title: SVG for slides that scale, PNG for anything else.")


def encoder() -> Encoder:
    """The Encoder of this session's active model, loaded on first use."""
    return get_encoder(*model_key())


def active_info() -> ModelInfo:
    """The facts of this session's active model, without loading it when it is local."""
    return model_info(*model_key())


def model_key() -> tuple[str, str]:
    """Hashable identity of the active model, for keying cached results."""
    return st.session_state.get(ACTIVE, (BUNDLED_MODEL, "auto"))


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
    """``entry``'s result from the store every session shares, computed on a miss (``get_or_compute``)."""
    return result_store().get_or_compute(entry, compute)


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
        from bertviz_core.attention import summarize, token_roles

        with st.spinner("Measuring the heads…"):
            tokenizer = get_encoder(*key).tokenizer
            roles = token_roles(model_input(key, text, text_pair).tokens, tokenizer.cls_token, tokenizer.sep_token)
            return summarize(weights, roles)

    return shared(("attention summary", model_of(key), corpus_digest((text, text_pair or "")), text_pair is None), run)


@st.cache_data(max_entries=4, show_spinner=False)
def vocabulary(key: tuple[str, str]) -> pd.DataFrame:
    """Cached ``vocab.vocabulary_table`` of the model's tokenizer: id, token, kind."""
    from bertviz_core.vocab import vocabulary_table

    return vocabulary_table(get_encoder(*key).tokenizer)


@st.cache_data(max_entries=64, show_spinner=False)
def masks(key: tuple[str, str], text: str) -> Masks:
    """Cached ``masked.masks``: where a text's masks are, or ValueError saying what to change."""
    from bertviz_core.masked import masks as find

    return find(get_encoder(*key), text)


@st.cache_data(max_entries=32, show_spinner="Loading the masked-language-model head and running the model…")
def masked_lens(key: tuple[str, str], text: str, hidden_ids: tuple[int | None, ...]) -> list[MaskLens]:
    """Cached ``masked.logit_lens`` at its largest k, so a smaller k or another layer is read from it."""
    from bertviz_core.masked import MAX_TOP_K, logit_lens

    return logit_lens(get_encoder(*key), text, MAX_TOP_K, hidden_ids)


def or_stop(compute: Callable[[], T], icon: str = "✋") -> T:
    """``compute()``; when it raises ValueError, the message as an error, and the page stops there."""
    try:
        return compute()
    except ValueError as err:
        st.error(literal(str(err)), icon=icon)
        st.stop()


def int_slider(label: str, low: int, high: int, value: int, key: str, container: Any = None, **options: Any) -> int:
    """An integer slider whose ends come from the model's facts (its layers, heads, tokens). Streamlit refuses a
    slider whose ends meet, so a range of one value (a one-layer model's layers) is stated as text, not drawn;
    the default is held inside the range. ``options`` go to ``st.slider``.

    A default at the low end is passed as None (Streamlit's own default, the same value): a slider that a
    callback sets (Attention's click on a head) would otherwise log Streamlit's warning about a widget given
    both a default and a Session State value."""
    where = container or st
    if high <= low:
        where.markdown(f"{literal(label)}: **{low}**, the only one this model has")
        return low
    default = min(max(value, low), high)
    return int(where.slider(label, low, high, None if default == low else default, key=key, **options))


LARGE_CORPUS = 500  # texts from which a corpus is encoded at the lowest CPU priority, so other visitors stay quick


class Cancelled(Exception):
    """Raised in a low-priority run at its next progress report once its page has stopped or rerun."""


Progress = Callable[[int, int], None]


def at_low_priority(run: Callable[[Progress], T], progress: Progress | None = None) -> T:
    """``run(report)`` in a fresh thread at the lowest CPU priority, waited for; its result or its exception.
    Torch's worker threads for the model runs are started by that thread and inherit its priority (a thread
    cannot raise its own again without privileges, hence the fresh one), so while it runs another visitor's
    small interaction wins the cores: the fairness goal of bench-load.

    ``run`` calls ``report(done, total)`` as it goes; this thread, the page's, hands each new report to
    ``progress`` (a progress bar). Streamlit stops or reruns a page only in its own thread, at such a call: then
    ``report`` raises ``Cancelled`` in ``run`` at its next call, so a closed tab or a changed setting still
    stops the work within one batch."""
    outcome: dict[str, Any] = {}
    latest: list[tuple[int, int]] = []
    cancel = threading.Event()

    def report(done: int, total: int) -> None:
        if cancel.is_set():
            raise Cancelled
        latest.append((done, total))

    def body() -> None:
        if sys.platform.startswith("linux"):  # elsewhere a thread id is no process id: left as it is
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
        try:
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


def _sized(texts: tuple[str, ...], run: Callable[[Progress | None], T],
           progress: Progress | None) -> Callable[[], T]:
    """``run`` as the shared store computes it: at the lowest priority when ``texts`` is a large corpus (see
    ``at_low_priority``), else here, reporting to ``progress``."""
    return (lambda: at_low_priority(run, progress)) if len(texts) >= LARGE_CORPUS else (lambda: run(progress))


def embed_corpus(key: tuple[str, str], texts: tuple[str, ...],
                 progress: Callable[[int, int], None] | None = None) -> dict[str, np.ndarray]:
    """Pooled vectors of a corpus, {strategy: (n, layers, hidden)}, computed once and shared read-only.

    Not an st.cache_* function: the model run reports progress to the page, which a cached
    function may not do, and a hit returns the arrays themselves, without a copy.
    """
    return shared(("embed", model_of(key), corpus_digest(texts)),
                   _sized(texts, lambda report: get_encoder(*key).embed(list(texts), progress=report), progress))


def token_index(key: tuple[str, str], corpus_id: str, texts: tuple[str, ...],
                progress: Callable[[int, int], None] | None = None) -> TokenIndex:
    """``Encoder.token_index`` of a corpus (``corpus_id`` its digest), built once per (model, corpus) and
    shared read-only by every session, within the shared store's byte budget."""
    from bertviz_core.token_index import token_index as build

    return shared(("token index", model_of(key), corpus_id),
                  _sized(texts, lambda report: build(get_encoder(*key), texts, report), progress))


@st.cache_data(max_entries=64, show_spinner=False)
def neighbour_summary(key: tuple[str, str], corpus_id: str, sentence: str, token: int, k: int, metric: str,
                      word: str, _index: TokenIndex) -> pd.DataFrame:
    """Cached ``neighbours.layer_summary`` of one token of ``sentence`` over the corpus ``corpus_id`` (the
    sentence itself left out of it)."""
    from bertviz_core.neighbours import layer_summary, own_sentences

    states = encode_texts(key, (sentence,))[0].hidden_states[:, token]
    return layer_summary(_index, states, word, k, metric, own_sentences(_index.texts, sentence))


@st.cache_data(max_entries=16, show_spinner="Measuring how contextual each layer is…")
def corpus_contextuality(key: tuple[str, str], corpus_id: str, _index: TokenIndex) -> Contextuality:
    """Cached ``neighbours.contextuality`` of the corpus ``corpus_id``."""
    from bertviz_core.neighbours import contextuality

    return contextuality(_index)


def with_progress(label: str, run: Callable[[Callable[[int, int], None]], T]) -> T:
    """``run(progress)`` with a progress bar that ``progress(done, total)`` moves, removed when it returns
    (on a cached result the bar never shows)."""
    bar = st.empty()
    result = run(lambda done, total: bar.progress(done / total, text=f"{label}: {done:,} of {total:,} texts"))
    bar.empty()
    return result


def word_occurrences(key: tuple[str, str], texts: tuple[str, ...], word: str, subword: str) -> list[Occurrence]:
    """Occurrences of ``word`` from the shared encodings: a new word or rule runs no model."""
    return _occurrences(key, corpus_digest(texts), word, subword, encode_texts(key, texts))


@st.cache_data(max_entries=64, show_spinner=False)
def _occurrences(key: tuple[str, str], texts_id: str, word: str, subword: str,
                 _encodings: list[Encoding]) -> list[Occurrence]:
    return occurrences(_encodings, word, subword)


@st.cache_data(max_entries=64, show_spinner=False)
def tokenize_text(key: tuple[str, str], text: str, text_pair: str | None, pad_to: int | None) -> pd.DataFrame:
    """Cached ``Encoder.tokenize``."""
    return get_encoder(*key).tokenize(text, text_pair, pad_to)


@st.cache_data(max_entries=16, show_spinner="Counting tokens…")
def corpus_lengths(key: tuple[str, str], corpus_id: str, _texts: tuple[str, ...]) -> Lengths:
    """``Encoder.lengths`` of a corpus (tokenizing only, no model run), keyed by its digest ``corpus_id``."""
    return Lengths.of(get_encoder(*key).lengths(list(_texts)))


def cut_warning(note: str | None) -> None:
    """Show what truncation cut (``lengths.cut_note``), when it cut something."""
    if note:
        st.warning(note, icon="✂️")


@st.cache_data(max_entries=16, show_spinner=False)
def parse_pairs(data: bytes) -> pd.DataFrame:
    """Cached ``corpora.read_pairs`` of an uploaded file's bytes."""
    from bertviz_core.corpora import read_pairs

    return read_pairs(data)


@st.cache_data(max_entries=512, show_spinner=False)
def pooling_cell(key: tuple[str, str], corpus_id: str, labels_id: str | None, cell: Cell,
                 _pooled: dict[str, np.ndarray], _labels: list[str] | None) -> CellResult:
    """Cached ``pooling_grid.score_cell`` of one (strategy, layer) of a pooled corpus.

    Keyed by content digests (``corpus_id``, ``labels_id``, None when unscored) computed once per run:
    hashing the vectors or labels on every call of a 20-panel grid would cost more than the lookup saves.
    """
    from bertviz_core.pooling_grid import cell_vectors, score_cell

    return score_cell(cell_vectors(_pooled, cell), _labels if labels_id else None)


@st.cache_data(max_entries=2048, show_spinner=False)
def probe_cell(key: tuple[str, str], corpus_id: str, labels_id: str, cell: Cell, _pooled: dict[str, np.ndarray],
               _labels: list[str], _plan: ProbePlan) -> ProbeScore:
    """Cached ``task_measures.probe`` of one (strategy, layer) of a pooled corpus, keyed as ``pooling_cell``."""
    from bertviz_core.pooling_grid import cell_vectors
    from bertviz_core.task_measures import probe

    return probe(cell_vectors(_pooled, cell), _labels, _plan)


@st.cache_data(max_entries=512, show_spinner=False)
def map_cell(key: tuple[str, str], corpus_id: str, cell: Cell, projection: str,
             _pooled: dict[str, np.ndarray]) -> tuple[np.ndarray, float]:
    """Cached ``projection.project`` of one cell: its (n, 2) map and trustworthiness."""
    from bertviz_core.pooling_grid import cell_vectors
    from bertviz_core.projection import project

    return project(projection, cell_vectors(_pooled, cell))


@st.cache_data(max_entries=64, show_spinner=False)
def correlation_scores(key: tuple[str, str], pairs_id: str, correction: str, cells: tuple[Cell, ...],
                       _first: dict[str, np.ndarray], _second: dict[str, np.ndarray],
                       _gold: tuple[float, ...], _reference_rows: list[int]) -> SeparationScores:
    """Cached Spearman correlations of every cell of scored pairs, judged on a bootstrap of the pairs
    (``task_measures.correlation_grid``)."""
    from bertviz_core.task_measures import correlation_grid

    return correlation_grid(cells, _first, _second, _gold, correction, _reference_rows)


def score_grid_view(scores: SeparationScores, measure: str, key: str, container: Any = None) -> None:
    """A score grid as a heatmap with its top cells boxed, layer-independent strategies as a table, and the
    verdict: the core's sentence when judged on replicates (folds or a bootstrap), else the best cell with its lead,
    or a tie (with the reason when there is one)."""
    import bertviz_core.figures as figures

    with container or st.container():
        if not scores.per_layer.empty:
            chart(figures.score_grid_figure(scores.per_layer, f"{measure} per strategy × layer",
                                            scores.top_positions()), key=key, container=container)
        if not scores.single.empty:
            table(scores.single.rename(measure).to_frame().reset_index(names="layer-independent strategy"),
                  key=f"{key}_single")
        top = scores.verdict
        if top is None:
            st.info(f"No {measure} could be computed for these cells.")
            return
        if top.sentence:  # judged on folds/bootstrap: the core's sentence, with count, interval and chance
            (st.success if top.clear else st.info)(
                top.sentence + ("" if top.clear else " " + (scores.tie_reason() or "")),
                icon="🏆" if top.clear else "🤝")
            return
        named = [f"{row} (one vector)" if col == "one vector" else f"{row} at {col}" for row, col in top.cells]
        if top.tie:
            st.info(f"**A tie** on {measure}, no single best: {literal(', '.join(named))} score within {top.margin} "
                    f"of each other ({top.value:.3f}); differences that small are not a reason to prefer one. "
                    + (scores.tie_reason() or ""), icon="🤝")
        else:
            ahead = f", {top.lead:.3f} ahead of the next cell" if top.lead == top.lead else ""
            st.success(f"Best {measure} on this corpus: **{literal(named[0])}** ({top.value:.3f}{ahead}).", icon="🏆")


STATIC_ROWS = 128  # tables up to this many rows are static; longer ones scroll in a data grid


def markdown_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy whose text cells and headers show as typed in an element that renders Markdown."""
    as_typed = lambda v: literal(v) if isinstance(v, str) else v  # noqa: E731
    safe = frame.copy()
    for column in frame.select_dtypes(include=["object", "string", "category"]).columns:
        values = frame[column]  # escaped in place, keeping the dtype: a column of ints and None stays one
        safe[column] = (values.cat.rename_categories(as_typed) if isinstance(values.dtype, pd.CategoricalDtype)
                        else pd.Series([as_typed(v) for v in values], index=values.index, dtype=values.dtype))
    return safe.rename(columns=as_typed)


def table(frame: pd.DataFrame, key: str, height: int = 600, row_css: pd.Series | None = None) -> None:
    """A table without its index, numbers to 3 decimals, text shown as typed, in a container keyed ``key`` (tests find it by
    that key); ``row_css`` (CSS per row, aligned with the frame's index) styles whole rows. Up to
    ``STATIC_ROWS`` rows it is static, which redraws at once when a setting changes (a scrolling data
    grid takes ~0.25 s more); longer ones scroll in a grid of ``height`` px."""
    static = len(frame) <= STATIC_ROWS
    styler = (markdown_safe(frame) if static else frame).style.format(precision=3)  # st.table renders Markdown
    if row_css is not None:
        styler = styler.apply(lambda row: [row_css[row.name]] * len(row), axis=1)
    with st.container(key=key):
        if static:
            st.table(styler, hide_index=True)
        else:
            st.dataframe(styler, hide_index=True, width="stretch", height=height)


MAX_LINK_VALUE = 2000  # characters of one setting in a shared link; longer texts stay out of it


def share_link() -> tuple[str, list[str]]:
    """A URL that reopens this page with its current settings, and the settings too long to carry."""
    params = [(name, value) for name in st.query_params for value in st.query_params.get_all(name)]
    too_long = sorted({name for name, value in params if len(value) > MAX_LINK_VALUE})
    query = urlencode([(name, value) for name, value in params if name not in too_long])
    base = st.context.url or ""
    return (f"{base}?{query}" if query else base), too_long


PRESENT = "present"  # query parameter: presentation mode, for a projector
PICTURE_FORMATS = ("png", "svg")


def presenting() -> bool:
    """Whether this view is in presentation mode (``?present=true``, so a prepared link opens in it)."""
    return bool(st.session_state.get(PRESENT)) or st.query_params.get(PRESENT) == "true"


def presentation_style() -> None:
    """Presentation mode's larger text (every size in Streamlit's CSS is relative to the root font), tables
    that scroll within the screen and multiselects that show all their tags (``ui_present.STYLE``); in both
    modes columns wrap rather than squeeze a picker's choice (``ui_present.COLUMNS_STYLE``)."""
    st.html(ui_present.COLUMNS_STYLE + (ui_present.STYLE if presenting() else ""))


def chart(figure: Any, key: str, container: Any = None, **options: Any) -> Any:
    """Draw a plotly figure. Its camera button saves the picture (PNG or SVG, as chosen in the sidebar) at
    the figure's own size with its title, so nothing is clipped. Long titles wrap and crowded tick labels
    stand upright; in presentation mode text is larger and the chart fits one screen (``ui_present``). In a
    column from ``ui_present.columns`` the title wraps to that column. ``options`` go to ``st.plotly_chart``."""
    layout = figure.layout
    shown = presenting()
    if shown:
        ui_present.present(figure)
    ui_present.wrap_title(figure, ui_present.title_chars(shown, container), ui_present.TITLE_PX + 4 if shown else 20)
    ui_present.level_ticks(figure)
    height, width = layout.height or 450, layout.width or 1100
    picture = st.session_state.get("picture_format", "png")
    config = {"toImageButtonOptions": {"format": picture, "filename": key, "height": height, "width": width,
                                       "scale": 2 if picture == "png" else 1}, "displaylogo": False}
    return (container or st).plotly_chart(figure, key=key, config=config, **options)


def scatter_grid(panels: list[Any], cols: int, labels: list[str] | None, texts: list[str], key: str,
                 csv_label: str, csv_name: str) -> None:
    """A grid of scatters (``figures.Panel``s, ``cols`` to a row) drawn on one canvas, and its points as a
    CSV (panel, text, label, x, y). The chart's toolbar saves it as PNG; in presentation mode text is larger."""
    import bertviz_core.figures as figures

    spec, data = figures.pca_grid_spec(panels, cols, labels, texts, font_px=17 if presenting() else 12,
                                       height_px=ui_present.GRID_PX if presenting() else None)
    with st.container(key=key):  # the chart itself carries no key on the page
        st.vega_lite_chart(spec=spec, key=f"{key}_chart", width="stretch")
    panel_names = data["title"].astype(str).str.replace("\n", " · ")  # one line per panel name
    download_csv(data.assign(panel=panel_names)[["panel", "text", "label", "x", "y"]], csv_label, csv_name, f"{key}_csv")


def teaching_panel(what: str, code: str) -> None:
    """'What you are looking at' (two lines), the plain transformers code, and a link to this view;
    in presentation mode only the two lines."""
    st.info(what, icon="🔎")
    if presenting():
        return
    with st.expander("Reproduce these numbers in a notebook, or share this view"):
        st.code(code, language="python")
        link, too_long = share_link()
        st.caption("Link that reopens this view with the same settings:")
        st.code(link, language=None)
        if too_long:
            st.caption(f"Left out of the link, being longer than {MAX_LINK_VALUE:,} characters: "
                       f"{', '.join(too_long)}. Whoever opens it sees the default text there; paste yours in.")


SENSES = "ws_senses"  # query parameter: the Word in context page's sense labels, "|"-separated


def shared_senses(count: int) -> list[str] | None:
    """The sense labels a shared link carries for ``count`` occurrences; None when it carries none (or a
    number of labels that does not fit these texts)."""
    labels = st.query_params.get(SENSES)
    found = labels.split("|") if labels else []
    return found if len(found) == count else None


def forget_shared_senses() -> None:
    """New texts or a new word: the link's sense labels were for other occurrences."""
    st.query_params.pop(SENSES, None)


def set_shared_senses(senses: list[str], defaults: list[str]) -> None:
    """Put edited sense labels in the page's link (and take them out when they are the defaults again)."""
    if senses == defaults:
        forget_shared_senses()
    else:
        st.query_params[SENSES] = "|".join(s.replace("|", "/") for s in senses)


def download_npy(array: np.ndarray, label: str, file_name: str, key: str) -> None:
    """A NumPy .npy download button for an array, written only when clicked; none in presentation mode."""
    if presenting():
        return
    # The button keeps its data for the session's life: a copy of just these rows, not a view that would keep
    # the whole shared array (counted in the store's budget) alive once the store has let it go.
    data = np.array(array, copy=True)

    def npy() -> bytes:
        buffer = io.BytesIO()
        np.save(buffer, data)
        return buffer.getvalue()

    st.download_button(label, npy, file_name=file_name, key=key, on_click="ignore")


def download_csv(frame: pd.DataFrame, label: str, file_name: str, key: str) -> None:
    """A CSV download button for the numbers behind a table or chart, written only when clicked; none in
    presentation mode."""
    if presenting():
        return
    st.download_button(label, lambda: frame.to_csv(index=False).encode("utf-8"), file_name=file_name,
                       mime="text/csv", key=key, on_click="ignore")


# ---- cached core calls of the pages' views, and a progress bar over a page's own loop (issue #28) ----------


@st.cache_data(max_entries=64, show_spinner=False)
def compared(key: tuple[str, str], texts_id: str, strategy: str, layer: int | None, metric: str, correction: str,
             axes: int | None, _sentences: np.ndarray, _reference: np.ndarray) -> Comparison:
    """Cached ``comparison.compare`` of the texts ``texts_id`` pooled by ``strategy`` at ``layer`` (the
    reference corpus is fixed, so the model and those settings name it): fits the correction once per setting."""
    from bertviz_core.comparison import compare

    return compare(_sentences, _reference, metric, correction, axes)


@st.cache_data(max_entries=64, show_spinner=False)
def token_neighbours(key: tuple[str, str], corpus_id: str, sentence: str, token: int, layer: int, k: int,
                     metric: str, _index: TokenIndex) -> pd.DataFrame:
    """Cached ``neighbours.nearest_tokens`` of one token of ``sentence`` at ``layer``, in context
    (``neighbours.in_context``), over the corpus ``corpus_id`` with the sentence itself left out of it."""
    from bertviz_core.neighbours import in_context, nearest_tokens, own_sentences

    vector = encode_texts(key, (sentence,))[0].hidden_states[layer, token]  # (hidden,)
    found = nearest_tokens(_index, vector, layer, k, metric, own_sentences(_index.texts, sentence))
    return in_context(found, _index.texts)


@st.cache_data(max_entries=64, show_spinner=False)
def sentence_neighbours(key: tuple[str, str], corpus_id: str, sentence: str, strategy: str, layer: int | None,
                        k: int, metric: str, _pooled: dict[str, np.ndarray],
                        _texts: tuple[str, ...]) -> pd.DataFrame:
    """Cached ``neighbours.nearest_sentences`` of ``sentence`` over the corpus ``corpus_id`` (``_texts``,
    pooled as ``_pooled``), the sentence itself left out, with each neighbour's text."""
    from bertviz_core.neighbours import nearest_sentences, own_sentences

    near = nearest_sentences(_pooled, embed_corpus(key, (sentence,)), strategy, layer, k, metric,
                             own_sentences(_texts, sentence))
    return near.assign(text=[_texts[s] for s in near["sentence"]])


def progress_over(items: Sequence[T], first: str, text: Callable[[int, int], str]) -> Iterator[T]:
    """Each of ``items`` in turn, with a progress bar (its text ``first``, then ``text(done, total)`` after
    each item) that is removed once the last is done."""
    bar = st.progress(0.0, text=first)
    for done, item in enumerate(items, start=1):
        yield item
        bar.progress(done / len(items), text=text(done, len(items)))
    bar.empty()
