"""A checkpoint's masked-language-model head applied to given hidden states, as its *ForMaskedLM class computes it.

``models.mlm_head`` decides whether a checkpoint's head is whole and builds ``MaskedLMHead`` from it; the masked-words
view and the logit lens call it on a layer's hidden states (..., tokens, hidden) for logits (..., tokens, vocab).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

if TYPE_CHECKING:
    from transformers import PreTrainedModel


class _StatesIn(torch.nn.Module):
    """Stands in for the encoder inside a *ForMaskedLM model: hands the hidden states it is given (as
    ``inputs_embeds``) on as the encoder's output. Other attributes are the real encoder's (DeBERTa's head
    reads its word embeddings)."""

    def __init__(self, base: PreTrainedModel) -> None:
        super().__init__()
        self.base = base

    def forward(self, *args: Any, inputs_embeds: torch.Tensor | None = None, **kwargs: Any) -> Any:
        from transformers.modeling_outputs import BaseModelOutput

        return BaseModelOutput(last_hidden_state=inputs_embeds)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["base"], name)


class MaskedLMHead(torch.nn.Module):
    """A *ForMaskedLM model whose encoder is replaced by ``_StatesIn``: calling it on hidden states
    (..., tokens, hidden) gives the head's logits (..., tokens, vocab), exactly what the model computes
    from its last hidden state. The decoder is tied back to the encoder's word embeddings where the model
    ties them, so the head costs only its own weights.

    ``final_norm`` is the norm the encoder applies after its last layer only (ModernBERT's), or None: the
    last hidden state has been through it, earlier layers' states have not, so the logit lens applies it
    to those before the head, as the model would if it stopped there."""

    def __init__(self, model: PreTrainedModel, base: PreTrainedModel) -> None:
        super().__init__()
        output = model.get_output_embeddings()
        if output is not None and output.weight is model.get_input_embeddings().weight:  # tied: share ours
            output.weight = base.get_input_embeddings().weight
        setattr(model, model.base_model_prefix, _StatesIn(base))
        self.model = model.eval().to(base.device)
        self.final_norm: torch.nn.Module | None = getattr(base, "final_norm", None)

    def forward(self, hidden: torch.Tensor) -> torch.Tensor:
        return self.model(inputs_embeds=hidden.to(self.model.dtype)).logits
