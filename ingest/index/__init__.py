"""Index: Markdown to token-sized chunks with heading paths (chunk, tokens), and the
fingerprints and point ids that make resyncs idempotent (fingerprint)."""
