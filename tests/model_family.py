"""The model-family fixture: tiny random encoders of every BERT-family architecture the explorer admits,
each saved to a folder with a tokenizer trained here by the ``tokenizers`` library, so every core call and
every page can be checked on WordPiece, byte-level BPE and SentencePiece-style (Metaspace) models alike.

``FAMILY`` is the registry: a new architecture is one ``Member``. ``build_family(folder)`` saves every member's
base model and, where the architecture has one, its masked-language-model twin (``<name>-mlm``), plus the
odd cases the issue tracker found: a one-layer BERT, a ``.bin`` checkpoint and a RoBERTa tokenizer that names
no ``model_max_length``.
"""
from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import torch
import transformers
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

# Written for the project: the words the tests look for ("bank", "spring"), accents, digits and punctuation.
SENTENCES: tuple[str, ...] = (
    "The bank by the river was muddy after the rain.",
    "She deposited her paycheck at the bank on Monday.",
    "We sat on the river bank and watched the boats.",
    "The bank raised its interest rates again.",
    "Spring water flows in spring; the spring in the mattress broke.",
    "A café in Zürich serves crème brûlée to naïve tourists.",
    "Don't split well-known words, e.g. state-of-the-art models!",
    "In 2024 the model read 1,000,000 sentences (roughly).",
    "The robber stole money from the bank vault.",
    "Fishing from the bank of the Thames is a quiet hobby.",
    "He went to the store to buy a gallon of milk.",
    "Attention heads look at the previous and the next token.",
    "Embeddings map words to vectors of numbers.",
    "The teacher showed the class how BERT reads a sentence.",
    "Rivers carry sand to the sea; banks erode slowly.",
    "Money, loans and savings: the bank's business.",
)
SPECIALS = ("[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]")
BPE_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
VOCAB = 400
MAX_POSITIONS = 128
SIZES = dict(hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64)


def _train(model: models.Model, trainer, normalizer=None, pre_tokenizer=None) -> Tokenizer:
    tokenizer = Tokenizer(model)
    if normalizer is not None:
        tokenizer.normalizer = normalizer
    tokenizer.pre_tokenizer = pre_tokenizer
    tokenizer.train_from_iterator(list(SENTENCES) * 4, trainer)
    return tokenizer


@cache  # trained once: a trainer may give a token more or fewer on another run
def wordpiece_vocab() -> dict[str, int]:
    """A lower-casing WordPiece vocabulary, as BERT's."""
    tokenizer = _train(models.WordPiece(unk_token="[UNK]"),
                       trainers.WordPieceTrainer(vocab_size=VOCAB, special_tokens=list(SPECIALS)),
                       normalizers.BertNormalizer(lowercase=True), pre_tokenizers.BertPreTokenizer())
    return tokenizer.get_vocab()


@cache
def bpe_vocab(specials: tuple[str, ...]) -> tuple[dict[str, int], list[tuple[str, str]]]:
    """A byte-level BPE vocabulary and merges, as RoBERTa's and ModernBERT's."""
    tokenizer = _train(models.BPE(), trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=list(specials),
                                                         initial_alphabet=pre_tokenizers.ByteLevel.alphabet()),
                       pre_tokenizer=pre_tokenizers.ByteLevel(add_prefix_space=False))
    state = json.loads(tokenizer.to_str())["model"]
    return state["vocab"], [tuple(m.split(" ")) if isinstance(m, str) else tuple(m) for m in state["merges"]]


@cache
def unigram_vocab(specials: tuple[str, ...], unk: str) -> list[tuple[str, float]]:
    """A SentencePiece-style unigram vocabulary with "▁" word starts, as XLM-R's, ALBERT's and DeBERTa-v3's."""
    tokenizer = _train(models.Unigram(), trainers.UnigramTrainer(vocab_size=VOCAB, special_tokens=list(specials),
                                                                 unk_token=unk),
                       normalizers.Replace(Regex(" {2,}"), " "), pre_tokenizers.Metaspace())
    return [tuple(piece) for piece in json.loads(tokenizer.to_str())["model"]["vocab"]]


