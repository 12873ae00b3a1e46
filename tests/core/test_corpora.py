"""Built-in corpora and uploads read as tables (bertviz_core.corpora): columns found, bad files refused with a
reason, empty rows dropped with their labels, other separators sniffed."""
from __future__ import annotations

import pytest

from bertviz_core.corpora import news_topics, read_table, sniff_separator


def test_built_in_corpus_and_upload_parsing() -> None:
    corpus = news_topics()
    assert corpus["label"].value_counts().to_dict() == {"sports": 40, "business": 40, "science": 40, "food": 40}
    table = read_table(corpus.to_csv(index=False).encode())
    assert (table.text_column, table.label_column) == ("text", "label")
    for data, message in [
        (b"", "empty"),
        (b"id,score\n1,2\n3,4\n", "No column holds sentences"),
        ("text\ncaf\xe9 au lait tous les jours\n".encode("latin-1"), "not UTF-8"),
        (b"text\n" + b"a short sentence here\n" * 11, "limit is 10"),
    ]:
        with pytest.raises(ValueError, match=message):
            read_table(data, limit=10)


def test_table_texts_drops_empty_rows_and_keeps_labels_aligned() -> None:
    from bertviz_core.corpora import table_texts

    table = read_table(b"text,label\nFirst sentence here.,a\n  ,b\nSecond sentence there.,c\n\n")
    assert table_texts(table, "text", "label") == (["First sentence here.", "Second sentence there."], ["a", "c"], 2)
    assert table_texts(table, "text", None)[1] is None


@pytest.mark.parametrize(("separator", "name"), [(";", "semicolon"), ("\t", "tab"), ("|", "vertical bar")])
def test_csv_with_another_separator_is_read_as_columns(separator: str, name: str) -> None:
    rows = [("The cat sat on the mat, quietly.", "pets"), ("Stocks fell sharply, again, today.", "money"),
            ("Dogs bark at the postman.", "pets")]
    data = "\n".join([f"text{separator}label", *(f"{t}{separator}{label}" for t, label in rows)]).encode()
    table = read_table(data)
    assert (table.text_column, table.label_column) == ("text", "label") and len(table.frame) == 3
    assert table.frame["label"].tolist() == ["pets", "money", "pets"] and f"{name}-separated" in table.note
    assert sniff_separator("text,label\n\"a; b\",x\n") == ","
