"""Knowledge base: what ingestion writes and retrieval reads: the vector store, the
state database, the embedders and the lexical (BM25) analysis."""
