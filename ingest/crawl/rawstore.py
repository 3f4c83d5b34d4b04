"""Raw responses, gzip-compressed and content-addressed (R-4.6): a parser fix
re-parses from here without re-fetching, and a 304 is re-extracted from here."""

from __future__ import annotations

import gzip
import hashlib
import os
from pathlib import Path


class RawStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, digest: str) -> Path:
        return self.root / digest[:2] / f"{digest}.gz"

    def put(self, body: bytes) -> str:
        digest = hashlib.sha256(body).hexdigest()
        path = self._path(digest)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_bytes(gzip.compress(body, mtime=0))
            tmp.replace(path)
        return digest

    def has(self, digest: str) -> bool:
        return bool(digest) and self._path(digest).exists()

    def get(self, digest: str) -> bytes | None:
        try:
            return gzip.decompress(self._path(digest).read_bytes())
        except (OSError, EOFError):
            return None
