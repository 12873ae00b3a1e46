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
