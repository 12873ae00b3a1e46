"""Streamlit glue shared by every page: the model picker, cached core calls, the teaching panel.

The core (bertviz_core) never imports Streamlit; this module is the only bridge. One Encoder
per (model, device) lives in ``st.cache_resource`` and serves every browser session; results
are cached with bounded ``st.cache_data`` as numpy arrays and pandas frames.
"""
from __future__ import annotations

import hashlib
import io
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from bertviz_core.corpora import Table, read_table
from bertviz_core.models import BUNDLED_MODEL, KNOWN_HUB_MODELS, ModelInfo, available_devices, describe
from bertviz_core.pooling_grid import Cell, CellResult, cell_vectors, score_cell
from bertviz_core.word_vectors import Occurrence, occurrences

if TYPE_CHECKING:
    from bertviz_core.encoder import Encoder
    from bertviz_core.encoding import Encoding

CUSTOM = "Custom id or path…"
ACTIVE = "_active_model"  # session key: the (model, device) this session uses, checked when chosen
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def literal(text: str) -> str:
    """Escape Markdown so user text inside a message shows as typed, never rendered."""
    return _MARKDOWN.sub(r"\\\1", text)


@st.cache_resource(show_spinner="Loading the model (the first time takes a few seconds)…", max_entries=4)
def get_encoder(model: str, device: str) -> Encoder:
    """One shared Encoder per (model, device). Failures raise and are not cached."""
    from bertviz_core.encoder import load_encoder

    return load_encoder(None if model == BUNDLED_MODEL else model, device=device)


@st.cache_resource(show_spinner=False, max_entries=4)
def preload_encoder(model: str, device: str) -> threading.Thread:
    """Start loading (model, device) in a background thread, once per server: called after a page
    is drawn, so the first page that runs the model usually finds it loaded."""
    thread = threading.Thread(target=get_encoder, args=(model, device), name="preload-encoder", daemon=True)
    thread.start()
    return thread


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


def model_sidebar() -> None:
    """Model and device pickers with the loaded model's facts; a failed load keeps the last good model."""
    side = st.sidebar
    side.header("Model")
    allowed = allowed_models()
    choices = [BUNDLED_MODEL, *KNOWN_HUB_MODELS] if allowed is None else [BUNDLED_MODEL, *allowed]
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
    if wanted != st.session_state.get(ACTIVE):
        try:
            with side, st.spinner(f"Loading {wanted[0]}…"):
                if wanted[0] == BUNDLED_MODEL:
                    model_info(*wanted)  # its files are read now; the weights load on first use
                else:
                    get_encoder(*wanted)  # loaded now, so a model that fails never becomes active
            st.session_state[ACTIVE] = wanted
        except ValueError as err:
            side.error(literal(str(err)), icon="⚠️")
            st.session_state.setdefault(ACTIVE, (BUNDLED_MODEL, "auto"))
            side.caption(f"Still using **{literal(st.session_state[ACTIVE][0])}**.")
    info = active_info()
    side.markdown(
        f"**{literal(info.name)}**  \n"
        f"{info.num_layers} layers · hidden {info.hidden_size} · vocab {info.vocab_size:,}  \n"
        f"max {info.max_length} tokens · device `{info.device}` · pooler {'yes' if info.has_pooler else 'no'}"
    )


def encoder() -> Encoder:
    """The Encoder of this session's active model, loaded on first use."""
    return get_encoder(*model_key())


def active_info() -> ModelInfo:
    """The facts of this session's active model, without loading it when it is local."""
    return model_info(*model_key())


def model_key() -> tuple[str, str]:
    """Hashable identity of the active model, for keying cached results."""
    return st.session_state.get(ACTIVE, (BUNDLED_MODEL, "auto"))


@st.cache_data(max_entries=64, show_spinner="Running the model…")
def encode_texts(key: tuple[str, str], texts: tuple[str, ...],
                 text_pairs: tuple[str, ...] | None = None) -> list[Encoding]:
    """Cached ``Encoder.encode``: the model runs once per (model, texts, pairs)."""
    return get_encoder(*key).encode(list(texts), None if text_pairs is None else list(text_pairs))


