"""The Encoder: one loaded model, shared by every caller, turning text into numbers.

``tokenize`` shows the model's input, ``encode`` returns every hidden state of every token.
Texts are batched by sorted length with a token budget; padding never changes a text's
numbers because each text is sliced back to its own tokens. One lock guards the fast
tokenizer (it raises "Already borrowed" when two threads use it at once); the forward pass
runs under ``torch.inference_mode`` and needs no lock.
"""
from __future__ import annotations

import copy
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import torch

import bertviz_core.checks as checks
from bertviz_core.encoding import Encoding, ModelInput, trim_offset
from bertviz_core.masked import MAX_TOP_K, Masks, MaskLens, apply_head, check_hidden_ids, find_masks, lens
from bertviz_core.neighbours import TokenIndex, build_index
from bertviz_core.masked import NO_HEAD_REASON
from bertviz_core.models import (ModelInfo, load_pretrained, max_length, resolve_device, resolve_source,
                                 segments_note)
from bertviz_core.pooling import POOLINGS, BatchStates, check_strategies
from bertviz_core.vocab import vocabulary_table
from bertviz_core.word_vectors import SUBWORD_RULES, Occurrence, check_word, occurrences

if TYPE_CHECKING:  # transformers itself is imported by models.load_pretrained, under a lock
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

# (padded tokens, texts) per forward pass, by device. Small batches ran fastest on the 2-core CPU
# (bench/embed_throughput.py); a GPU needs larger ones to stay busy. The GPU figures are a moderate
# guess, not yet measured: no GPU was lent to this project so far.
BATCH_LIMITS: dict[str, tuple[int, int]] = {"cpu": (2048, 32), "cuda": (16384, 256), "mps": (8192, 128)}
TOKENIZE_CHUNK = 64  # texts tokenized under one hold of the tokenizer's lock (~10 ms on the CPU)
ATTENTION_BATCH_BYTES = 256 << 20  # attention weights of one batch, (B, layers, heads, T, T) float32, at most


@dataclass(frozen=True)
class Batch:
    """One forward pass: which items, hidden (B, L+1, T, H), mask and special (B, T), pooler (B, H) or None;
    or, for an attention pass, ``attentions`` (B, L, heads, T, T) and no hidden states."""

    indices: list[int]
    hidden: torch.Tensor | None
    mask: torch.Tensor
    special: torch.Tensor
    pooler: torch.Tensor | None
    attentions: torch.Tensor | None = None


