"""The bundled model's untrained twin: the same configuration and tokenizer with randomly initialised weights,
so that comparing the two shows what pre-training built, offline.

The twin is made once, with a fixed torch seed, and saved as an ordinary model folder (config, tokenizer,
safetensors), so it loads, caches and is keyed (``identity.model_identity``) like any local model.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path

import torch

import bertviz_core.checks as checks

TWIN_SEED = 0
_LOCK = threading.Lock()


def cache_folder() -> Path:
    """Where made models are kept: ``$BERTVIZ_CACHE``, else ~/.cache/bertviz."""
    return Path(os.environ.get("BERTVIZ_CACHE") or Path.home() / ".cache" / "bertviz").expanduser()


def untrained_twin(trained: Path, seed: int = TWIN_SEED, cache: Path | None = None) -> Path:
    """The folder of ``trained``'s untrained twin: its config and tokenizer with weights drawn by transformers'
    own initialisation under ``torch.manual_seed(seed)`` (the caller's random state is left as it was). Made on the
    first call and reused after; two processes making it at once each write a folder of their own, and one wins."""
    seed = checks.whole_number(seed, "seed", 0)
    cache = cache_folder() if cache is None else Path(cache)
    target = cache / f"{Path(trained).name}-untrained-seed{seed}"
    if (target / "model.safetensors").is_file():
        return target
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    with _LOCK:
        if (target / "model.safetensors").is_file():
            return target
        cache.mkdir(parents=True, exist_ok=True)
        try:
            config = AutoConfig.from_pretrained(trained, local_files_only=True)
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                model = AutoModel.from_config(config)
        except (OSError, ValueError, KeyError) as err:
            raise ValueError(f"The untrained twin of '{Path(trained).name}' cannot be made: its configuration does not "
                             f"load ({str(err).splitlines()[0][:200]}).") from err
        work = Path(tempfile.mkdtemp(prefix=".twin-", dir=cache))
        model.save_pretrained(work)
        AutoTokenizer.from_pretrained(trained, local_files_only=True).save_pretrained(work)
        try:
            work.rename(target)
        except OSError:  # another process made it first
            shutil.rmtree(work, ignore_errors=True)
    return target
