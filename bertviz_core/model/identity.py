"""What a model is, as a short string that keys every stored result: the same weights, tokenizer and libraries
give the same identity, whatever the model is called; a changed file or library gives another.

A display label ("all-MiniLM-L6-v2 (bundled)") or a path is not enough: a folder's files can be replaced while
the server runs, and two labels can name one model. A hub model is named by its revision (the commit its files
came from); a folder by the content of its files.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import bertviz_core.checks as checks

CHUNK = 1 << 20  # bytes read at a time while hashing a file


def _file_digest(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=16)
    with path.open("rb") as file:
        while chunk := file.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def model_identity(location: str, revision: str | None, versions: dict[str, str]) -> str:
    """A 24-character identity of the model at ``location`` (a folder or a hub id) for the library ``versions``
    (e.g. {"torch": "2.13.0", "transformers": "…"}): the hub ``revision`` when the files came from the hub, else
    the content of every file of the folder (names and bytes; subfolders included)."""
    location = checks.text(location, "location")
    if not isinstance(versions, dict) or not all(isinstance(v, str) for v in versions.values()):
        raise ValueError(f"versions must map library names to version strings; it is {checks.shown(versions)}.")
    folder = Path(location)
    if folder.is_dir():
        parts = _folder_parts(folder)
    else:  # a hub id: transformers names the commit its cached files came from
        parts = [f"{location}@{revision or 'an unknown revision'}"]
    parts += [f"{name} {version}" for name, version in sorted(versions.items())]
    return hashlib.blake2b("\n".join(parts).encode("utf-8"), digest_size=12).hexdigest()


def _folder_parts(folder: Path) -> list[str]:
    """"name=digest" of every file under ``folder``, subfolders included, in name order."""
    return [f"{path.relative_to(folder).as_posix()}={_file_digest(path)}"
            for path in sorted(folder.rglob("*")) if path.is_file()]


def content_digest(location: str) -> str:
    """A 32-character hash of the bytes of the file at ``location``, or of every file (names and bytes) of the
    folder there: what a precomputed store records of its input, to refuse resuming from a changed one."""
    path = Path(checks.text(location, "location"))
    if path.is_dir():
        return hashlib.blake2b("\n".join(_folder_parts(path)).encode("utf-8"), digest_size=16).hexdigest()
    if not path.is_file():
        raise ValueError(f"There is no file or folder at {location}.")
    return _file_digest(path)
