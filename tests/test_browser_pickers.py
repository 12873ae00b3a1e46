"""Real-browser test of the pickers whose options come from the text: after the text changes, each label names
what the page computes."""
from __future__ import annotations

import re
import time
from collections.abc import Callable

from browser_views import canvas_title, choose, done, open_view, require_chromium, wait_for_canvas
from live_app import changes, wait_for_change, wait_idle

require_chromium()

from playwright.sync_api import Browser, Page  # noqa: E402

from bertviz_core.figures.canvas_heatmaps import CELL_PX  # noqa: E402



# ---- pickers whose options come from the text: the label always names what the page computes ----------------

def picked(page: Page, key: str) -> str:
    """The label a selectbox shows."""
    return page.locator(f".st-key-{key} input").first.input_value()


def titled(page: Page, key: str) -> str:
    """The title of the chart drawn with ``key``: a plotly chart's, or a canvas chart's (``canvas_title``); '' while
    none is drawn."""
    charts = page.locator(f".st-key-{key} .js-plotly-plot")
    if charts.count():
        return charts.first.evaluate(
            r"el => ((el.layout.title && el.layout.title.text) || '').replace(/<\/?b>/g, '').replace(/<br>/g, ' ')")
    return canvas_title(page, key)


def text_of(locator) -> str:  # noqa: ANN001 - a playwright Locator
    """The text of the first element ``locator`` finds ('' while there is none)."""
    return locator.first.inner_text() if locator.count() else ""


def group(pattern: str, text: str, number: int = 1) -> str:
    """Group ``number`` of ``pattern`` searched in ``text``, or '' when it is not there."""
    found = re.search(pattern, text)
    return found[number] if found else ""


def type_into(page: Page, key: str, value: str) -> None:
    """Replace the text of the text area or text input keyed ``key`` and send it, as a user does."""
    box = page.locator(f".st-key-{key} textarea, .st-key-{key} input").first
    box.fill(value)
    box.press("Control+Enter" if box.evaluate("el => el.tagName") == "TEXTAREA" else "Enter")
    wait_idle(page)


def settles(page: Page, read: Callable[[], tuple[str, str, bool]], what: str) -> str:
    """Call ``read`` (the picker's label, the label of what the page shows, whether the picker is on the new
    text) at once and after each change of the page, until the picker is on the new text and the two labels
    agree; fail with both when they never do. A stale label never corrects itself, so waiting hides no bug; it
    lets a late rerun finish. The agreed label."""
    deadline, last = time.time() + 90, ("", "", False)
    while time.time() < deadline:
        seen = changes(page)
        last = read()
        if last[2] and last[0] == last[1]:
            return last[0]
        if not wait_for_change(page, seen, max(deadline - time.time(), 0.001) * 1000):  # the next change, not a timer
            break
    raise AssertionError(f"{what}: the picker says {last[0]!r}, the page shows {last[1]!r} (new text: {last[2]})")


def token_labels_of(bundled, text: str) -> list[str]:  # noqa: ANN001 - the bundled Encoder
    return [f"{i} · {t}" for i, t in enumerate(bundled.tokenize(text)["token"])]


