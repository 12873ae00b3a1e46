"""What a page shows of a precomputed store: its columns as pickers offer them, a query's nearest stored sentences
(the query's own copies left out, as on a page's own corpus), and how the search was done, in words.

The query's vectors come from the page (one model run, the query's); the store's are read memory-mapped.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.precompute.reader import VectorStore
from bertviz_core.words.word_vectors import snippet

OWN_COPIES = 8  # answers asked for beyond k, for the sentence's own copies to be left out


def stored_columns(store: VectorStore) -> dict[str, list[int | None]]:
    """{strategy: its stored layers} in the manifest's order; [None] for a strategy without layers."""
    found: dict[str, list[int | None]] = {}
    for name in store.manifest["columns"]:
        strategy, _, layer = name.partition("@")
        found.setdefault(strategy, []).append(int(layer) if layer else None)
    return found


def stored_layers(store: VectorStore) -> list[int]:
    """Every layer the store holds a vector of, for any strategy, ascending: what a layer picker offers on it."""
    return sorted({layer for layers in stored_columns(store).values() for layer in layers if layer is not None})


def _lacking_note(held: Sequence[str], lacking: Sequence[str], what: str, option: str) -> str:
    """What a picker that offers only the store's ``held`` choices (of kind ``what``, e.g. "layers") says the store
    lacks; "" when ``lacking`` is empty. ``option`` is the precompute option that adds them."""
    if not lacking:
        return ""
    return (f"The store holds {', '.join(held) or 'none'} only, so the {what} offered are those; it lacks "
            f"{', '.join(lacking)}. Precompute it with {option} to add them.")


def lacking_layers_note(store: VectorStore) -> str:
    """The layers of the store's model that the store holds no vector of, as a page says them under a layer picker
    that offers only the stored ones; "" when it holds every one."""
    from bertviz_core.figures import layer_label

    held = stored_layers(store)
    lacking = [layer for layer in range(store.manifest["model"]["num_layers"] + 1) if layer not in held]
    return _lacking_note([layer_label(layer) for layer in held], [layer_label(layer) for layer in lacking], "layers",
                         "--layers")


def stored_strategies(store: VectorStore, strategies: Sequence[str]) -> list[str]:
    """The pooling ``strategies`` (those a page offers for the model, in its order) that the store holds vectors
    of: what a strategy picker offers on it."""
    held = stored_columns(store)
    return [name for name in strategies if name in held]


def lacking_strategies_note(store: VectorStore, strategies: Sequence[str]) -> str:
    """The pooling ``strategies`` a page offers for the model that the store holds no vector of, as the page says
    them under a strategy picker that offers only the stored ones (``stored_columns``' keys); "" when it holds
    every one."""
    held = stored_strategies(store, strategies)
    return _lacking_note(held, [name for name in strategies if name not in held], "strategies", "--strategies")


def _without_copies(search: Callable[[int], pd.DataFrame], texts_of: Callable[[pd.DataFrame], np.ndarray], k: int,
                    sentence: str) -> pd.DataFrame:
    """The first ``k`` answers of ``search(how many)`` whose text (``texts_of(answers)``, (answers,)) is not
    ``sentence`` (spaces around it ignored), with a column "text": more answers are asked for until ``k`` others
    remain or the store has no more, so the copies are found among the answers, never by reading every text."""
    k, wanted = checks.whole_number(k, "k", 1), checks.text(sentence, "The sentence").strip()
    asked = k + OWN_COPIES
    while True:
        found = search(asked)
        found = found.assign(text=texts_of(found))
        others = found[[text.strip() != wanted for text in found["text"]]]
        if len(others) >= k or len(found) < asked:
            return others.head(k)
        asked *= 4


def nearest_stored_sentences(store: VectorStore, query: np.ndarray, strategy: str, layer: int | None, k: int,
                             metric: str, sentence: str) -> pd.DataFrame:
    """The ``k`` stored texts nearest to ``query`` (hidden,), the ``strategy`` vector of ``sentence`` at ``layer``,
    best first, the stored copies of ``sentence`` (spaces around it ignored) left out, where they would only find
    the query again: rank, row (in the store), score, text, label. The copies are found among the answers, not by
    reading every stored text: more are asked for until ``k`` others remain."""
    others = _without_copies(lambda asked: store.search(query, asked, strategy, layer, metric),
                             lambda found: found["text"].to_numpy(), k, sentence)
    return pd.DataFrame({"rank": np.arange(1, len(others) + 1), "row": others["index"].to_numpy(),
                         "score": others["score"].to_numpy(), "text": others["text"].to_numpy(),
                         "label": others["label"].to_numpy()})


def search_note(store: VectorStore, strategy: str, layer: int | None, metric: str) -> str:
    """How ``VectorStore.search`` answers for this column and metric, as a caption says it."""
    return _method_note(store.search_method(strategy, layer, metric), "sentences")


def token_search_note(store: VectorStore, layer: int, metric: str) -> str:
    """How ``VectorStore.token_search`` answers at ``layer`` for this metric, as a caption says it."""
    return _method_note(store.token_search_method(layer, metric), "tokens")


def _method_note(method: dict, what: str) -> str:
    if method["kind"] == "exact":
        why = (f" The store's index is not used for {method['not_by_direction']}: it finds rows by direction, which "
               "only cosine ranks by alone, so this search reads every row and takes longer."
               if "not_by_direction" in method else "" if "index_recall" not in method else
               f" The store's index is not used: it found only {method['index_recall']:.0%} of the true 10 nearest "
               "when the store was built, so this search reads every row and takes longer.")
        return f"Exact search: the query is scored against all {method['rows']:,} stored {what}.{why}"
    return (f"Approximate search over {method['rows']:,} stored {what} (faiss IVF: {method['probes']} of "
            f"{method['lists']:,} lists probed, their {method['candidates']} best by direction scored exactly): "
            f"recall@{method['recall_k']} {method['recall']:.3f} against exact search, measured when the store was "
            f"built on {method['recall_queries']} stored {what} used as queries. The scores shown are exact; a "
            "true neighbour may be missing.")


def default_strategy(store: VectorStore) -> str:
    """The strategy a page opens a store on (at its last stored layer): mean pooling when stored, else the first."""
    columns = stored_columns(store)
    return "mean" if "mean" in columns else next(iter(columns))


def nearest_stored_tokens(store: VectorStore, vector: np.ndarray, layer: int, k: int, metric: str,
                          sentence: str) -> pd.DataFrame:
    """The ``k`` stored tokens nearest to ``vector`` (hidden,), a token of ``sentence`` at the stored token layer
    ``layer``, best first, the tokens of the sentence's stored copies left out (found among the answers, as for
    sentences): rank, score, token, key (its word, lowercased), context (the token between « »), sentence."""
    others = _without_copies(lambda asked: store.token_search(vector, layer, asked, metric),
                             lambda found: store.rows["text"].iloc[found["sentence"].to_numpy()].to_numpy(), k, sentence)
    return pd.DataFrame({
        "rank": np.arange(1, len(others) + 1), "score": others["score"].to_numpy(),
        "token": others["token"].to_numpy(), "key": others["key"].to_numpy(),
        "context": [snippet(text, start, end, ("«", "»"), words=5)
                    for text, start, end in zip(others["text"], others["start"], others["end"])],
        "sentence": others["text"].to_numpy()})
