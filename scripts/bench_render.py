#!/usr/bin/env python3
"""Rendering and PDFs (#17), measured.

    .venv/bin/python scripts/bench_render.py [--sites demo dentist tapas handbook xhain] [--runs 3] [--json]

1. Client-rendered twins. Each site is served as it is and as its client-rendered twin
   (scripts/js_twin.py: every page an empty shell whose script fetches its body), both
   ingested on the embedded defaults; reported: pages rendered, chunks, the share of the
   static site's chunks the twin also has, ingest time, and hit@1 / hit@5 / MRR (hybrid)
   on the site's callers' questions (scripts/questions/<site>.json).
2. Rendering only when needed. Each static site crawled (no indexing) with rendering on
   (`render=auto`) and off (`render=never`), alternately, `--runs` times: pages rendered
   and the median wall time of each.
3. PDF text. The tests' PDFs (tests/pdfs.py: a menu with price tables, a two-column
   guide, terms with an outline) and PDFs printed by Chromium from the static sites'
   pages (another producer: Skia, tagged text), read by sitekb and, side by side, by
   pypdf's `extract_text` (what LangChain's PyPDFLoader returns) and pdfplumber's
   `extract_text`: word recall, passages in reading order, tables kept as tables.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
sys.path.insert(0, str(REPO / "tests"))
import bench_retrieval  # noqa: E402
from js_twin import build_twin  # noqa: E402
from serve_site import StaticSite  # noqa: E402

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ["SITEKB_ALLOW_PRIVATE_HOSTS"] = "true"  # the sites are served on 127.0.0.1
os.environ.pop("OPENAI_API_KEY", None)
_BASES: dict[str, str] = {}  # each ingested site's local address, to compare chunk URLs


def twins(sites: list[str], work: Path) -> list[dict]:
    rows = []
    data = work / "data"
    for site in sites:
        folder, hosts = bench_retrieval.SITES[site]
        questions_file = REPO / "scripts" / "questions" / f"{site}.json"
        if not folder.exists() or not questions_file.exists():
            print(f"note: {site} skipped ({folder} or its questions missing)", file=sys.stderr)
            continue
        twin = work / f"{site}-js"
        shells = build_twin(folder, twin)
        bench_retrieval.SITES[f"{site}-js"] = (twin, hosts)
        questions = json.loads(questions_file.read_text(encoding="utf-8"))
        row: dict = {"site": site, "shells": shells}
        for name in (site, f"{site}-js"):
            started = time.monotonic()
            report = _ingest(name, data)
            seconds = round(time.monotonic() - started, 1)
            asked = bench_retrieval.ask(name, questions)
            row[name.endswith("-js") and "twin" or "static"] = {
                "ingest_s": seconds,
                "fetched": report.pages.fetched,
                "rendered": report.pages.rendered,
                "chunks": report.chunks.total,
                "hybrid": asked["metrics"]["hybrid"]["all"],
            }
        row["same_chunks"] = _shared_chunks(data, site, f"{site}-js")
        rows.append(row)
    return rows


def _ingest(site: str, data: Path):
    os.environ.update(SITEKB_DATA_DIR=str(data), SITEKB_ALLOW_PRIVATE_HOSTS="true")
    os.environ.pop("OPENAI_API_KEY", None)
    from ingest.pipeline import run
    from ingest.settings import load_settings

    folder, hosts = bench_retrieval.SITES[site]
    with StaticSite(str(folder), rewrite_hosts=hosts) as served:
        report = run(served.base + "/", load_settings(), business=site)
    _BASES[site] = served.base
    return report


def _shared_chunks(data: Path, static: str, twin: str) -> float:
    """Share of the static site's chunk texts (URLs made relative) the twin also has."""
    from ingest.kb.state import StateStore
    from ingest.kb.store import open_existing_store
    from ingest.settings import load_settings

    settings = load_settings()
    found = {}
    for business in (static, twin):
        state = StateStore(settings.state_location)
        embedder_id = state.businesses.embedder_of(business)
        state.close()
        store = open_existing_store(settings, embedder_id)
        base = _BASES[business]
        found[business] = {
            (p["url"].replace(base, ""), p["text"].replace(base, "")) for p in store.payloads(business).values()
        }
        store.close()
    return round(len(found[static] & found[twin]) / max(1, len(found[static])), 3)


def render_when_needed(sites: list[str], runs: int, work: Path) -> list[dict]:
    from ingest.pipeline import run
    from ingest.settings import load_settings

    rows = []
    for site in sites:
        folder, hosts = bench_retrieval.SITES[site]
        if not folder.exists():
            continue
        times: dict[str, list[float]] = {"auto": [], "never": []}
        rendered = {}
        with StaticSite(str(folder), rewrite_hosts=hosts) as served:
            for n in range(runs):
                for mode in ("auto", "never") if n % 2 == 0 else ("never", "auto"):
                    os.environ["SITEKB_DATA_DIR"] = str(work / f"crawl-{site}-{mode}-{n}")
                    started = time.monotonic()
                    report = run(served.base + "/", load_settings(render=mode), business=site, index=False)
                    assert report.problem is None, report.message
                    times[mode].append(time.monotonic() - started)
                    rendered[mode] = report.pages.rendered
                    fetched = report.pages.fetched
        rows.append(
            {
                "site": site,
                "pages": fetched,
                "rendered_auto": rendered["auto"],
                "median_s_auto": round(statistics.median(times["auto"]), 2),
                "median_s_never": round(statistics.median(times["never"]), 2),
            }
        )
    return rows


