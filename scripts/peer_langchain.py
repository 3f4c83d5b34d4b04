#!/usr/bin/env python3
"""LangChain's indexing API on a site, as the peer in scripts/bench_pipeline.py.

Runs in its own virtualenv (LangChain is not a sitekb dependency):
    python3 -m venv /tmp/peers && /tmp/peers/bin/pip install langchain-core \
        langchain-community langchain-text-splitters beautifulsoup4 lxml markdownify greenlet
    /tmp/peers/bin/python scripts/peer_langchain.py SITEMAP_URL STATE_DIR

What LangChain users write for this job ("SitemapLoader + markdownify" in docs/benchmarks.md):
SitemapLoader → markdownify → RecursiveCharacterTextSplitter → index() with a
SQL record manager and `cleanup="incremental"`. The embedding is LangChain's
deterministic fake, counted, so the figure is what a real model would be paid for.
Prints one JSON object: seconds, documents embedded, added/updated/skipped/deleted.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from langchain_community.document_loaders import SitemapLoader
from langchain_community.indexes._sql_record_manager import SQLRecordManager
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.indexing import index
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_text_splitters import RecursiveCharacterTextSplitter
from markdownify import markdownify


class CountingEmbedding(DeterministicFakeEmbedding):
    embedded: int = 0

    def embed_documents(self, texts):
        self.embedded += len(texts)
        return super().embed_documents(texts)


def main() -> None:
    sitemap_url, state_dir = sys.argv[1], Path(sys.argv[2])
    state_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    embedding = CountingEmbedding(size=384)
    store_file = state_dir / "store.json"
    store = (
        InMemoryVectorStore.load(str(store_file), embedding) if store_file.exists() else InMemoryVectorStore(embedding)
    )
    records = SQLRecordManager("sitekb-bench", db_url=f"sqlite:///{state_dir / 'records.sqlite'}")
    records.create_schema()
    loader = SitemapLoader(
        sitemap_url, parsing_function=lambda soup: markdownify(str(soup), heading_style="ATX"), continue_on_failure=True
    )
    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=100)
    docs = splitter.split_documents(loader.load())
    result = index(docs, records, store, cleanup="incremental", source_id_key="source")
    store.dump(str(store_file))
    print(
        json.dumps(
            {
                "seconds": round(time.monotonic() - started, 2),
                "chunks": len(docs),
                "embedded": embedding.embedded,
                **{k: int(v) for k, v in result.items()},
            }
        )
    )


if __name__ == "__main__":
    main()
