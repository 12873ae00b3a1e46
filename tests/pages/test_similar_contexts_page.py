"""AppTest of the Similar contexts page: the default token on a new text, contexts a reader can see, settings
that run no model, bad input as a message, and a share of same-word neighbours beside its count and the most the
corpus allows."""
from __future__ import annotations

import re

import pytest

from conftest import chart, open_code_panels, open_page, plotly_array, table
from page_checks import LONG, PageChecks, slider, slider_named, typed, uploaded

from bertviz_core.corpora import TUTORIAL


UPLOADER = ("sc_source", "sc_upload")
CHECKS = PageChecks(
    settings=(("slider", "sc_layer_left", 2), ("slider", "sc_layer_right", 4), ("slider", "sc_k", 5),
              ("selectbox", "sc_metric", "dot product"), ("selectbox", "sc_token", 4),
              ("selectbox", "sc_strategy", "max"), ("radio", "sc_adjusted", "adjusted")),
    timed_change=("layer", "?sc_layer_left=2", slider_named("Layer, left")),
    long_text=(typed("text_input", "sc_text", LONG[:4000]), uploaded(UPLOADER, "text\nA short one.\n" + LONG)),
    uploader=UPLOADER,
    shared_query="sc_text=The+river+bank+was+muddy.&sc_token=3+%C2%B7+bank&sc_layer_left=2&sc_k=5&sc_metric=dot+product"
                 "&sc_strategy=max&sc_adjusted=adjusted",
    extra_views=("sc_metric=euclidean+distance",),
    visit=lambda words: {"sc_text": f"{words(30)} {TUTORIAL}"},
    store_view=(("radio", "sc_source", "Precomputed store"),),
    store_settings=(("slider", "sc_k", 5), ("selectbox", "sc_metric", "euclidean distance"),
                    ("selectbox", "sc_store_left", 6), ("selectbox", "sc_store_layer", 3)),
    store_timed_change=("store, k", "?sc_source=Precomputed+store&sc_store={store}", slider),
)

PAGE = "pages/similar_contexts.py"


@pytest.mark.slow
def test_a_new_text_starts_on_its_second_bank_and_the_heading_names_it(bundled) -> None:  # noqa: ANN001
    at = open_page(PAGE)
    assert at.selectbox(key="sc_token").value == "10 · bank"  # the tutorial's second "bank", the robber's
    text = "I deposited my paycheck at the bank before fishing on the river bank."
    at.text_input(key="sc_text").set_value(text).run()
    banks = [i for i, t in enumerate(bundled.tokenize(text)["token"]) if t == "bank"]
    assert at.selectbox(key="sc_token").value == f"{banks[1]} · bank"
    assert any(f"“bank”, token {banks[1]}" in h.value for h in at.subheader)
    at.text_input(key="sc_text").set_value("The river was calm.").run()  # no "bank": its first word
    assert at.selectbox(key="sc_token").value == "1 · the" and not at.exception


def test_a_punctuation_neighbour_is_shown_beside_its_words(bundled) -> None:  # noqa: ANN001
    at = open_page(PAGE)
    dot = list(bundled.tokenize(TUTORIAL)["token"]).index(".")
    at.selectbox(key="sc_token").set_value(dot).run()
    assert at.selectbox(key="sc_token").value == f"{dot} · ."
    contexts = list(table(at, "sc_near_left")["context"]) + list(table(at, "sc_near_right")["context"])
    assert contexts and all(re.search(r"\w", re.sub("«.*?»", "", c)) for c in contexts), contexts
    assert any(re.search(r"\w«\.»", c) for c in contexts)  # a "." right after its word, as written


@pytest.mark.slow
def test_the_page_searches_and_settings_run_no_model(model_calls: list[int]) -> None:
    at = open_page(PAGE)
    left, right = table(at, "sc_near_left"), table(at, "sc_near_right")
    assert len(left) == 10 and len(right) == 10
    runs = len(model_calls)
    open_code_panels(at)
    at.slider(key="sc_layer_left").set_value(2).run()  # (AppTest reruns the whole page; in a browser, the fragment)
    assert "for layer in [2, 6]:" in at.code[0].value
    at.slider(key="sc_k").set_value(5).run()
    at.selectbox(key="sc_metric").set_value("dot product").run()
    assert len(model_calls) == runs and not at.exception
    assert len(table(at, "sc_near_left")) == 5 and "[:5]" in at.code[0].value


def upload(at, rows: list[str]) -> None:  # noqa: ANN001 - an AppTest
    at.radio(key="sc_source").set_value("Upload a CSV").run()
    at.file_uploader(key="sc_upload").set_value(("c.csv", ("text\n" + "\n".join(rows)).encode(), "text/csv")).run()


@pytest.mark.slow
def test_bad_input_gets_a_clear_message() -> None:
    at = open_page(PAGE)
    at.selectbox(key="sc_token").set_value(0).run()  # [CLS]
    assert not at.exception and "marker the tokenizer adds" in at.error[0].value
    at.selectbox(key="sc_token").set_value(21).run()  # [SEP]
    assert not at.exception and "marker the tokenizer adds" in at.error[0].value
    at.text_input(key="sc_text").set_value("The zyxwv was here.").run()
    at.selectbox(key="sc_token").set_value(2).run()
    assert not at.exception and any("does not occur in the corpus" in i.value for i in at.info)
    assert table(at, "sc_near_left") is not None  # the neighbours are still listed
    upload(at, ["Only one row is in this little file."])
    assert not at.exception and "has one sentence" in at.error[0].value
    upload(at, ["The bank by the river was muddy.", "She paid the money into the bank."])
    at.slider(key="sc_k").set_value(50).run()
    assert not at.exception and any("fewer than k = 50" in w.value for w in at.warning)
    assert len(table(at, "sc_near_left")) == 16  # every token of the two sentences (8 + 8)


@pytest.mark.slow
def test_a_share_says_its_count_and_the_most_the_corpus_allows(bundled) -> None:  # noqa: ANN001
    """Two "crane" tokens in the corpus cap the share at 2 of k = 10: each layer says so beside its share."""
    at = open_page(PAGE)
    upload(at, ["The crane lifted the steel beam.", "A crane stood by the lake.", "The river was calm today.",
                "She paid the money into the bank.", "Birds flew over the water at dawn."])
    at.text_input(key="sc_text").set_value("Crane birds wade in shallow water.").run()
    assert at.selectbox(key="sc_token").value == "1 · crane" and not at.exception
    said = [m.value.replace("\\", "") for m in at.markdown if "are “Crane”" in m.value.replace("\\", "")]
    assert len(said) == 2, [m.value for m in at.markdown]
    capped = r"\*\*.+\*\*: [0-2] of 10 \(\d+%\) are “Crane”; at most 2 of 10: the corpus holds only 2 “Crane” tokens"
    assert all(re.fullmatch(capped + " outside your sentence", line) for line in said), said
    summary = table(at, "sc_summary")
    assert (summary["most possible"] == 2).all()
    assert (summary["same-word neighbours"] <= 2).all()
    share = chart(at, "sc_share")
    assert [trace["name"] for trace in share["data"]] == ["same word", "the most possible"]
    assert plotly_array(share["data"][1]["y"]).tolist() == [0.2] * (bundled.info.num_layers + 1)