def _printed_pdfs(sites: list[str], limit: int) -> list[tuple[str, bytes, str]]:
    """(name, PDF bytes, the page's main text as sitekb reads it from the HTML)."""
    from playwright.async_api import async_playwright

    from ingest.extract.html import markdown_to_text, parse_html

    out = []

    async def print_pages(base: str, folder: Path, site: str) -> None:
        pages = sorted(p for p in folder.rglob("index.html") if "_twin" not in p.parts)[:limit]
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path="/usr/bin/chromium", args=["--disable-gpu"])
            page = await browser.new_page()
            for html_file in pages:
                path = "/" + str(html_file.parent.relative_to(folder)).strip(".") + "/"
                url = base + path.replace("//", "/")
                await page.goto(url, wait_until="load")
                try:
                    pdf = await page.pdf(format="A4")
                except Exception as exc:  # Chromium's printing fails on some pages
                    print(f"note: {site}{path} not printed ({' '.join(str(exc).split())[:80]})", file=sys.stderr)
                    continue
                doc = parse_html(html_file.read_bytes(), url)
                out.append((f"{site}{path}", pdf, f"{doc.title}\n\n{markdown_to_text(doc.markdown)}"))
            await browser.close()

    for site in sites:
        folder, hosts = bench_retrieval.SITES[site]
        if folder.exists():
            with StaticSite(str(folder), rewrite_hosts=hosts) as served:
                asyncio.run(print_pages(served.base, folder, site))
    return out


def pdf_text(sites: list[str], limit: int) -> dict:
    import pdfplumber
    import pdfs
    from pypdf import PdfReader

    from ingest.extract.pdf import pdf_to_markdown

    def readers(body: bytes) -> dict[str, str]:
        ours = pdf_to_markdown(body, 300, "https://x.example/doc.pdf")
        with pdfplumber.open(io.BytesIO(body)) as plumber:
            plain = "\n".join(page.extract_text() or "" for page in plumber.pages)
        return {
            "sitekb": f"{ours.title}\n{ours.markdown}",
            "pypdf": "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(body)).pages),
            "pdfplumber": plain,
        }

    built = {"menu": pdfs.menu_pdf(), "two-column": pdfs.two_column_pdf(), "outline": pdfs.outlined_pdf()}
    passages = {name: pdf.passages for name, pdf in built.items() if pdf.passages}
    test_rows = []
    for name, pdf in built.items():
        texts = readers(pdf.body)
        row = {"pdf": name}
        for reader, text in texts.items():
            row[f"{reader}_recall"] = round(pdfs.recall(pdf.words, text), 3)
            if name in passages:
                row[f"{reader}_in_order"] = sum(pdfs.in_order(p, text) for p in passages[name]) / len(passages[name])
            if pdf.tables:
                rows = [row for table in pdf.tables for row in table]
                row[f"{reader}_table_rows"] = sum(("| " + " | ".join(r) + " |") in text for r in rows) / len(rows)
        test_rows.append(row)

    printed_rows = []
    for name, body, html_text in _printed_pdfs(sites, limit):
        expected = tuple(pdfs.words_of(html_text))
        texts = readers(body)
        # Paragraphs of 8 words or more (a table row is a line of its own, not a paragraph).
        paragraphs = [p for p in html_text.split("\n\n") if len(pdfs.words_of(p)) >= 8 and "\n" not in p]
        row = {"pdf": name, "words": len(expected)}
        for reader, text in texts.items():
            row[f"{reader}_recall"] = round(pdfs.recall(expected, text), 3)
            if paragraphs:
                row[f"{reader}_in_order"] = round(sum(pdfs.in_order(p, text) for p in paragraphs) / len(paragraphs), 3)
        printed_rows.append(row)
    return {"test_pdfs": test_rows, "printed": printed_rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", nargs="*", default=["demo", "dentist", "tapas", "handbook", "xhain"])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--printed", type=int, default=8, help="pages per site printed to PDF")
    parser.add_argument("--skip", nargs="*", default=[], choices=["twins", "when", "pdf"])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sitekb-render-"))
    result = {}
    if "pdf" not in args.skip:
        result["pdf"] = pdf_text(args.sites, args.printed)
    if "when" not in args.skip:
        result["when"] = render_when_needed(args.sites, args.runs, work)
    if "twins" not in args.skip:
        result["twins"] = twins(args.sites, work)
    if args.json:
        print(json.dumps(result, indent=1, ensure_ascii=False))
        return
    for row in result.get("twins", []):
        s, t = row["static"], row["twin"]
        print(
            f"twin {row['site']}: {row['shells']} shells · rendered {t['rendered']}/{t['fetched']} · chunks {s['chunks']} -> "
            f"{t['chunks']} (same {row['same_chunks']:.0%}) · ingest {s['ingest_s']} s -> {t['ingest_s']} s · "
            f"hybrid hit@1/hit@5/MRR {s['hybrid']['hit@1']:.2f}/{s['hybrid']['hit@5']:.2f}/{s['hybrid']['mrr']:.2f} -> "
            f"{t['hybrid']['hit@1']:.2f}/{t['hybrid']['hit@5']:.2f}/{t['hybrid']['mrr']:.2f}"
        )
    for row in result.get("when", []):
        print(
            f"static {row['site']}: {row['pages']} pages, rendered {row['rendered_auto']} · crawl median "
            f"{row['median_s_auto']} s with rendering on, {row['median_s_never']} s off"
        )
    for part in ("test_pdfs", "printed"):
        for row in result.get("pdf", {}).get(part, []):
            print(f"pdf {row['pdf']}: " + "  ".join(f"{k} {v}" for k, v in row.items() if k != "pdf"))


if __name__ == "__main__":
    main()
