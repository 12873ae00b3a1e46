"""Damaged input on every page, through the registries (issue #52): a damaged store on every page that reads stores
(``PageEntry.reads_stores``), and each corpus source's damaged inputs on every page that takes a corpus. Each says
what is wrong; none shows Streamlit's exception box. A new store page, corpus page or corpus source gets the cases
without an edit here (a source without its damaged inputs fails ``test_every_source_has_its_damaged_inputs``)."""
from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import open_page
from page_checks import checks
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import _format_value_for_widget

from bertviz_core.corpora.corpus_sources import BUILT_IN_CORPORA, CORPUS_SOURCES
from bertviz_core.precompute.offered import SETTING
from bertviz_core.views.page_registry import PAGES, PageEntry

STORE_PAGES = [entry for entry in PAGES if entry.reads_stores]
CORPUS_PAGES = [entry for entry in PAGES if entry.built_in_corpus]
# What a store's damage cuts short, as the issue found it (`truncate -s 1000` of one file, the store otherwise whole):
# every file of a kind is cut, so whichever of them a page reads first is damaged.
STORE_DAMAGE = {"vector files": "vectors/*.npy", "token files": "tokens/*.npy", "maps": "maps/*/*.parquet",
                "rows": "rows.parquet"}
CUT_BYTES = 1_000


@pytest.fixture(scope="module")
def damaged_stores(labelled_store, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:  # noqa: ANN001
    """{damage: a copy of the labelled store with those files cut to ``CUT_BYTES``}, each named after its damage (the
    server opens a store once by its name and its manifest's time, which the copy keeps)."""
    made = {}
    for damage, pattern in STORE_DAMAGE.items():
        folder = tmp_path_factory.mktemp("damaged") / damage.replace(" ", "_")
        shutil.copytree(labelled_store.folder, folder)
        cut = sorted(folder.glob(pattern))
        assert cut, pattern
        for file in cut:
            os.truncate(file, min(CUT_BYTES, file.stat().st_size // 2))
        made[damage] = folder
    return made


def errors(at: AppTest) -> str:
    return " ".join(e.value for e in at.error).replace("\\", "")


def apply(at: AppTest, kind: str, key: str, value: object) -> None:
    """One step of a page's ``CHECKS`` settings; a widget the view did not draw (stopped by a damaged file), or that
    does not offer the value (a small store holds fewer columns), is left as it is."""
    if kind == "session_state":
        at.session_state[key] = value
    else:
        found = [widget for widget in getattr(at, kind) if widget.key == key]
        if not found or not offers(found[0], value):
            return
        found[0].set_value(value)
    at.run()


def offers(widget: object, value: object) -> bool:
    """Whether a widget with options offers ``value`` (each of a list's), as AppTest will look it up."""
    options = getattr(widget, "options", None)
    try:
        shown = widget.format_func
    except AttributeError:  # a widget drawn without one shows its options as they are
        shown = str
    return options is None or all(_format_value_for_widget(shown, one) in options
                                  for one in (value if isinstance(value, list) else [value]))


@pytest.mark.parametrize("damage", list(STORE_DAMAGE))
@pytest.mark.parametrize("entry", STORE_PAGES, ids=lambda entry: entry.title)
def test_a_damaged_store_says_so_on_every_store_page(monkeypatch: pytest.MonkeyPatch, damaged_stores: dict,
                                                      entry: PageEntry, damage: str) -> None:
    monkeypatch.setenv(SETTING, str(damaged_stores[damage]))
    at = open_page(entry.file, timeout=300)
    declared = checks(entry)
    for kind, key, value in (*declared.store_view, *declared.store_settings):
        apply(at, kind, key, value)
        assert not at.exception, (entry.file, key, at.exception)
    if damage == "vector files":  # every store view reads a column; the others only some views read
        assert "the store is damaged" in errors(at), (entry.file, errors(at))
    assert not errors(at) or "damaged" in errors(at), errors(at)


ROWS = "\n".join(f"Row {i} says the bank by the river flooded again,{'ab'[i % 2]}" for i in range(6))
# Each source's damaged inputs besides a damaged store (the test above, on every store page): what a visitor gives.
DAMAGED: dict[str, dict[str, Callable[[Path], object]]] = {
    "built-in": {},  # shipped with the app: nothing a visitor gives can damage it
    "upload": {
        "a file cut mid-row": lambda _: f"text,label\n{ROWS}\nA seventh row cut before its la".encode(),
        "a file cut mid-quote": lambda _: f'text,label\n{ROWS}\n"A seventh row, cut inside its quo'.encode(),
        "a file of one text": lambda _: b"text,label\nOnly one sentence here.,a\n",
    },
    "precomputed": {"a store of one text": lambda folder: folder},  # the folder: the one_text_store fixture's
}


def test_every_source_has_its_damaged_inputs() -> None:
    assert set(DAMAGED) == set(CORPUS_SOURCES), "give a new corpus source its damaged inputs in DAMAGED"


@pytest.fixture(scope="module")
def one_text_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store precomputed from a file of one text, on the bundled model."""
    from bertviz_core.precompute.request import Request
    from bertviz_core.precompute.run import precompute

    folder = tmp_path_factory.mktemp("one_text")
    (folder / "one.csv").write_text("text,label\nThe only sentence of this store.,a\n", encoding="utf-8")
    return Path(precompute(str(folder / "one.csv"), str(folder / "one_text"), Request(strategies=["mean"]),
                           label_column="label").store)


CASES = [(entry, source, damage) for entry in CORPUS_PAGES for source in CORPUS_SOURCES
         if entry.reads_stores or not CORPUS_SOURCES[source].store for damage in DAMAGED[source]]


@pytest.mark.parametrize("entry, source, damage", CASES,
                         ids=[f"{entry.title}-{damage}" for entry, _, damage in CASES])
@pytest.mark.slow
def test_every_corpus_page_takes_each_sources_damaged_input_without_an_exception(
        monkeypatch: pytest.MonkeyPatch, one_text_store: Path, entry: PageEntry, source: str, damage: str) -> None:
    declared = checks(entry)
    assert declared.uploader, f"{entry.file} takes a corpus: its CHECKS name its uploader"
    radio, uploader = declared.uploader
    given = DAMAGED[source][damage](one_text_store)
    if CORPUS_SOURCES[source].store:
        monkeypatch.setenv(SETTING, str(given))
    at = open_page(entry.file, timeout=300)
    at.radio(key=radio).set_value(CORPUS_SOURCES[source].label(BUILT_IN_CORPORA[entry.built_in_corpus])).run()
    if isinstance(given, bytes):
        at.file_uploader(key=uploader).set_value(("damaged.csv", given, "text/csv")).run()
    assert not at.exception, (entry.file, damage, at.exception)
    for kind, key, value in (*declared.settings, *declared.store_settings):  # the views a setting reaches
        apply(at, kind, key, value)
        assert not at.exception, (entry.file, damage, key, at.exception)