def test_every_text_picker_names_what_the_page_shows_after_the_text_changes(server: str, browser: Browser,
                                                                           bundled, mlm_folder: str) -> None:
    # Layer values: a token chosen, then a text without its label (back to the default, token 5), then one
    # that keeps the new label.
    page = open_view(browser, f"{server}/layer_values")
    choose(page, "Token", "6 · bank")
    for text in ("Spring water flows in spring; the spring in the mattress broke.",
                 "Spring water flows in spring; the spring broke."):
        type_into(page, "lv_text", text)
        labels = token_labels_of(bundled, text)
        assert settles(page, lambda: (picked(page, "lv_token"), group("Token (.*) at layer", titled(page, "lv_hist")),
                                      picked(page, "lv_token") in labels), "Layer values") == "5 · spring"
    done(page)

    # Similar contexts: a new text starts on its second "bank", the documented default.
    page = open_view(browser, f"{server}/similar_contexts")
    text = "I deposited my paycheck at the bank before fishing on the river bank."
    type_into(page, "sc_text", text)
    banks = [label for label in token_labels_of(bundled, text) if label.endswith(" · bank")]
    heading = page.locator("h3").filter(has_text="Where else the model puts")

    def similar() -> tuple[str, str, bool]:
        shown = text_of(heading)
        position, token = group(r"token (\d+)$", shown), group("puts “(.*)”", shown)
        return picked(page, "sc_token"), f"{position} · {token}", picked(page, "sc_token") in banks
    assert len(banks) == 2 and settles(page, similar, "Similar contexts") == banks[1]
    done(page)

    # Attention: the heads (the model's: a text change keeps them) in the head view, then the token.
    page = open_view(browser, f"{server}/attention?at_heads=head+3")
    type_into(page, "at_text", "The cat sat on the mat.")
    tags = page.locator(".st-key-at_heads .react-aria-ComboBox [data-tag] [title]")
    head_view = page.locator(".st-key-at_head_chart [role='graphics-document']")  # a canvas: no text

    def heads_shown() -> tuple[str, str, bool]:
        if not head_view.count():
            return " and ".join(tags.all_inner_texts()), "", False
        # a canvas holds no data: the new text's 9 rows (22 px each) are drawn once it is shorter than the
        # tutorial's 22 rows alone
        shorter = head_view.evaluate("el => el.getBoundingClientRect().height") < 22 * CELL_PX[False]
        title = canvas_title(page, "at_head_chart")
        return " and ".join(tags.all_inner_texts()), group("Layer 1, (.*)", title), shorter
    assert settles(page, heads_shown, "Attention heads") == "head 3"
    page.get_by_role("tab", name="From one token").click()
    wait_idle(page)
    choose(page, "Token (From one token)", "3 · sat")
    text = "A dog barked at the postman twice."
    type_into(page, "at_text", text)
    labels = token_labels_of(bundled, text)
    caption = page.locator("[data-testid=stCaptionContainer]").filter(has_text="layer by layer. Above")
    settles(page, lambda: (picked(page, "at_token"), group("Where (.*) looks", text_of(caption)),
                           picked(page, "at_token") in labels), "Attention token")
    done(page)

    # Masked words (a model with the head): the mask picker, then the word picker.
    page = open_view(browser, f"{server}/masked_words?model=Custom+id+or+path%E2%80%A6&custom_model={mlm_folder}"
                              "&mw_text=The+%5BMASK%5D+sat+on+the+%5BMASK%5D.")
    choose(page, "Mask", "mask 2 (token 6)")
    wait_for_canvas(page, "mw_guesses", "Mask 2 (token 6): the 10 best guesses", starts=True)
    type_into(page, "mw_text", "A [MASK] and a [MASK] went [MASK] home.")
    masks = ("mask 1 (token 2)", "mask 2 (token 5)", "mask 3 (token 7)")
    settles(page, lambda: (picked(page, "mw_mask").capitalize(), titled(page, "mw_guesses").split(":")[0],
                           picked(page, "mw_mask") in masks), "Masked words, mask")
    page.get_by_text("Mask a word", exact=True).click()
    wait_idle(page)
    choose(page, "Word to mask", "to #2")
    type_into(page, "mw_sentence", "I want to go home.")
    reads = page.locator("[data-testid=stCaptionContainer]").filter(has_text="The model reads")
    settles(page, lambda: (picked(page, "mw_word"), group("with “(.*)” masked", text_of(reads)),
                           picked(page, "mw_word") in ("I", "want", "to", "go", "home")), "Masked words, word")
    done(page)

    # Compare sentences: the query sentence.
    page = open_view(browser, f"{server}/compare_sentences?cs_view=Rank+against+one+sentence")
    choose(page, "Query", "3: How old are you?")
    texts = ["Cats purr.", "Dogs bark.", "Birds sing."]
    type_into(page, "cs_texts", "\n".join(texts))
    names = [f"{i + 1}: {t}" for i, t in enumerate(texts)]
    settles(page, lambda: (picked(page, "cs_query").split(":")[0],
                           group(r"to sentence (\d+)$", titled(page, "cs_rank")), picked(page, "cs_query") in names),
            "Compare sentences")
    assert page.locator("[data-testid='stException']").count() == 0
    done(page)
