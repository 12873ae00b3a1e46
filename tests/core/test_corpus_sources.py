"""The corpus-source registry (``bertviz_core.corpora.corpus_sources``): every source has its widgets, every built-in
corpus loads and its teaching code builds exactly its texts, and every page that takes a corpus offers every
source."""
from __future__ import annotations

import pytest

from bertviz_core.corpora.corpus_sources import BUILT_IN_CORPORA, CORPUS_SOURCES, source_labels, uploaded
from bertviz_core.views.page_registry import PAGES
from bertviz_core.precompute.offered import SETTING


def test_every_source_has_its_widgets_in_the_ui_layer() -> None:
    from ui.uploads import SOURCE_WIDGETS

    assert set(SOURCE_WIDGETS) == set(CORPUS_SOURCES)


@pytest.mark.parametrize("name", list(BUILT_IN_CORPORA))
def test_every_built_in_corpus_loads_and_its_code_builds_exactly_its_texts(name: str) -> None:
    corpus = BUILT_IN_CORPORA[name].load()
    assert corpus.texts and all(isinstance(text, str) and text for text in corpus.texts)
    assert corpus.labels is None or len(corpus.labels) == len(corpus.texts)
    built: dict = {}
    exec(corpus.code, built)  # noqa: S102 - the teaching panel's own lines
    assert tuple(built["texts"]) == corpus.texts
    assert (corpus.labels is None) == ("labels" not in built)
    if corpus.labels is not None:
        assert tuple(built["labels"]) == corpus.labels


@pytest.mark.parametrize("name", list(BUILT_IN_CORPORA))
def test_each_source_shows_one_distinct_option_per_page(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SETTING, "/srv/stores/tickets")  # a server that lists a store
    options = source_labels(name, reads_stores=True)
    assert list(options) == list(CORPUS_SOURCES) and len(set(options.values())) == len(options)
    assert options["built-in"] == BUILT_IN_CORPORA[name].title
    monkeypatch.setenv(SETTING, " , ")  # one that lists none
    assert list(source_labels(name, reads_stores=True)) == [key for key, source in CORPUS_SOURCES.items()
                                                            if not source.store]


def test_an_unknown_built_in_corpus_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="Unknown built-in corpus 'poems': one of 'news topics'"):
        source_labels("poems")


def test_an_upload_names_what_it_holds_in_its_teaching_code() -> None:
    assert "label" in uploaded(["a", "b"], ["x", "y"]).code and "label" not in uploaded(["a"], None).code
    assert uploaded(["a", "b"], None).texts == ("a", "b") and uploaded(["a"], None).labels is None


@pytest.mark.parametrize("entry", [entry for entry in PAGES if entry.built_in_corpus], ids=lambda entry: entry.url_path)
@pytest.mark.slow
def test_every_page_that_takes_a_corpus_offers_every_source(entry) -> None:  # noqa: ANN001 - a PageEntry
    from conftest import open_page

    at = open_page(entry.file)
    radios = [radio for radio in at.radio if radio.key and radio.key.endswith("_source")]
    assert radios, f"{entry.title} shows no corpus-source picker"
    assert list(radios[0].options) == list(source_labels(entry.built_in_corpus, entry.reads_stores).values())


def test_a_page_that_picks_a_corpus_source_declares_its_built_in_corpus_in_the_registry() -> None:
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for entry in PAGES:
        called = re.findall(r'corpus_source\([^,]+, "\w+", "\w+", "([^"]+)"', (root / entry.file).read_text("utf-8"))
        assert called == ([entry.built_in_corpus] if entry.built_in_corpus else []), entry.file
