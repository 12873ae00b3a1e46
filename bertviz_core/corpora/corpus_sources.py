"""Where a page's corpus comes from: one registry of sources, shared by every page that takes a corpus.

A page names its built-in corpus (``BUILT_IN_CORPORA``) and offers every source of ``CORPUS_SOURCES``; the
ui layer draws each source's widgets (a file uploader for "upload") and hands the page a ``Corpus``. A new
source is one entry here and one widget in the ui layer, and every corpus page offers it; a store source only on
the pages that read stores.
"""
from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import bertviz_core.checks as checks
from bertviz_core import recipes
from bertviz_core.corpora import news_topics, reference_corpus
from bertviz_core.precompute.offered import SETTING


@dataclass(frozen=True)
class Corpus:
    """Texts a page works on: ``texts`` (n,), ``labels`` (n,) or None when unlabelled, and ``code``, the
    plain-Python lines that build ``texts`` (and ``labels``) in the page's teaching panel. From a precomputed
    store: ``store`` (a ``VectorStore``), whose vectors the page reads instead of running the model, ``name`` (the
    store's name as the server offers it), and no ``texts`` (a million of them would not be copied per run)."""

    texts: tuple[str, ...]
    labels: tuple[str, ...] | None
    code: str
    store: Any = None
    name: str = ""


@dataclass(frozen=True)
class BuiltInCorpus:
    """A corpus shipped with the app: ``title`` as the source picker shows it, ``load`` its texts."""

    title: str
    load: Callable[[], Corpus]


def _news_topics() -> Corpus:
    corpus = news_topics()
    return Corpus(tuple(corpus["text"]), tuple(corpus["label"]), recipes.NEWS_TOPICS_CODE)


def _reference() -> Corpus:
    return Corpus(tuple(reference_corpus()), None, recipes.BUILT_IN_CORPUS)


BUILT_IN_CORPORA: dict[str, BuiltInCorpus] = {
    "news topics": BuiltInCorpus("Built-in news topics (160 sentences, 4 topics)", _news_topics),
    "reference sentences": BuiltInCorpus(
        f"Built-in sentences ({len(reference_corpus())}: news, word senses, rivers and money)", _reference),
}


@dataclass(frozen=True)
class CorpusSource:
    """One way to give a page a corpus. ``label(built_in)`` is the option the source picker shows on a page whose
    built-in corpus is ``built_in``: it is also the value a shared link carries, so it stays as it is."""

    label: Callable[[BuiltInCorpus], str]
    description: str
    store: bool = False  # a precomputed store: offered on a page that reads stores, when the server lists any


CORPUS_SOURCES: dict[str, CorpusSource] = {
    "built-in": CorpusSource(lambda built_in: built_in.title, "the page's own corpus, shipped with the app"),
    "upload": CorpusSource(lambda built_in: "Upload a CSV",
                           "a CSV file: a text column and, where the page scores labels, a label column"),
    "precomputed": CorpusSource(lambda built_in: "Precomputed store",
                                f"a store this server's operator computed in advance and listed in {SETTING}: "
                                "searched without running the model on it", store=True),
}


def source_labels(built_in: str, reads_stores: bool = False) -> dict[str, str]:
    """{source name: the option the picker shows} for a page whose built-in corpus is ``built_in``: a store source
    only when the page ``reads_stores`` and the server lists stores (``BERTVIZ_CORPORA``)."""
    if not isinstance(built_in, str) or built_in not in BUILT_IN_CORPORA:
        raise ValueError(f"Unknown built-in corpus {checks.shown(built_in)}: one of "
                         f"{', '.join(map(repr, BUILT_IN_CORPORA))}.")
    stores = reads_stores and stores_listed()
    return {name: source.label(BUILT_IN_CORPORA[built_in]) for name, source in CORPUS_SOURCES.items()
            if stores or not source.store}


def stores_listed() -> bool:
    """True when the server lists precomputed stores (``BERTVIZ_CORPORA``)."""
    return bool(os.environ.get(SETTING, "").strip(" ,"))


def uploaded(texts: list[str] | tuple[str, ...], labels: list[str] | tuple[str, ...] | None) -> Corpus:
    """An uploaded file's corpus, with the teaching code that stands for it: ``texts`` (n,), ``labels`` (n,) or
    None."""
    texts = checks.texts(texts)
    if labels is None:
        return Corpus(tuple(texts), None, recipes.UPLOADED_TEXTS_CODE)
    labels = checks.strings(labels, "labels")
    if len(labels) != len(texts):
        raise ValueError(f"There are {len(texts):,} texts but {len(labels):,} labels: give one label a text.")
    return Corpus(tuple(texts), tuple(labels), recipes.UPLOADED_CODE)
