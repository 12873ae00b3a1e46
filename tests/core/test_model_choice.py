"""Which model for my data (``rank_models``): every score and interval against the stated protocols computed by hand
with scikit-learn and scipy, on the bundled model, its untrained twin and the model-family fixture; a model listed
twice ties with itself and gives no clear best; random vectors are never best; a cell whose score is not defined
says why and is never best; the probe on every core gives ``probe``'s numbers exactly."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import DEVICE
from scipy.stats import ConstantInputWarning, spearmanr
from scipy.stats import t as student_t
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import silhouette_score
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bertviz_core
from bertviz_core import load_encoder
from bertviz_core.corpora import news_topics
from bertviz_core.model.models import UNTRAINED_TWIN
from bertviz_core.model_choice import COLUMNS, probe_cells, rank_models
from bertviz_core.measures.task_measures import NO_ORDER, correlation, probe, probe_plan

CELLS = [("mean", 0), ("mean", 3), ("cls", 6)]
FAMILY_MODELS = ("bert", "roberta", "modernbert")


def grid(pooled: dict[str, np.ndarray], cells: list[tuple[str, int]] = CELLS) -> dict[tuple[str, int], np.ndarray]:
    """{(strategy, layer): (n, dim)} from ``Encoder.embed``'s output."""
    return {(strategy, layer): pooled[strategy][:, layer] for strategy, layer in cells}


@pytest.fixture(scope="module")
def labels() -> list[str]:
    return list(news_topics()["label"])


@pytest.fixture(scope="module")
def models(news_pooled: dict[str, np.ndarray]) -> dict[str, dict[tuple[str, int], np.ndarray]]:
    """The bundled model and its untrained twin on the built-in news corpus (160 texts), three cells each."""
    twin = load_encoder(UNTRAINED_TWIN, device=DEVICE).embed(list(news_topics()["text"]), ["mean", "cls"])
    return {"MiniLM": grid(news_pooled), "twin": grid(twin)}


def hand_probe(x: np.ndarray, labels: list[str], measure: str) -> tuple[float, float, float]:
    """The stated protocol run directly: the mean over the folds, and its corrected t interval cut to 0..1. On float64
    vectors, as ``task_measures.probe`` fits them: on the float32 vectors as given, a fresh-clone CI run once found
    a random model's [CLS] probe one text of 160 apart (0.29375 against 0.3)."""
    scores = cross_validate(make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)),
                            np.asarray(x, dtype=np.float64), labels,
                            cv=StratifiedKFold(5, shuffle=True, random_state=0), scoring=("accuracy", "f1_macro"))
    folds = scores["test_accuracy" if measure == "accuracy" else "test_f1_macro"]
    half = student_t.ppf(0.975, 4) * folds.std(ddof=1) * np.sqrt(1 / 5 + 1 / 4)  # Nadeau & Bengio
    return folds.mean(), max(folds.mean() - half, 0.0), min(folds.mean() + half, 1.0)


def row(ranking, model: str, strategy: str, layer: int):  # noqa: ANN001, ANN201 - a Ranking, a table row
    found = ranking.table[(ranking.table.model == model) & (ranking.table.strategy == strategy)
                          & (ranking.table.layer == layer)]
    assert len(found) == 1
    return found.iloc[0]


@pytest.mark.parametrize("measure", ["accuracy", "macro-F1"])
@pytest.mark.slow
def test_the_probe_is_the_stated_protocol_for_every_model(models: dict, labels: list[str], measure: str) -> None:
    ranking = rank_models(models, labels=labels, measure=measure)
    assert list(ranking.table.columns) == COLUMNS and len(ranking.table) == 6
    assert ranking.table.score.is_monotonic_decreasing
    for model, cells in models.items():
        for (strategy, layer), x in cells.items():
            got = row(ranking, model, strategy, layer)
            score, low, high = hand_probe(x, labels, measure)
            assert got.score == score  # exactly: the same computation, one BLAS thread or several
            assert got.low == pytest.approx(low, abs=1e-12) and got.high == pytest.approx(high, abs=1e-12)
    assert ranking.verdict is not None and ranking.verdict.n == 160 and ranking.verdict.method == "5 folds"
    assert ranking.table.best.sum() == len(ranking.verdict.cells) and ranking.table.best.iloc[0]
    assert ranking.verdict.value == ranking.table.score.iloc[0]