class LRUStore:
    """A small thread-safe least-recently-used dict, shared by all sessions through cache_resource."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._items: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
            return self._items.get(key)

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.max_entries:
                self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


@st.cache_resource
def pooled_store() -> LRUStore:
    """Pooled corpora of every session: at most 8, the least recently used dropped first."""
    return LRUStore(max_entries=8)


def embed_corpus(key: tuple[str, str], texts: tuple[str, ...],
                 progress: Callable[[int, int], None] | None = None) -> dict[str, np.ndarray]:
    """Pooled vectors of a corpus, {strategy: (n, layers, hidden)}, computed once and shared read-only.

    Not an st.cache_* function: the model run reports progress to the page, which a cached
    function may not do, and a hit returns the arrays themselves, without a copy.
    """
    store, entry = pooled_store(), (key, corpus_digest(texts))
    pooled = store.get(entry)
    if pooled is None:
        pooled = get_encoder(*key).embed(list(texts), progress=progress)
        for array in pooled.values():
            array.flags.writeable = False
        store.put(entry, pooled)
    return pooled


def corpus_digest(texts: tuple[str, ...]) -> str:
    """A short content hash of a corpus, to key cached results without hashing every text each time."""
    return hashlib.sha256("\x1f".join(texts).encode("utf-8")).hexdigest()[:24]


@st.cache_data(max_entries=64, show_spinner=False)
def word_occurrences(key: tuple[str, str], texts: tuple[str, ...], word: str, subword: str) -> list[Occurrence]:
    """Cached occurrences of ``word``, from cached encodings: a new word or rule runs no model."""
    return occurrences(encode_texts(key, texts), word, subword)


@st.cache_data(max_entries=64, show_spinner=False)
def tokenize_text(key: tuple[str, str], text: str, text_pair: str | None, pad_to: int | None) -> pd.DataFrame:
    """Cached ``Encoder.tokenize``."""
    return get_encoder(*key).tokenize(text, text_pair, pad_to)


@st.cache_data(max_entries=16, show_spinner=False)
def parse_upload(data: bytes, limit: int) -> Table:
    """Cached ``corpora.read_table`` of an uploaded file's bytes."""
    return read_table(data, limit)


@st.cache_data(max_entries=512, show_spinner=False)
def pooling_cell(key: tuple[str, str], corpus_id: str, labels_id: str | None, cell: Cell,
                 _pooled: dict[str, np.ndarray], _labels: list[str] | None) -> CellResult:
    """Cached ``pooling_grid.score_cell`` of one (strategy, layer) of a pooled corpus.

    Keyed by content digests (``corpus_id``, ``labels_id``, None when unscored) computed once per run:
    hashing the vectors or labels on every call of a 20-panel grid would cost more than the lookup saves.
    """
    return score_cell(cell_vectors(_pooled, cell), _labels if labels_id else None)


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


def teaching_panel(what: str, code: str) -> None:
    """'What you are looking at' (two lines), the plain transformers code, and a link to this view."""
    st.info(what, icon="🔎")
    with st.expander("Reproduce these numbers in a notebook, or share this view"):
        st.code(code, language="python")
        link, too_long = share_link()
        st.caption("Link that reopens this view with the same settings:")
        st.code(link, language=None)
        if too_long:
            st.caption(f"Left out of the link, being longer than {MAX_LINK_VALUE:,} characters: "
                       f"{', '.join(too_long)}. Whoever opens it sees the default text there; paste yours in.")


def download_npy(array: np.ndarray, label: str, file_name: str, key: str) -> None:
    """A NumPy .npy download button for an array, written only when clicked."""
    def npy() -> bytes:
        buffer = io.BytesIO()
        np.save(buffer, array)
        return buffer.getvalue()

    st.download_button(label, npy, file_name=file_name, key=key, on_click="ignore")


def download_csv(frame: pd.DataFrame, label: str, file_name: str, key: str) -> None:
    """A CSV download button for the numbers behind a table or chart, written only when clicked."""
    st.download_button(label, lambda: frame.to_csv(index=False).encode("utf-8"), file_name=file_name,
                       mime="text/csv", key=key, on_click="ignore")
