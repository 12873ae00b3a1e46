"""The stores a server offers (issue #30): only the folders BERTVIZ_CORPORA lists, by their names; each listed
store that cannot be opened says why (unfinished, damaged, another model's)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bertviz_core import Encoder
from bertviz_core.precompute.layout import MANIFEST, PLAN
from bertviz_core.precompute.offered import SETTING, offered_stores, open_offered


@pytest.fixture
def listed(news_store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:  # noqa: ANN001
    """Three listed folders: the finished news store, a stopped precompute (a plan, no manifest) and a store whose
    manifest is cut short; BERTVIZ_CORPORA lists them with spaces and an empty entry, as an operator might."""
    stopped, damaged = tmp_path / "stopped", tmp_path / "damaged"
    stopped.mkdir()
    (stopped / PLAN).write_text("{}")
    shutil.copytree(news_store.folder, damaged)
    (damaged / MANIFEST).write_text((damaged / MANIFEST).read_text()[:50])
    folders = {"news": news_store.folder, "stopped": stopped, "damaged": damaged}
    monkeypatch.setenv(SETTING, " , ".join(map(str, folders.values())) + ",")
    return folders


@pytest.mark.slow
def test_the_listed_folders_are_offered_by_name_with_what_they_hold(listed: dict[str, Path]) -> None:
    offered = offered_stores()
    assert list(offered) == ["news", "stopped", "damaged"]
    assert offered["news"].title == "news: 160 texts, all-MiniLM-L6-v2 (bundled)"
    assert offered["stopped"].title == "stopped (not a finished store)"
    assert offered["damaged"].title == "damaged (damaged)"
    assert offered_stores("") == {}


def test_a_listed_store_opens_by_its_name(listed: dict[str, Path], bundled: Encoder) -> None:
    store = open_offered("news", bundled)
    assert store.folder == listed["news"] and len(store.texts) == 160


@pytest.mark.parametrize("name", ["elsewhere", "/etc", "../news", str(Path("news").resolve()), None])
def test_nothing_but_a_listed_name_opens(listed: dict[str, Path], name: object) -> None:
    with pytest.raises(ValueError, match="This server offers no store called .*; it offers 'news', 'stopped', "
                                         "'damaged'. Its operator lists the stores it offers in BERTVIZ_CORPORA"):
        open_offered(name)


def test_a_listed_store_that_cannot_be_used_says_why(listed: dict[str, Path], tiny: Encoder) -> None:
    with pytest.raises(ValueError, match="is not a finished store.*its precompute stopped before the end"):
        open_offered("stopped")
    with pytest.raises(ValueError, match="could not be read .*the store is damaged"):
        open_offered("damaged")
    with pytest.raises(ValueError, match=f"computed with the model of identity .*but this Encoder \\({tiny.info.name}"):
        open_offered("news", tiny)


def test_two_listed_stores_of_one_name_are_refused(news_store, tmp_path: Path) -> None:  # noqa: ANN001
    other = tmp_path / "news"
    other.mkdir()
    with pytest.raises(ValueError, match="lists two stores named 'news'"):
        offered_stores(f"{news_store.folder},{other}")
    assert json.loads((news_store.folder / MANIFEST).read_text())["rows"] == 160
