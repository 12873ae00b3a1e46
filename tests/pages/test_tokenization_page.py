"""AppTest runs of the Tokenization page (no browser); a model that fails to load, tried from its sidebar."""
from __future__ import annotations

from pathlib import Path

import pytest
from conftest import TUTORIAL_IDS, open_page, open_vocabulary, static_tables, table, table_text
from page_checks import LONG, PageChecks, toggle, typed


CHECKS = PageChecks(
    settings=(("toggle", "tok_pad", True), ("number_input", "tok_T", 40), ("session_state", "tok_tab", "Vocabulary"),
              ("toggle", "voc_re", True)),
    timed_change=("padding toggle", "", toggle("Pad to a fixed length T")),
    long_text=(typed("text_area", "tok_text", LONG),),
    shared_query="tok_text=Shared+text+here&tok_pair=and+a+pair&tok_pad=true&tok_T=40",
    extra_views=("tok_tab=Vocabulary",),
    visit=lambda words: {"tok_text": words(600)},
)


def token_table(at):
    return table(at, "tok_table")


def test_tokenization_defaults_show_the_tutorial_ids() -> None:
    at = open_page("pages/tokenization.py")
    table = token_table(at)
    assert table["id"].tolist() == TUTORIAL_IDS
    assert at.metric[0].value == "22"


def test_special_tokens_show_a_dash_where_they_have_no_word() -> None:
    """[CLS] and [SEP] have no word, start or end: the table shows a dash there, not "None" (#51 item 15)."""
    at = open_page("pages/tokenization.py")
    shown = table_text(at, "tok_table")  # as drawn
    values = token_table(at)
    special = values.index[values["token"].isin(["[CLS]", "[SEP]"])]
    assert len(special) == 2 and values.loc[special, "word_index"].isna().all()
    for column in ("word_index", "start", "end"):
        assert shown.loc[special, column].tolist() == ["—", "—"], shown.loc[special]
    assert shown.loc[1, "start"] == "0" and "None" not in shown.to_string()


def test_padding_adds_pad_rows_with_mask_zero() -> None:
    at = open_page("pages/tokenization.py")
    at.toggle(key="tok_pad").set_value(True).run()
    at.number_input(key="tok_T").set_value(30).run()
    table = token_table(at)
    assert len(table) == 30 and table["token"].tolist()[22:] == ["[PAD]"] * 8
    assert table["attention_mask"].tolist()[22:] == [0] * 8
    assert static_tables(at) == 1  # short tables are static
    at.number_input(key="tok_T").set_value(512).run()
    table = token_table(at)
    assert len(table) == 512 and table["token"].tolist()[-1] == "[PAD]" and not static_tables(at)  # long ones scroll


def test_pair_gets_segment_one_and_word_pieces_are_marked() -> None:
    at = open_page("pages/tokenization.py")
    at.text_input(key="tok_pair").set_value("embeddings").run()
    table = token_table(at)
    assert table["segment"].tolist()[-5:] == [1, 1, 1, 1, 1]
    assert table["piece"].tolist()[-4:-1] == ["## continuation"] * 3
    assert set(table["word"].tolist()[-5:-1]) == {"embeddings"}


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("", "only the special tokens"),
        ("   ", "only the special tokens"),
        ("word " * 5000, "tokens were dropped"),
        ("I 💙 BERT", "became"),
    ],
)
def test_edge_texts_explain_themselves(text: str, expect: str) -> None:
    at = open_page("pages/tokenization.py")
    at.text_area(key="tok_text").set_value(text).run()
    assert not at.exception
    messages = " ".join(m.value for m in [*at.info, *at.warning])
    assert expect in messages


def test_markup_in_text_is_not_rendered() -> None:
    at = open_page("pages/tokenization.py")
    at.text_area(key="tok_text").set_value("<b>bold</b> [link](http://x.org)").run()
    html = " ".join(h.proto.body for h in at.get("html"))
    assert "&lt;" in html and "&gt;" in html and "<b>" not in html and "</b>" not in html


def test_only_the_open_tab_is_drawn() -> None:
    at = open_page("pages/tokenization.py")
    downloads = lambda: [b.key for b in at.get("download_button")]  # noqa: E731
    assert "tok_csv" in downloads() and not [w for w in at.number_input if w.key == "voc_start"]
    open_vocabulary(at)
    assert at.number_input(key="voc_start").value == 5000 and "tok_csv" not in downloads()


def test_bad_vocabulary_regex_is_a_message() -> None:
    at = open_page("pages/tokenization.py")
    open_vocabulary(at)
    at.toggle(key="voc_re").set_value(True).run()
    at.text_input(key="voc_q").set_value("([").run()
    assert not at.exception and "not a valid regular expression" in at.error[0].value


def test_model_that_fails_keeps_the_previous_one(tmp_path: Path) -> None:
    at = open_page("pages/tokenization.py")
    at.sidebar.selectbox(key="model").set_value("Custom id or path…").run()
    at.sidebar.text_input(key="custom_model").set_value(str(tmp_path)).run()
    assert not at.exception
    assert "not a model directory" in at.sidebar.error[0].value
    assert token_table(at)["id"].tolist() == TUTORIAL_IDS  # still served by the bundled model


def test_tokenization_settings_never_run_the_model(model_calls: list[int]) -> None:
    at = open_page("pages/tokenization.py")
    at.toggle(key="tok_pad").set_value(True).run()
    at.number_input(key="tok_T").set_value(40).run()
    at.text_area(key="tok_text").set_value("Another text entirely.").run()
    open_vocabulary(at)
    at.text_input(key="voc_q").set_value("bank").run()
    assert not at.exception and model_calls == []  # tokenizing needs no forward pass
