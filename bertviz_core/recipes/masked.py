"""The Masked words recipes: the guesses and the logit lens, which head weights a checkpoint lacks, and the
nearest input embeddings a model without the head is shown instead.

Each architecture names its masked-language-model head differently and applies it in its own way, so the
lens line is written for the loaded model's type (``HEADS``): the very code its *ForMaskedLM ``forward``
applies to the last hidden state.
"""
from __future__ import annotations

from bertviz_core.model.models import ModelInfo
from bertviz_core.recipes.common import load_lines

_LM_HEAD = "logits = model.lm_head(states)"
_DEBERTA = ("logits = model.cls(states) if model.config.legacy else "  # the legacy BERT-style head, or the newer one
            "model.lm_predictions(states, model.deberta.embeddings.word_embeddings)")
_DEBERTA_SAYS = "DeBERTa's head: the legacy BERT-style one, or the newer one that reuses the word embeddings"
# model type -> (code setting ``logits`` (layers+1, masks, vocab) from ``states`` (layers+1, masks, hidden), as
# its *ForMaskedLM applies the head to the last hidden state; a comment saying what the head is)
HEADS: dict[str, tuple[str, str]] = {
    "bert": ("logits = model.cls(states)", "BERT's head: dense, GELU, LayerNorm, then the decoder to the vocabulary"),
    "distilbert": ("logits = model.vocab_projector(model.vocab_layer_norm(model.activation(model.vocab_transform("
                   "states))))", "DistilBERT's head: dense, GELU, LayerNorm, then the projection to the vocabulary"),
    "electra": ("logits = model.generator_lm_head(model.generator_predictions(states))",
                "ELECTRA's generator head: dense, activation, LayerNorm, then the decoder to the vocabulary"),
    "albert": ("logits = model.predictions(states)", "ALBERT's head: dense, activation, LayerNorm, then the decoder"),
    "roberta": (_LM_HEAD, "RoBERTa's head: dense, GELU, LayerNorm, then the decoder to the vocabulary"),
    "xlm-roberta": (_LM_HEAD, "XLM-R's head: dense, GELU, LayerNorm, then the decoder to the vocabulary"),
    "camembert": (_LM_HEAD, "CamemBERT's head: dense, GELU, LayerNorm, then the decoder to the vocabulary"),
    "deberta": (_DEBERTA, _DEBERTA_SAYS),
    "deberta-v2": (_DEBERTA, _DEBERTA_SAYS),
    "modernbert": ("states = torch.cat([model.model.final_norm(states[:-1]), states[-1:]])\n"
                   "    logits = model.decoder(model.head(states))",
                   "ModernBERT norms its last layer's output (final_norm) before the head, and hidden_states[-1] has\n"
                   "# been through it: the earlier layers are normed the same way first. Then its head (dense, GELU,\n"
                   "# LayerNorm) and the decoder to the vocabulary"),
}
# Other architectures: most name their head cls (BERT's kind) or lm_head (RoBERTa's kind).
OTHER_HEAD = ("logits = (model.cls if hasattr(model, 'cls') else model.lm_head)(states)",
              "the head as most BERT-family models name it; check your model class's forward")


