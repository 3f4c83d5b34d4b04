"""sitekb's ingestion: a business's website in, a searchable knowledge base out.

    site ──► crawl ──────────► extract ─────────► index ──────────► kb ◄──── retrieval
            intake              html (Markdown)    chunk             store    (search, API)
            discover            soup               fingerprint       state
            fetch, rawstore     templates          tokens            embed, lexical
            urls, signals
                               crawler: each URL visited once, to a typed outcome;
                               selection: which pages read are indexed (a pure step);
                               indexer.index(): documents reconciled into kb;
                               pipeline.run() chains the stages and reconciles with kb
                               ops: spend guard, alerts, schedule, jobs (around a run)
                               cli: the `ingest` command; server: the API with its job runner

Imports point down this table and never up: settings, problems and models are the
floor every stage stands on; then crawl < extract < index < kb < ops < retrieval <
crawler, selection, indexer < pipeline, brief < server, cli. `tests/test_layers.py`
holds the code to it.
"""
