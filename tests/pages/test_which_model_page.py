"""AppTest of the Which model? page: the bundled model against its untrained twin on the news corpus, equal to
``rank_models`` on the same vectors; settings that run no model, and a model added that encodes only itself; the
scored pairs and their code panel run for every model; one precomputed store per model, ranked from the stores'
vectors without a model run (their cost table giving the speed each store recorded when it was built, or why there
is none), and stores that cannot be ranked together refused with the reason; a hub id offline said under the picker
while the other models are ranked; every model's grid on one colour scale; a score that is not defined said so, never
best; bad input as a message alone. The protocols against scikit-learn and scipy are in core/test_model_choice.py."""
from __future__ import annotations

import contextlib
import io
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import (APP, DEVICE, canvas_chart, canvas_keys, chart, charts, drawn_title, open_code_panels, open_page,
                      open_tab, plotly_array, table)
from page_checks import LABELLED_LONG, UPLOAD, PageChecks, choose, uploaded
from streamlit.testing.v1 import AppTest

from bertviz_core import BUNDLED_MODEL, Encoder, load_encoder, open_store
from bertviz_core.corpora import news_topics, sentence_pairs
from bertviz_core.figures import layer_label
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.measures.pooling_grid import Cell
from bertviz_core.measures.task_measures import NO_ORDER, check_pairs
from bertviz_core.model.models import UNTRAINED_TWIN
from bertviz_core.model_choice import cell_name, rank_models, ranked
from bertviz_core.precompute.measures import matched_stores, model_store_vectors
from bertviz_core.precompute.offered import SETTING
from bertviz_core.views.which_model import pairs_corpus, stored_speed
from ui import literal_but_bold

UPLOADER = ("wm_source", "wm_upload")
BY_LAYER, GRIDS, TABLE = "Score by layer", "Each model's grid", "Table"  # the tabs of every cell
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
    extra_views=("wm_task=Scored+pairs+%28Spearman+%CF%81%29",  # a bound radio carries its label
                 "wm_view=Each+model%27s+grid", "wm_view=Table"),
    visit=lambda words: {UPLOADER[0]: UPLOAD},
)

PAGE = "pages/which_model.py"
CELLS = [(s, layer) for s in ("mean", "cls") for layer in range(7)]


def shown_verdict(verdict) -> str:  # noqa: ANN001 - an uncertainty.Verdict
    """The verdict as the page shows it: every model name as typed, the best cell's in bold."""
    return literal_but_bold(verdict.sentence, cell_name(verdict.cells[0]))


@pytest.fixture(scope="module")
def twin() -> Encoder:
    return load_encoder(UNTRAINED_TWIN, device=DEVICE)


def vectors(pooled: dict[str, np.ndarray], cells: list[tuple[str, int]] = CELLS) -> dict:
    return {(s, layer): pooled[s][:, layer] for s, layer in cells}


def in_view(at: AppTest, view: str) -> AppTest:
    """The page rerun with its tab ``view`` of every cell open (only the open one is drawn)."""
    open_tab(at, "wm_view", view)
    assert not at.exception, at.exception
    return at


def shown(at, key: str = "wm_table"):  # noqa: ANN001, ANN201 - the full table as the page shows it
    return table(in_view(at, TABLE), key).sort_values(["model", "strategy", "layer"]).reset_index(drop=True)


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
        assert shown_verdict(ranking.verdict) in [m.value for m in at.info]  # names as typed, the best's in bold
    in_view(at, BY_LAYER)
    assert not charts(at) and canvas_keys(at, ["wm_layers_chart", "wm_grid_0"]) == {"wm_layers_chart"}  # open tab only
    spec, lines = canvas_chart(at, "wm_layers_chart")  # the shown table's scores, a line and band per model·strategy
    lines = lines.assign(layer=lines["layer"].map({layer_label(n): n for n in range(7)}))
    np.testing.assert_allclose(lines.sort_values(["model", "strategy", "layer"])[["score", "low", "high"]],
                               got[["score", "low", "high"]].astype(float), rtol=0, atol=1e-9)
    assert lines["line"].nunique() == 4 and spec["encoding"]["color"]["scale"]["domain"] == [BUNDLED_MODEL,
                                                                                             UNTRAINED_TWIN]
    dashes = next(layer["encoding"]["strokeDash"] for layer in spec["layer"] if "strokeDash" in layer["encoding"])
    assert dashes["scale"]["domain"] == [name for name in POOLINGS if name in ("mean", "cls")]  # not the ranking's
    title = drawn_title(at, "wm_layers_chart")  # from the data, wrapped to the column: its lines
    assert " ".join(title if isinstance(title, list) else [title]).startswith("silhouette (cosine) by layer")
    assert set(lines["measure"]) == {"silhouette (cosine)"}  # the score axis's name, also from the data
    assert spec["description"].startswith("Line chart of each model's score by layer")  # the kind: never changes
    assert set(charts(in_view(at, GRIDS))) == {"wm_grid_0", "wm_grid_1"}
    costs = table(at, "wm_costs")
    assert list(costs["model"]) == [BUNDLED_MODEL, UNTRAINED_TWIN] and set(costs["hidden size"]) == {384}
    runs = len(model_calls)
    for kind, key, value in CHECKS.settings:
        getattr(at, kind)(key=key).set_value(value).run()
        assert not at.exception, (key, at.exception)
    assert len(model_calls) == runs
    assert list(table(at, "wm_leaderboard")["model"]) == [UNTRAINED_TWIN, BUNDLED_MODEL]


