"""AppTest of the Similar contexts page: the default token on a new text, and contexts a reader can see."""
from __future__ import annotations

import re

from conftest import open_page, table

from bertviz_core.corpora import TUTORIAL

PAGE = "pages/similar_contexts.py"


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