def test_the_trained_model_beats_its_twin_beyond_the_noise(models: dict, labels: list[str]) -> None:
    """Pre-training is what separates the topics: the cells on top are all the bundled model's, and every cell of
    the twin is below them beyond the noise (which of the bundled model's cells is best, 160 texts cannot say)."""
    ranking = rank_models(models, labels=labels)
    assert {model for model, _ in ranking.verdict.cells} == {"MiniLM"}
    assert not ranking.table[ranking.table.model == "twin"].best.any()
    assert ranking.verdict.above_chance and "No clear best on 160 texts (probe accuracy)" in ranking.verdict.sentence


def test_the_silhouette_is_scikit_learns_cosine_silhouette(models: dict, labels: list[str]) -> None:
    ranking = rank_models(models, labels=labels, measure="silhouette")
    for model, cells in models.items():
        for (strategy, layer), x in cells.items():
            got = row(ranking, model, strategy, layer)
            assert got.score == pytest.approx(silhouette_score(x, labels, metric="cosine"), abs=1e-5)
            assert got.low <= got.score <= got.high
    assert ranking.verdict.method == "1,000 bootstrap resamples of the texts"


def test_spearman_is_scipys_on_the_pairs_cosines(models: dict) -> None:
    rng = np.random.default_rng(0)
    first, second = rng.integers(0, 160, 60), rng.integers(0, 160, 60)
    gold = rng.uniform(0, 5, 60)
    ranking = rank_models(models, pairs=(first, second, gold), measure="spearman")
    for model, cells in models.items():
        for (strategy, layer), x in cells.items():
            a, b = x[first].astype(np.float64), x[second].astype(np.float64)
            cosines = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
            assert row(ranking, model, strategy, layer).score == pytest.approx(spearmanr(cosines, gold).statistic,
                                                                                abs=1e-5)
    assert ranking.verdict.unit == "pairs" and ranking.verdict.chance == 0.0
    assert not ranking.verdict.above_chance  # gold scores drawn at random: nothing correlates with them
    whitened = rank_models(models, pairs=(first, second, gold), measure="spearman", correction="whitening")
    rows = sorted(np.unique(np.concatenate([first, second]), return_index=True)[1])  # each distinct text once
    x = models["MiniLM"][("mean", 3)]
    expected = correlation(x[first], x[second], gold, "whitening", rows)  # Task measures' own, on the same pairs
    assert row(whitened, "MiniLM", "mean", 3).score == pytest.approx(expected, abs=1e-12)
    assert "Spearman ρ after whitening" in whitened.verdict.sentence


