"""Uploads say which rows they used: the core's account of every kind of row (blank line, empty text, label-only
row, duplicate), its wording, and every page that takes a corpus upload showing it; a refused upload shows its
reason and nothing of the built-in corpus."""
from __future__ import annotations

import pytest
from conftest import APP, static_tables
from page_checks import checks
from streamlit.testing.v1 import AppTest

from bertviz_core.corpora import read_table, table_texts, upload_rows
from bertviz_core.corpora.uploads import UploadSummary
from bertviz_core.views.page_registry import PAGES, PageEntry
from ui.uploads import SHOWN_LABELS, summary_lines

TOPICS = ("rivers", "money", "music")
SENTENCES = [f"A short sentence about {topic}, number {i}." for i in range(4) for topic in TOPICS]


def every_kind(sentences: list[str]) -> bytes:
    """A CSV (text, label, source) of ``sentences`` labelled in turn by TOPICS, with one row of each other kind:
    a blank line, an empty text (only its source filled), a label-only row and a duplicate of the first row."""
    rows = [f'"{text}",{TOPICS[i % 3]},web' for i, text in enumerate(sentences)]
    rows[2:2] = ["", ",,notes", "  ,money,", rows[0]]
    return ("text,label,source\n" + "\n".join(rows) + "\n").encode()


def test_the_summary_counts_each_kind_of_row_on_300_rows() -> None:
    """The issue's file: 300 rows with a blank line, an empty text, a label-only row and a duplicate."""
    sentences = [f"Sentence number {i} of the file, about {TOPICS[i % 3]}." for i in range(296)]
    table = read_table(every_kind(sentences))
    found = upload_rows(table.frame, "text", "label")
    assert found.summary == UploadSummary(rows=300, used=297, per_label=(("rivers", 100), ("money", 99),
                                                                         ("music", 98)),
                                          blank_lines=1, empty_texts=1, label_only=1, duplicates=1)
    assert found.texts[:3] == sentences[:2] + [sentences[0]] and len(found.labels) == 297
    assert table_texts(table, "text", "label") == (found.texts, found.labels, 3)
    unlabelled = upload_rows(table.frame, "text", None).summary  # no label column: a label-only row has no text
    assert (unlabelled.per_label, unlabelled.empty_texts, unlabelled.label_only) == (None, 2, 0)


def test_an_empty_label_is_counted_and_a_missing_column_is_refused() -> None:
    frame = read_table(b"text,label\nThe first sentence here.,a\nThe second sentence there.,\n").frame
    assert upload_rows(frame, "text", "label").summary.per_label == (("", 1), ("a", 1))
    with pytest.raises(ValueError, match="no column 'topic'"):
        upload_rows(frame, "text", "topic")


def test_the_summary_reads_as_a_person_would_say_it() -> None:
    summary = UploadSummary(rows=300, used=297, per_label=(("rivers", 100), ("", 99), ("*b*", 98)), blank_lines=1,
                            empty_texts=1, label_only=1, duplicates=1)
    assert summary_lines(summary) == [
        "**300 rows read, 297 used.**",
        "Rows used per label (3 labels): rivers 100 · (empty) 99 · \\*b\\* 98",
        "Left out: 1 blank line · 1 row with an empty text · 1 row with a label but no text.",
        "Kept twice: 1 row repeats the text of an earlier row; each is used again, so that text counts twice "
        "(or more) in every result.",
    ]
    many = UploadSummary(rows=40, used=40, per_label=tuple((f"l{i}", 2) for i in range(20)), blank_lines=0,
                         empty_texts=0, label_only=0, duplicates=0)
    lines = summary_lines(many)
    assert lines[1].endswith(f"· {20 - SHOWN_LABELS} other labels {2 * (20 - SHOWN_LABELS)}")
    assert lines[2:] == ["No row was left out."]


def open_upload(page: str, source_key: str, settings: dict | None = None) -> AppTest:
    """``page`` with its corpus source on "Upload a CSV" before it first runs (nothing built-in is computed)."""
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    for key, value in {source_key: "Upload a CSV", **(settings or {})}.items():
        at.session_state[key] = value
    at.switch_page(page).run()
    assert not at.exception, at.exception
    return at


def summary_of(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown if " read, " in m.value)


UPLOADING = [entry for entry in PAGES if checks(entry).uploader]  # from each page's CHECKS: a new page is looped


@pytest.mark.parametrize("entry", UPLOADING, ids=[entry.url_path for entry in UPLOADING])
def test_every_page_that_takes_an_upload_shows_its_summary(entry: PageEntry) -> None:
    check = checks(entry)
    source, uploader = check.uploader
    at = open_upload(entry.file, source, dict(check.upload_settings))
    assert not at.get("plotly_chart") and not at.get("vega_lite_chart")  # no file yet: no results
    at.file_uploader(key=uploader).set_value(("rows.csv", every_kind(SENTENCES), "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    summary = summary_of(at)
    assert "**16 rows read, 13 used.**" in summary and "1 blank line" in summary
    assert "Kept twice: 1 row repeats the text of an earlier row" in summary
    if check.upload_labelled:
        assert "Rows used per label (3 labels): rivers 5 · money 4 · music 4" in summary
        assert "1 row with an empty text · 1 row with a label but no text." in summary
    else:
        assert "per label" not in summary and "2 rows with an empty text." in summary
    assert at.get("plotly_chart") or at.get("vega_lite_chart")  # and the file's results


def test_a_refused_upload_shows_no_results_on_similar_contexts_and_task_measures() -> None:
    at = open_upload("pages/similar_contexts.py", "sc_source")
    at.file_uploader(key="sc_upload").set_value(("one.csv", b"text\nOnly one row is in this little file.\n",
                                                 "text/csv")).run()
    assert not at.exception and "has one sentence" in at.error[0].value
    assert "Nothing is shown until a file can be used" in at.error[0].value
    assert not at.get("plotly_chart") and not static_tables(at) and not at.dataframe
    at = open_upload("pages/task_measures.py", "tm_source", {"tm_strats": ["mean"], "tm_layers": [6]})
    at.file_uploader(key="tm_upload").set_value(("bad.csv", b"id,score\n1,2\n3,4\n", "text/csv")).run()
    assert not at.exception and "No column holds sentences" in at.error[0].value
    assert at.info[-1].value == "The probe uses the labelled corpus chosen above: it appears once it can be used."
    assert not at.get("plotly_chart") and not at.success