def modernbert_tokenizer() -> transformers.PreTrainedTokenizerFast:
    """ModernBERT's kind: byte-level BPE with BERT's special tokens and a template post-processor, which keeps
    the space before a word inside the word's offsets."""
    vocab, merges = bpe_vocab(SPECIALS)
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B [SEP]",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer, cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", unk_token="[UNK]",
        mask_token="[MASK]", model_max_length=MAX_POSITIONS, model_input_names=["input_ids", "attention_mask"])


def bert_tokenizer() -> transformers.PreTrainedTokenizerBase:
    return transformers.BertTokenizer(vocab=wordpiece_vocab(), model_max_length=MAX_POSITIONS)


def distilbert_tokenizer() -> transformers.PreTrainedTokenizerBase:
    return transformers.DistilBertTokenizer(vocab=wordpiece_vocab(), model_max_length=MAX_POSITIONS)


def roberta_tokenizer(max_length: int | None = MAX_POSITIONS) -> transformers.PreTrainedTokenizerBase:
    vocab, merges = bpe_vocab(BPE_SPECIALS)
    extra = {} if max_length is None else {"model_max_length": max_length}
    return transformers.RobertaTokenizer(vocab=vocab, merges=merges, **extra)


def sentencepiece_tokenizer(cls: type, specials: tuple[str, ...], unk: str) -> Callable[[], object]:
    return lambda: cls(vocab=unigram_vocab(specials, unk), model_max_length=MAX_POSITIONS)


@dataclass(frozen=True)
class Member:
    """One architecture: its config, base class, masked-LM class (None: the family has none) and tokenizer."""

    name: str
    config: Callable[[int], transformers.PretrainedConfig]  # vocabulary size -> config
    base: type
    mlm: type | None
    tokenizer: Callable[[], transformers.PreTrainedTokenizerBase]
    segments: bool  # whether a pair's second text reaches the model as segment 1


def _config(cls: type, **extra) -> Callable[[int], transformers.PretrainedConfig]:
    return lambda vocab: cls(vocab_size=vocab, max_position_embeddings=MAX_POSITIONS, **{**SIZES, **extra})


ROBERTA_EXTRA = dict(max_position_embeddings=MAX_POSITIONS + 2, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                     type_vocab_size=1)
XLMR_SPECIALS = ("<s>", "<pad>", "</s>", "<unk>", "<mask>")
ALBERT_SPECIALS = ("<pad>", "<unk>", "[CLS]", "[SEP]", "[MASK]")
DEBERTA_SPECIALS = ("[PAD]", "[CLS]", "[SEP]", "[UNK]", "[MASK]")

