"""A catalog folder's `manifest.json`, and the check that the folder still holds what it
vouches for.

The manifest records the item count, the catalog's content digest (`sha256`, the digest
`Catalog.content_sha256` gives the same items in any form) and the SHA-256 of every other
file the folder holds (`files`). Opening a folder checks all of it before any answer is
served: each file is hashed again (`hashlib` streams them at over a gigabyte a second)
and the content digest is recomputed from `items.jsonl`'s lines in id order, so a folder
edited after it was written is refused. The digest a plan pins (`folder_sha256`) is then
taken over the checked manifest, so it covers every file the server reads, the indexes
included: an index edited together with the manifest gives the folder a digest of its own.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any, Literal

import numpy as np
import numpy.typing as npt
import orjson
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from taurec.catalog.errors import REWRITE_HINT, DataError, from_validation_error
from taurec.catalog.io import CatalogMeta

FOLDER_FORMAT = "taurec-catalog"
#: 2: `files` lists every file's SHA-256 (version 1 folders are refused: write them again)
FOLDER_FORMAT_VERSION = 2
MANIFEST = "manifest.json"
RECORDS = "items.jsonl"
#: bytes read per `pread` while hashing the records
_READ = 1 << 20

Digest = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]


class FolderManifest(BaseModel):
    """What `manifest.json` holds; every field is required."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal["taurec-catalog"]
    format_version: StrictInt
    items: Annotated[StrictInt, Field(ge=1, description="how many item records")]
    sha256: Digest = Field(description="the content digest, as `Catalog.sha256` computes it")
    files: dict[str, Digest] = Field(description="every other file (not items.jsonl): sha256")
    meta: CatalogMeta


