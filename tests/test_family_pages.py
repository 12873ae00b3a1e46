"""Every page on every model of the model-family fixture (``tests/model_family.py``), with AppTest: no exception,
no error, and every tab of the page draws its charts and tables, or says honestly why it cannot (Masked words on
a model without a masked-language-model head). All pages run on each architecture and the odd cases (a one-layer
BERT, a ``.bin`` checkpoint, a tokenizer without a maximum length); the ``-mlm`` twins run Masked words only.

One AppTest per model serves all its pages: the tests are ordered model by model and ``app`` keeps the current
one, so each model loads once.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import APP, BASE_NAMES, MLM_NAMES, static_tables, table
from model_family import FAMILY
from streamlit.testing.v1 import AppTest

from bertviz_core import load_encoder
from bertviz_core.views.page_registry import PAGES

MASKED = "pages/masked_words.py"
SEGMENTS = {member.name: member.segments for member in FAMILY}
NO_HEAD = "has no masked-language-model head"
LONG_TEXT = "The bank by the river was muddy after the rain. " * 40  # ~440 tokens, past every model's 128
PAIR = "We sat on the river bank."
CONTENT = ("plotly_chart", "vega_lite_chart", "table", "dataframe")


def open_model(folder: Path) -> AppTest:
    """The app with the model in ``folder`` chosen as a custom path, loaded without an error."""
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.sidebar.selectbox(key="model").set_value("Custom id or path…").run()
    at.sidebar.text_input(key="custom_model").set_value(str(folder)).run()
    assert not at.exception and not at.sidebar.error, [e.value for e in [*at.exception, *at.sidebar.error]]
    return at


@pytest.fixture(scope="module")
def app(family_dirs: dict[str, Path]) -> Iterator[Callable[[str], AppTest]]:
    """``app(name)``: the AppTest of that family model, opened once and kept while the tests use it."""
    held: dict[str, AppTest] = {}

    def get(name: str) -> AppTest:
        if name not in held:
            held.clear()  # one model at a time: the tests are ordered model by model
            held[name] = open_model(family_dirs[name])
        return held[name]

    yield get


def shown(at: AppTest) -> str:
    """Every message on the page (errors, warnings, infos, captions, markdown), Markdown escapes removed."""
    return " ".join(m.value.replace("\\", "") for kind in ("error", "warning", "info", "caption", "markdown")
                    for m in getattr(at, kind))


def tab_sets(at: AppTest) -> list[tuple[str, list[str]]]:
    """Every keyed ``st.tabs`` on the page: (its key, its tab labels in order)."""
    found, blocks = [], [at._tree]
    while blocks:
        block = blocks.pop()
        if getattr(block, "type", None) == "tab_container":
            labels = [child.label for _, child in sorted(block.children.items())]
            found.append((str(block.proto.id).rsplit("-", 1)[-1], labels))
        blocks.extend(child for child in getattr(block, "children", {}).values() if hasattr(child, "children"))
    return found


def check_view(at: AppTest, where: str, honest: str | None = None) -> None:
    """No exception, no error, and the view's charts or tables, or the ``honest`` message instead."""
    assert not at.exception, (where, [e.value for e in at.exception])
    assert not at.error, (where, [e.value for e in at.error])
    drawn = sum(len(at.get(kind)) for kind in CONTENT) + static_tables(at)
    if honest is not None:
        assert honest in shown(at), (where, shown(at)[:500])
    elif not drawn:  # the overview has no chart: its text gives the model's shape
        assert at.title and "hidden states" in shown(at), (where, shown(at)[:500])


def visit(at: AppTest, page: str, honest: str | None = None) -> None:
    """Open ``page`` and every tab of it in turn, checking each view; the page is left on its first tabs."""
    at.switch_page(page).run()
    check_view(at, page, honest)
    for key, labels in tab_sets(at):
        for label in labels[1:]:
            at.session_state[key] = label
            at.run()
            check_view(at, f"{page}, tab {label}", honest)
        at.session_state[key] = labels[0]
        at.run()


@pytest.mark.parametrize(("name", "page"), [(name, entry.file) for name in BASE_NAMES for entry in PAGES],
                         ids=lambda value: value.removeprefix("pages/").removesuffix(".py"))
def test_every_page_on_every_model(app: Callable[[str], AppTest], name: str, page: str) -> None:
    visit(app(name), page, NO_HEAD if page == MASKED else None)  # the base models were saved without the head


@pytest.mark.parametrize("name", MLM_NAMES)
def test_masked_words_on_every_model_with_the_head(app: Callable[[str], AppTest], name: str) -> None:
    at = app(name)
    visit(at, MASKED)
    assert NO_HEAD not in shown(at)
    assert len(table(at, "mw_guesses_table")) == 10  # the default k guesses for the one mask


def test_a_one_layer_model_states_its_one_layer(app: Callable[[str], AppTest]) -> None:
    """A slider from 1 to 1 is refused by Streamlit: the Attention page states the layer instead."""
    at = app("bert-1-layer")
    at.switch_page("pages/attention.py").run()
    assert not at.exception and "Layer: 1, the only one this model has" in shown(at).replace("*", "")
    assert not [s for s in at.slider if s.key == "at_layer"]


@pytest.mark.parametrize("name", BASE_NAMES)
@pytest.mark.slow
def test_long_texts_are_cut_to_the_models_length(app: Callable[[str], AppTest], name: str) -> None:
    at = app(name)
    for page, key in [("pages/tokenization.py", "tok_text"), ("pages/layer_values.py", "lv_text"),
                      ("pages/attention.py", "at_text")]:
        at.switch_page(page).run()
        at.text_area(key=key).set_value(LONG_TEXT).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert "dropped" in " ".join(w.value for w in at.warning), page
        at.text_area(key=key).set_value("The bank by the river.").run()


@pytest.mark.parametrize("name", [member.name for member in FAMILY])
def test_a_pairs_segments_are_what_the_model_receives(app: Callable[[str], AppTest], family_dirs: dict[str, Path],
                                                      name: str) -> None:
    """Segment 1 for a pair's second text only where the model has segments and is given them; elsewhere segment 0
    throughout, and the model's note saying why is shown beside the segments (Tokenization, Attention, Compare
    sentences)."""
    note = load_encoder(str(family_dirs[name]), device="cpu").segments_note
    assert (note is None) == SEGMENTS[name]
    said = (lambda at: note in shown(at)) if note else (lambda at: "segment 0 for A's tokens and segment 1" in shown(at))
    at = app(name)
    at.switch_page("pages/tokenization.py").run()
    at.text_input(key="tok_pair").set_value(PAIR).run()
    frame = table(at, "tok_table")
    assert set(frame["segment"]) == ({0, 1} if SEGMENTS[name] else {0})
    words = frame.dropna(subset=["word_index"]).drop_duplicates("word_index")["word"]  # each word once, in order
    assert "".join(words) == "".join((at.text_area(key="tok_text").value + PAIR).split())  # the pair's from the pair
    assert not at.exception and (note is None or said(at))
    at.switch_page("pages/attention.py").run()
    at.text_input(key="at_pair").set_value(PAIR).run()
    assert not at.exception and (note is None or said(at))
    assert ("<s> A </s> </s> B </s>" in at.text_input(key="at_pair").label) == name.startswith(("roberta", "xlm"))
    at.switch_page("pages/compare_sentences.py")
    at.session_state["cs_view"] = "Two sentences as one input"
    at.run()
    assert not at.exception and said(at)
