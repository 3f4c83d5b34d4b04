"""Fingerprints and deterministic point ids (R-8.1)."""

from __future__ import annotations

import hashlib
import uuid

from ingest.models import Chunk, KeyedChunk

# Fixed namespace: the same (business, url, fingerprint) gives the same point id forever.
POINT_NAMESPACE = uuid.UUID("6f1c1f3e-5b1a-4c59-9a57-2f1f0a1d5c42")


def fingerprint(chunk: Chunk, embedder_id: str) -> str:
    """Content + heading path + embedder identity: any change means a new vector."""
    digest = hashlib.sha256()
    for part in (embedder_id, chunk.heading, chunk.body):
        digest.update(part.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()


def point_id(business: str, url: str, chunk_fingerprint: str) -> str:
    return str(uuid.uuid5(POINT_NAMESPACE, f"{business}\x00{url}\x00{chunk_fingerprint}"))


def key_chunks(chunks: list[Chunk], business: str, embedder_id: str) -> list[KeyedChunk]:
    """Keyed chunks; a text repeated within one page is kept once (same id = same point)."""
    keyed: dict[str, KeyedChunk] = {}
    for chunk in chunks:
        fp = fingerprint(chunk, embedder_id)
        pid = point_id(business, chunk.url, fp)
        keyed.setdefault(pid, KeyedChunk(chunk=chunk, fingerprint=fp, point_id=pid))
    return list(keyed.values())
