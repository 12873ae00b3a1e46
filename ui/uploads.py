"""A corpus uploaded as a CSV: the file read, its columns picked, and an account of the rows used and left out.

Used by every page that takes a corpus upload (Sentence pooling, Task measures, Similar contexts). Until a
file can be used, the pages show no corpus results at all: a refused file is never followed by the built-in
corpus's numbers, which would read as the file's.
"""
from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import streamlit as st

from bertviz_core.corpora import Table, UploadedCorpus, UploadSummary, max_rows, read_table, upload_rows
from bertviz_core.corpora.corpus_sources import BUILT_IN_CORPORA, CORPUS_SOURCES, Corpus, source_labels, uploaded
from bertviz_core.model.lengths import budget_note, token_budget
from bertviz_core.views.page_registry import page
from ui.cached import corpus_lengths, parse_pairs
from ui.display import literal, or_stop
from ui.picker import model_key
from ui.results import corpus_digest
from ui.stores.corpus import store_source

NO_LABELS = "(no labels)"
BUILT_IN_PAIRS = "Built-in pairs (40, gold 0–5)"
UPLOAD = "Upload a CSV"  # CORPUS_SOURCES' upload, as a pairs source
SHOWN_LABELS = 12  # labels counted one by one in the summary; the others are summed
EMPTY_LABEL = "(empty)"  # how an empty label cell, kept as the label "", is named


@st.cache_data(max_entries=16, show_spinner=False)
def parse_upload(data: bytes, limit: int) -> Table:
    """Cached ``corpora.read_table`` of an uploaded file's bytes."""
    return read_table(data, limit)


@st.cache_data(max_entries=16, show_spinner=False)
def _rows(data: bytes, limit: int, text_column: str, label_column: str | None) -> UploadedCorpus:
    """Cached ``corpora.upload_rows`` of an uploaded file's chosen columns."""
    return upload_rows(parse_upload(data, limit).frame, text_column, label_column)


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n:,} {one if n == 1 else many or one + 's'}"


def summary_lines(summary: UploadSummary) -> list[str]:
    """The upload's account, a line each (Markdown, labels escaped): rows read and used, the rows used per
    label, each kind of row left out, and the rows whose text came before."""
    lines = [f"**{_count(summary.rows, 'row')} read, {summary.used:,} used.**"]
    if summary.per_label is not None:
        named = [f"{literal(label) if label else EMPTY_LABEL} {n:,}" for label, n in summary.per_label[:SHOWN_LABELS]]
        rest = summary.per_label[SHOWN_LABELS:]
        if rest:
            named.append(f"{_count(len(rest), 'other label')} {sum(n for _, n in rest):,}")
        lines.append(f"Rows used per label ({_count(len(summary.per_label), 'label')}): " + " · ".join(named))
    left_out = [text for n, text in (
        (summary.blank_lines, _count(summary.blank_lines, "blank line")),
        (summary.empty_texts, _count(summary.empty_texts, "row") + " with an empty text"),
        (summary.label_only, _count(summary.label_only, "row") + " with a label but no text"),
    ) if n]
    lines.append("Left out: " + " · ".join(left_out) + "." if left_out else "No row was left out.")
    if summary.duplicates:
        lines.append(f"Kept twice: {_count(summary.duplicates, 'row repeats', 'rows repeat')} the text of an "
                     "earlier row; each is used again, so that text counts twice (or more) in every result.")
    return lines


def show_upload_summary(summary: UploadSummary, key: str) -> None:
    """The upload's account (``summary_lines``), in a container keyed ``key``; it stays on the page."""
    with st.container(key=key):
        st.markdown("  \n".join(summary_lines(summary)))


def show_pairs_summary(rows: int, used: int, key: str) -> None:
    """An uploaded pairs file's account, in a container keyed ``key``: ``rows`` read (blank lines skipped),
    ``used`` pairs (``task_measures.check_pairs`` leaves out a row with an empty sentence)."""
    with st.container(key=key):
        st.markdown(f"**{_count(rows, 'row')} read, {_count(used, 'pair')} used.**  \n"
                    + (f"Left out: {_count(rows - used, 'row')} with an empty sentence." if rows > used
                       else "No row was left out."))


def scored_pairs(key: str, url_path: str) -> tuple[pd.DataFrame, str]:
    """Scored pairs from the source picked in a radio (keyed ``{key}_pairs_source``, bound to the link): the built-in
    pairs, or a CSV from the uploader ``{key}_pairs_upload`` on the page at ``url_path``, its account shown under it
    (``{key}_pairs_summary``) and its tokens checked against the page's budget. Returns the checked pairs
    (``task_measures.check_pairs``) and the code that reads them; while no file can be used, says why and stops
    the page."""
    from bertviz_core.corpora import sentence_pairs
    from bertviz_core.measures.task_measures import check_pairs
    from bertviz_core.recipes import BUILT_IN_PAIRS_CODE
    source = st.radio("Pairs", [BUILT_IN_PAIRS, UPLOAD], horizontal=True, key=f"{key}_pairs_source",
                      bind="query-params")
    if source != UPLOAD:
        return or_stop(lambda: check_pairs(sentence_pairs()), icon="📄"), BUILT_IN_PAIRS_CODE
    upload = st.file_uploader("CSV with the columns sentence1, sentence2, score (up to "
                              f"{page_budget(url_path):,} tokens, both sentences counted)", type=["csv"],
                              key=f"{key}_pairs_upload")
    if upload is None:
        st.info("Upload scored pairs to use your own: the results appear here once the file is read. The built-in "
                "pairs are one click away, above.", icon="📄")
        st.stop()
    frame = or_stop(lambda: parse_pairs(upload.getvalue()), icon="📄")
    pairs = or_stop(lambda: check_pairs(frame), icon="📄")
    show_pairs_summary(len(frame), len(pairs), f"{key}_pairs_summary")
    over = over_budget(url_path, (*pairs["sentence1"], *pairs["sentence2"]), "sentence")
    if over:
        refuse(over)
        st.stop()
    return pairs, "import pandas as pd\npairs = pd.read_csv('your_pairs.csv')\n"


