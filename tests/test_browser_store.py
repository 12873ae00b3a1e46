"""Precomputed stores in a real browser (issues #30, #49): a server that lists the tests' labelled store, and two
stores of one corpus made with two models, offers them on every page that reads stores; Similar contexts shows its
sentences and tokens, Sentence pooling its map, Which model? ranks the two models on their stores without a model
run, with no exception, and each page's store views pass the 150 % audit of every other view
(tests/test_presentation.py) in both modes."""
from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_views import done, open_view, require_chromium, wait_for_canvas
from live_app import running_app, wait_idle

require_chromium()

from playwright.sync_api import Browser, Page  # noqa: E402
from test_browser_which_model import ranked, shots  # noqa: E402
from test_presentation import AUDIT_JS, MIN_FONT_PX, open_at_150_percent, report  # noqa: E402

from bertviz_core.model.models import UNTRAINED_TWIN  # noqa: E402

VIEW = "similar_contexts?sc_source=Precomputed+store&sc_store=topics&sc_text=The+bank+raised+interest+rates."
VIEWS = (VIEW, "sentence_pooling?sp_source=Precomputed+store&sp_store=topics",
         "task_measures?tm_source=Precomputed+store&tm_store=topics&tm_strats=mean&tm_layers=3&tm_layers=6",
         "task_measures?tm_source=Precomputed+store&tm_store=topics&tm_tab=Maps",
         "compare_sentences?cs_store=topics&cs_view=Rank+against+one+sentence",
         "which_model?wm_source=Precomputed+store&wm_store_0=bundled&wm_store_1=twin")
RUNS = "runs.log"  # the server's model runs (BERTVIZ_RUN_LOG), in the store server's folder


@pytest.fixture(scope="module")
def store_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the store server writes its model runs (``RUNS``)."""
    return tmp_path_factory.mktemp("store_server")


@pytest.fixture(scope="module")
def store_server(labelled_store, store_folder: Path,  # noqa: ANN001 - a VectorStore
                 tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server offering the labelled store "topics" and the stores "bundled" and "twin" (``stores.model_stores``:
    the built-in corpus with the bundled model and with its twin)."""
    from stores import model_stores

    made = model_stores(tmp_path_factory.mktemp("model_stores"), ("bundled", "twin"))
    listed = ",".join([str(labelled_store.folder), *made.values()])
    env = {"BERTVIZ_CORPORA": listed, "BERTVIZ_RUN_LOG": str(store_folder / RUNS)}
    with running_app(env=env, timeout=120) as app:
        yield app.url


def test_the_store_view_shows_its_neighbours_in_a_browser(store_server: str, browser: Browser) -> None:
    page = open_view(browser, f"{store_server}/{VIEW}")
    page.get_by_text("Where else the model puts “the”, token 1").wait_for()  # a text with one “bank”: its first word
    wait_idle(page)  # the contextuality section below runs after the lists: count the tables once the run is over
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Nearest sentences in the store “topics”").count() == 1
    assert page.locator("[data-testid=stDataFrame], .bv-table").count() >= 3  # two token lists, sentences
    done(page)


def test_sentence_pooling_draws_the_stores_map_in_a_browser(store_server: str, browser: Browser) -> None:
    page = open_view(browser, f"{store_server}/{VIEWS[1]}")
    wait_for_canvas(page, "sp_store_map", "PCA of mean · layer 3: 160 points", starts=True)  # the verdict's best cell
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Every one of the 160 points is drawn.", exact=False).count() == 1
    done(page)


def test_which_model_ranks_two_stores_of_one_corpus_without_a_model_run(store_server: str, store_folder: Path,
                                                                         browser: Browser, tmp_path: Path) -> None:
    runs = store_folder / RUNS
    before = runs.read_text().count("model run") if runs.exists() else 0
    page = open_view(browser, f"{store_server}/{VIEWS[-1]}")
    board = " ".join(ranked(page, "probe accuracy by layer"))
    assert "all-MiniLM-L6-v2 (bundled)" in board and UNTRAINED_TWIN in board
    assert page.get_by_text("measured when the store was built", exact=False).count() >= 1  # the cost table
    assert (runs.read_text().count("model run") if runs.exists() else 0) == before  # the vectors came from the stores
    page.screenshot(path=str(shots(tmp_path) / "which_model_stores.png"), full_page=True)
    done(page)


@pytest.mark.parametrize("present", [True, False], ids=["presentation", "normal"])
@pytest.mark.parametrize("view", VIEWS)
def test_the_store_views_fit_one_screen_at_150_percent(store_server: str, screen_150: Page, view: str,
                                                       present: bool) -> None:
    page = open_at_150_percent(screen_150, f"{store_server}/{view}" + ("&present=true" if present else ""))
    assert page.locator("[data-testid='stException']").count() == 0
    problems = page.evaluate(AUDIT_JS, [present, MIN_FONT_PX])
    assert not problems, report(view, problems)
