"""The server shows none of its own paths (issue #53, items 2 and 3), on every page that reads stores
(``PageEntry.reads_stores``): a store is named by the name the server offers it under in every message and code
panel (a finished store, a damaged one, an unfinished one, two listed under one name), and a store's file is named
by its place in the store, exactly: no invisible autolink break inside a name the server wrote. A local model folder's
case is ``tests/test_server_limits.py::test_no_code_panel_or_message_shows_a_server_path``."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import open_code_panels, open_page
from page_checks import checks
from streamlit.testing.v1 import AppTest
from test_damaged_input import apply

from bertviz_core.precompute.offered import SETTING
from bertviz_core.views.page_registry import PAGES, PageEntry

STORE_PAGES = [entry for entry in PAGES if entry.reads_stores]
SHOWN = ("title", "subheader", "markdown", "caption", "code", "error", "warning", "info", "success")


def shown(at: AppTest) -> str:
    """Every text the page and its sidebar show, code panels included, as read: without Markdown's escapes."""
    return "\n".join(str(element.value) for kind in SHOWN for element in [
        *getattr(at, kind), *getattr(at.sidebar, kind)]).replace("\\", "")


@pytest.fixture(scope="module")
def offered(labelled_store, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:  # noqa: ANN001
    """{name: folder} of three stores under one server folder: whole, with its vector files cut, unfinished."""
    root = tmp_path_factory.mktemp("server") / "offered"
    whole, damaged, unfinished = root / "whole", root / "cut_vectors", root / "unfinished"
    for folder in (whole, damaged):
        shutil.copytree(labelled_store.folder, folder)
    for file in (damaged / "vectors").glob("*.npy"):
        os.truncate(file, 1_000)
    unfinished.mkdir()
    return {"whole": whole, "cut_vectors": damaged, "unfinished": unfinished}


def server_paths(folders: list[Path]) -> list[str]:
    """The server's own spellings of ``folders``' parent: as listed and resolved."""
    return sorted({str(folder.parent) for folder in folders} | {str(folder.parent.resolve()) for folder in folders})


@pytest.mark.parametrize("entry", STORE_PAGES, ids=lambda entry: entry.title)
def test_no_store_message_or_code_panel_shows_a_server_path(monkeypatch: pytest.MonkeyPatch, offered: dict,
                                                              entry: PageEntry) -> None:
    monkeypatch.setenv(SETTING, ",".join(map(str, offered.values())))
    declared = checks(entry)
    at = open_page(entry.file, timeout=300)
    for kind, key, value in declared.store_view:
        apply(at, kind, key, value)
    paths = server_paths(list(offered.values()))
    for name in offered:
        next(box for box in at.selectbox if box.label == "Store").set_value(name).run()
        for kind, key, value in declared.store_settings:
            apply(at, kind, key, value)
        assert not at.exception, (entry.file, name, at.exception)
        if name == "whole":  # the first store: its panels stay open for the next ones (their state is kept)
            open_code_panels(at)
        text = shown(at)
        assert not [path for path in paths if path in text], (entry.file, name, text)
        errors = " ".join(error.value for error in at.error).replace("\\", "")  # as read: Markdown escapes left out
        assert "\u2060" not in errors, errors  # the messages quote no visitor's text here: every name is the server's
        if name == "whole":
            assert "store = 'whole'" in text, text  # the code panel names the store as the server offers it
        if name == "cut_vectors":
            assert "The file `vectors/" in errors and "of the store cut_vectors" in errors, errors
        if name == "unfinished":
            assert "The store unfinished is not a finished store" in errors, errors


def test_two_stores_listed_under_one_name_are_refused_without_their_paths(
        monkeypatch: pytest.MonkeyPatch, offered: dict, tmp_path: Path) -> None:
    twin = tmp_path / "elsewhere" / "whole"
    shutil.copytree(offered["whole"], twin)
    monkeypatch.setenv(SETTING, f"{offered['whole']},{twin}")
    entry = STORE_PAGES[0]
    at = open_page(entry.file, timeout=300)
    for kind, key, value in checks(entry).store_view:
        apply(at, kind, key, value)
    errors = " ".join(error.value for error in at.error)
    assert "lists two stores named 'whole'" in errors.replace("\\", ""), errors
    assert not [path for path in server_paths([offered["whole"], twin]) if path in shown(at)], shown(at)


def test_a_stored_columns_name_is_shown_as_the_server_wrote_it_and_an_address_still_breaks() -> None:
    from ui import literal

    assert "\u2060" not in literal("The store holds no mean@6 vectors; it holds cls@3, mean@12.")
    assert "bob\u2060@evil" in literal("bob@evil.example")  # an address's @ still breaks GFM's autolink