def page_budget(url_path: str) -> int:
    """The most tokens an upload may hold on the page at ``url_path`` (its ``token_budget``, or the server's)."""
    return token_budget(page(url_path).token_budget)


def over_budget(url_path: str, texts: tuple[str, ...], noun: str = "row") -> str | None:
    """Why texts uploaded on the page at ``url_path`` are refused, counted in tokens before any model run
    (``lengths.budget_note`` against the page's ``token_budget``); None when they fit."""
    lengths = corpus_lengths(model_key(), corpus_digest(texts), texts)
    return budget_note(lengths, page_budget(url_path), page(url_path).title, noun)


def uploaded_corpus(key: str, url_path: str, with_labels: bool = True, min_texts: int = 1,
                    why: str = "") -> UploadedCorpus | None:
    """The corpus of a CSV uploaded through the uploader ``key`` on the page at ``url_path``, after the user picks
    its columns (and, with ``with_labels``, a label column), with its summary shown under the pickers (container
    ``{key}_summary``). None when there is no usable file yet: the page then shows no corpus results, and this
    says why (an invitation before a file, an error for a file that cannot be used: fewer than ``min_texts``
    texts, with ``why`` after the number: ", as …", or more tokens than the page's budget)."""
    what = "a text column and an optional label column" if with_labels else "a text column"
    upload = st.file_uploader(f"CSV with {what} (up to {max_rows():,} rows and {page_budget(url_path):,} tokens)",
                              type=["csv"], key=key)
    if upload is None:
        st.info("Upload a CSV to use your own sentences: the results appear here once it is read. The built-in "
                "corpus is one click away, above.", icon="📄")
        return None
    data = upload.getvalue()
    try:
        parsed = parse_upload(data, max_rows())
    except ValueError as err:
        refuse(str(err))
        return None
    if parsed.note:
        st.info(parsed.note, icon="📄")
    columns = list(parsed.frame.columns)
    c1, c2 = st.columns(2)
    text_col = c1.selectbox("Text column", columns, index=columns.index(parsed.text_column)
                            if parsed.text_column else None, placeholder="Which column holds the texts?")
    label_col = NO_LABELS
    if with_labels:
        label_choices = [NO_LABELS, *[c for c in columns if c != text_col]]
        label_col = c2.selectbox("Label column", label_choices, index=label_choices.index(parsed.label_column)
                                 if parsed.label_column in label_choices else 0)
    if text_col is None:
        st.info("Two columns could hold the texts: choose one above. The results appear once it is chosen.")
        return None
    found = _rows(data, max_rows(), text_col, None if label_col == NO_LABELS else label_col)
    show_upload_summary(found.summary, f"{key}_summary")
    if len(found.texts) < min_texts:
        count = "one sentence" if len(found.texts) == 1 else _count(len(found.texts), "sentence")
        refuse("Every row of the text column is empty." if not found.texts else
               f"The file has {count}; this page needs at least {min_texts:,}{why}.")
        return None
    over = over_budget(url_path, tuple(found.texts))
    if over:
        refuse(over)
        return None
    return found


def corpus_source(label: str, key: str, url_path: str, built_in: str, with_labels: bool = True, min_texts: int = 1,
                  why: str = "", stores: Callable[..., Corpus | None] | None = None) -> Corpus | None:
    """The page's corpus from the source picked in a radio (``label``, keyed ``{key}_source`` and bound to the
    link) of every source of ``corpus_sources.CORPUS_SOURCES``: the page's built-in corpus ``built_in``, a file
    from the uploader keyed ``{key}_upload`` (see ``uploaded_corpus`` for ``with_labels``, ``min_texts`` and
    ``why``), or, on a page that reads stores, a store the server offers (``ui.stores.corpus.store_source``); a page
    given its own store widget ``stores`` (Which model?: one store per model) offers stores through it. None while no
    file can be used: the page shows no corpus results then."""
    options = source_labels(built_in, page(url_path).reads_stores or stores is not None)
    chosen = st.radio(label, list(options.values()), horizontal=True, key=f"{key}_source", bind="query-params")
    name = next(name for name, shown in options.items() if shown == chosen)
    widget = stores if stores is not None and CORPUS_SOURCES[name].store else SOURCE_WIDGETS[name]
    return widget(key, url_path, built_in, with_labels, min_texts, why)


def _upload_source(key: str, url_path: str, built_in: str, with_labels: bool, min_texts: int,
                   why: str) -> Corpus | None:
    found = uploaded_corpus(f"{key}_upload", url_path, with_labels, min_texts, why)
    return None if found is None else uploaded(found.texts, found.labels)


# The widgets of each corpus source, by its name in CORPUS_SOURCES (a test checks that each has one).
SOURCE_WIDGETS = {
    "built-in": lambda key, url_path, built_in, with_labels, min_texts, why: BUILT_IN_CORPORA[built_in].load(),
    "upload": _upload_source,
    "precomputed": store_source,
}


def refuse(reason: str) -> None:
    """A file that cannot be used: the reason, and that nothing is shown until a file can be."""
    st.error(f"{literal(reason)} Nothing is shown until a file can be used: upload another, or choose the "
             "built-in corpus above.", icon="📄")