FAMILY: tuple[Member, ...] = (
    Member("bert", _config(transformers.BertConfig), transformers.BertModel, transformers.BertForMaskedLM,
           bert_tokenizer, True),
    Member("distilbert", lambda vocab: transformers.DistilBertConfig(
        vocab_size=vocab, dim=32, n_layers=2, n_heads=4, hidden_dim=64, max_position_embeddings=MAX_POSITIONS),
        transformers.DistilBertModel, transformers.DistilBertForMaskedLM, distilbert_tokenizer, False),
    Member("electra", _config(transformers.ElectraConfig, embedding_size=16), transformers.ElectraModel,
           transformers.ElectraForMaskedLM, bert_tokenizer, True),
    Member("roberta", lambda vocab: transformers.RobertaConfig(vocab_size=vocab, **{**SIZES, **ROBERTA_EXTRA}),
           transformers.RobertaModel, transformers.RobertaForMaskedLM, roberta_tokenizer, False),
    Member("xlm-roberta", lambda vocab: transformers.XLMRobertaConfig(vocab_size=vocab, **{**SIZES, **ROBERTA_EXTRA}),
           transformers.XLMRobertaModel, transformers.XLMRobertaForMaskedLM,
           sentencepiece_tokenizer(transformers.XLMRobertaTokenizer, XLMR_SPECIALS, "<unk>"), False),
    Member("albert", _config(transformers.AlbertConfig, embedding_size=16), transformers.AlbertModel,
           transformers.AlbertForMaskedLM,
           sentencepiece_tokenizer(transformers.AlbertTokenizer, ALBERT_SPECIALS, "<unk>"), False),
    Member("deberta-v3", _config(transformers.DebertaV2Config, type_vocab_size=0, relative_attention=True,
                                 position_biased_input=False, pos_att_type=["p2c", "c2p"], max_relative_positions=-1,
                                 position_buckets=16, norm_rel_ebd="layer_norm", share_att_key=True),
           transformers.DebertaV2Model, transformers.DebertaV2ForMaskedLM,
           sentencepiece_tokenizer(transformers.DebertaV2Tokenizer, DEBERTA_SPECIALS, "[UNK]"), False),
    Member("modernbert", lambda vocab: transformers.ModernBertConfig(
        vocab_size=vocab, hidden_size=32, num_hidden_layers=2, num_attention_heads=4, intermediate_size=64,
        max_position_embeddings=MAX_POSITIONS, global_attn_every_n_layers=2, local_attention=16,
        pad_token_id=0, cls_token_id=2, sep_token_id=3, bos_token_id=2, eos_token_id=3),
        transformers.ModernBertModel, transformers.ModernBertForMaskedLM, modernbert_tokenizer, False),
)
EXTRAS = ("bert-1-layer", "bert-bin", "roberta-no-max-length")


def _save(folder: Path, model: torch.nn.Module, tokenizer, safe: bool = True) -> Path:
    """``save_pretrained`` of both; ``safe=False`` keeps the weights as a pickled ``pytorch_model.bin`` instead,
    as older checkpoints on the hub are (transformers 5 writes safetensors only)."""
    folder.mkdir(parents=True, exist_ok=True)
    model = _unit_norms_off(model)
    if safe:
        model.save_pretrained(folder)
    else:
        model.config.architectures = [type(model).__name__]
        model.config.save_pretrained(folder)
        torch.save(model.state_dict(), folder / "pytorch_model.bin")
    tokenizer.save_pretrained(folder)
    return folder


def _unit_norms_off(model: torch.nn.Module) -> torch.nn.Module:
    """Random scales and shifts for every LayerNorm: freshly made ones are the identity map after
    normalising, which would hide a norm applied twice (or left out)."""
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.LayerNorm) and module.weight is not None:
                module.weight.uniform_(0.5, 1.5)
                if module.bias is not None:
                    module.bias.normal_(0.0, 0.2)
    return model


def build_family(folder: Path) -> dict[str, Path]:
    """Save every member (and its ``-mlm`` twin) and the ``EXTRAS`` under ``folder``: {name: model folder}."""
    torch.manual_seed(0)
    saved: dict[str, Path] = {}
    for member in FAMILY:
        tokenizer = member.tokenizer()
        config = member.config(len(tokenizer))
        saved[member.name] = _save(folder / member.name, member.base(config), tokenizer)
        if member.mlm is not None:
            saved[f"{member.name}-mlm"] = _save(folder / f"{member.name}-mlm", member.mlm(config), tokenizer)
    bert, tokenizer = FAMILY[0], bert_tokenizer()
    one_layer = bert.config(len(tokenizer))
    one_layer.num_hidden_layers = 1
    saved["bert-1-layer"] = _save(folder / "bert-1-layer", bert.base(one_layer), tokenizer)
    saved["bert-bin"] = _save(folder / "bert-bin", bert.base(bert.config(len(tokenizer))), tokenizer, safe=False)
    roberta = FAMILY[3]
    no_max = roberta_tokenizer(max_length=None)
    saved["roberta-no-max-length"] = _save(folder / "roberta-no-max-length", roberta.base(roberta.config(len(no_max))),
                                           no_max)
    return saved