def masked_words(info: ModelInfo, text: str, mask: int, layer: int, k: int, hidden_id: int | None = None) -> str:
    """The guesses for each mask (fill-mask), then the logit lens for mask number ``mask`` (0-based): its
    top ``k`` at ``layer`` and the final answer's rank and probability after every layer; with ``hidden_id``
    (the token the mask hid), that token's too."""
    head, what = HEADS.get(info.model_type, OTHER_HEAD)
    return (
        load_lines(info, masked_lm=True)
        + f"\ninputs = tokenizer({text!r}, return_tensors='pt', truncation=True)\n"
        "with torch.no_grad():\n"
        "    outputs = model(**inputs, output_hidden_states=True)\n"
        "masks = (inputs['input_ids'][0] == tokenizer.mask_token_id).nonzero()[:, 0]   # the masks' positions\n"
        "probs = outputs.logits[0, masks].softmax(-1)        # (masks, vocab): pipeline('fill-mask') gives these\n"
        f"guesses = probs.topk({k})\n"
        "for m in range(len(masks)):\n"
        "    print(tokenizer.convert_ids_to_tokens(guesses.indices[m]), guesses.values[m].numpy().round(4))\n\n"
        "# The logit lens: the model's own head on the hidden state after every layer, 0 = the embeddings.\n"
        "states = torch.stack(outputs.hidden_states)[:, 0, masks]   # (layers+1, masks, hidden)\n"
        f"# {what}\n"
        "with torch.no_grad():\n"
        f"    {head}\n"
        "# logits: (layers+1, masks, vocab)\n"
        f"lens = logits[:, {mask}].softmax(-1)                    # mask {mask + 1}, every layer\n"
        f"layer_guesses = lens[{layer}].topk({k})                  # layer {layer}\n"
        f"answer = probs[{mask}].argmax()                           # the last layer's top guess\n"
        f"rank = (logits[:, {mask}] > logits[:, {mask}, answer, None]).sum(-1) + 1   # by layer, 1 = top\n"
        "answer_probability = lens[:, answer]\n"
        + ("" if hidden_id is None else
           f"hidden_rank = (logits[:, {mask}] > logits[:, {mask}, {hidden_id}, None]).sum(-1) + 1   # the hidden word\n"
           f"hidden_probability = lens[:, {hidden_id}]\n")
    )


# Asks the loader which head weights a checkpoint lacks, after the load lines set ``name``.
_MISSING = (
    "with_head, loading = AutoModelForMaskedLM.from_pretrained(name, output_loading_info=True)\n"
    "# The head's weights the checkpoint does not hold (all but the encoder's, which are named after\n"
    "# base_model_prefix): the loader filled them with random numbers.\n"
    "missing = [key for key in loading['missing_keys'] if not key.startswith(with_head.base_model_prefix + '.')]\n"
    "print(missing)\n")


def missing_head(info: ModelInfo) -> str:
    """Ask the loader which masked-language-model weights the checkpoint lacks: every missing weight outside
    the encoder (whose weights are named after ``model.base_model_prefix``)."""
    return load_lines(info, masked_lm=True).replace("model = AutoModelForMaskedLM.from_pretrained(name).eval()\n",
                                                    _MISSING)


def nearest_embeddings(info: ModelInfo, text: str, mask: int, k: int) -> str:
    """The view for a model without the head: for mask number ``mask`` (0-based) of ``text``, the ``k`` input
    word embeddings nearest (cosine) to its hidden state after every layer, ``nearest`` (layers+1, k); then
    which head weights the checkpoint lacks, ``missing``."""
    return (
        load_lines(info)
        + f"\ninputs = tokenizer({text!r}, return_tensors='pt', truncation=True)\n"
        "with torch.no_grad():\n"
        "    outputs = model(**inputs, output_hidden_states=True)\n"
        "masks = (inputs['input_ids'][0] == tokenizer.mask_token_id).nonzero()[:, 0]   # the masks' positions\n"
        f"states = torch.stack(outputs.hidden_states)[:, 0, masks[{mask}]]   # mask {mask + 1}: (layers+1, hidden), "
        "0 = the embeddings\n"
        "table = model.get_input_embeddings().weight             # (vocab, hidden): the input word embeddings\n"
        "with torch.no_grad():\n"
        "    unit = torch.nn.functional.normalize\n"
        "    cosines = unit(states, dim=-1) @ unit(table, dim=-1).T   # (layers+1, vocab)\n"
        f"nearest = cosines.topk({k})   # after each layer: the nearest input embeddings, not the head's guesses\n"
        "for layer in range(len(cosines)):\n"
        "    print(layer, tokenizer.convert_ids_to_tokens(nearest.indices[layer]), "
        "nearest.values[layer].numpy().round(3))\n\n"
        "# Why there are no guesses: this checkpoint lacks the masked-language-model head.\n"
        "from transformers import AutoModelForMaskedLM\n\n"
        + _MISSING
    )