def read_manifest(folder: Path) -> FolderManifest:
    """The folder's manifest, or one DataError saying what is wrong with it."""
    try:
        doc = orjson.loads((folder / MANIFEST).read_bytes())
    except FileNotFoundError:
        raise DataError(
            f"has no {MANIFEST}; expected a catalog folder written by `taurec catalog "
            "generate` or `build` (or a catalog JSON or JSONL file)",
            source=folder,
        ) from None
    except OSError as exc:
        raise DataError(f"cannot read {MANIFEST} ({exc.strerror or exc})", source=folder) from None
    except orjson.JSONDecodeError as exc:
        raise DataError(
            f"{MANIFEST} is not valid JSON ({exc}); {REWRITE_HINT}", source=folder
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != FOLDER_FORMAT:
        raise DataError(f'{MANIFEST}: expected "format": "{FOLDER_FORMAT}"', source=folder)
    if doc.get("format_version") != FOLDER_FORMAT_VERSION:
        raise DataError(
            f"{MANIFEST}: expected format_version {FOLDER_FORMAT_VERSION}, got "
            f"{doc.get('format_version')!r}; {REWRITE_HINT}",
            source=folder,
        )
    try:
        return FolderManifest.model_validate(doc)
    except ValidationError as exc:
        raise from_validation_error(exc, source=folder, record=MANIFEST) from None


def write_manifest(folder: Path, n: int, meta: CatalogMeta, files: Iterable[str]) -> None:
    """Hash what the writer wrote in `folder` and record it (the last file written)."""
    offsets, id_rows = np.load(folder / "offsets.npy"), np.load(folder / "id_rows.npy")
    manifest = FolderManifest(
        format=FOLDER_FORMAT,
        format_version=FOLDER_FORMAT_VERSION,
        items=n,
        sha256=content_sha256(folder / RECORDS, offsets, id_rows),
        files=file_digests(folder, sorted(files)),
        meta=meta,
    )
    doc = manifest.model_dump(mode="json")
    (folder / MANIFEST).write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n")


def file_digests(folder: Path, names: Iterable[str]) -> dict[str, str]:
    """The SHA-256 of each file (`hashlib.file_digest` reads it in blocks, outside the GIL)."""
    digests = {}
    for name in names:
        with open(folder / name, "rb") as fh:
            digests[name] = hashlib.file_digest(fh, "sha256").hexdigest()
    return digests


def content_sha256(
    records: Path, offsets: npt.NDArray[np.integer], id_rows: npt.NDArray[np.integer]
) -> str:
    """`Catalog.sha256`'s digest: each record line (sorted-key JSON plus a newline), in id
    order. Rows that follow each other in id order are adjacent lines, so each such run is
    read in 1 MiB blocks: a file already in id order is read straight through. `pread`,
    not a memory map, keeps the pages out of the reader's resident memory."""
    rows = np.asarray(id_rows, dtype=np.int64)
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    firsts = rows[np.concatenate(([0], breaks))]
    lasts = rows[np.concatenate((breaks - 1, [len(rows) - 1]))]
    at = np.asarray(offsets, dtype=np.int64)
    h = hashlib.sha256()
    fd = os.open(records, os.O_RDONLY)
    try:
        for start, end in zip(at[firsts].tolist(), at[lasts + 1].tolist(), strict=True):
            while start < end:
                block = os.pread(fd, min(_READ, end - start), start)
                if not block:
                    raise DataError(f"{RECORDS} ends early; {REWRITE_HINT}", source=records.parent)
                h.update(block)
                start += len(block)
    finally:
        os.close(fd)
    return h.hexdigest()


def check_layout(
    folder: Path,
    n: int,
    offsets: npt.NDArray[np.integer],
    id_rows: npt.NDArray[np.integer],
    ids: npt.NDArray[np.bytes_],
) -> None:
    """DataError unless the arrays every lookup goes through fit `n` records: offsets
    that rise line by line from 0, a permutation of the rows, and `n` sorted ids."""
    problem = None
    at, rows = _signed(offsets, n + 1), _signed(id_rows, n)
    if at is None:
        problem = f"offsets.npy is not {n + 1} integers"
    elif int(at[0]) != 0 or not bool(np.all(np.diff(at) > 0)):
        problem = "offsets.npy does not rise from 0 line by line"
    elif rows is None:
        problem = f"id_rows.npy is not {n} integers"
    elif (
        int(rows.min()) < 0
        or int(rows.max()) >= n
        or not bool(np.all(np.bincount(rows, minlength=n) == 1))
    ):
        problem = f"id_rows.npy is not an order of the {n} rows"
    elif ids.ndim != 1 or ids.dtype.kind != "S" or len(ids) != n:
        problem = f"ids.npy is not {n} ids"
    elif n > 1 and not bool(np.all(ids[:-1] < ids[1:])):
        problem = "ids.npy is not in sorted order"
    if problem:
        raise DataError(f"{problem}; {REWRITE_HINT}", source=folder)


def _signed(values: npt.NDArray[Any], n: int) -> npt.NDArray[np.int64] | None:
    """`n` integers as int64 (a difference of unsigned ones wraps instead of going
    negative), or None when `values` is not that."""
    if values.ndim != 1 or values.dtype.kind not in "iu" or len(values) != n:
        return None
    return values.astype(np.int64, copy=False)


def verify(
    folder: Path,
    manifest: FolderManifest,
    names: Iterable[str],
    offsets: npt.NDArray[np.integer],
    id_rows: npt.NDArray[np.integer],
    meanwhile: Callable[[], None] | None = None,
) -> None:
    """DataError naming the first file whose SHA-256 differs from the manifest's, or the
    records whose content digest does. `names` (every file but the records) must be listed.

    The files and the records are hashed on two more threads while this one runs
    `meanwhile` (the structure check, folder_structure.py); a DataError it raises comes
    after the hashes' (a file changed since it was written says more than what it holds).
    Call `check_layout` first, so the records' offsets and order can be trusted to index.
    """
    names = sorted(names)
    unlisted = [name for name in names if name not in manifest.files]
    if unlisted:
        raise DataError(
            f"{MANIFEST} lists no sha256 for {unlisted[0]}; {REWRITE_HINT}", source=folder
        )
    refused: DataError | None = None
    with ThreadPoolExecutor(max_workers=2) as pool:
        files = pool.submit(file_digests, folder, names)
        records = pool.submit(content_sha256, folder / RECORDS, offsets, id_rows)
        try:
            if meanwhile is not None:
                meanwhile()
        except DataError as exc:
            refused = exc
        try:
            digests = files.result()
            content = records.result()
        except OSError as exc:
            raise DataError(
                f"cannot read {exc.filename} ({exc.strerror or exc})", source=folder
            ) from None
    for name in names:
        _compare(folder, name, digests[name], manifest.files[name])
    _compare(folder, f"{RECORDS} (its records in id order)", content, manifest.sha256)
    if refused is not None:
        raise refused


def folder_sha256(manifest: FolderManifest, names: Iterable[str]) -> str:
    """The digest a folder is pinned by (`Catalog.sha256`): SHA-256 of its manifest as
    sorted-key JSON, with `files` narrowed to `names` (every file read besides the records).

    Call it once `verify` has passed: the manifest's content digest and each file's
    digest are then the folder's own, so this covers the items, the meta and every index.
    """
    doc = manifest.model_dump(mode="json")
    doc["files"] = {name: manifest.files[name] for name in sorted(names)}
    return hashlib.sha256(orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _compare(folder: Path, what: str, got: str, want: str) -> None:
    if got != want:
        raise DataError(
            f"{what} has sha256 {got[:12]}... but {MANIFEST} says {want[:12]}... (changed "
            f"since it was written); {REWRITE_HINT}",
            source=folder,
        )
