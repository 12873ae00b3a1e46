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

from bertviz_core.views.page_registry import PAGES, PageEntry
from bertviz_core.precompute.offered import SETTING

STORE_PAGES = [entry for entry in PAGES if entry.reads_stores]
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
    """One step of a page's ``CHECKS.store_view`` or ``store_settings``."""
    if kind == "session_state":
        at.session_state[key] = value
        at.run()
    else:
        getattr(at, kind)(key=key).set_value(value).run()


def present(at: AppTest, kind: str, key: str) -> bool:
    """Whether a step's widget is on the page (a view stopped by a damaged file draws fewer)."""
    return kind == "session_state" or any(widget.key == key for widget in getattr(at, kind))


@pytest.mark.parametrize("damage", list(STORE_DAMAGE))
@pytest.mark.parametrize("entry", STORE_PAGES, ids=lambda entry: entry.title)
def test_a_damaged_store_says_so_on_every_store_page(monkeypatch: pytest.MonkeyPatch, damaged_stores: dict,
                                                      entry: PageEntry, damage: str) -> None:
    monkeypatch.setenv(SETTING, str(damaged_stores[damage]))
    at = open_page(entry.file, timeout=300)
    declared = checks(entry)
    for kind, key, value in (*declared.store_view, *declared.store_settings):
        if present(at, kind, key):
            apply(at, kind, key, value)
        assert not at.exception, (entry.file, key, at.exception)
    if damage == "vector files":  # every store view reads a column; the others only some views read
        assert "the store is damaged" in errors(at), (entry.file, errors(at))
    assert not errors(at) or "damaged" in errors(at), errors(at)
