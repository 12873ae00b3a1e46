"""A model's identity keys every stored result: the content of its files (or its hub revision) and the library
versions, never its label or path."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bertviz_core import load_encoder
from bertviz_core.model.encoder import Encoder, library_versions
from bertviz_core.model.identity import model_identity

VERSIONS = {"torch": "1", "transformers": "2"}


def test_a_folder_is_known_by_its_content_not_its_path(tiny_dir: Path, tmp_path: Path) -> None:
    copy = shutil.copytree(tiny_dir, tmp_path / "elsewhere")
    first = model_identity(str(tiny_dir), None, VERSIONS)
    assert len(first) == 24 and model_identity(str(copy), None, VERSIONS) == first
    (copy / "config.json").write_text((copy / "config.json").read_text().replace("{", "{ ", 1))
    assert model_identity(str(copy), None, VERSIONS) != first  # one changed file: another model
    assert model_identity(str(tiny_dir), None, {**VERSIONS, "torch": "3"}) != first  # another library: other numbers


def test_a_hub_model_is_known_by_its_revision() -> None:
    one = model_identity("bert-base-uncased", "86b5e0934494bd15c9632b12f734a8a67f723594", VERSIONS)
    assert one != model_identity("bert-base-uncased", "0000000000000000000000000000000000000000", VERSIONS)
    assert one == model_identity("bert-base-uncased", "86b5e0934494bd15c9632b12f734a8a67f723594", VERSIONS)
    with pytest.raises(ValueError, match="versions"):
        model_identity("bert-base-uncased", None, None)


def test_every_family_model_has_its_own_identity(family_encoders: dict[str, Encoder]) -> None:
    identities = {name: encoder.info.identity for name, encoder in family_encoders.items()}
    assert len(set(identities.values())) == len(identities)
    name, encoder = next(iter(family_encoders.items()))
    assert encoder.info.identity == model_identity(encoder.info.source, None, library_versions())


def test_the_bundled_model_by_its_label_and_by_its_folder_shares_stored_results(bundled: Encoder) -> None:
    import ui

    by_folder = load_encoder(bundled.info.source, device="cpu")
    assert by_folder.info.identity == bundled.info.identity and by_folder.info.name != bundled.info.name
    ui.result_store.clear()
    texts = ("The bank raised its rates.",)
    first = ui.encode_texts(("all-MiniLM-L6-v2 (bundled)", "cpu"), texts)
    again = ui.encode_texts((bundled.info.source, "cpu"), texts)
    assert again is first  # one stored result: the second label found the first one's
    ui.result_store.clear()
