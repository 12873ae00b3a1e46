"""Which model? in a real browser, on the session's shared server: an upload of 320 labelled rows and a file of scored
pairs, each ranked with its leaderboard and chart and no exception, at 1400 x 1600 and in presentation mode at 1280 x 720
and 150 %, where the grids' tab is opened too. Screenshots go to ``BERTVIZ_SCREENSHOTS`` when it names a folder (to be looked at)."""
from __future__ import annotations

import os
from pathlib import Path

from browser_views import done, open_view, require_chromium, wait_for_canvas
from live_app import wait_idle

require_chromium()

from playwright.sync_api import Browser, Page  # noqa: E402

from bertviz_core.corpora import news_topics, sentence_pairs  # noqa: E402
from bertviz_core.model.models import UNTRAINED_TWIN  # noqa: E402

PAIRS = "wm_task=Scored+pairs+%28Spearman+%CF%81%29"  # a bound radio's link carries its option as shown
CELLS = "wm_strats=mean&wm_strats=cls&wm_layers=0+%C2%B7+embeddings&wm_layers=layer+3&wm_layers=layer+6"


def shots(tmp_path: Path) -> Path:
    """Where the screenshots go: ``BERTVIZ_SCREENSHOTS`` when set, else the test's own folder."""
    folder = Path(os.environ.get("BERTVIZ_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def upload(page: Page, key: str, file: Path) -> None:
    """``file`` given to the uploader keyed ``key``, then the rerun waited for."""
    dropzone = f".st-key-{key} [data-testid='stFileUploaderDropzoneInput']"
    page.wait_for_selector(dropzone, state="attached", timeout=120_000)  # the models load first, beside other work
    page.locator(dropzone).set_input_files(str(file))
    wait_idle(page)


def ranked(page: Page, title: str) -> list[str]:
    """The leaderboard's rows once the score-by-layer chart, its title starting ``title``, is drawn, with no
    exception shown."""
    wait_for_canvas(page, "wm_layers_chart", title, starts=True)
    assert page.locator("[data-testid='stException']").count() == 0
    return page.locator(".st-key-wm_leaderboard").inner_text().splitlines()


def test_an_uploaded_labelled_file_and_a_pairs_file_are_ranked(server: str, browser: Browser, screen_150: Page,
                                                                tmp_path: Path) -> None:
    corpus, folder = news_topics(), shots(tmp_path)
    rows = [(f"{t} (note {i})", label) for i in range(2) for t, label in zip(corpus.text, corpus.label)]
    labelled = tmp_path / "labelled.csv"
    labelled.write_text("text,label\n" + "\n".join(f'"{t}",{label}' for t, label in rows), encoding="utf-8")
    page = open_view(browser, f"{server}/which_model?wm_source=Upload+a+CSV&{CELLS}")
    upload(page, "wm_upload", labelled)
    board = " ".join(ranked(page, "probe accuracy by layer"))
    assert UNTRAINED_TWIN in board and "all-MiniLM-L6-v2" in board
    assert page.get_by_text("320 texts", exact=False).count() >= 1
    page.screenshot(path=str(folder / "which_model_upload.png"), full_page=True)
    done(page)

    pairs = sentence_pairs()
    scored = tmp_path / "pairs.csv"
    pairs[["sentence1", "sentence2", "score"]].to_csv(scored, index=False)
    page = open_view(browser, f"{server}/which_model?{PAIRS}&wm_pairs_source=Upload+a+CSV&{CELLS}")
    upload(page, "wm_pairs_upload", scored)
    board = " ".join(ranked(page, "Spearman ρ by layer"))
    assert UNTRAINED_TWIN in board
    page.screenshot(path=str(folder / "which_model_pairs.png"), full_page=True)
    done(page)

    page = screen_150  # 1280 x 720 at 150 %
    page.goto(f"{server}/which_model?{PAIRS}&present=true&{CELLS}")
    wait_idle(page)
    ranked(page, "Spearman ρ by layer")
    page.screenshot(path=str(folder / "which_model_present_150.png"))
    for key in ("wm_leaderboard", "wm_layers_chart"):  # the page scrolls inside its own container
        page.locator(f".st-key-{key}").scroll_into_view_if_needed()
        wait_idle(page)
        page.screenshot(path=str(folder / f"which_model_present_150_{key}.png"))
    page.get_by_role("tab", name="Each model's grid").click()  # only the open tab is drawn
    wait_idle(page)
    page.wait_for_selector(".st-key-wm_grid_0 .js-plotly-plot .main-svg")
    page.locator(".st-key-wm_grid_0").scroll_into_view_if_needed()
    wait_idle(page)
    page.screenshot(path=str(folder / "which_model_present_150_wm_grid_0.png"))
    assert page.locator("[data-testid='stException']").count() == 0
