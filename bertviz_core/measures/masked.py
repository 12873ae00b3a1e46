"""Masked words: the guesses of BERT's pre-training head for each [MASK], and the logit lens.

BERT was trained to fill in masked tokens: its masked-language-model (MLM) head turns the last
hidden state of a [MASK] into a score for every vocabulary entry. The logit lens applies that same
head to the hidden state after every layer (0 = the embeddings), which shows at which depth the
final guess appears. Sentence-embedding models such as all-MiniLM-L6-v2 ship without the head.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
import pandas as pd
import torch

import bertviz_core.checks as checks
from bertviz_core.model.encoding import ModelInput
from bertviz_core.words.vocab import token_names

if TYPE_CHECKING:
    from bertviz_core.model.encoding import Encoding
    from bertviz_core.model.models import ModelInfo


class MaskedModel(Protocol):
    """What the functions below use of an ``Encoder`` (encoder.py imports this module for ``Encoder.fill_mask``,
    so this module names the members it needs instead of importing the class)."""

    tokenizer: Any
    info: ModelInfo
    mask_token: str

    def inputs(self, texts: Sequence[str]) -> list[ModelInput]: ...

    def encode(self, texts: Sequence[str]) -> list[Encoding]: ...

    def mlm_head(self) -> torch.nn.Module: ...

MAX_MASKS = 10  # each mask is guessed without the others, so more leave too little context to read
MAX_TOP_K = 50  # the lens keeps this many guesses per layer; a view shows any k up to it
NO_HEAD_REASON = (
    "{name} has no masked-language-model head: its checkpoint holds no trained weights for the layer that "
    "turns a hidden state into a guess over the vocabulary. Sentence-embedding models such as "
    "all-MiniLM-L6-v2 are trained for sentence similarity after pre-training, and the word-guessing head is "
    "dropped when they are saved. Without it there is nothing to guess with: a random head would guess noise."
)


@dataclass(frozen=True)
class Masks:
    """Where the masks of a text are: ``positions`` (token indices, in order), how many were written but
    cut off by the length limit (``past_limit``), and how many mask-like spellings the tokenizer does not
    read as the mask (``miswritten``, e.g. "[mask]")."""

    positions: list[int]
    past_limit: int
    miswritten: int


def find_masks(item: ModelInput, text: str, mask_token: str, max_length: int) -> Masks:
    """The masks of ``text`` as tokenized in ``item``; ``ValueError`` saying what to change when there is
    none the model can see, or more than ``MAX_MASKS``."""
    positions = [i for i, token in enumerate(item.tokens) if token == mask_token]
    written = text.count(mask_token)
    miswritten = len(re.findall(re.escape(mask_token), text, flags=re.IGNORECASE)) - written
    if not positions and written:
        raise ValueError(f"Every {mask_token} lies past the model's {max_length}-token limit, so the model never "
                         f"sees one. Put a {mask_token} in the first part of the text, or shorten it.")
    if not positions and miswritten:
        raise ValueError(f"The mask is written {mask_token}, in capitals: the tokenizer reads other spellings "
                         f"as ordinary pieces. Change it to {mask_token}.")
    if not positions:
        raise ValueError(f"The text has no {mask_token}. Write {mask_token} where a word should be guessed, "
                         "or choose “Mask a word” and pick one.")
    if len(positions) > MAX_MASKS:
        raise ValueError(f"The text has {len(positions)} masks; this page guesses up to {MAX_MASKS} at once. "
                         "Each mask is guessed without seeing the others, so many masks leave little context. "
                         "Remove some.")
    return Masks(positions, written - len(positions), miswritten)


def check_hidden_ids(hidden_ids: Sequence[int | None] | None, masks: int, vocabulary: int) -> list[int | None]:
    """The token each of ``masks`` masks hid, as ``logit_lens`` follows them: ``hidden_ids`` (None or
    fewer than ``masks``: unknown for the rest) padded with None to one per mask; ``ValueError`` for more ids than
    masks, or an id that is no vocabulary entry (a whole number from 0 to ``vocabulary`` - 1)."""
    ids = [] if hidden_ids is None else checks.items(hidden_ids, "hidden_ids", "vocabulary ids (or None), one per mask")
    if len(ids) > masks:
        raise ValueError(f"hidden_ids has {len(ids)} ids for the text's {masks} mask(s); give at most one per mask.")
    return [None if i is None else checks.whole_number(i, "Each hidden id (a vocabulary entry)", 0, vocabulary - 1)
            for i in ids] + [None] * (masks - len(ids))


@dataclass(frozen=True)
class Word:
    """A whole word of a text: its index, its characters and how many pieces it has."""

    index: int
    text: str
    start: int
    end: int
    pieces: int


def words(item: ModelInput, text: str) -> list[Word]:
    """The whole words of a single text (no special tokens), in order."""
    spans: dict[int, list[tuple[int, int]]] = {}
    for word, offset, special in zip(item.word_ids, item.offsets, item.special):
        if word is not None and not special:
            spans.setdefault(word, []).append(offset)
    return [Word(word, text[pieces[0][0]:pieces[-1][1]], pieces[0][0], pieces[-1][1], len(pieces))
            for word, pieces in spans.items()]


def word_labels(found: Sequence[Word]) -> list[str]:
    """A unique label per word, as a picker and a link show it: the word, then "#2", "#3" for repeats."""
    seen: dict[str, int] = {}
    labels = []
    for word in found:
        seen[word.text] = seen.get(word.text, 0) + 1
        labels.append(word.text if seen[word.text] == 1 else f"{word.text} #{seen[word.text]}")
    return labels


@dataclass(frozen=True)
class MaskedWord:
    """A text with one word masked: ``text`` holds one mask per piece of the word, so every other token keeps
    its position; ``hidden`` maps each new mask's position to the id of the piece it hides."""

    text: str
    hidden: dict[int, int]
    pieces: list[str]

    @property
    def split(self) -> bool:
        """Whether the word was several pieces, so became several masks."""
        return len(self.pieces) > 1