def test_a_ranking_is_kept_for_its_models_texts_task_and_cells(news_pooled,  # noqa: ANN001
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A rerun back on a ranking already shown ranks nothing again; new cells are ranked anew."""
    import cachetools

    import bertviz_core.model_choice as model_choice
    from ui.page_parts import which_model

    monkeypatch.setattr(which_model, "_RANKINGS", cachetools.LRUCache(maxsize=64))
    rankings = []
    monkeypatch.setattr(model_choice, "ranked", lambda *args: rankings.append(args) or ranked(*args))
    at = open_page(PAGE, timeout=300)
    for measure in ("macro-F1", "accuracy", "macro-F1"):
        at.radio(key="wm_measure").set_value(measure).run()
        assert not at.exception
    assert len(rankings) == 2  # accuracy, macro-F1: each once
    at.multiselect(key="wm_layers").set_value(at.multiselect(key="wm_layers").value[:2]).run()
    assert len(rankings) == 3 and len(shown(at)) == 2 * 2 * 2  # models × strategies × the 2 layers


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
    assert shown_verdict(ranking.verdict) in [m.value for m in at.info]  # names as typed, the best's in bold


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


def opened_with(**state: object) -> AppTest:
    """The page's first run with ``state`` in its session before it draws (few cells: it computes little)."""
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    for key, value in state.items():
        at.session_state[key] = value
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


@pytest.mark.slow
def test_a_hub_id_offline_is_said_under_the_picker_and_the_other_models_are_ranked(model_calls: list[int]) -> None:
    """Offline (the tests run with HF_HUB_OFFLINE=1), bert-base-cased cannot load: why is said once, right under the
    models' picker, at once (no hub probe, no download tried), and the two models that load are still ranked."""
    at = opened_with(wm_strats=["mean"], wm_layers=[6])
    runs, started = len(model_calls), time.perf_counter()
    at.multiselect(key="wm_models").set_value([BUNDLED_MODEL, "bert-base-cased", UNTRAINED_TWIN]).run()
    assert time.perf_counter() - started < 20 and len(model_calls) == runs  # no long wait; no model ran
    assert not at.exception
    errors = [e.value.replace("\\", "") for e in at.main.error]
    assert len(errors) == 1 and "bert-base-cased could not be loaded, so it is left out of the ranking" in errors[0]
    assert "offline mode: HF_HUB_OFFLINE is set" in errors[0]
    order = [type(el).__name__ for el in at.main.children.values()]
    assert order[order.index("Multiselect") + 1] == "Error", order
    assert list(table(at, "wm_leaderboard")["model"]) == [BUNDLED_MODEL, UNTRAINED_TWIN]
    assert list(table(at, "wm_costs")["model"]) == [BUNDLED_MODEL, UNTRAINED_TWIN]
    assert set(charts(in_view(at, GRIDS))) == {"wm_grid_0", "wm_grid_1"}


@pytest.mark.slow
def test_every_models_grid_is_coloured_on_one_scale_said_above_them() -> None:
    """The untrained twin's grid is coloured on the trained model's scale, so its best cell is not as dark; the
    caption above the grids says so, and where the scale ends."""
    at = opened_with(wm_strats=["mean", "cls"], wm_layers=[3, 6], wm_view=GRIDS)
    grids = [chart(at, f"wm_grid_{i}") for i in range(2)]
    scores = np.concatenate([plotly_array(grid["data"][0]["z"]).ravel().astype(float) for grid in grids])
    low, high = np.nanmin(scores), np.nanmax(scores)
    for grid in grids:
        heat = grid["data"][0]
        assert (heat["zmin"], heat["zmax"]) == pytest.approx((low, high))
    said = f"Every model's grid is coloured on one scale: {low:.2f} (lightest) to {high:.2f} (darkest)"
    assert sum(said in caption.value for caption in at.caption) == 1, [c.value for c in at.caption]


@pytest.mark.slow
def test_a_score_that_is_not_defined_says_why_and_is_never_best() -> None:
    """[CLS] before any layer is one vector for every text: every pair's cosine is the same, and scipy's Spearman ρ is
    NaN. The table says "not defined" and why, the grid cell reads "—" (its hover "not defined" and why), never
    "nan", and the cell is never best."""
    at = opened_with(wm_task="pairs", wm_strats=["cls"], wm_layers=[0, 6])
    rows = shown(at)
    undefined = rows[rows["layer"] == 0]
    assert len(undefined) == 2 and not undefined["best"].any()  # each model's [CLS] at layer 0
    assert set(undefined["note"]) == {f"not defined: {NO_ORDER}"}
    assert set(rows.loc[rows["layer"] == 6, "note"]) == {""}
    in_view(at, GRIDS)
    for i in range(2):
        heat = chart(at, f"wm_grid_{i}")["data"][0]
        text = [str(cell) for line in heat["text"] for cell in line]
        assert "—" in text and not any("nan" in cell.lower() for cell in text), text
        assert f"not defined: {NO_ORDER}" in [cell for line in heat["customdata"] for cell in line]
    assert set(table(at, "wm_leaderboard")["layer"].astype(int)) == {6}


def test_a_store_without_a_recorded_speed_says_why_none_is_shown() -> None:
    manifest = {"model": {"device": "cpu"}}  # a store built on Ray, or before stores recorded their speed
    said = stored_speed("old", manifest)
    assert said.startswith("not measured: the vectors were read from the store old, whose precompute recorded no "
                           "speed") and "no model encoded these texts here" in said


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


@pytest.mark.slow
def test_the_spearman_code_panel_reproduces_every_models_scores() -> None:
    at = open_page(PAGE, timeout=300)
    at.radio(key="wm_task").set_value("pairs").run()
    at.radio(key="wm_correction").set_value("whitening").run()
    at.multiselect(key="wm_layers").set_value([0, 3, 6]).run()
    on_screen = shown(at)
    code = " ".join(c.value for c in open_code_panels(at).code)
    found: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(code, found)  # noqa: S102 - the panel's code, as a reader would run it
    assert set(found["scores"]) == set(zip(on_screen["model"], on_screen["strategy"], on_screen["layer"]))
    # the undefined cells are said with the reason the page gives, and never a model's best
    assert f"cls at layer 0 is not defined: {NO_ORDER}" in printed.getvalue()
    assert not any(np.isnan(value) for *_, value in found["leaderboard"].values())
    ran = [found["scores"][(row.model, row.strategy, row.layer)] for row in on_screen.itertuples()]
    # every model's every cell, as the table shows it (3 decimals); [CLS] at layer 0 is one vector for every text:
    # no correlation, NaN on both sides
    np.testing.assert_allclose(ran, on_screen["score"].astype(float), atol=1e-3)


@pytest.mark.slow
def test_adding_a_model_encodes_only_that_model(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                 model_calls: list[int]) -> None:
    from tiny_models import save_tiny_bert

    folder = str(save_tiny_bert(tmp_path / "six", layers=6))  # as deep as the others: the layers offered stay
    monkeypatch.setenv("BERTVIZ_MODELS", folder)
    at = open_page(PAGE, timeout=300)
    at.multiselect(key="wm_strats").set_value(["mean"]).run()
    at.multiselect(key="wm_layers").set_value([6]).run()
    before = len(model_calls)
    at.multiselect(key="wm_models").set_value([BUNDLED_MODEL, UNTRAINED_TWIN, folder]).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert sum(model_calls[before:]) == len(news_topics())  # the corpus once, by the new model: the others are kept
    assert list(table(at, "wm_leaderboard")["model"]) == [BUNDLED_MODEL, UNTRAINED_TWIN, folder]


@pytest.fixture(scope="module")
def store_folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    from stores import model_stores

    return model_stores(tmp_path_factory.mktemp("which_model_stores"))


def open_on_stores(monkeypatch: pytest.MonkeyPatch, folders: dict[str, str], first: str, second: str,
                   runs: list[int]) -> AppTest:
    """The page on the stores named ``first`` (for the bundled model) and ``second`` (for its twin), chosen before
    the page's first run, so the built-in corpus is never encoded; ``runs`` (``model_calls``) counts from then."""
    monkeypatch.setenv(SETTING, ",".join(folders.values()))
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    runs.clear()  # the app's first page is not this one
    at.session_state["wm_source"] = "Precomputed store"
    at.session_state["wm_store_0"], at.session_state["wm_store_1"] = first, second
    return at.switch_page(PAGE).run()


@pytest.mark.slow
def test_two_stores_of_one_corpus_rank_as_rank_models_on_their_vectors_without_a_model_run(
        monkeypatch: pytest.MonkeyPatch, store_folders: dict[str, str], bundled: Encoder, twin: Encoder,
        model_calls: list[int]) -> None:
    at = open_on_stores(monkeypatch, store_folders, "bundled", "twin", model_calls)
    assert not at.exception and not at.error, [e.value for e in at.error]
    for model in (BUNDLED_MODEL, UNTRAINED_TWIN):  # the default 14 cells: every one the stores lack is accounted for
        assert f"{model}: its store holds 4 of the 14 chosen cells, and only those are scored: mean at layer 3, " \
               "mean at layer 6, cls at layer 3, cls at layer 6." in messages(at).replace("\\", ""), messages(at)
    stores = {BUNDLED_MODEL: open_store(store_folders["bundled"]), UNTRAINED_TWIN: open_store(store_folders["twin"])}
    chosen = matched_stores(stores, {BUNDLED_MODEL: bundled.info.identity, UNTRAINED_TWIN: twin.info.identity})
    stored = [Cell(s, layer) for s in ("mean", "cls") for layer in (3, 6)]  # the stores hold layers 3 and 6 alone
    for measure in ("accuracy", "silhouette"):
        at.radio(key="wm_measure").set_value(measure).run()
        ranking = rank_models(model_store_vectors(chosen, {model: stored for model in stores}),
                              list(chosen.sample.labels), measure=measure, jobs=1)
        got, want = shown(at), expected(ranking)
        assert list(got["model"]) == list(want["model"]) and list(got["layer"]) == list(want["layer"])
        for column in ("score", "low", "high"):
            np.testing.assert_allclose(got[column].astype(float), want[column], atol=1e-5)
        assert list(got["best"]) == list(want["best"])
        assert shown_verdict(ranking.verdict) in [m.value for m in at.info]
    assert not model_calls, model_calls  # the stores' vectors are read from disk
    speeds = list(table(at, "wm_costs")["texts / s"])  # no model encoded the texts here: the speed the stores record
    for said, (name, model) in zip(speeds, (("bundled", BUNDLED_MODEL), ("twin", UNTRAINED_TWIN)), strict=True):
        built = stores[model].manifest["speed"]
        assert said == (f"{built['texts'] / built['seconds']:,.0f} (the store {name}: 160 texts encoded, pooled and "
                        f"written in {built['seconds']:.1f} s; measured when the store was built, on "
                        f"{built['device']})"), said
    code = " ".join(c.value for c in open_code_panels(at).code)
    assert "store = 'bundled'" in code and str(store_folders["bundled"]) not in code  # named as the server offers it


@pytest.mark.slow
@pytest.mark.parametrize(("second", "message"), [
    ("twin_fewer", "The store bundled (of all-MiniLM-L6-v2 (bundled)) and the store twin_fewer"),
    ("twin_unlabelled", "The store twin_unlabelled (of " + UNTRAINED_TWIN + ") has no labels"),
    ("bundled", "The store bundled was computed with"),
])
def test_stores_that_cannot_be_ranked_together_are_refused_with_the_reason(
        monkeypatch: pytest.MonkeyPatch, store_folders: dict[str, str], second: str, message: str,
        model_calls: list[int]) -> None:
    at = open_on_stores(monkeypatch, store_folders, "bundled", second, model_calls)
    errors = " ".join(e.value for e in at.error).replace("\\", "")  # as read: Markdown escapes left out
    assert not at.exception and message in errors, errors
    assert not [folder for folder in store_folders.values() if folder in errors]  # no server path is shown
    assert not charts(at) and not model_calls
