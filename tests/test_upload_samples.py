"""A sample is said wherever one is scored (#51 item 1): every page of the registry that takes an upload is given a
labelled corpus larger than any page's sample, and each page that scores part of it says which part, "a sample of
N of M texts" with how it was drawn; a page that scores every text is listed with why. A new page with an uploader
stops the census until it is listed."""
from __future__ import annotations

from pathlib import Path

import pytest
from page_checks import checks
from test_uploads import open_upload

import ui.results
from ui.page_parts.compare_models import MODEL_B
from ui.picker import CUSTOM

from bertviz_core.measures.similarity import SILHOUETTE_SAMPLE
from bertviz_core.views.layer_matches import ROWS
from bertviz_core.views.page_registry import PAGES, PageEntry

TEXTS = max(SILHOUETTE_SAMPLE, ROWS) + 100  # more than any page scores of a corpus
TOPICS = ("rivers", "money", "music")
CSV = ("text,label\n" + "\n".join(f"Text number {i} here is about {TOPICS[i % 3]}.,{TOPICS[i % 3]}"
                                  for i in range(TEXTS)) + "\n").encode()

SAMPLE = f"a sample of {SILHOUETTE_SAMPLE:,} of {TEXTS:,} texts"
DRAWN = "drawn at random and not stratified by label (seed 0"
# page: (settings that bring its sampled score on screen, beside its upload_settings; what it must say)
SAMPLED: dict[str, tuple[tuple[tuple[str, object], ...], tuple[str, ...]]] = {
    "sentence_pooling": ((), (SAMPLE, DRAWN, f"the maps show all {TEXTS:,}")),
    "task_measures": ((), (SAMPLE, DRAWN)),  # the silhouette beside the probe, which uses every text
    "which_model": ((("wm_measure", "silhouette"),), (SAMPLE, DRAWN)),
    # the layer matches resample the first texts (not a random sample), and say so; CKA itself uses every text
    "compare_models": ((), (f"the first {ROWS:,} of {TEXTS:,} texts",)),
}
EVERY_TEXT = {
    "similar_contexts": "every text's tokens are indexed and searched; no score is taken on a part of the texts",
}

UPLOADING = [entry for entry in PAGES if checks(entry).uploader]


def test_every_page_that_takes_an_upload_is_in_the_census() -> None:
    pages = {entry.url_path for entry in UPLOADING}
    assert pages == set(SAMPLED) | set(EVERY_TEXT) and not set(SAMPLED) & set(EVERY_TEXT), (
        "list each page that takes an upload in SAMPLED (what it says of its sample) or EVERY_TEXT (why none)")


def shown_text(at) -> str:  # noqa: ANN001 - an AppTest
    """Every message, caption and markdown of the page, escapes removed."""
    return " ".join(e.value for kind in ("markdown", "caption", "info", "success", "warning")
                    for e in getattr(at, kind)).replace("\\", "")


SAMPLING = [entry for entry in UPLOADING if entry.url_path in SAMPLED]


def on_tiny(folder: Path, second: Path) -> dict[str, object]:
    """Session settings that run the models of a page on conftest's tiny models (the sidebar's on ``folder``, Compare
    models' model B on ``second``): what is said of a sample does not depend on the model, and the bundled model and
    its twin would encode the texts for some 20 s each."""
    return {"model": CUSTOM, "custom_model": str(folder), MODEL_B: CUSTOM, f"{MODEL_B}_custom": str(second)}


@pytest.mark.parametrize("entry", SAMPLING, ids=[entry.url_path for entry in SAMPLING])
def test_a_page_that_scores_a_sample_of_an_upload_says_so(entry: PageEntry, tiny_dir: Path, mlm_dir: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # pooled here rather than in the worker process, whose start (an interpreter importing torch and transformers,
    # some 9 s of CPU) is not what this census is about; tests/test_killed_worker.py and the browser's large
    # upload take the worker's path
    monkeypatch.setattr(ui.results, "LARGE_CORPUS", TEXTS + 1)
    check = checks(entry)
    settings, said = SAMPLED[entry.url_path]
    source, uploader = check.uploader
    at = open_upload(entry.file, source, {**on_tiny(tiny_dir, mlm_dir), **dict(check.upload_settings + settings)})
    at.file_uploader(key=uploader).set_value(("large.csv", CSV, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert f"{TEXTS:,} rows read, {TEXTS:,} used" in shown_text(at)
    for words in said:
        assert words in shown_text(at), (entry.url_path, words)
