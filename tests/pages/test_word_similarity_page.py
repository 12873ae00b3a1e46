"""AppTest of the Word in context page: defaults, no model call on setting changes, bad words."""
from __future__ import annotations

import pytest
from conftest import canvas_heatmap, chart, chart_title, charts, drawn_title, open_page, table
from page_checks import LONG, PageChecks, select
from streamlit.testing.v1 import AppTest


def long_texts(at: AppTest) -> None:
    at.text_input(key="ws_word").set_value("bank").run()
    at.text_area(key="ws_texts").set_value(f"{LONG}\nWe sat on the bank.\nThe bank lent money.").run()


CHECKS = PageChecks(
    settings=(("selectbox", "ws_strategy", "layer 2"), ("selectbox", "ws_metric", "dot product"),
              ("selectbox", "ws_sub", "first"), ("radio", "ws_score", "gap")),
    timed_change=("strategy", "", select("Word vector", ("layer 1", "layer 2"))),
    long_text=(long_texts,),
    shared_query="ws_preset=crane&ws_texts=A+crane+lifted+steel.%0AThe+crane+flew+south.%0AA+crane+is+a+bird."
                 "&ws_word=crane&ws_sub=first&ws_strategy=layer+2&ws_metric=dot+product"
                 "&ws_score=mean+same-sense+cosine+%E2%88%92+mean+different-sense+cosine"
                 "&ws_senses=machine|bird|bird",
    extra_views=("ws_metric=euclidean+distance&ws_strategy=sum+of+all+layers",),
    visit=lambda words: {"ws_preset": "(your own texts)", "ws_word": "bank",
                         "ws_texts": "\n".join(f"{words(10)} the bank was there." for _ in range(20))},
)

PAGE = "pages/word_similarity.py"


def test_defaults_show_tutorial_banks_curves_and_scores() -> None:
    at = open_page(PAGE)
    spec, cells = canvas_heatmap(at, "ws_matrix")
    assert drawn_title(at, "ws_matrix") == "cosine, sum of last 4"
    assert spec["encoding"]["y"]["sort"][:3] == ["0", "1", "2"]  # numbered; the key below names them
    assert list(cells["row"][:2]) == ["0", "0"] and list(cells["column"][:2]) == ["0", "1"]
    key = " ".join(c.value for c in at.caption)
    # each occurrence marked: the tutorial sentence holds "bank" three times
    shown = key.replace("\\", "")
    assert "**0** …from the «bank» vault, the…" in shown and "**1** …vault, the «bank» robber was…" in shown
    assert "**2** …Mississippi river «bank».…" in shown and "\\*\\*" not in key
    assert chart(at, "ws_curves")["data"][0]["x"][0] == "0 · embeddings"
    scores = chart(at, "ws_scores")
    assert chart_title(scores).startswith("auc per merge rule")
    assert scores["data"][0]["y"] == ["mean", "sum", "first", "last"]
    assert any(shape["type"] == "rect" for shape in scores["layout"]["shapes"])  # the best cell
    tutorial = table(at, "ws_tutorial")
    # one type per column (a float column with a text note in it fails Streamlit's Arrow conversion)
    assert tutorial.iloc[:, 1].tolist() == ["0.94", "0.69", "not reported"] and 0.9 < float(tutorial.iloc[0, 2]) < 1
    # "bank" is one WordPiece token everywhere: the four merge rules tie, and the page says why
    verdict = " ".join(i.value for i in at.info)
    assert "No clear best" in verdict and "single WordPiece token" in verdict and not at.success


@pytest.mark.slow
def test_strategy_metric_merge_and_preset_changes_run_no_model(model_calls: list[int]) -> None:
    calls = model_calls
    at = open_page(PAGE)
    calls.clear()  # the default texts' run, if no earlier test in this worker left them cached
    at.text_area(key="ws_texts").set_value("The bank was shut.\nWe sat on the river bank, once.").run()
    assert calls == [2]  # the new texts, once
    at.selectbox(key="ws_strategy").set_value("layer 2").run()
    at.selectbox(key="ws_metric").set_value("euclidean distance").run()
    at.selectbox(key="ws_sub").set_value("first").run()
    assert not at.exception and len(calls) == 1
    assert drawn_title(at, "ws_matrix") == "euclidean distance, layer 2"


@pytest.mark.parametrize(("word", "expect"), [
    ("", "Enter a word"),
    ("?!", "no letters or digits"),
    ("river bank", "more than one word"),
    ("vault", "occurs once"),
    ("volcano", "Words that are present"),
])
def test_bad_words_get_a_clear_message(word: str, expect: str) -> None:
    at = open_page(PAGE)
    at.text_input(key="ws_word").set_value(word).run()
    assert not at.exception
    messages = " ".join(m.value for m in [*at.error, *at.warning])
    assert expect in messages.replace("\\", "")
    assert not charts(at) and not at.get("vega_lite_chart")


def test_missing_word_names_the_texts_and_suggests() -> None:
    at = open_page(PAGE)
    at.text_input(key="ws_word").set_value("banks").run()
    message = at.warning[0].value.replace("\\", "")
    assert "7 text(s) searched" in message and "After stealing money" in message and "bank" in message


@pytest.mark.slow
def test_empty_texts_and_preset_switch() -> None:
    at = open_page(PAGE)
    at.text_area(key="ws_texts").set_value("  \n ").run()
    assert "Enter a few sentences" in at.info[0].value
    at.selectbox(key="ws_preset").set_value("crane").run()
    assert not at.exception and at.text_input(key="ws_word").value == "crane"
    assert len(canvas_heatmap(at, "ws_matrix")[0]["encoding"]["y"]["sort"]) == 5


@pytest.mark.slow
def test_the_preset_box_says_when_the_texts_are_the_users_own() -> None:
    at = open_page(PAGE)
    assert at.selectbox(key="ws_preset").value == "bank"
    at.text_area(key="ws_texts").set_value("Spring water flows in spring.\nThe spring in the mattress broke.").run()
    at.text_input(key="ws_word").set_value("spring").run()
    assert at.selectbox(key="ws_preset").value == "(your own texts)" and not at.exception
    assert drawn_title(at, "ws_matrix") == "cosine, sum of last 4"
    at.selectbox(key="ws_preset").set_value("crane").run()  # a preset fills the boxes again
    assert at.text_input(key="ws_word").value == "crane" and at.selectbox(key="ws_preset").value == "crane"
    from bertviz_core.corpora import word_presets

    kept = word_presets()["crane"].texts[:3]  # the preset, one sentence fewer: own texts, labels kept
    at.text_area(key="ws_texts").set_value("\n".join(kept)).run()
    assert at.selectbox(key="ws_preset").value == "(your own texts)"
    preset = word_presets()["crane"]
    expected = [label for text, labels in zip(preset.texts[:3], preset.senses[:3]) for label in labels]
    assert list(at.dataframe[-1].value["sense"]) == expected  # the sense editor keeps the kept sentences' labels
    at.text_area(key="ws_texts").set_value("\n".join(word_presets()["crane"].texts)).run()
    assert at.selectbox(key="ws_preset").value == "crane"  # back to the preset's texts: its name again
