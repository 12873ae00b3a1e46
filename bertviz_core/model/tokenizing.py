"""Texts to model inputs: a tokenizer shared by threads, behind a lock taken per chunk of texts.

A fast tokenizer may not be used by two threads at once (its truncation settings are shared state), so every
call takes a lock. Taking it per chunk of ``TOKENIZE_CHUNK`` texts, not per corpus, makes another session's
tokenizing wait for one chunk at most while an upload is tokenized.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import torch

from bertviz_core.model.encoding import ModelInput, trim_offset

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase

TOKENIZE_CHUNK = 64  # texts tokenized under one hold of the lock (~10 ms on the CPU)
ATTENTION_BATCH_BYTES = 256 << 20  # attention weights of one batch, (B, layers, heads, T, T) float32, at most


class SharedTokenizer:
    """``tokenizer`` with [CLS]/[SEP], truncation at ``max_length`` counted, and segments given to the model
    only when it ``uses_segments``."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, max_length: int, uses_segments: bool) -> None:
        self.tokenizer, self.max_length, self.uses_segments = tokenizer, max_length, uses_segments
        self.lock = threading.Lock()

    def inputs(self, texts: list[str], pairs: list[str] | None = None) -> list[ModelInput]:
        """One ``ModelInput`` per text (and pair), in order, truncated to ``max_length``, counting what was cut."""
        result: list[ModelInput] = []
        for lo in range(0, len(texts), TOKENIZE_CHUNK):
            chunk = texts[lo:lo + TOKENIZE_CHUNK]
            result += self._chunk(chunk, pairs[lo:lo + TOKENIZE_CHUNK] if pairs else None)
        return result

    def lengths(self, texts: list[str]) -> np.ndarray:
        """(texts, 2) ints: the tokens each text gives the model, special tokens included, once truncated at
        ``max_length``, and the tokens truncation drops. Counted from the untruncated ids alone: truncating one
        text keeps exactly ``max_length`` of its tokens, and building whole ``ModelInput``s (offsets, words) for a
        corpus only to count them took as long again."""
        full: list[int] = []
        for lo in range(0, len(texts), TOKENIZE_CHUNK):
            with self.lock:
                full += [len(ids) for ids in self.tokenizer(texts[lo:lo + TOKENIZE_CHUNK], verbose=False)["input_ids"]]
        counts = np.asarray(full, dtype=np.int64)
        kept = np.minimum(counts, self.max_length)
        return np.stack([kept, counts - kept], axis=1)

    def _chunk(self, texts: list[str], pairs: list[str] | None) -> list[ModelInput]:
        kwargs = dict(return_offsets_mapping=True, return_token_type_ids=True, verbose=False)
        with self.lock:
            full = self.tokenizer(texts, pairs, **kwargs)
            long = [i for i, ids in enumerate(full["input_ids"]) if len(ids) > self.max_length]
            cut = self.tokenizer(
                [texts[i] for i in long], [pairs[i] for i in long] if pairs else None,
                truncation="longest_first", max_length=self.max_length, **kwargs,
            ) if long else None
        sources = [(text, pairs[i] if pairs else "") for i, text in enumerate(texts)]
        result = [self._input(full, i, 0, sources[i]) for i in range(len(texts))]
        for row, i in enumerate(long):
            result[i] = self._input(cut, row, len(full["input_ids"][i]) - len(cut["input_ids"][row]), sources[i])
        return result

    def _input(self, batch, row: int, dropped: int, sources: tuple[str, str]) -> ModelInput:  # noqa: ANN001
        """One text (or pair) of a tokenizer batch as a ``ModelInput``; ``sources`` are its two texts, which the
        offsets are trimmed against (see ``encoding.trim_offset``)."""
        ids = list(batch["input_ids"][row])
        sequence_ids = batch.sequence_ids(row)
        raw_words = batch.word_ids(row)
        first_len = 1 + max((w for w, s in zip(raw_words, sequence_ids) if s == 0 and w is not None), default=-1)
        word_ids = [None if w is None else w + (first_len if s == 1 else 0) for w, s in zip(raw_words, sequence_ids)]
        return ModelInput(
            tokens=self.tokenizer.convert_ids_to_tokens(ids),
            ids=ids,
            segments=list(batch["token_type_ids"][row]) if self.uses_segments else [0] * len(ids),
            sequences=list(sequence_ids),
            offsets=[o if s is None else trim_offset(sources[s], *o)
                     for o, s in zip(batch["offset_mapping"][row], sequence_ids)],
            word_ids=word_ids,
            special=[s is None for s in sequence_ids],
            dropped=dropped,
        )


def batches(items: list[ModelInput], budget: int, max_batch: int,
            pair_bytes: int | None = None) -> Iterator[list[int]]:
    """Indices of ``items`` in forward passes, longest first, so each pads little: at most ``budget`` padded
    tokens and ``max_batch`` texts a pass; with ``pair_bytes`` (bytes of attention weights per token pair),
    at most ``ATTENTION_BATCH_BYTES`` of weights too."""
    order = sorted(range(len(items)), key=lambda i: -len(items[i].ids))
    done = 0
    while done < len(order):
        width = len(items[order[done]].ids)
        size = max(1, min(max_batch, budget // width))
        if pair_bytes:
            size = max(1, min(size, ATTENTION_BATCH_BYTES // (pair_bytes * width * width)))
        yield order[done:done + size]
        done += size


def padded(items: list[ModelInput], width: int, pad_id: int) -> tuple[torch.Tensor, ...]:
    """A batch of inputs as the model takes it, each (B, width) long: ids ([PAD] = ``pad_id`` after each
    text), segments, attention mask (1 on the text's tokens) and special (1 on [CLS], [SEP] and the like)."""
    ids = torch.full((len(items), width), pad_id, dtype=torch.long)
    segments, mask, special = torch.zeros_like(ids), torch.zeros_like(ids), torch.zeros_like(ids)
    for row, item in enumerate(items):
        n = len(item.ids)
        ids[row, :n] = torch.tensor(item.ids)
        segments[row, :n] = torch.tensor(item.segments)
        special[row, :n] = torch.tensor(item.special, dtype=torch.long)
        mask[row, :n] = 1
    return ids, segments, mask, special