def test_a_cell_without_a_defined_score_says_why_and_is_never_best(news_pooled: dict, labels: list[str]) -> None:
    """[CLS] before any layer is one vector for every text. Every pair's cosine is then the same, and scipy's Spearman
    ρ is NaN (a constant input has no ranks): the table says "not defined" and why, and the cell is never best. The
    silhouette and the probe, which scikit-learn defines there, are computed."""
    cls, mean = news_pooled["cls"][:, 0], news_pooled["mean"][:, 3]
    rng = np.random.default_rng(3)
    first, second, gold = rng.integers(0, 160, 60), rng.integers(0, 160, 60), rng.uniform(0, 5, 60)
    a, b = cls[first].astype(np.float64), cls[second].astype(np.float64)
    cosines = (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    with pytest.warns(ConstantInputWarning):
        assert np.isnan(spearmanr(cosines, gold).statistic)
    cells = {"MiniLM": {("cls", 0): cls, ("mean", 3): mean}}
    ranking = rank_models(cells, pairs=(first, second, gold), measure="spearman")
    undefined = row(ranking, "MiniLM", "cls", 0)
    assert np.isnan(undefined.score) and not undefined.best and undefined.note == f"not defined: {NO_ORDER}"
    assert row(ranking, "MiniLM", "mean", 3).note == "" and ranking.verdict.cells == [("MiniLM", "mean at layer 3")]
    assert list(ranking.table.model.iloc[-1:]) == ["MiniLM"] and np.isnan(ranking.table.score.iloc[-1])  # last
    for measure in ("silhouette", "accuracy"):
        defined = row(rank_models(cells, labels=labels, measure=measure), "MiniLM", "cls", 0)
        assert not np.isnan(defined.score) and defined.note == ""
        if measure == "silhouette":
            assert defined.score == pytest.approx(silhouette_score(cls, labels, metric="cosine"), abs=1e-5)


@pytest.mark.parametrize("measure", ["accuracy", "silhouette", "spearman"])
def test_a_model_listed_twice_ties_with_itself(models: dict, labels: list[str], measure: str) -> None:
    rng = np.random.default_rng(1)
    pairs = (rng.integers(0, 160, 40), rng.integers(0, 160, 40), np.arange(40.0)) if measure == "spearman" else None
    ranking = rank_models({"MiniLM": models["MiniLM"], "MiniLM again": dict(models["MiniLM"])},
                          labels=labels, pairs=pairs, measure=measure)
    assert not ranking.verdict.clear and "No clear best on" in ranking.verdict.sentence
    top = ranking.table.iloc[0]
    assert {r.model for r in ranking.table.itertuples() if r.best and (r.strategy, r.layer) == (top.strategy, top.layer)} \
        == {"MiniLM", "MiniLM again"}
    first, again = (ranking.table[ranking.table.model == m].sort_values(["strategy", "layer"]) for m in
                    ("MiniLM", "MiniLM again"))
    for column in ("score", "low", "high", "best"):
        assert list(first[column]) == list(again[column])


@pytest.mark.parametrize("measure", ["accuracy", "macro-F1", "silhouette", "spearman"])
def test_random_vectors_are_never_best(models: dict, labels: list[str], measure: str) -> None:
    rng = np.random.default_rng(2)
    noise = {cell: rng.normal(size=x.shape).astype(np.float32) for cell, x in models["MiniLM"].items()}
    pairs = None
    if measure == "spearman":  # gold scores the topics give: 5 for two texts of one topic, 0 for two of different
        first, second = rng.integers(0, 160, 80), rng.integers(0, 160, 80)
        pairs = (first, second, [5.0 * (labels[a] == labels[b]) for a, b in zip(first, second)])
    ranking = rank_models({"random": noise, **models}, labels=labels, pairs=pairs, measure=measure)
    assert not ranking.table[ranking.table.model == "random"].best.any()
    assert "random" not in {model for model, _ in ranking.verdict.cells}


def test_the_model_family_fixture_is_ranked_by_the_stated_protocol(family_encoders: dict, labels: list[str]) -> None:
    texts = list(news_topics()["text"])
    models = {name: grid(family_encoders[name].embed(texts, ["mean", "cls"]), [("mean", 1), ("cls", 2)])
              for name in FAMILY_MODELS}
    ranking = rank_models(models, labels=labels)
    for model, cells in models.items():
        for (strategy, layer), x in cells.items():
            assert row(ranking, model, strategy, layer).score == hand_probe(x, labels, "accuracy")[0]
    assert ranking.table.best.any()


def test_the_probe_on_every_core_gives_the_probes_numbers_exactly(models: dict, labels: list[str]) -> None:
    cells = list(models["MiniLM"].values())[1:] + list(models["twin"].values())[1:]
    plan = probe_plan(labels)
    assert probe_cells(cells, labels, plan, jobs=2) == [probe(x, labels, plan) for x in cells]
    assert probe_cells(cells[:2], labels, plan, jobs=1) == [probe(x, labels, plan) for x in cells[:2]]


def test_the_probe_says_what_it_changed(models: dict) -> None:
    labels = ["a"] * 100 + ["b"] * 57 + ["c"] * 3  # a class of three texts: three folds
    ranking = rank_models({"twin": models["twin"]}, labels=labels)
    assert ranking.verdict.method == "3 folds" and any("3 folds" in note for note in ranking.notes)


def test_a_notebook_imports_it_from_the_public_api() -> None:
    assert bertviz_core.rank_models is rank_models and "rank_models" in bertviz_core.__all__


@pytest.mark.parametrize(("call", "message"), [
    (lambda m, y: rank_models({"a": m["twin"], "b": {("mean", 1): m["twin"][("mean", 3)][:100]}}, labels=y),
     "same texts"),
    (lambda m, y: rank_models(m), "needs labels"),
    (lambda m, y: rank_models(m, measure="spearman"), "needs pairs"),
    (lambda m, y: rank_models(m, labels=y, measure="recall"), "measure"),
    (lambda m, y: rank_models(m, labels=y[:10]), "one label per vector"),
    (lambda m, y: rank_models(m, labels=["a"] * 159 + ["b"]), "at least two classes"),
    (lambda m, y: rank_models(m, labels=[str(i) for i in range(160)], measure="silhouette"), "no separation"),
    (lambda m, y: rank_models({"a": {"mean": m["twin"][("mean", 3)]}}, labels=y), "keys are (strategy, layer)"),
    (lambda m, y: rank_models(m, pairs=([0, 1], [2, 3], [1.0]), measure="spearman"), "as long as each other"),
    (lambda m, y: rank_models(m, pairs=([0, 1, 2, 3, 170], [1, 2, 3, 4, 5], np.arange(5.0)), measure="spearman"),
     "from 0 to 159"),
])
def test_bad_input_says_what_to_change(models: dict, labels: list[str], call, message: str) -> None:  # noqa: ANN001
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(models, labels)
