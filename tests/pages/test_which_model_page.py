"""AppTest of the Which model? page: the bundled model against its untrained twin on the news corpus, equal to
``rank_models`` on the same vectors; settings that run no model; the scored pairs; bad input as a message alone.
The protocols against scikit-learn and scipy are in core/test_model_choice.py."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import DEVICE, chart, charts, open_code_panels, open_page, table
from page_checks import LABELLED_LONG, UPLOAD, PageChecks, choose, uploaded

from bertviz_core import BUNDLED_MODEL, Encoder, load_encoder
from bertviz_core.corpora import news_topics, sentence_pairs
from bertviz_core.measures.task_measures import check_pairs
from bertviz_core.model.models import UNTRAINED_TWIN
from bertviz_core.model_choice import rank_models
from bertviz_core.views.which_model import pairs_corpus
from ui import literal

UPLOADER = ("wm_source", "wm_upload")
CHECKS = PageChecks(
    settings=(("radio", "wm_measure", "macro-F1"), ("radio", "wm_measure", "silhouette"),
              ("multiselect", "wm_layers", [2, 4, 6]), ("multiselect", "wm_strats", ["mean"]),
              ("multiselect", "wm_models", [UNTRAINED_TWIN, BUNDLED_MODEL])),
    timed_change=("score", "", choose("Score", ("macro-F1", "accuracy"))),
    long_text=(uploaded(UPLOADER, LABELLED_LONG),),
    uploader=UPLOADER,
    upload_settings=(("wm_strats", ["mean"]), ("wm_layers", [6])),
    upload_labelled=True,
    shared_query="wm_models=all-MiniLM-L6-v2+%28bundled%29&wm_models=" + UNTRAINED_TWIN.replace(" ", "+")
                 + "&wm_strats=mean&wm_layers=layer+3&wm_layers=layer+6&wm_measure=macro-F1",
    extra_views=("wm_task=pairs",),
    visit=lambda words: {UPLOADER[0]: UPLOAD},
)

PAGE = "pages/which_model.py"
CELLS = [(s, layer) for s in ("mean", "cls") for layer in range(7)]


@pytest.fixture(scope="module")
def twin() -> Encoder:
    return load_encoder(UNTRAINED_TWIN, device=DEVICE)


def vectors(pooled: dict[str, np.ndarray], cells: list[tuple[str, int]] = CELLS) -> dict:
    return {(s, layer): pooled[s][:, layer] for s, layer in cells}


def shown(at, key: str = "wm_table"):  # noqa: ANN001, ANN201 - the full table as the page shows it
    return table(at, key).sort_values(["model", "strategy", "layer"]).reset_index(drop=True)


def expected(ranking):  # noqa: ANN001, ANN201
    return ranking.table.sort_values(["model", "strategy", "layer"]).reset_index(drop=True)


@pytest.mark.slow
def test_the_default_view_equals_rank_models_and_settings_run_no_model(news_pooled, twin: Encoder,
                                                                       model_calls: list[int]) -> None:  # noqa: ANN001
    at = open_page(PAGE, timeout=300)
    texts, labels = list(news_topics()["text"]), list(news_topics()["label"])
    mine = twin.embed(texts, ["mean", "cls"])
    for measure in ("accuracy", "silhouette"):
        if measure != "accuracy":
            runs = len(model_calls)
            at.radio(key="wm_measure").set_value(measure).run()
            assert len(model_calls) == runs and not at.exception
        ranking = rank_models({BUNDLED_MODEL: vectors(news_pooled), UNTRAINED_TWIN: vectors(mine)}, labels,
                              measure=measure, jobs=1)
        got, want = shown(at), expected(ranking)
        assert list(got["model"]) == list(want["model"]) and list(got["strategy"]) == list(want["strategy"])
        for column in ("score", "low", "high"):
            np.testing.assert_allclose(got[column].astype(float), want[column], atol=1e-5)
        assert list(got["best"]) == list(want["best"])
        assert literal(ranking.verdict.sentence) in [m.value for m in at.info]  # names shown as typed, not as Markdown
    assert {"wm_layers_chart", "wm_grid_0", "wm_grid_1"} <= set(charts(at))
    assert len(chart(at, "wm_layers_chart")["data"]) == 8  # 2 models × 2 strategies, a band and a line each
    costs = table(at, "wm_costs")
    assert list(costs["model"]) == [BUNDLED_MODEL, UNTRAINED_TWIN] and set(costs["hidden size"]) == {384}
    runs = len(model_calls)
    for kind, key, value in CHECKS.settings:
        getattr(at, kind)(key=key).set_value(value).run()
        assert not at.exception, (key, at.exception)
    assert len(model_calls) == runs
    assert list(table(at, "wm_leaderboard")["model"]) == [UNTRAINED_TWIN, BUNDLED_MODEL]


@pytest.mark.slow
def test_the_teaching_code_is_shown(news_pooled) -> None:  # noqa: ANN001
    at = open_code_panels(open_page(PAGE, timeout=300))
    code = " ".join(c.value for c in at.code)
    assert "StratifiedKFold(5, shuffle=True, random_state=0)" in code and "leaderboard" in code


@pytest.mark.slow
def test_scored_pairs_equal_rank_models(twin: Encoder, bundled: Encoder) -> None:
    at = open_page(PAGE, timeout=300)
    at.radio(key="wm_task").set_value("pairs").run()
    at.radio(key="wm_correction").set_value("whitening").run()
    assert not at.exception
    texts, first, second, gold = pairs_corpus(check_pairs(sentence_pairs()))
    cells = [(s, layer) for s in ("mean", "cls") for layer in range(7)]
    ranking = rank_models({BUNDLED_MODEL: vectors(bundled.embed(texts, ["mean", "cls"]), cells),
                           UNTRAINED_TWIN: vectors(twin.embed(texts, ["mean", "cls"]), cells)},
                          pairs=(first, second, gold), measure="spearman", correction="whitening")
    got, want = shown(at), expected(ranking)
    np.testing.assert_allclose(got["score"].astype(float), want["score"], atol=1e-5)
    assert literal(ranking.verdict.sentence) in [m.value for m in at.info]  # names shown as typed, not as Markdown


def messages(at) -> str:  # noqa: ANN001
    return " ".join(m.value for m in [*at.error, *at.info])


@pytest.mark.parametrize(("models", "message"), [
    ([BUNDLED_MODEL], "at least two models"),
])
def test_bad_models_say_so_and_show_nothing(models: list[str], message: str) -> None:
    at = open_page(PAGE)
    at.multiselect(key="wm_models").set_value(models).run()
    assert not at.exception and message in messages(at)
    assert not charts(at)


def test_the_same_model_twice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    from bertviz_core.model.models import bundled_model_dir

    folder = str(bundled_model_dir())  # the bundled model's own files under a second name
    monkeypatch.setenv("BERTVIZ_MODELS", folder)
    at = open_page(PAGE)
    at.multiselect(key="wm_models").set_value([BUNDLED_MODEL, folder]).run()
    assert not at.exception and "are the same model" in messages(at)
    assert not charts(at)


@pytest.mark.parametrize(("csv", "message"), [
    ("text,label\n" + "\n".join(f"Text {i} here,{i % 2}" for i in range(9)) + "\nLonely,odd", "a single text"),
    ("text,label\n" + "\n".join(f"Text {i} here,{'ab'[i % 2]}" for i in range(6)), "3 folds"),
    ("text,label\nThe first text,a\nThe second text,b\nThe third text,c", "at least two classes"),
    ("text\n" + "\n".join(f"Text {i}" for i in range(8)), "needs a label column"),
])
def test_bad_labels_give_a_message(csv: str, message: str) -> None:
    at = open_page(PAGE)
    at.session_state["wm_strats"], at.session_state["wm_layers"] = ["mean"], [6]
    uploaded(UPLOADER, csv)(at)
    assert not at.exception and message in messages(at), messages(at)
