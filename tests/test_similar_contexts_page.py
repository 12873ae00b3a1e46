"""AppTest of the Similar contexts page: the default token on a new text."""
from __future__ import annotations

from conftest import open_page

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

