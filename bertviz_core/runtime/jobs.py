"""The jobs a worker process runs (``offload.Offload``), by name: a job crosses to the worker as its name and its
arguments, and the same function runs in the caller's process for a small corpus, so both paths compute the same.

Each job is ``JOBS[name](encoder, texts, report, *extra)``: the encoder the worker loaded, the texts it runs on,
``report(done, total)`` for its progress, and the job's own settings. Besides the corpus-long ones (pooled vectors,
a token index), the background warm-up sends the default views' computations here (``ui.warm``), each the core
call its page's cached function makes: a grid cell's score, a probe, a corpus's contextuality, a pair's
attribution and MaxSim. Those read the corpus's pooled vectors or token index from ``_kept``, computed once per
worker and corpus.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cachetools

Progress = Callable[[int, int], None]
_KEPT: cachetools.LRUCache = cachetools.LRUCache(maxsize=2)  # the warm-up's: the news corpus pooled, the reference indexed


def _embed(encoder: Any, texts: tuple[str, ...], report: Progress) -> dict[str, Any]:
    """Pooled vectors of the corpus: {strategy: (n, layers+1, hidden)}."""
    return encoder.embed(list(texts), progress=report)


def _token_index(encoder: Any, texts: tuple[str, ...], report: Progress) -> Any:
    """The corpus's ``token_index.TokenIndex``: every token's vector at every layer."""
    from bertviz_core.model.token_index import token_index

    return token_index(encoder, texts, report)


def _encode(encoder: Any, texts: tuple[str, ...], report: Progress) -> list[Any]:
    """Each text's ``Encoding``: its hidden states (layers+1, tokens, hidden)."""
    return encoder.encode(list(texts))


def _kept(job: str, encoder: Any, texts: tuple[str, ...]) -> Any:
    """``JOBS[job]`` over ``texts``, computed once per worker, model and corpus (``_KEPT``)."""
    key = (job, encoder.info.identity, encoder.info.device, texts)
    if key not in _KEPT:
        _KEPT[key] = JOBS[job](encoder, texts, lambda done, total: None)
    return _KEPT[key]


def _kept_embed(encoder: Any, texts: tuple[str, ...], report: Progress) -> dict[str, Any]:
    """``embed``, kept for the jobs that read it after (``_kept``): the warm-up's."""
    return _kept("embed", encoder, texts)


def _kept_token_index(encoder: Any, texts: tuple[str, ...], report: Progress) -> Any:
    """``token index``, kept for the jobs that read it after (``_kept``): the warm-up's."""
    return _kept("token index", encoder, texts)


def _pooling_cell(encoder: Any, texts: tuple[str, ...], report: Progress, cell: Any, labels: Any) -> Any:
    """``pooling_grid.score_cell`` of one (strategy, layer) of the pooled corpus, as ``ui.cached.pooling_cell``."""
    from bertviz_core.measures.pooling_grid import cell_vectors, score_cell

    return score_cell(cell_vectors(_kept("embed", encoder, texts), cell), labels)


def _probe_cell(encoder: Any, texts: tuple[str, ...], report: Progress, cell: Any, labels: Any, plan: Any) -> Any:
    """``task_measures.probe`` of one (strategy, layer) of the pooled corpus, as ``ui.cached.probe_cell``."""
    from bertviz_core.measures.pooling_grid import cell_vectors
    from bertviz_core.measures.task_measures import probe

    return probe(cell_vectors(_kept("embed", encoder, texts), cell), labels, plan)


def _contextuality(encoder: Any, texts: tuple[str, ...], report: Progress) -> Any:
    """``neighbours.contextuality`` of the corpus's token index, as ``ui.cached.corpus_contextuality``."""
    from bertviz_core.measures.neighbours import contextuality

    return contextuality(_kept("token index", encoder, texts))


def _attribution(encoder: Any, texts: tuple[str, ...], report: Progress, *settings: Any) -> Any:
    """``attribution.pair_attribution`` of the pair ``texts`` with ``settings`` (strategy, layer, steps,
    reference, at_layer, cut), as ``ui.page_parts.why_similar.attribution``."""
    from bertviz_core.measures.attribution import pair_attribution

    return pair_attribution(encoder, *texts, *settings, report)


def _maxsim(encoder: Any, texts: tuple[str, ...], report: Progress, layer: int, cut: bool) -> Any:
    """``token_pairs.maxsim_pairs`` of the pair ``texts``, as ``ui.page_parts.why_similar.maxsim``."""
    from bertviz_core.views.token_pairs import maxsim_pairs

    return maxsim_pairs(encoder, *texts, layer, cut)


JOBS: dict[str, Callable[..., Any]] = {
    "embed": _embed, "token index": _token_index, "encode": _encode, "kept embed": _kept_embed,
    "kept token index": _kept_token_index, "pooling cell": _pooling_cell,
    "probe cell": _probe_cell, "contextuality": _contextuality, "attribution": _attribution, "maxsim": _maxsim,
}
