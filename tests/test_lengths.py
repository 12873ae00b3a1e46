"""Texts in tokens: truncation counted as the tokenizer does it, said on every page that cuts text, and every
page's upload token budget enforced before any model run."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FAMILY_NAMES, open_page
from page_checks import checks, uploaded

from bertviz_core.model.encoder import Encoder
from bertviz_core.model.lengths import Lengths, budget_note, cut_note
from bertviz_core.views.page_registry import PAGES, page

TEXTS = ["short", "A river bank at dawn. " * 60, "", "word " * 700]
CUT = "longer than the model's"
ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_lengths_count_what_the_tokenizer_keeps_and_cuts(family_encoders: dict[str, Encoder], name: str) -> None:
    encoder = family_encoders[name]
    limit = encoder.info.max_length
    counts = encoder.lengths(TEXTS)
    for text, (kept, dropped) in zip(TEXTS, counts):
        full = len(encoder.tokenizer(text)["input_ids"])
        assert kept == len(encoder.tokenizer(text, truncation=True, max_length=limit)["input_ids"]) == min(full, limit)
        assert dropped == full - kept
    assert counts[-1, 1] > 0 and Lengths.of(counts).tokens == counts[:, 0].sum()


def test_the_notes_say_what_was_cut_and_what_fits() -> None:
    assert cut_note(512, [0, 0]) is None and cut_note(512, []) is None
    assert cut_note(512, [90]) == ("The text is longer than the model's 512 tokens: 90 tokens were dropped from its "
                                   "end; only the rest reaches the model.")
    assert "from the end of its longer text" in cut_note(512, [5], "pair")
    note = cut_note(128, [0, 3, 0, 40], "sentence", numbered=True)
    assert note.startswith("2 of the 4 sentences are longer than the model's 128 tokens") and "43 tokens dropped" in note
    assert "at most 40 from one; by sentence: 2 (3), 4 (40))" in note
    assert "1 of the 2 texts is longer" in cut_note(128, [0, 1]) and "Only its first part" in cut_note(128, [0, 1])
    many = cut_note(9, [1] * 20, numbered=True)
    assert "and 12 more" in many and many.count("(1)") == 8
    lengths = Lengths.of([[10, 0], [20, 0], [30, 5]])
    assert lengths.tokens == 60 and lengths.fitting(59) == 2 and lengths.fitting(60) == 3 and lengths.fitting(5) == 0
    assert budget_note(lengths, 60, "Similar contexts") is None
    assert budget_note(lengths, 59, "Similar contexts") == (
        "This file holds 60 tokens as the model reads them; Similar contexts takes at most 59 tokens per upload, so "
        "nothing was computed. Upload fewer or shorter rows: the first 2 of its 3 rows would fit.")
    with pytest.raises(ValueError, match="dropped tokens"):
        cut_note(512, [-1])


# ---- every page that cuts text says so -------------------------------------------------------------------

@pytest.mark.parametrize("entry", PAGES, ids=[entry.url_path or "overview" for entry in PAGES])
@pytest.mark.slow
def test_every_page_that_cuts_text_says_so(entry) -> None:  # noqa: ANN001 - a PageEntry
    for give in checks(entry).long_text:  # the page's test module says how a user gives it a long text
        at = open_page(entry.file)
        give(at)
        assert not at.exception, at.exception
        notes = [w.value for w in at.warning if CUT in w.value]
        assert len(notes) == 1, (entry.file, [w.value for w in at.warning])


def test_every_page_that_takes_text_gives_a_long_one() -> None:
    """A page with a text box or an uploader must say, in its checks, how a user gives it a long text."""
    for entry in PAGES:
        takes_text = any(kind in (ROOT / entry.file).read_text() for kind in (".text_area(", ".text_input(",
                                                                            "corpus_source("))
        assert bool(checks(entry).long_text) == takes_text, entry.file


# ---- token budgets: refused just over, before any model run; used just under --------------------------------

UPLOADERS = {entry.url_path: checks(entry).uploader for entry in PAGES if checks(entry).uploader}
ROWS = [f"Row {i} says the river bank flooded after the spring rain,{'ab'[i % 2]}" for i in range(24)]


def test_every_page_with_an_uploader_has_a_stated_budget() -> None:
    assert {entry.url_path for entry in PAGES if entry.token_budget} == set(UPLOADERS)


@pytest.mark.parametrize("url_path", sorted(UPLOADERS))
def test_an_upload_just_over_the_default_budget_is_refused_before_any_model_run(url_path: str, bundled: Encoder,
                                                                                 model_calls: list[int]) -> None:
    budget = page(url_path).token_budget
    row = "The river bank flooded after the spring rain. " * 40  # 482 tokens as the model reads it
    per_row = int(bundled.lengths([row])[0, 0])
    rows = budget // per_row + 1  # the fewest rows over the budget: one row fewer fits
    assert (rows - 1) * per_row <= budget < rows * per_row
    at = open_page(f"pages/{url_path}.py")
    source, uploader = UPLOADERS[url_path]
    assert f"{budget:,} tokens" in at.radio(key=source).set_value("Upload a CSV").run().get("file_uploader")[0].proto.label
    before = len(model_calls)
    uploaded((source, uploader), "text,label\n" + "".join(f"{row},{i % 2}\n" for i in range(rows)))(at)
    assert not at.exception and len(model_calls) == before
    assert [e.value.replace("\\", "") for e in at.error] == [  # as shown: Markdown's escapes removed
        f"This file holds {rows * per_row:,} tokens as the model reads them; {page(url_path).title} takes at most "
        f"{budget:,} tokens per upload, so nothing was computed. Upload fewer or shorter rows: the first {rows - 1:,} "
        f"of its {rows:,} rows would fit. Nothing is shown until a file can be used: upload another, or choose the "
        "built-in corpus above."]
    assert not at.get("plotly_chart") and not at.get("vega_lite_chart")


@pytest.mark.parametrize("url_path", sorted(UPLOADERS))
@pytest.mark.slow
def test_an_upload_at_the_budget_works_and_one_token_over_does_not(url_path: str, bundled: Encoder,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    total = Lengths.of(bundled.lengths([r.rsplit(",", 1)[0] for r in ROWS])).tokens
    source, uploader = UPLOADERS[url_path]
    for budget, refused in ((total, False), (total - 1, True)):
        monkeypatch.setenv("BERTVIZ_MAX_TOKENS", str(budget))
        at = open_page(f"pages/{url_path}.py")
        uploaded((source, uploader), "text,label\n" + "\n".join(ROWS))(at)
        assert not at.exception
        errors = [e.value for e in at.error]
        assert bool(errors) == refused, (budget, errors)
        assert refused or at.get("plotly_chart") or at.get("vega_lite_chart") or at.get("dataframe")


def test_a_pairs_file_over_the_budget_is_refused_before_any_model_run(monkeypatch: pytest.MonkeyPatch,
                                                                       model_calls: list[int]) -> None:
    pairs = "sentence1,sentence2,score\n" + "".join(f"A cat sat on mat {i}.,A dog lay on rug {i}.,{i % 5}\n"
                                                    for i in range(12))
    monkeypatch.setenv("BERTVIZ_MAX_TOKENS", "100")  # 24 sentences of about ten tokens each
    at = open_page("pages/task_measures.py")
    at.session_state["tm_tab"] = "Similarity correlation"  # a lazy tab: AppTest opens it through its key
    at.run()
    at.radio(key="tm_pairs_source").set_value("Upload a CSV").run()
    before = len(model_calls)
    at.file_uploader(key="tm_pairs_upload").set_value(("pairs.csv", pairs.encode(), "text/csv")).run()
    assert not at.exception and len(model_calls) == before
    refused = " ".join(e.value for e in at.error).replace("\\", "")
    assert "Task measures takes at most 100 tokens per upload" in refused and "shorter sentences" in refused
