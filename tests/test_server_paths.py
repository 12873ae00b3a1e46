"""The server shows none of its own paths (issue #53, items 2 and 3), on every page that reads stores
(``PageEntry.reads_stores``): a store is named by the name the server offers it under in every message and code
panel (a finished store, a damaged one, an unfinished one, two listed under one name), and a store's file is named
by its place in the store, exactly: no invisible autolink break inside a name the server wrote. On every page with an
uploader, an upload (one with a text cut, one that cannot be read), and on every page, a local model folder named
relative to the server's folder: no message or code panel shows the server's folder, the test's or site-packages."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import open_code_panels, open_page
from page_checks import checks, LABELLED_LONG, uploaded
from streamlit.testing.v1 import AppTest
from test_damaged_input import apply

from bertviz_core.precompute.offered import SETTING
from bertviz_core.views.page_registry import PAGES, PageEntry

STORE_PAGES = [entry for entry in PAGES if entry.reads_stores]
UPLOAD_PAGES = [entry for entry in PAGES if checks(entry).uploader]
ROOT = Path(__file__).resolve().parents[1]
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
@pytest.mark.slow
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


def open_panels(at: AppTest) -> AppTest:
    """Every teaching panel ``at`` shows opened (``conftest.open_code_panels``), on a page that may show none."""
    return open_code_panels(at) if any(panel.proto.id.split("-", 2)[-1].startswith("code_") for panel in at.expander) \
        else at


def paths_shown(at: AppTest, folders: list[Path]) -> list[str]:
    """The server's folder, ``folders`` (as given and resolved) and site-packages, where the page shows them."""
    text = shown(at)
    return [path for path in {str(ROOT), "site-packages", *map(str, folders), *(str(f.resolve()) for f in folders)}
            if path in text]


@pytest.mark.parametrize("entry", UPLOAD_PAGES, ids=lambda entry: entry.title)
@pytest.mark.slow
def test_no_upload_message_or_code_panel_shows_a_server_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                               entry: PageEntry) -> None:
    monkeypatch.chdir(tmp_path)
    declared = checks(entry)
    at = open_page(entry.file, timeout=300)
    for key, value in declared.upload_settings:
        at.session_state[key] = value
    uploaded(declared.uploader, LABELLED_LONG)(at)  # ten short texts and one cut: its notice
    assert not at.exception, at.exception
    assert not paths_shown(open_panels(at), [tmp_path]), shown(at)
    at.file_uploader(key=declared.uploader[1]).set_value(("bad.csv", b"\xff\xfe\x00\x81 not a table", "text/csv")).run()
    assert not at.exception and at.error, (at.exception, shown(at))  # said, without a path
    assert not paths_shown(at, [tmp_path]), shown(at)


@pytest.mark.parametrize("entry", PAGES, ids=lambda entry: entry.title)
@pytest.mark.slow
def test_no_page_shows_the_folder_of_a_local_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tiny_dir: Path,
                                                   entry: PageEntry) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(tiny_dir, tmp_path / "my-bert")
    at = open_page(entry.file, timeout=300)
    at.sidebar.selectbox(key="model").set_value("Custom id or path…").run()
    at.sidebar.text_input(key="custom_model").set_value("./my-bert").run()
    assert not at.exception and not at.sidebar.error, (at.exception, shown(at))
    assert not paths_shown(open_panels(at), [tmp_path, tiny_dir]), shown(at)