def mask_word(item: ModelInput, text: str, word: Word, mask_token: str) -> MaskedWord:
    """``text`` (tokenized as ``item``) with ``word`` replaced by one mask per piece."""
    positions = [i for i, w in enumerate(item.word_ids) if w == word.index and not item.special[i]]
    return MaskedWord(text[:word.start] + " ".join([mask_token] * word.pieces) + text[word.end:],
                      {i: item.ids[i] for i in positions}, [item.tokens[i] for i in positions])


@dataclass(frozen=True)
class MaskLens:
    """The head's guesses for one mask after every layer, 0 = the embeddings.

    ``top_ids``, ``top_tokens``, ``top_probs``: (layers+1, k), best first. ``tracked_ids``: the tokens
    followed through the layers, the final answer (the last layer's top guess) first, then the token the
    mask hid, if known. ``ranks`` (1 = best) and ``probs``: (len(tracked_ids), layers+1).
    """

    position: int
    top_ids: np.ndarray
    top_tokens: np.ndarray
    top_probs: np.ndarray
    tracked_ids: tuple[int, ...]
    tracked_tokens: tuple[str, ...]
    ranks: np.ndarray
    probs: np.ndarray

    def predictions(self, k: int) -> pd.DataFrame:
        """The last layer's ``k`` best guesses, best first: token, id, probability."""
        last = len(self.top_ids) - 1
        return pd.DataFrame({"token": self.top_tokens[last, :k], "id": self.top_ids[last, :k],
                             "probability": self.top_probs[last, :k]})

    def layer_table(self, k: int) -> pd.DataFrame:
        """One row per layer: the ``k`` best guesses, best first, in long form (layer, rank, token, probability)."""
        layers, ranks = np.meshgrid(range(len(self.top_ids)), range(1, k + 1), indexing="ij")
        return pd.DataFrame({"layer": layers.ravel(), "rank": ranks.ravel(),
                             "token": self.top_tokens[:, :k].ravel(), "probability": self.top_probs[:, :k].ravel()})

    def tracked(self) -> pd.DataFrame:
        """The tracked tokens by layer (long form): layer, token, role, rank, probability."""
        roles = ["final answer", "hidden word"]
        return pd.concat([pd.DataFrame({"layer": range(self.ranks.shape[1]), "token": token, "role": role,
                                        "rank": self.ranks[i], "probability": self.probs[i]})
                          for i, (token, role) in enumerate(zip(self.tracked_tokens, roles))], ignore_index=True)

    def first_layer_at_top(self) -> int:
        """The first layer from which on the final answer stays the top guess: where the model "knows" it.
        The last layer at the latest, the answer being its top guess."""
        at_top = self.ranks[0] == 1
        return next(layer for layer in range(len(at_top)) if at_top[layer:].all())


