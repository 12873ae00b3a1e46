"""AppTest of the Sentence pooling page: grid, scores, no re-encoding on changes, uploads good and bad."""
from __future__ import annotations

import pytest
from conftest import canvas_heatmap, drawn_title, open_code_panels, open_page, scatter_grid
from page_checks import LABELLED_LONG, UPLOAD, PageChecks, multiselect_last, select, uploaded

from bertviz_core import describe
from bertviz_core.corpora import news_topics, read_table
from bertviz_core.model.encoder import Encoder
from bertviz_core.figures import layer_label
from bertviz_core.measures.pooling import POOLINGS, supported_strategies
from bertviz_core.measures.pooling_grid import cell_vectors, check_labels, score_cell, separation_scores


UPLOADER = ("sp_source", "sp_upload")
CHECKS = PageChecks(
    settings=(("multiselect", "sp_layers", [1, 2]), ("multiselect", "sp_strats", ["max", "cls"])),
    # the grid shows the bundled model's last layer by default
    timed_change=("layers", "", multiselect_last("Layers", layer_label(describe().num_layers))),
    long_text=(uploaded(UPLOADER, LABELLED_LONG),),
    uploader=UPLOADER,
    upload_settings=(("sp_strats", ["mean"]), ("sp_layers", [6])),
    upload_labelled=True,
    shared_query="sp_cell=max&sp_cell_layer=layer+2&sp_strats=cls&sp_strats=max&sp_layers=layer+1"
                 "&sp_layers=layer+4",
    extra_views=("sp_cell=mean_no_special&sp_strats=mean_sqrt_len&sp_strats=first_last_avg",),
    visit=lambda words: {UPLOADER[0]: UPLOAD},
    store_view=(("radio", "sp_source", "Precomputed store"),),
    store_settings=(("selectbox", "sp_store_cell", "mean · layer 3"),),
    store_timed_change=("store, cell", "?sp_source=Precomputed+store&sp_store={store}",
                        select("Stored vector to draw and reproduce", ("mean · layer 3", "cls · layer 6"))),
)

PAGE = "pages/sentence_pooling.py"


def upload(data: bytes):
    at = open_page(PAGE)
    at.radio(key="sp_source").set_value("Upload a CSV").run()
    at.file_uploader(key="sp_upload").set_value(("corpus.csv", data, "text/csv")).run()
    assert not at.exception, at.exception
    return at


PER_LAYER = [name for name, p in POOLINGS.items() if p.per_layer]
SINGLE = [name for name, p in POOLINGS.items() if not p.per_layer]  # the bundled model has a pooler: all of them


def grid_titles(at) -> list[str]:
    """Each panel's title, "strategy · layer\nscores", in the grid's order."""
    return list(scatter_grid(at)[1]["tiles"]["title"])


def test_default_grid_scores_and_best_cell() -> None:
    at = open_page(PAGE)
    titles = grid_titles(at)
    assert len(titles) == len(PER_LAYER) * 4 + len(SINGLE)  # per-layer strategies x 4 layers, the others once
    assert titles[0].startswith("cls · 0 · embeddings\nall identical") and all(" · sil " in t for t in titles)
    # a row per per-layer strategy (4 columns), then the one-vector strategies, in registry order
    assert [t.split(" · ")[0] for t in titles] == [s for s in PER_LAYER for _ in range(4)] + SINGLE
    spec, data = scatter_grid(at)
    labels, points = list(news_topics()["label"]), data["points"]
    assert list(points["label"]) == labels * len(titles)
    # hover shows each point's text, long ones cut short
    assert all(text.startswith(shown.removesuffix("…")) and len(shown) <= 90
               for shown, text in zip(points["text"][:160], news_topics()["text"]))
    colour = spec["layer"][-1]["encoding"]["color"]
    assert colour["field"] == "label" and colour["scale"]["domain"] == sorted(set(labels))
    assert len(set(colour["scale"]["range"])) == 4
    # four panels to a row: the tiles' left edges repeat every four panels
    assert list(data["tiles"]["x"][:8].round(2)) == [0.02, 1.02, 2.02, 3.02] * 2
    spec, cells = canvas_heatmap(at, "sp_scores")
    assert spec["encoding"]["y"]["sort"] == PER_LAYER
    assert cells["best"].any()  # the top cell, or every cell of a tie, boxed
    # mean and mean_sqrt_len point the same way: under a cosine silhouette they tie, and the page says why
    verdict = " ".join(i.value for i in at.info)
    assert "No clear best" in verdict and "mean_sqrt_len is mean multiplied by a number per text" in verdict


def test_layers_show_in_order_whatever_order_they_were_added() -> None:
    at = open_page(PAGE)
    at.multiselect(key="sp_layers").set_value([6, 1, 3]).run()
    assert [t.split("\n")[0] for t in grid_titles(at)][:3] == ["cls · layer 1", "cls · layer 3", "cls · layer 6"]


