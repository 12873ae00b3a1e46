"""The store the tests and the benches open: the built-in corpus precomputed on the bundled model."""
from __future__ import annotations

from pathlib import Path


def topics_store(folder: Path) -> str:
    """The built-in corpus (160 texts, 4 labels) precomputed into ``folder``/topics: mean and [CLS] pooling at layers
    3 and 6, each with its PCA map, every token at layers 3 and 6, and no index; the store's folder."""
    from bertviz_core.corpora import news_topics
    from bertviz_core.precompute.request import Request
    from bertviz_core.precompute.run import precompute

    news_topics().to_csv(folder / "news.csv", index=False)
    request = Request(strategies=["mean", "cls"], layers=[3, 6], token_layers=[3, 6], index="never", maps=["PCA"])
    return precompute(str(folder / "news.csv"), str(folder / "topics"), request, label_column="label",
                      shard_rows=64).store


def model_stores(folder: Path, names: tuple[str, ...] = ("bundled", "twin", "twin_fewer", "twin_unlabelled"),
                 ) -> dict[str, str]:
    """The built-in corpus precomputed from one file with two models (mean and [CLS] at layers 3 and 6, labelled,
    nothing else): "bundled" (the bundled model) and "twin" (its untrained twin); and, refused beside them, the
    twin on the first 100 rows ("twin_fewer": other texts) and on the texts alone ("twin_unlabelled": no labels).
    {name: the store's folder} of those in ``names``, each folder named as the server offers it."""
    from bertviz_core.corpora import news_topics
    from bertviz_core.model.models import UNTRAINED_TWIN
    from bertviz_core.precompute.request import Request
    from bertviz_core.precompute.run import precompute

    corpus = news_topics()
    corpus.to_csv(folder / "news.csv", index=False)
    corpus.head(100).to_csv(folder / "fewer.csv", index=False)
    corpus[["text"]].to_csv(folder / "texts.csv", index=False)  # no column to guess labels from
    made = {}
    for name, model, file in (("bundled", None, "news.csv"), ("twin", UNTRAINED_TWIN, "news.csv"),
                              ("twin_fewer", UNTRAINED_TWIN, "fewer.csv"),
                              ("twin_unlabelled", UNTRAINED_TWIN, "texts.csv")):
        if name not in names:
            continue
        request = Request(model=model, strategies=["mean", "cls"], layers=[3, 6], index="never")
        made[name] = precompute(str(folder / file), str(folder / name), request, shard_rows=64).store
    return made