def apply_head(head: torch.nn.Module, states: torch.Tensor) -> torch.Tensor:
    """The logit lens' logits for every layer's hidden states (layers+1, masks, hidden) → (layers+1, masks,
    vocab): the architecture's own head code (for BERT the transform, dense layer, activation and LayerNorm,
    then the decoder to the vocabulary with its bias), exactly what its *ForMaskedLM model applies to its
    last hidden state. Where the encoder norms only its last layer's output (``head.final_norm``), the
    earlier layers' states are normed the same way first."""
    with torch.inference_mode():
        norm = getattr(head, "final_norm", None)
        if norm is not None:
            states = torch.cat([norm(states[:-1]), states[-1:]])
        return head(states).float()


def lens(logits: torch.Tensor, position: int, top_k: int, hidden_id: int | None,
         tokens: Sequence[str]) -> MaskLens:
    """One mask's lens from its logits (layers+1, vocab); ``tokens`` maps ids to vocabulary entries."""
    probs = logits.softmax(-1)
    top = probs.topk(min(top_k, probs.shape[-1]), dim=-1)
    answer = int(top.indices[-1, 0])
    tracked = (answer,) if hidden_id is None or hidden_id == answer else (answer, hidden_id)
    chosen = logits[:, list(tracked)].T  # (tracked, layers+1)
    ranks = (logits.unsqueeze(0) > chosen.unsqueeze(-1)).sum(-1) + 1  # 1 + entries scored strictly higher
    top_ids = top.indices.cpu().numpy()
    return MaskLens(
        position=position, top_ids=top_ids, top_tokens=np.asarray(tokens, dtype=object)[top_ids],
        top_probs=top.values.cpu().numpy(), tracked_ids=tracked, tracked_tokens=tuple(tokens[i] for i in tracked),
        ranks=ranks.cpu().numpy(), probs=probs[:, list(tracked)].T.cpu().numpy(),
    )


def masks(encoder: MaskedModel, text: str) -> Masks:
    """Where ``text``'s masks are as ``encoder`` tokenizes it (no model run); ``ValueError`` saying what to
    change when there is none the model can see, or too many."""
    checks.encoder(encoder)
    checks.text(text)
    return find_masks(encoder.inputs([text])[0], text, encoder.mask_token, encoder.info.max_length)


def logit_lens(encoder: MaskedModel, text: str, top_k: int = 10, hidden_ids: Sequence[int | None] = ()) -> list[MaskLens]:
    """For each mask of ``text``, in order: the MLM head (transform with its LayerNorm, then decoder)
    applied to the mask's hidden state after every layer, 0 = the embeddings; the last layer is what
    ``fill_mask`` returns. ``hidden_ids[i]``, when given, is the token mask i hid, followed by rank."""
    top_k = checks.whole_number(top_k, "top_k", 1, MAX_TOP_K)
    positions = masks(encoder, text).positions
    head = encoder.mlm_head()
    hidden = check_hidden_ids(hidden_ids, len(positions), len(encoder.tokenizer))
    states = encoder.encode([text])[0].hidden_states[:, positions]  # (layers+1, masks, hidden)
    logits = apply_head(head, torch.from_numpy(states).to(encoder.info.device)).transpose(0, 1)  # (masks, L+1, V)
    names = token_names(encoder.tokenizer, logits.shape[-1])
    return [lens(logits[i], position, top_k, hidden[i], names) for i, position in enumerate(positions)]


def fill_mask(encoder: MaskedModel, text: str, top_k: int = 10) -> list[pd.DataFrame]:
    """For each mask of ``text``, in order, the ``top_k`` guesses of the MLM head, best first: token, id,
    probability (softmax over the vocabulary), as transformers' ``pipeline("fill-mask")`` gives them."""
    return [mask.predictions(top_k) for mask in logit_lens(encoder, text, top_k)]