def test_changing_layers_and_strategies_does_not_re_encode(model_calls: list[int]) -> None:
    at = open_page(PAGE)
    first = len(model_calls)
    at.multiselect(key="sp_layers").set_value([1, 2]).run()
    at.multiselect(key="sp_strats").set_value(["max", "pooler"]).run()
    assert not at.exception and len(model_calls) == first
    assert len(grid_titles(at)) == 3


def test_upload_without_labels_and_with_empty_rows() -> None:
    at = upload(b"sentence\nThe cat sat on the mat today.\n\nDogs bark at the postman.\n  \nBirds sing at dawn.\n")
    summary = " ".join(m.value for m in at.markdown)
    assert "5 rows read, 3 used." in summary and "Left out: 2 blank lines." in summary
    assert "No labels" in at.info[0].value
    assert all(" sil " not in t for t in grid_titles(at))


@pytest.mark.parametrize(("data", "message"), [
    (b"", "empty"),
    (b"id,score\n1,2\n3,4\n", "No column holds sentences"),
    ("text\ncaf\xe9 au lait tous les jours\n".encode("latin-1"), "not UTF-8"),
    (b"text,label\n  ,a\n,b\n", "No column holds sentences"),
])
def test_a_refused_upload_shows_its_reason_and_no_results(data: bytes, message: str) -> None:
    """Nothing of the built-in corpus under the error: its verdict would read as the file's."""
    at = upload(data)
    assert message in at.error[0].value.replace("\\", "") and "Nothing is shown until a file can be used" in \
        at.error[0].value
    assert not at.get("vega_lite_chart") and not at.get("plotly_chart") and not at.success


def test_no_results_before_a_file_is_uploaded() -> None:
    at = open_page(PAGE)
    at.radio(key="sp_source").set_value("Upload a CSV").run()
    assert not at.exception and "the results appear here once it is read" in at.info[0].value
    assert not at.get("vega_lite_chart") and not at.get("plotly_chart")


def test_single_class_and_too_many_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    at = upload(b"text,label\nOne sentence here.,a\nAnother sentence there.,a\nA third one now.,a\n")
    assert "same label" in at.warning[0].value
    monkeypatch.setenv("BERTVIZ_MAX_ROWS", "100")
    at = upload(news_topics().to_csv(index=False).encode())
    assert "160 rows; the limit is 100" in at.error[0].value.replace("\\", "")


@pytest.mark.slow
def test_labelled_upload_is_scored_with_the_cores_verdict(bundled: Encoder) -> None:
    corpus = news_topics().sample(60, random_state=1)
    at = upload(corpus.to_csv(index=False).encode())
    pooled, check = bundled.embed(list(corpus["text"])), check_labels(list(corpus["label"]))
    expected = separation_scores(lambda cell: score_cell(cell_vectors(pooled, cell), check.scored),
                                 supported_strategies(bundled.info.has_pooler), bundled.info.num_layers).verdict
    shown = at.success if expected.clear else at.info
    assert not at.error and "on 60 texts" in expected.sentence
    assert any(expected.sentence in message.value.replace("\\", "") for message in shown), [m.value for m in shown]


@pytest.mark.slow
def test_the_chosen_cell_drives_code_and_downloads(model_calls: list[int]) -> None:
    at = open_code_panels(open_page(PAGE))
    runs = len(model_calls)
    at.selectbox(key="sp_cell").set_value("max").run()
    at.selectbox(key="sp_cell_layer").set_value(2).run()
    code = at.code[0].value
    assert "vectors.append((states.max(1).values)[2].numpy())" in code
    assert any("max, layer 2" in h.value for h in at.subheader)
    at.selectbox(key="sp_cell").set_value("pooler").run()
    assert at.selectbox(key="sp_cell_layer").disabled and "outputs.pooler_output[0]" in at.code[0].value
    assert not at.exception and len(model_calls) == runs


def test_uploading_a_semicolon_csv_scores_its_labels() -> None:
    at = open_page("pages/sentence_pooling.py")
    at.radio(key="sp_source").set_value("Upload a CSV").run()
    corpus = read_table(b"text,label\n" + "\n".join(f'"Sentence {i} about {t}.",{t}' for i in range(12)
                                                    for t in ("sport", "food")).encode()).frame
    at.file_uploader(key="sp_upload").set_value(("semi.csv", corpus.to_csv(index=False, sep=";").encode(),
                                                 "text/csv")).run()
    assert not at.exception and "semicolon-separated" in " ".join(i.value for i in at.info)
    assert [b.value for b in at.selectbox if b.label == "Text column"] == ["text"]  # not "text;label" glued
    assert "silhouette" in str(drawn_title(at, "sp_scores"))
