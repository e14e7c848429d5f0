"""Files: a batch's input, read and checked line by line on upload, and the output and error files jobs write.

Each file is `files/<id>.jsonl` with its object beside it (`<id>.json`):
the OpenAI file object plus its owner and, for an input, what its lines
target. A file belongs to the caller that uploaded it (a job's files to the
job's caller); anyone else is told there is no such file.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskgate.plugins import ClientError, shapes
from taskgate.plugins.jsonbody import BodyError, loads

from .types import RESPONSES, SURFACES

Owner = tuple[str, str] | None  # (subject, tenant); None where no plan authenticates callers
PURPOSES = ("batch",)
MAX_CUSTOM_ID = 512
ENDPOINTS = (*SURFACES, RESPONSES)
PRIVATE = 0o600  # files hold callers' prompts and answers, a job who its caller is: the owner's alone


class LineError(ClientError):
    """A line of an uploaded file that cannot be a batch item: 400 naming the line."""

    def __init__(self, line: int, reason: str):
        super().__init__(400, "invalid_batch_line", f"line {line}: {reason}", "file")
        self.line = line


@dataclass
class Checked:
    """What an input file's lines are: how many, and the endpoint they all target."""

    lines: int = 0
    endpoint: str | None = None
    custom_ids: set[str] = field(default_factory=set)


def check_lines(path: Path, max_items: int) -> Checked:
    """Every line a batch item: a JSON object with a unique `custom_id`, `method` POST, one `url` that taskgate
    serves for batches, and a `body` its surface would accept; the first that is not is a LineError.

    CPU work for a large file: the caller runs it on a thread."""
    checked = Checked()
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, start=1):
            if not raw.strip():
                continue
            if checked.lines >= max_items:
                raise LineError(number, f"a batch has at most {max_items} items here (batch.max_items)")
            _check_line(number, raw, checked)
            checked.lines += 1
    if checked.lines == 0:
        raise ClientError(400, "empty_file", "the file has no lines: a batch needs at least one request", "file")
    return checked


def _check_line(number: int, raw: bytes, checked: Checked) -> None:
    try:
        item = loads(raw)
    except BodyError as exc:
        raise LineError(number, exc.message) from None
    if not isinstance(item, dict):
        raise LineError(number, "a line must be a JSON object with custom_id, method, url and body")
    custom_id, url, body = item.get("custom_id"), item.get("url"), item.get("body")
    if not isinstance(custom_id, str) or not custom_id or len(custom_id) > MAX_CUSTOM_ID:
        raise LineError(number, f"custom_id must be a non-empty string of at most {MAX_CUSTOM_ID} characters")
    if custom_id in checked.custom_ids:
        raise LineError(number, f"custom_id {custom_id!r} appears on an earlier line; each must be unique")
    if item.get("method") != "POST":
        raise LineError(number, "method must be POST")
    if url not in ENDPOINTS:
        raise LineError(number, f"url must be one of {', '.join(ENDPOINTS)}")
    if checked.endpoint is not None and url != checked.endpoint:
        raise LineError(number, f"every line of a batch targets one url; earlier lines target {checked.endpoint}")
    unknown = sorted(set(item) - {"custom_id", "method", "url", "body"})
    if unknown:
        raise LineError(number, f"unknown field {unknown[0]!r}")
    if not isinstance(body, dict) or not isinstance(body.get("model"), str) or not body["model"]:
        raise LineError(number, "body must be a JSON object naming a model")
    if body.get("stream") not in (None, False):
        raise LineError(number, "body.stream: batch items are answered whole; leave stream out")
    surface = SURFACES.get(url)
    if surface is not None:
        try:
            shapes.check(surface, body)
        except ClientError as exc:
            raise LineError(number, f"body.{exc.message}") from None
    checked.endpoint = url
    checked.custom_ids.add(custom_id)


class Files:
    """Files kept in one directory; the objects are small JSON documents, the contents never loaded whole."""

    def __init__(self, directory: Path):
        self.directory = directory / "files"

    def new_path(self) -> tuple[str, Path]:
        """A fresh file id and where its content goes (written by the caller, then `keep` records it); the
        directory is made when the first file comes, so a gateway nobody sends batches to writes nothing."""
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        file_id = new_file_id()
        return file_id, self.directory / f"{file_id}.jsonl"

    def keep(self, file_id: str, owner: Owner, purpose: str, filename: str, **facts: Any) -> dict[str, Any]:
        """Record the file whose content is at its path: its object, written whole and then renamed."""
        content = self.directory / f"{file_id}.jsonl"
        record = {
            "id": file_id,
            "object": "file",
            "bytes": content.stat().st_size,
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
            "owner": list(owner) if owner is not None else None,
            **facts,
        }
        write_json(self.directory / f"{file_id}.json", record)
        return record

    def get(self, owner: Owner, file_id: str) -> dict[str, Any] | None:
        """The file's record, if `owner` owns it."""
        if not _safe_id(file_id):
            return None
        record = read_json(self.directory / f"{file_id}.json")
        if not isinstance(record, dict) or _owner(record) != owner:
            return None
        return record

    def content(self, file_id: str) -> Path:
        return self.directory / f"{file_id}.jsonl"

    def listed(self, owner: Owner) -> Iterator[dict[str, Any]]:
        for path in sorted(self.directory.glob("file-*.json")):
            record = read_json(path)
            if isinstance(record, dict) and _owner(record) == owner:
                yield record

    def delete(self, file_id: str) -> None:
        for suffix in (".json", ".jsonl"):
            (self.directory / f"{file_id}{suffix}").unlink(missing_ok=True)

    def discard(self, path: Path) -> None:
        path.unlink(missing_ok=True)

    def sweep(self, keep_s: float, purposes: tuple[str, ...]) -> None:
        """Files of `purposes` made more than `keep_s` ago, removed (blocking: run it on a thread)."""
        now = time.time()
        for path in self.directory.glob("file-*.json"):
            record = read_json(path)
            old = isinstance(record, dict) and now - float(record.get("created_at") or now) > keep_s
            if old and record.get("purpose") in purposes:
                self.delete(str(record["id"]))


def new_file_id() -> str:
    return f"file-{secrets.token_hex(12)}"


def public(record: dict[str, Any]) -> dict[str, Any]:
    """The file object as OpenAI shows it."""
    return {k: v for k, v in record.items() if k not in ("owner", "lines", "endpoint")}


def _owner(record: dict[str, Any]) -> Owner:
    owner = record.get("owner")
    return (str(owner[0]), str(owner[1])) if isinstance(owner, list) and len(owner) == 2 else None


def _safe_id(value: str) -> bool:
    """An id as taskgate makes them (`file-` or `batch_` and hex): nothing that could name another path."""
    prefix, _, rest = value.partition("-") if value.startswith("file-") else value.partition("_")
    return prefix in ("file", "batch") and 0 < len(rest) <= 64 and all(c in "0123456789abcdef-_" for c in rest)


def write_json(path: Path, value: Any) -> None:
    """Write `value` to `path` whole or not at all: a reader never sees half a document."""
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    with os.fdopen(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE), "w") as out:
        out.write(json.dumps(value))
    os.replace(partial, path)


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None
