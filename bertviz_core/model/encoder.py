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
from bertviz_core.model.encoding import Encoding, ModelInput
from bertviz_core.model.identity import model_identity
from bertviz_core.measures.masked import NO_HEAD_REASON, fill_mask
from bertviz_core.model.model_files import max_length
from bertviz_core.model.models import ModelInfo, load_pretrained, resolve_device, resolve_source, segments_note
from bertviz_core.measures.pooling import POOLINGS, BatchStates, check_strategies
from bertviz_core.model.tokenizing import SharedTokenizer, batches, padded
from bertviz_core.words.tokens import token_frame
from bertviz_core.words.word_vectors import SUBWORD_RULES, Occurrence, check_word, occurrences

if TYPE_CHECKING:  # transformers itself is imported by models.load_pretrained, under a lock
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

# (padded tokens, texts) per forward pass, by device. Small batches ran fastest on the 2-core CPU
# (bench/embed_throughput.py); a GPU needs larger ones to stay busy. The GPU figures are a moderate
# guess, not yet measured: no GPU was lent to this project so far.
BATCH_LIMITS: dict[str, tuple[int, int]] = {"cpu": (2048, 32), "cuda": (16384, 256), "mps": (8192, 128)}


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
        self.tokenizer, self.model, self.info = tokenizer, model, info
        self._head = head  # the masked-language-model head (mlm_head.MaskedLMHead), None when there is none
        # Why the model sees segment 0 throughout (None when it uses segments): token type ids are passed
        # to the model, and shown, only where the model has them and its tokenizer gives them.
        self.segments_note = segments_note(tokenizer, model.config)
        self.uses_segments = self.segments_note is None
        self._tokenizing = SharedTokenizer(tokenizer, info.max_length, self.uses_segments)
        self._eager_lock = threading.Lock()
        self._eager: PreTrainedModel | None = None

    # ---- input side -------------------------------------------------------------------
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
        item = self._tokenizing.inputs([text], None if text_pair is None else [text_pair])[0]
        if pad_to is not None:
            pad_to = checks.whole_number(pad_to, f"pad_to (at least the text's {len(item.ids)} tokens)", len(item.ids),
                                         self.info.max_length)
        return token_frame(item, pad_to, self.tokenizer.pad_token, self.tokenizer.pad_token_id)

    def lengths(self, texts: Sequence[str]) -> np.ndarray:
        """(texts, 2) ints, tokenizing only (no model run): the tokens each text gives the model, its special
        tokens included, after truncation at ``info.max_length``; and the tokens truncation drops."""
        return self._tokenizing.lengths(checks.texts(texts))

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
        model = self.eager_model() if attentions else self.model
        pair_bytes = 4 * self.info.num_layers * model.config.num_attention_heads if attentions else None
        done = 0
        for idx in batches(items, *BATCH_LIMITS[self.info.device], pair_bytes):
            width = len(items[idx[0]].ids)
            ids, segments, mask, special = padded([items[i] for i in idx], width, self.tokenizer.pad_token_id or 0)
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
                progress(done, len(items))

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
        return self.encode_inputs(items, list(texts), checks.callback(progress))

    def encode_inputs(self, items: list[ModelInput], texts: list[str],
                      progress: Callable[[int, int], None] | None = None) -> Iterator[tuple[int, Encoding]]:
        """``encode_each`` of inputs already tokenized (``inputs``), so a caller that needs the tokens too
        (``token_index.token_index``) tokenizes once."""
        items, texts = checks.items(items, "items", "ModelInputs, as Encoder.inputs gives them"), checks.texts(texts)
        if len(items) != len(texts) or not all(isinstance(item, ModelInput) for item in items):
            raise ValueError(f"items must be Encoder.inputs(texts), one ModelInput per text; there are {len(items)} "
                             f"items for {len(texts)} texts.")
        for batch in self._forward(items, progress):
            hidden, pooler = batch.hidden.cpu().numpy(), batch.pooler
            for row, i in enumerate(batch.indices):
                item, n = items[i], len(items[i].ids)
                yield i, Encoding(
                    text=texts[i], tokens=item.tokens, ids=item.ids, offsets=item.offsets,
                    word_ids=item.word_ids, hidden_states=np.ascontiguousarray(hidden[row, :, :n]),
                    pooler=None if pooler is None else pooler[row].cpu().numpy(), dropped=item.dropped,
                )

    def embed(
        self, texts: Sequence[str], strategies: list[str] | None = None,
        progress: Callable[[int, int], None] | None = None, each_batch: Callable[[Batch], None] | None = None,
    ) -> dict[str, np.ndarray]:
        """Sentence vectors by every pooling strategy at every layer, in one forward pass per batch.

        Returns {strategy: float32 (n_texts, layers, dim)}: ``layers`` is num_layers+1 for per-layer
        strategies and 1 for layer-independent ones; ``POOLINGS[name].at(array, layer)`` reads either. Only pooled
        vectors are kept, never all token states: ``each_batch(batch)`` sees each batch's states first, for a caller
        that keeps some (a precompute's token layers). ``progress(texts done, total)`` is called after each batch.
        """
        texts, progress, each_batch = checks.texts(texts), checks.callback(progress), checks.callback(each_batch, "each_batch")
        names = check_strategies(strategies, self.info.has_pooler)
        items = self._tokenizing.inputs(texts) if texts else []
        hidden, layers = self.info.hidden_size, self.info.num_layers + 1
        out = {name: np.zeros((len(texts), layers if POOLINGS[name].per_layer else 1, hidden), dtype=np.float32)
               for name in names}
        for batch in self._forward(items, progress):
            if each_batch is not None:
                each_batch(batch)
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
        return self._tokenizing.inputs(texts, pairs) if texts else []

    @property
    def mask_token(self) -> str:
        """The token the model was trained to fill in, e.g. "[MASK]"."""
        return self.tokenizer.mask_token

    def mlm_head(self) -> torch.nn.Module:
        """The masked-language-model head, hidden states (..., hidden) -> logits (..., vocab); ``ValueError``
        explaining why when the checkpoint has none. The encoder itself, and so every other number, is
        untouched by it."""
        if self._head is None:
            raise ValueError(NO_HEAD_REASON.format(name=self.info.name))
        return self._head

    def fill_mask(self, text: str, top_k: int = 10) -> list[pd.DataFrame]:
        """For each mask of ``text``, in order, the ``top_k`` guesses of the MLM head, best first: token, id,
        probability (softmax over the vocabulary), as transformers' ``pipeline("fill-mask")`` gives them."""
        return fill_mask(self, text, top_k)

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
        identity=model_identity(source.location, getattr(config, "_commit_hash", None), library_versions()),
    )
    return Encoder(tokenizer, net, info, head)


def library_versions() -> dict[str, str]:
    """The versions of the libraries a model's numbers depend on."""
    import tokenizers
    import transformers

    return {"torch": torch.__version__, "transformers": transformers.__version__, "tokenizers": tokenizers.__version__}
