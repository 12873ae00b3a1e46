"""Bad input on every page, table-driven: each gives a clear message (or a normal result) and no exception."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import canvas_chart, open_page, open_tab, open_vocabulary
from streamlit.testing.v1 import AppTest

from bertviz_core.corpora import news_topics

LONG = "word " * 2000  # 10,000 characters
ODD = {
    "emoji": "I 💙 BERT 🤖 and the bank 🏦.",
    "cjk": "自然语言处理 and the bank",
    "rtl": "مرحبا bank بالعالم",
    "zero-width": "zero\u200bwidth\u200d bank \ufeff",
    "control": "ctrl\x00\x07\x1b[31m bank \x7f",
    "html": "<script>alert('x')</script> <b>bank</b> <img src=x onerror=alert(1)>",
    "markdown": "[click](http://evil.example) **bank** `code` # heading",
}


@dataclass(frozen=True)
class Case:
    page: str
    act: Callable[[AppTest], object]
    expect: str | None  # a phrase some message must contain; None = a normal result, no error


def text(key: str, value: str, area: bool = True) -> Callable[[AppTest], object]:
    return lambda at: (at.text_area if area else at.text_input)(key=key).set_value(value).run()


def upload(data: bytes) -> Callable[[AppTest], object]:
    def act(at: AppTest) -> None:
        at.radio(key="sp_source").set_value("Upload a CSV").run()
        at.file_uploader(key="sp_upload").set_value(("upload.csv", data, "text/csv")).run()
    return act


def upload_pairs(data: bytes) -> Callable[[AppTest], object]:
    def act(at: AppTest) -> None:
        at.session_state["tm_tab"] = "Similarity correlation"  # a lazy tab: AppTest opens it through its key
        at.run()
        at.radio(key="tm_pairs_source").set_value("Upload a CSV").run()
        at.file_uploader(key="tm_pairs_upload").set_value(("pairs.csv", data, "text/csv")).run()
    return act


def vocabulary_regex(pattern: str) -> Callable[[AppTest], object]:
    def act(at: AppTest) -> None:
        open_vocabulary(at)
        at.toggle(key="voc_re").set_value(True).run()
        at.text_input(key="voc_q").set_value(pattern).run()
    return act


def model(value: str) -> Callable[[AppTest], object]:
    def act(at: AppTest) -> None:
        at.sidebar.selectbox(key="model").set_value("Custom id or path…").run()
        at.sidebar.text_input(key="custom_model").set_value(value).run()
    return act


TOK, LV, WS, SP, CS = (f"pages/{p}.py" for p in
                       ("tokenization", "layer_values", "word_similarity", "sentence_pooling", "compare_sentences"))
CASES: dict[str, Case] = {
    "tokenization empty": Case(TOK, text("tok_text", ""), "only the special tokens"),
    "tokenization whitespace": Case(TOK, text("tok_text", " \n\t "), "only the special tokens"),
    "tokenization 10k chars": Case(TOK, text("tok_text", LONG), "tokens were dropped"),
    "tokenization bad regex": Case(TOK, vocabulary_regex("(?<"), "not a valid regular expression"),
    **{f"tokenization {name}": Case(TOK, text("tok_text", value), None) for name, value in ODD.items()},
    "layer values empty": Case(LV, text("lv_text", ""), "Type a text"),
    "layer values whitespace": Case(LV, text("lv_text", "   "), "Type a text"),
    "layer values 10k chars": Case(LV, text("lv_text", LONG), "tokens were dropped"),
    **{f"layer values {name}": Case(LV, text("lv_text", value), None) for name, value in ODD.items()},
    "word empty texts": Case(WS, text("ws_texts", "\n \n"), "Enter a few sentences"),
    "word empty word": Case(WS, text("ws_word", "", area=False), "Enter a word"),
    "word punctuation": Case(WS, text("ws_word", "...", area=False), "no letters or digits"),
    "word phrase": Case(WS, text("ws_word", "river bank", area=False), "more than one word"),
    "word not present": Case(WS, text("ws_word", "zebra", area=False), "Words that are present"),
    "word html texts": Case(WS, text("ws_texts", ODD["html"] + "\n" + ODD["markdown"]), None),
    "word odd scripts": Case(WS, text("ws_texts", "\n".join(ODD.values())), None),
    "word 10k chars": Case(WS, text("ws_texts", LONG + " bank\nthe bank"), "occurs once"),
    "pooling empty csv": Case(SP, upload(b""), "empty"),
    "pooling wrong columns": Case(SP, upload(b"id,score\n1,2\n3,4\n"), "No column holds sentences"),
    "pooling wrong encoding": Case(SP, upload("text\nd\xe9j\xe0 vu encore\n".encode("latin-1")), "not UTF-8"),
    "pooling not csv": Case(SP, upload(b"\x00\x01\x02binary\xff\xfe"), "not UTF-8"),
    "pooling too large": Case(SP, upload(b"text\n" + b"a short sentence here\n" * 5001), "the limit is 5,000"),
    "pooling only empty rows": Case(SP, upload(b"text,label\n ,a\n  ,b\n"), "No column holds sentences"),
    "pooling html text": Case(SP, upload(("text,label\n" + "\n".join(
        f'"{v}",{k}' for k, v in ODD.items() if '"' not in v)).encode()), "label of its own"),
    "compare empty": Case(CS, text("cs_texts", ""), "Enter a few sentences"),
    "compare one sentence": Case(CS, text("cs_texts", "Only this one."), "at least two sentences"),
    "compare duplicates": Case(CS, text("cs_texts", "Same.\nSame."), "more than once"),
    "compare 10k chars": Case(CS, text("cs_texts", "Short one.\n" + LONG), "1,490 tokens dropped in all"),
    "compare odd scripts": Case(CS, text("cs_texts", "\n".join(ODD.values())), None),
    "similar contexts, zero-width only": Case("pages/similar_contexts.py", text("sc_text", "\u200b\u200d\ufeff",
                                                                              area=False), "no token but the markers"),
    "pairs file with sentence1 and Sentence1": Case("pages/task_measures.py", upload_pairs(
        b"sentence1,Sentence1,sentence2,score\na,b,c,1\nd,e,f,2\n"), "more than one column named sentence1"),
    "model id that does not exist": Case(TOK, model("no-such-org/no-such-model-xyz"), "Could not load model"),
    "local path that is not a model": Case(TOK, model("/tmp"), "not a model directory"),
}


def messages(at: AppTest) -> str:
    found = [*at.error, *at.warning, *at.info, *at.caption, *at.sidebar.error]
    return " ".join(str(m.value) for m in found).replace("\\", "")


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_gives_a_clear_message_and_no_exception(name: str) -> None:
    case = CASES[name]
    at = open_page(case.page)
    case.act(at)
    assert not at.exception, at.exception
    if case.expect is None:
        assert not at.error and not at.sidebar.error, [e.value for e in at.error]
    else:
        assert case.expect in messages(at), messages(at)


def test_markup_is_never_rendered() -> None:
    at = open_page(TOK)
    at.text_area(key="tok_text").set_value(ODD["html"]).run()
    html = " ".join(h.proto.body for h in at.get("html"))
    assert "<script" not in html and "<img" not in html and "&lt;" in html
    at = open_page(CS)
    at.text_area(key="cs_texts").set_value(ODD["markdown"] + "\n" + ODD["html"]).run()  # html: ranked, labelled
    open_tab(at, "cs_view", "Rank against one sentence")
    _, bars = canvas_chart(at, "cs_rank")  # a canvas draws text, never markup: each label is shown as typed
    assert any(name.startswith("2: <script>alert") for name in bars["name"])
    assert not any("&lt;" in name for name in bars["name"])  # not escaped: a canvas would show the entity itself


def test_a_bolded_name_is_shown_as_typed_and_bold() -> None:
    """Which model?'s verdict bolds the best cell's name, which holds the model name the user typed: its Markdown is
    escaped, its own bold marks too, and the core's marks around it stay bold; a sentence without them is escaped
    whole (a tie names the top twice, unbolded)."""
    from ui import literal, literal_but_bold

    for name in (ODD["markdown"], "my**model: mean at layer 2"):
        shown = literal_but_bold(f"Best on 3 texts: **{name}**, 0.9.", name)
        assert shown == f"{literal('Best on 3 texts: ')}**{literal(name)}**{literal(', 0.9.')}" and "](" not in shown
        tie = f"No clear best: 2 cells ({name}, b). The top, {name}, scores 0.9."
        assert literal_but_bold(tie, name) == literal(tie)


def test_allowed_models_refuse_custom_ids(monkeypatch: pytest.MonkeyPatch, tiny_dir: Path) -> None:
    monkeypatch.setenv("BERTVIZ_MODELS", "bert-base-uncased")
    at = open_page(TOK)
    assert at.sidebar.selectbox(key="model").options[:2] == ["all-MiniLM-L6-v2 (bundled)", "bert-base-uncased"]
    model(str(tiny_dir))(at)
    assert not at.exception and "only loads the models" in at.sidebar.error[0].value
    assert at.metric[0].value == "22"  # still served by the bundled model


def test_pooling_upload_with_sentences_and_labels_still_works() -> None:
    at = open_page(SP)
    upload(news_topics().head(40).to_csv(index=False).encode())(at)
    assert not at.exception and not at.error
