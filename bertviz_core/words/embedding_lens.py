"""What a [MASK]'s hidden state is nearest to among the model's input word embeddings, layer by layer.

A view that needs no masked-language-model head, so it works on every model, the bundled sentence-embedding
model too. It is not the pre-training head's guess: it compares the hidden state after each layer with the
embedding table the model reads its input from (cosine), which says which vocabulary entries the position's
vector points towards. At layer 0 that is mostly the [MASK] embedding itself; where a later layer moves towards
words that fit the gap, context has been written into the position.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import torch

from bertviz_core import checks
from bertviz_core.measures.masked import MAX_TOP_K, masks

if TYPE_CHECKING:
    from bertviz_core.model.encoder import Encoder

WHAT_IT_IS = ("the input word embeddings nearest (by cosine) to the mask's hidden state after each layer: not the "
              "pre-training head's guesses, which this model lacks")


@dataclass(frozen=True)
class NearestEmbeddings:
    """One mask's nearest input embeddings after every layer, 0 = the embedding layer's output.

    ``top_ids``, ``top_tokens``, ``cosines``: (layers+1, k), nearest first."""

    position: int
    top_ids: np.ndarray
    top_tokens: np.ndarray
    cosines: np.ndarray

    def table(self, k: int) -> pd.DataFrame:
        """Long form, one row per layer and rank: layer, rank, token, id, cosine."""
        layers, ranks = np.meshgrid(range(len(self.top_ids)), range(1, k + 1), indexing="ij")
        return pd.DataFrame({"layer": layers.ravel(), "rank": ranks.ravel(), "token": self.top_tokens[:, :k].ravel(),
                             "id": self.top_ids[:, :k].ravel(), "cosine": self.cosines[:, :k].ravel()})


def nearest_input_embeddings(enc: Encoder, text: str, top_k: int = 10) -> list[NearestEmbeddings]:
    """For each mask of ``text``, in order: the ``top_k`` rows of the model's input embedding table (vocab,
    hidden) with the highest cosine to the mask's hidden state (layers+1, hidden), at every layer.
    ``ValueError`` when the model has no mask the text uses, or its embeddings are narrower than its hidden
    states (ALBERT, ELECTRA: a projection lies between them, so they are in different spaces)."""
    positions = masks(enc, text).positions
    return nearest_to_states(enc, enc.encode([text])[0].hidden_states, positions, top_k)


def nearest_to_states(enc: Encoder, hidden_states: np.ndarray, positions: list[int],
                      top_k: int = 10) -> list[NearestEmbeddings]:
    """``nearest_input_embeddings`` from a text's hidden states already computed, (layers+1, tokens, hidden),
    and its masks' ``positions``: no model run, so a cached encoding serves any ``top_k``. ``ValueError`` for
    states of another width, or a position past the text's tokens."""
    top_k = checks.whole_number(top_k, "top_k", 1, MAX_TOP_K)
    table = enc.model.get_input_embeddings().weight.detach()  # (vocab, width)
    if table.shape[1] != enc.info.hidden_size:
        raise ValueError(f"This model's word embeddings are {table.shape[1]} wide and its hidden states "
                         f"{enc.info.hidden_size}: a projection lies between them, so a hidden state cannot be "
                         "compared with the embedding table.")
    states = checks.numbers(hidden_states, "hidden_states", "(layers+1, tokens, hidden)")
    if states.shape[2] != table.shape[1]:
        raise ValueError(f"hidden_states are {states.shape[2]} wide; this model's are {table.shape[1]}: give the "
                         "hidden states of the same model.")
    positions = checks.indices(positions, "positions", states.shape[1])
    states = torch.from_numpy(states[:, positions].astype(np.float32)).to(table.device)  # (layers+1, masks, hidden)
    with torch.inference_mode():
        unit = torch.nn.functional.normalize(table.float(), dim=-1)
        cosines = torch.nn.functional.normalize(states, dim=-1) @ unit.T  # (layers+1, masks, vocab)
        top = cosines.topk(min(top_k, cosines.shape[-1]), dim=-1)
    ids, values = top.indices.cpu().numpy(), top.values.cpu().numpy()
    names = np.asarray(enc.tokenizer.convert_ids_to_tokens(list(range(len(enc.tokenizer)))) +
                       [f"[id {i}]" for i in range(len(enc.tokenizer), table.shape[0])], dtype=object)
    return [NearestEmbeddings(position, ids[:, i], names[ids[:, i]], values[:, i])
            for i, position in enumerate(positions)]
