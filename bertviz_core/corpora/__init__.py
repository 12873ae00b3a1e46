"""Built-in example texts, written for this project, with loaders."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

HERE = Path(__file__).parent
TUTORIAL = "After stealing money from the bank vault, the bank robber was seen fishing on the Mississippi river bank."


@dataclass(frozen=True)
class WordPreset:
    """Sentences that use ``word`` in several senses; ``senses[i]`` labels the occurrences in ``texts[i]``."""

    word: str
    texts: tuple[str, ...]
    senses: tuple[tuple[str, ...], ...]

    def sense_of(self, text: str, nth: int) -> str | None:
        """The sense label of the nth occurrence in ``text``, when the text is one of this preset's."""
        for known, labels in zip(self.texts, self.senses):
            if known == text and nth < len(labels):
                return labels[nth]
        return None


@cache
def word_presets() -> dict[str, WordPreset]:
    """Polysemous words ("bank", "bat", ...) with labelled example sentences."""
    raw = json.loads((HERE / "polysemy.json").read_text(encoding="utf-8"))
    return {word: WordPreset(word, tuple(t for t, _ in rows), tuple(tuple(s) for _, s in rows))
            for word, rows in raw.items()}
