"""Retrieval over a business's knowledge base: one code path for the CLI, the API and in-process use."""

from retrieval.search import SearchHit, search

__all__ = ["SearchHit", "search"]