def record(event: str) -> None:
    """Append ``event`` as a line to the file named by BERTVIZ_RUN_LOG, when it is set: how a test or a
    benchmark counts a live server's model runs (one "model run" line each) and sees its warm-up end."""
    path = os.environ.get("BERTVIZ_RUN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(event + "\n")


class Encoder:
    """A tokenizer and a BERT-family model on one device, safe to share between threads."""

    def __init__(self, tokenizer: PreTrainedTokenizerBase, model: PreTrainedModel, info: ModelInfo,
                 head: torch.nn.Module | None = None) -> None:
        self.tokenizer = tokenizer
        self.model = model
        self.info = info
        self._head = head  # the masked-language-model head (models.MaskedLMHead), None when there is none
        # Why the model sees segment 0 throughout (None when it uses segments): token type ids are passed
        # to the model, and shown, only where the model has them and its tokenizer gives them.
        self.segments_note = segments_note(tokenizer, model.config)
        self.uses_segments = self.segments_note is None
        self._lock = threading.Lock()
        self._vocabulary: pd.DataFrame | None = None
        self._eager_lock = threading.Lock()
        self._eager: PreTrainedModel | None = None
        self._vocab_tokens: list[str] | None = None

    # ---- input side -------------------------------------------------------------------
    def _tokenize_many(self, texts: list[str], pairs: list[str] | None = None) -> list[ModelInput]:
        """Tokenize with [CLS]/[SEP], truncated to ``info.max_length``, counting what was cut; in chunks of
        ``TOKENIZE_CHUNK`` texts, the lock taken per chunk, so another session's tokenizing waits for one
        chunk at most, never for a whole corpus."""
        result: list[ModelInput] = []
        for lo in range(0, len(texts), TOKENIZE_CHUNK):
            chunk = texts[lo:lo + TOKENIZE_CHUNK]
            result += self._tokenize_chunk(chunk, pairs[lo:lo + TOKENIZE_CHUNK] if pairs else None)
        return result

    def _tokenize_chunk(self, texts: list[str], pairs: list[str] | None) -> list[ModelInput]:
        kwargs = dict(return_offsets_mapping=True, return_token_type_ids=True, verbose=False)
        with self._lock:
            full = self.tokenizer(texts, pairs, **kwargs)
            long = [i for i, ids in enumerate(full["input_ids"]) if len(ids) > self.info.max_length]
            cut = self.tokenizer(
                [texts[i] for i in long], [pairs[i] for i in long] if pairs else None,
                truncation="longest_first", max_length=self.info.max_length, **kwargs,
            ) if long else None
        sources = [(text, pairs[i] if pairs else "") for i, text in enumerate(texts)]
        result = [self._tokenized(full, i, 0, sources[i]) for i in range(len(texts))]
        for row, i in enumerate(long):
            result[i] = self._tokenized(cut, row, len(full["input_ids"][i]) - len(cut["input_ids"][row]), sources[i])
        return result

    def _tokenized(self, batch, row: int, dropped: int, sources: tuple[str, str]) -> ModelInput:
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

    def tokenize(self, text: str, text_pair: str | None = None, pad_to: int | None = None) -> pd.DataFrame:
        """One row per token: position, token, id, segment, sequence, attention_mask, word_index, start, end.

        ``segment`` is the token type id the model receives (0 throughout for a model that uses none, see
        ``segments_note``); ``sequence`` says which text the token comes from (0, 1 for a pair's second text,
        None for special and [PAD] tokens), which ``start`` and ``end`` point into.

        ``word_index``, ``start`` and ``end`` are ints, or None for special and [PAD] tokens.
        ``pad_to=T`` appends [PAD] rows (attention_mask 0) up to T tokens, as the tutorials do.
        ``df.attrs["dropped"]`` is the number of tokens cut to fit ``info.max_length``.
        """
        checks.text(text)
        if text_pair is not None:
            checks.text(text_pair, "The second text")
        tok = self._tokenize_many([text], None if text_pair is None else [text_pair])[0]
        n = len(tok.ids)
        frame = pd.DataFrame({
            "position": range(n),
            "token": tok.tokens,
            "id": tok.ids,
            "segment": tok.segments,
            "sequence": pd.Series(tok.sequences, dtype=object),
            "attention_mask": 1,
            "word_index": pd.Series(tok.word_ids, dtype=object),
            "start": pd.Series([None if s else o[0] for o, s in zip(tok.offsets, tok.special)], dtype=object),
            "end": pd.Series([None if s else o[1] for o, s in zip(tok.offsets, tok.special)], dtype=object),
        })
        if pad_to is not None:
            pad_to = checks.whole_number(pad_to, f"pad_to (at least the text's {n} tokens)", n, self.info.max_length)
            pad = pd.DataFrame({
                "position": range(n, pad_to),
                "token": self.tokenizer.pad_token,
                "id": self.tokenizer.pad_token_id,
                "segment": 0,
                "sequence": pd.Series([None] * (pad_to - n), dtype=object),
                "attention_mask": 0,
                **{column: pd.Series([None] * (pad_to - n), dtype=object) for column in ("word_index", "start", "end")},
            })
            frame = pd.concat([frame, pad], ignore_index=True)
        frame.attrs["dropped"] = tok.dropped
        return frame

    def lengths(self, texts: Sequence[str]) -> np.ndarray:
        """(texts, 2) ints, tokenizing only (no model run): the tokens each text gives the model, its special
        tokens included, after truncation at ``info.max_length``; and the tokens truncation drops."""
        texts = checks.texts(texts)
        return np.array([(len(t.ids), t.dropped) for t in self._tokenize_many(texts)], dtype=np.int64).reshape(-1, 2)

    def vocabulary(self) -> pd.DataFrame:
        """The whole vocabulary: id, token, kind (see ``bertviz_core.vocab``)."""
        with self._lock:
            if self._vocabulary is None:
                self._vocabulary = vocabulary_table(self.tokenizer)
        return self._vocabulary

    # ---- model side -------------------------------------------------------------------
    def eager_model(self) -> PreTrainedModel:
        """The model with eager attention, which returns attention weights (SDPA, the default, returns
        none), built once. It shares every weight tensor with ``self.model``, so it costs no second
        copy of the weights, and ``encode``/``embed`` stay on the fast SDPA path."""
        with self._eager_lock:
            if self._eager is None:
                twin = copy.deepcopy(self.model)
                twin.set_attn_implementation("eager")
                twin.load_state_dict(self.model.state_dict(), assign=True)  # the same tensors, not copies
                self._eager = twin.eval()
        return self._eager

    def _forward(
        self, items: list[ModelInput], progress: Callable[[int, int], None] | None = None,
        attentions: bool = False,
    ) -> Iterator[Batch]:
        """Run padded, length-sorted batches within the device's ``BATCH_LIMITS``: hidden states by
        default; with ``attentions``, the eager model's attention weights instead, in batches of at
        most ``ATTENTION_BATCH_BYTES`` of weights."""
        record(f"model run: {len(items)} texts")
        budget, max_batch = BATCH_LIMITS[self.info.device]
        model = self.eager_model() if attentions else self.model
        per_token_pair = 4 * self.info.num_layers * model.config.num_attention_heads  # bytes of weights
        order = sorted(range(len(items)), key=lambda i: -len(items[i].ids))
        done = 0
        while done < len(order):
            width = len(items[order[done]].ids)
            size = max(1, min(max_batch, budget // width))
            if attentions:
                size = max(1, min(size, ATTENTION_BATCH_BYTES // (per_token_pair * width * width)))
            idx = order[done:done + size]
            ids = torch.full((len(idx), width), self.tokenizer.pad_token_id or 0, dtype=torch.long)
            segments = torch.zeros_like(ids)
            mask = torch.zeros_like(ids)
            special = torch.zeros_like(ids)
            for row, i in enumerate(idx):
                n = len(items[i].ids)
                ids[row, :n] = torch.tensor(items[i].ids)
                segments[row, :n] = torch.tensor(items[i].segments)
                special[row, :n] = torch.tensor(items[i].special, dtype=torch.long)
                mask[row, :n] = 1
            device = self.info.device
            extra = {"token_type_ids": segments.to(device)} if self.uses_segments else {}
            with torch.inference_mode():
                out = model(input_ids=ids.to(device), attention_mask=mask.to(device), **extra,
                            output_hidden_states=not attentions, output_attentions=attentions)
            if attentions:
                weights = torch.stack(out.attentions, dim=1).float()  # (B, L, heads, T, T)
                yield Batch(idx, None, mask.to(device), special.to(device), None, weights)
            else:
                hidden = torch.stack(out.hidden_states, dim=1).float()  # (B, L+1, T, H)
                pooler = out.pooler_output.float() if self.info.has_pooler else None  # (B, H)
                yield Batch(idx, hidden, mask.to(device), special.to(device), pooler)
            done += len(idx)
            if progress is not None:
                progress(done, len(order))

    def encode(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> list[Encoding]:
        """Every hidden state of every token, one ``Encoding`` per text, in input order.

        ``hidden_states`` is float32 (num_layers+1, n_tokens, hidden): index 0 is the embedding
        layer's output, index k the output of transformer layer k. With ``text_pairs``, text i and
        pair i are one input, [CLS] A [SEP] B [SEP] with segments 0 then 1.
        """
        texts = checks.texts(texts)
        result: list[Encoding | None] = [None] * len(texts)
        for i, encoding in self.encode_each(texts, text_pairs):
            result[i] = encoding
        return result  # type: ignore[return-value]

    def encode_each(
        self, texts: Sequence[str], text_pairs: Sequence[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> Iterator[tuple[int, Encoding]]:
        """``encode``'s results as (index into texts, Encoding) pairs, batch by batch as they finish (longest
        texts first), so a caller can keep what it needs of each without holding every text's states."""
        items = self.inputs(texts, text_pairs)
        return self._encode_items(items, list(texts), checks.callback(progress))

    def _encode_items(self, items: list[ModelInput], texts: list[str],
                      progress: Callable[[int, int], None] | None = None) -> Iterator[tuple[int, Encoding]]:
        """``encode_each`` of inputs already tokenized."""
        for batch in self._forward(items, progress):
            hidden, pooler = batch.hidden.cpu().numpy(), batch.pooler
            for row, i in enumerate(batch.indices):
                item, n = items[i], len(items[i].ids)
                yield i, Encoding(
                    text=texts[i], tokens=item.tokens, ids=item.ids, offsets=item.offsets,
                    word_ids=item.word_ids, hidden_states=np.ascontiguousarray(hidden[row, :, :n]),
                    pooler=None if pooler is None else pooler[row].cpu().numpy(), dropped=item.dropped,
                )

    def token_index(self, texts: Sequence[str], progress: Callable[[int, int], None] | None = None) -> TokenIndex:
        """Every ordinary token of ``texts`` at every layer, float16 (see ``neighbours.TokenIndex``), filled
        batch by batch; ``progress(texts done, total)`` after each batch."""
        texts, progress = checks.texts(texts), checks.callback(progress)
        if not texts:
            raise ValueError("The corpus is empty: give at least one text to index.")
        items = self.inputs(texts)  # tokenized once, for the index's rows and the model
        if all(all(item.special) for item in items):
            raise ValueError("The corpus holds no words to index: every text is empty or blank.")
        return build_index(texts, items, self._encode_items(items, texts, progress),
                           self.info.num_layers + 1, self.info.hidden_size)

    def embed(
        self, texts: Sequence[str], strategies: list[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> dict[str, np.ndarray]:
        """Sentence vectors by every pooling strategy at every layer, in one forward pass per batch.

        Returns {strategy: float32 (n_texts, layers, dim)}: ``layers`` is num_layers+1 for per-layer
        strategies and 1 for layer-independent ones; ``POOLINGS[name].at(array, layer)`` reads either. Only pooled vectors are
        kept, never all token states. ``progress(texts done, total)`` is called after each batch.
        """
        texts, progress = checks.texts(texts), checks.callback(progress)
        names = check_strategies(strategies, self.info.has_pooler)
        items = self._tokenize_many(texts) if texts else []
        hidden, layers = self.info.hidden_size, self.info.num_layers + 1
        out = {name: np.zeros((len(texts), layers if POOLINGS[name].per_layer else 1, hidden), dtype=np.float32)
               for name in names}
        for batch in self._forward(items, progress):
            states = BatchStates(batch.hidden, batch.mask, batch.special, batch.pooler)
            for name in names:
                out[name][batch.indices] = POOLINGS[name].fn(states).float().cpu().numpy()
        return out

    def attentions(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> list[np.ndarray]:
        """Attention weights of every head of every layer, one float32 array per text, in input order:
        (num_layers, heads, n_tokens, n_tokens), row q = how query token q spreads its attention over the
        tokens (each row sums to 1). Equal to transformers' eager ``output_attentions``; batching and
        padding change no text's numbers (padding keys get weight 0 and are sliced off)."""
        items = self.inputs(texts, text_pairs)
        result: list[np.ndarray | None] = [None] * len(items)
        for batch in self._forward(items, attentions=True):
            weights = batch.attentions.cpu().numpy()
            for row, i in enumerate(batch.indices):
                n = len(items[i].ids)
                result[i] = np.ascontiguousarray(weights[row, :, :, :n, :n])
        return result  # type: ignore[return-value]

    def inputs(self, texts: Sequence[str], text_pairs: Sequence[str] | None = None) -> list[ModelInput]:
        """What the model is given for each text (tokens, ids, segments, offsets), without running it."""
        texts = checks.texts(texts)
        pairs = None if text_pairs is None else checks.texts(text_pairs, "text_pairs")
        if pairs is not None and len(pairs) != len(texts):
            raise ValueError(f"text_pairs has {len(pairs)} items for {len(texts)} texts; give one pair per text.")
        return self._tokenize_many(texts, pairs) if texts else []

    @property
    def mask_token(self) -> str:
        """The token the model was trained to fill in, e.g. "[MASK]"."""
        return self.tokenizer.mask_token

    def masks(self, text: str) -> Masks:
        """Where ``text``'s masks are (no model run); ``ValueError`` saying what to change when there is none
        the model can see, or too many."""
        checks.text(text)
        return find_masks(self.inputs([text])[0], text, self.mask_token, self.info.max_length)

    def mlm_head(self) -> torch.nn.Module:
        """The masked-language-model head, hidden states (..., hidden) -> logits (..., vocab); ``ValueError``
        explaining why when the checkpoint has none. The encoder itself, and so every other number, is
        untouched by it."""
        if self._head is None:
            raise ValueError(NO_HEAD_REASON.format(name=self.info.name))
        return self._head

    def _token_names(self, count: int) -> list[str]:
        """Vocabulary entries by id for ``count`` ids (a model's output may be wider than its tokenizer)."""
        with self._lock:
            if self._vocab_tokens is None or len(self._vocab_tokens) != count:
                known = self.tokenizer.convert_ids_to_tokens(list(range(min(count, len(self.tokenizer)))))
                self._vocab_tokens = known + [f"[id {i}]" for i in range(len(known), count)]
        return self._vocab_tokens

    def logit_lens(self, text: str, top_k: int = 10, hidden_ids: Sequence[int | None] = ()) -> list[MaskLens]:
        """For each mask of ``text``, in order: the MLM head (transform with its LayerNorm, then decoder)
        applied to the mask's hidden state after every layer, 0 = the embeddings; the last layer is what
        ``fill_mask`` returns. ``hidden_ids[i]``, when given, is the token mask i hid, followed by rank."""
        top_k = checks.whole_number(top_k, "top_k", 1, MAX_TOP_K)
        positions = self.masks(text).positions
        head = self.mlm_head()
        hidden = check_hidden_ids(hidden_ids, len(positions), len(self.tokenizer))
        states = self.encode([text])[0].hidden_states[:, positions]  # (layers+1, masks, hidden)
        logits = apply_head(head, torch.from_numpy(states).to(self.info.device)).transpose(0, 1)  # (masks, L+1, V)
        names = self._token_names(logits.shape[-1])
        return [lens(logits[i], position, top_k, hidden[i], names) for i, position in enumerate(positions)]

    def fill_mask(self, text: str, top_k: int = 10) -> list[pd.DataFrame]:
        """For each mask of ``text``, in order, the ``top_k`` guesses of the MLM head, best first: token, id,
        probability (softmax over the vocabulary), as transformers' ``pipeline("fill-mask")`` gives them."""
        return [mask.predictions(top_k) for mask in self.logit_lens(text, top_k)]

    def word_vectors(self, texts: Sequence[str], word: str, subword: str = "mean") -> list[Occurrence]:
        """Every whole-word, case-insensitive occurrence of ``word`` in ``texts``, in order.

        Each ``Occurrence`` has ``.vectors`` float32 (num_layers+1, hidden): the word's pieces
        merged by ``subword`` (one of ``SUBWORD_RULES``: mean, sum, first, last).
        """
        texts, word = checks.texts(texts), check_word(word)
        checks.choice(subword, "subword rule", SUBWORD_RULES)
        return occurrences(self.encode(texts), word, subword)


def load_encoder(model: str | None = None, device: str = "auto") -> Encoder:
    """Load an Encoder: ``None`` is the bundled all-MiniLM-L6-v2; else a local directory or a hub id.

    Raises ``ValueError`` with what was tried and how to get the model when loading fails.
    """
    source = resolve_source(model)
    resolved = resolve_device(device)
    tokenizer, net, has_pooler, head = load_pretrained(source, resolved)
    config = net.config
    info = ModelInfo(
        name=source.name,
        source=source.location,
        kind=source.kind,
        model_type=config.model_type,
        num_layers=config.num_hidden_layers,
        hidden_size=config.hidden_size,
        vocab_size=len(tokenizer),
        max_length=max_length(tokenizer.model_max_length, config.to_dict()),
        device=resolved,
        has_pooler=has_pooler,
        has_mlm_head=head is not None,
        requested=source.requested,
    )
    return Encoder(tokenizer, net, info, head)
