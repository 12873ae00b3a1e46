"""A link's value that a page cannot use is said, once, naming the setting and why (issue #53, item 7): Streamlit's
bound widgets drop an invalid value from the URL and show their default, as they drop a value equal to the default,
so the page (app.py, through ``ui.links.judge_link``) compares what each setting of the link gave with what its
widget holds. A loop over every page with settings (its ``CHECKS``), a valid value and a default one that say
nothing, Similar contexts' k of 0, -1 and 100,000, Why similar's steps and reference, a layer a store lacks, and the
message gone after the visitor's next change."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import APP
from page_checks import checks
from streamlit.testing.v1 import AppTest

from bertviz_core.precompute.offered import SETTING
from bertviz_core.views.page_registry import PAGES, PageEntry

# An invalid link value for each kind of setting a page's CHECKS change (text boxes take any text).
INVALID = {"slider": "100000", "selectbox": "no such choice", "radio": "no such choice",
           "multiselect": "no such choice", "toggle": "maybe", "number_input": "many"}
WITH_SETTINGS = [entry for entry in PAGES if any(kind in INVALID for kind, _, _ in checks(entry).settings)]


def opened(page: str, link: dict[str, str]) -> AppTest:
    """A session's first run on ``page`` opened with the query string ``link``, as a browser opens a shared link."""
    at = AppTest.from_file(APP, default_timeout=300)
    at.query_params.update(link)
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def notice(at: AppTest) -> str:
    """The page's message about its link's settings, as read (Markdown's escapes left out); "" when there is none."""
    said = [w.value.replace("\\", "") for w in at.warning if w.value.startswith("The link's setting")]
    assert len(said) <= 1, said  # said once
    return said[0] if said else ""


@pytest.mark.parametrize("entry", WITH_SETTINGS, ids=lambda entry: entry.title)
def test_every_setting_of_a_link_that_the_page_cannot_use_is_named(entry: PageEntry) -> None:
    settings = {key: (kind, INVALID[kind]) for kind, key, _ in checks(entry).settings if kind in INVALID}
    at = opened(entry.file, {key: value for key, (_, value) in settings.items()})
    drawn = [key for key, (kind, _) in settings.items() if [w for w in getattr(at, kind) if w.key == key]]
    assert drawn, f"{entry.file} draws none of {sorted(settings)}"
    said = notice(at)
    for key in drawn:  # a setting in a tab not open is judged once its tab is
        assert f"{key}={settings[key][1]}" in said, (key, said)


def test_k_of_0_minus_1_or_100000_is_named_and_a_valid_or_default_value_is_not() -> None:
    link = {"sc_k": "0", "sc_layer_left": "-1", "sc_layer_right": "100000",
            "sc_metric": "dot product", "sc_strategy": "mean"}  # valid and not the default; valid and the default
    at = opened("pages/similar_contexts.py", link)
    said = notice(at)
    assert said.startswith("The link's settings below were not used."), said
    assert "sc_k=0: outside the values this setting takes; the page shows 10." in said, said
    assert "sc_layer_left=-1: outside" in said and "sc_layer_right=100000: outside" in said, said
    assert "sc_metric" not in said and "sc_strategy" not in said, said
    assert at.selectbox(key="sc_metric").value == "dot product"
    at.selectbox(key="sc_metric").set_value("cosine").run()
    assert not notice(at)  # said once


def test_a_link_of_valid_values_and_defaults_says_nothing() -> None:
    at = opened("pages/similar_contexts.py", {"sc_k": "5", "sc_metric": "cosine", "sc_layer_left": "1",
                                               "sc_adjusted": "adjusted", "present": "false"})
    assert not notice(at), notice(at)
    assert at.slider(key="sc_k").value == 5


@pytest.mark.slow
def test_why_similars_steps_and_an_unknown_reference_are_named() -> None:
    at = opened("pages/why_similar.py", {"wy_steps": "7", "wy_reference": "[UNK]", "wy_cut": "true"})
    said = notice(at)
    assert "wy_steps=7: not one of this setting's choices; the page shows 8." in said, said
    assert "wy_reference=[UNK]: not one of this setting's choices here ([PAD], [MASK])" in said, said
    assert "wy_cut" not in said, said


def test_a_layer_the_store_lacks_is_named_once(monkeypatch: pytest.MonkeyPatch, labelled_store,  # noqa: ANN001
                                               tmp_path: Path) -> None:
    shutil.copytree(labelled_store.folder, tmp_path / "topics")
    monkeypatch.setenv(SETTING, str(tmp_path / "topics"))
    at = opened("pages/similar_contexts.py", {"sc_source": "Precomputed store", "sc_store_left": "99",
                                              "sc_store": "elsewhere"})
    said = notice(at)
    assert said.startswith("The link's setting sc_store_left=99 was not used: it is not one of this setting's "
                           "choices here"), said
    assert "elsewhere" not in said  # the store picker says that one, with the stores offered
    assert any("The link names the store elsewhere" in w.value.replace("\\", "") for w in at.warning)


SHARED = [entry for entry in PAGES if checks(entry).shared_query]


@pytest.mark.parametrize("entry", SHARED, ids=lambda entry: entry.url_path)
def test_every_setting_of_a_pages_shared_link_is_used(entry: PageEntry, mlm_dir: Path) -> None:
    """The links the browser tests share (``PageChecks.shared_query``) give only values their pages take: a link
    that reopens "the same view" with a setting dropped would prove less than it seems."""
    from urllib.parse import parse_qsl

    query = checks(entry).shared_query.format(mlm=str(mlm_dir))
    link: dict[str, str | list[str]] = {}
    for name, value in parse_qsl(query):
        link[name] = [*link[name], value] if isinstance(link.get(name), list) else (
            [link[name], value] if name in link else value)
    assert notice(opened(entry.file, link)) == "", query
