"""The precompute's ray engine (issue #29) on a local Ray of 2 CPUs: its vectors equal Encoder.embed's, for 1 and
2 actors and other shard sizes, and its store, maps included, is the local engine's."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bertviz_core import Encoder, open_store
from bertviz_core.corpora import news_topics
from bertviz_core.precompute import maps
from bertviz_core.precompute.request import Request
from bertviz_core.precompute.run import precompute

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.xdist_group("ray")  # one test worker runs them all: one local Ray, started once
# t-SNE, not UMAP, for the maps drawn as Ray tasks: a UMAP's first fit in a process compiles for a minute or more
REQUEST = Request(strategies=["mean", "cls", "pooler"], layers=[3, 6], token_layers=[2], maps=["PCA", "t-SNE"])


@pytest.fixture(scope="module")
def local_ray():  # noqa: ANN201
    from bertviz_core.precompute.ray_engine import RUNTIME_ENV

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, runtime_env=RUNTIME_ENV)
    yield
    ray.shutdown()


@pytest.mark.parametrize(("actors", "shard_rows"), [(1, 24), (2, 8)])
@pytest.mark.slow
def test_the_ray_engine_equals_embed_and_the_local_engine(local_ray, bundled: Encoder, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch, actors: int,
                                                          shard_rows: int) -> None:
    texts = news_topics()["text"].iloc[::5].tolist()  # 32 texts
    pd.DataFrame({"text": texts}).to_csv(tmp_path / "c.csv", index=False)

    def drawn_here(*_: object) -> None:
        raise AssertionError("a t-SNE map was drawn in this process, not by Ray's workers")

    with monkeypatch.context() as here:
        here.setattr(maps, "coordinates", drawn_here)
        on_ray = open_store(precompute(str(tmp_path / "c.csv"), str(tmp_path / "ray"), REQUEST, engine="ray",
                                       shard_rows=shard_rows, actors=actors).store)
    local = open_store(precompute(str(tmp_path / "c.csv"), str(tmp_path / "local"), REQUEST,
                                  shard_rows=shard_rows).store)
    reference = bundled.embed(texts, ["mean", "cls", "pooler"])
    for name in on_ray.manifest["columns"]:
        strategy, _, layer = name.partition("@")
        vectors = on_ray.vectors(strategy, int(layer) if layer else None)
        # the same shards and batches as the local engine, in another process with its own thread count: equal
        # within float32 rounding across processes (bit-equal where the kernels agree, as they did here)
        np.testing.assert_allclose(vectors, local.vectors(strategy, int(layer) if layer else None), rtol=1e-5,
                                   atol=1e-5)
        # and, batched otherwise than one call on all 32 texts, Encoder.embed's within float32 rounding
        np.testing.assert_allclose(vectors, reference[strategy][:, int(layer) if layer else 0], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(on_ray.token_vectors(2), local.token_vectors(2), rtol=1e-5, atol=1e-5)
    pd.testing.assert_frame_equal(on_ray.token_rows, local.token_rows)
    here = {**local.manifest, "created": 0}
    assert here.pop("speed")["texts"] == 32 and "speed" not in on_ray.manifest  # Ray's actors name no one device
    assert on_ray.texts == texts and {**on_ray.manifest, "created": 0} == here
    for name in on_ray.manifest["columns"]:  # the t-SNE maps drawn by Ray's workers, the PCAs here: as local ones
        strategy, _, layer = name.partition("@")
        for projection in ("PCA", "t-SNE"):
            pd.testing.assert_frame_equal(on_ray.map(projection, strategy, int(layer) if layer else None),
                                          local.map(projection, strategy, int(layer) if layer else None))
