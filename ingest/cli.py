"""`ingest` command line: run, search, status.

Exit status: 0 success; 2 the site has a problem (kind and sentence on stderr) or
the command/settings are wrong; 1 internal error.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import UTC, datetime

from ingest.index.tokens import TokenizerUnavailable
from ingest.kb.db import StateDamaged, database_unreachable, first_line, redact_dsn
from ingest.kb.embed import EmbedderUnavailable
from ingest.kb.state import StateStore
from ingest.kb.store import StoreError, vectors_lost
from ingest.models import RunReport
from ingest.ops.jobs import ServerError
from ingest.ops.queue import QueueUnavailable
from ingest.problems import ProblemKind
from ingest.settings import SettingsError, load_settings

EXIT_OK, EXIT_INTERNAL, EXIT_PROBLEM = 0, 1, 2


class _ArgumentError(Exception):
    def __init__(self, message: str, parser: argparse.ArgumentParser) -> None:
        super().__init__(message)
        self.parser = parser


class _Parser(argparse.ArgumentParser):
    """argparse, with its errors raised to main(), which reports them in JSON too."""

    def error(self, message: str):
        raise _ArgumentError(f"{message} (see `{self.prog} --help`)", self)


def _fail(args, kind: ProblemKind, message: str, code: int = 2) -> int:
    """A problem found before any work: one line on stderr, and for --json the problem's
    kind and message on stdout, as the commands' own JSON reports carry them."""
    print(f"ingest: {message}", file=sys.stderr)
    if getattr(args, "json", False):
        print(json.dumps({"problem": kind, "message": message}, ensure_ascii=False))
    return code


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="ingest", description="Turn a website into a searchable knowledge base.")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="ingest or resync a site")
    run.add_argument("site", help="a domain (acme.com) or a URL (http://127.0.0.1:8000/)")
    run.add_argument("--business", help="business id (default: the site's host)")
    run.add_argument("--max-pages", type=int, help="page budget for this run")
    run.add_argument("--json", action="store_true", help="print the run report as JSON")
    run.add_argument(
        "--no-wait", action="store_true", help="with a job queue (SITEKB_DATABASE_URL): queue the job and return"
    )
    search = sub.add_parser("search", help="search a business's knowledge base")
    search.add_argument("--business", required=True)
    search.add_argument("-k", type=int, default=5, help="number of hits (default 5)")
    search.add_argument("--json", action="store_true")
    search.add_argument("query")
    status = sub.add_parser("status", help="what is stored, and the last run's report")
    status.add_argument("--business")
    status.add_argument("--json", action="store_true")
    extract = sub.add_parser("extract", help="print one page's extracted content (for checks and benchmarks)")
    extract.add_argument("source", metavar="FILE_OR_URL", help="an .html or .html.gz file, or an http(s) URL")
    extract.add_argument("--url", help="the page's URL, for resolving its links (files only)")
    extract.add_argument("--format", choices=("markdown", "text"), default="markdown")
    resync = sub.add_parser("resync", help="refresh every business whose weekly resync is due (cron/systemd)")
    resync.add_argument("--due", action="store_true", required=True, help="only sources that are due")
    resync.add_argument("--json", action="store_true")
    sched = sub.add_parser("scheduler", help="run `resync --due` in a loop, as a long-lived process")
    sched.add_argument("--interval", type=float, default=900, help="seconds between rounds (default 900)")
    brief = sub.add_parser("brief", help="the few pages that describe a business, and its site's shape")
    brief.add_argument("site", help="a domain (acme.com) or a URL")
    brief.add_argument("--business", help="business id for usage metering (default: the site's host)")
    brief.add_argument("--json", action="store_true")
    brief.add_argument("--write", action="store_true", help="have a model write the brief (needs OPENAI_API_KEY)")
    worker = sub.add_parser("worker", help="take ingestion jobs from the queue (needs SITEKB_DATABASE_URL)")
    worker.add_argument("--name", help="this worker's name in the queue's records")
    worker.add_argument("--once", action="store_true", help="stop when the queue is empty")
    serve = sub.add_parser("serve", help="start the retrieval HTTP API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    keys = sub.add_parser("keys", help="API keys for the retrieval API")
    keys_sub = keys.add_subparsers(dest="keys_command", required=True)
    create = keys_sub.add_parser("create", help="create a key (shown once)")
    create.add_argument("--business", required=True)
    create.add_argument("--label")
    listing = keys_sub.add_parser("list", help="list keys (never the secrets)")
    listing.add_argument("--business")
    revoke = keys_sub.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("--business", required=True)
    revoke.add_argument("key_id")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except _ArgumentError as exc:
        exc.parser.print_usage(sys.stderr)
        return _fail(argparse.Namespace(json="--json" in argv), "invalid", str(exc))
    try:
        settings = load_settings()
        if args.command == "run":
            return _run(args, settings)
        if args.command == "search":
            return _search(args, settings)
        if args.command == "serve":
            return _serve(args, settings)
        if args.command == "brief":
            return _brief(args, settings)
        if args.command == "extract":
            return _extract(args, settings)
        if args.command == "resync":
            return _resync(args)
        if args.command == "scheduler":
            return _scheduler(args)
        if args.command == "worker":
            return _worker(args, settings)
        if args.command == "keys":
            return _keys(args, settings)
        return _status(args, settings)
    except SettingsError as exc:
        return _fail(args, "invalid", str(exc))
    except QueueUnavailable as exc:
        return _fail(args, "invalid", str(exc))
    except (EmbedderUnavailable, TokenizerUnavailable, StateDamaged) as exc:
        return _fail(args, "error", str(exc))
    except StoreError as exc:  # e.g. a running `ingest serve` holds the embedded store: the user can act
        return _fail(
            args,
            "error",
            f"{exc}; stop the other process (e.g. `ingest serve`) or point SITEKB_QDRANT_URL at a Qdrant server",
        )
    except ServerError as exc:
        print(f"ingest: {exc}", file=sys.stderr)
        return EXIT_INTERNAL
    except BrokenPipeError:  # `ingest search ... | head`: the reader left; nothing to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print("ingest: interrupted; the knowledge base keeps its previous content", file=sys.stderr)
        return 130
    except Exception as exc:  # the promise: no traceback for users, unless asked
        if os.environ.get("SITEKB_DEBUG"):
            raise
        if database_unreachable(exc):
            return _fail(
                args, "error", f"the shared database went away ({first_line(exc)}); nothing was lost: run again"
            )
        print(f"ingest: internal error: {type(exc).__name__}: {exc} (set SITEKB_DEBUG=1 for details)", file=sys.stderr)
        return EXIT_INTERNAL


@contextmanager
def _progress(enabled: bool) -> Iterator:
    if not enabled:
        yield lambda phase, done, total: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    tasks: dict[str, int] = {}
    labels = {"fetch": "Fetching pages", "embed": "Embedding chunks"}
    with Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=False
    ) as bar:

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(labels.get(phase, phase), total=total)
            bar.update(tasks[phase], completed=done, total=total)

        yield update


def _run(args, settings) -> int:
    from ingest.pipeline import run

    if args.max_pages is not None and args.max_pages < 1:
        return _fail(args, "invalid", "--max-pages must be at least 1")
    if args.no_wait and not settings.database_url:
        return _fail(args, "invalid", "--no-wait needs a job queue: set SITEKB_DATABASE_URL=postgresql://...")
    if settings.database_url:
        report = _run_queued(args, settings)
        if report is None:
            return EXIT_OK
        if report is not NO_WORKER:
            return _finish_run(
                args,
                report,
                private_way_out="start the `ingest worker` processes with SITEKB_ALLOW_PRIVATE_HOSTS=true "
                "(they run jobs with their own settings)",
            )
        print("ingest: no worker is running (`ingest worker`): running the job in this process", file=sys.stderr)
        with _progress(sys.stderr.isatty() and not args.json) as progress:
            report = run(args.site, settings, business=args.business, max_pages=args.max_pages, progress=progress)
        return _finish_run(args, report)
    link = _server(settings)
    with _progress(sys.stderr.isatty() and not args.json) as progress:
        if link is not None:
            try:
                report = link.run(args.site, business=args.business, max_pages=args.max_pages, progress=progress)
            except KeyboardInterrupt:
                print("ingest: stopped watching; the job goes on in the server (see `ingest status`)", file=sys.stderr)
                return 130
            finally:
                link.close()
        else:
            report = run(args.site, settings, business=args.business, max_pages=args.max_pages, progress=progress)
    way_out = (
        f"start the server at {link.url} with SITEKB_ALLOW_PRIVATE_HOSTS=true (it ran this job with its own "
        "settings), or stop it and run again here"
        if link is not None
        else None
    )
    return _finish_run(args, report, private_way_out=way_out)


# _run_queued's answer when no worker is alive to take the job: the CLI runs it itself.
NO_WORKER = RunReport(business="", site="")


def _run_queued(args, settings) -> RunReport | None:
    """With a job queue: queue the run, and (unless --no-wait) wait for its report. With
    no live worker, NO_WORKER: a newcomer's `make ingest` must not wait forever."""
    from ingest.ops.queue import QueueJobs

    jobs = QueueJobs(settings)
    try:
        return _queue_and_wait(args, jobs)
    finally:
        jobs.close()


def _queue_and_wait(args, jobs) -> RunReport | None:
    alive = jobs.workers_alive(jobs.settings.worker_stalled_s)
    if not alive and not args.no_wait:
        return NO_WORKER
    job = jobs.submit("run", {"site": args.site, "business": args.business, "max_pages": args.max_pages})
    if args.no_wait:
        print(json.dumps({"job": job.id, "status": job.status}) if args.json else f"queued as job {job.id}")
        if not alive:
            print("ingest: no worker is running: start one with `ingest worker` to run it", file=sys.stderr)
        return None
    print(f"ingest: queued as job {job.id}; waiting for a worker (Ctrl-C stops waiting, not the job)", file=sys.stderr)

    def said(job) -> None:
        if job.status == "running":
            print(f"ingest: job {job.id} is running", file=sys.stderr)

    try:
        job = jobs.wait(job.id, on_change=said)
    except KeyboardInterrupt:
        print(f"ingest: stopped waiting; job {job.id} stays in the queue (see `ingest status`)", file=sys.stderr)
        raise SystemExit(130) from None
    if job.result is None:
        return RunReport(
            business=args.business or "", site=args.site, error=job.error or "the job failed", error_kind="JobFailed"
        )
    return RunReport.model_validate(job.result)


def _finish_run(args, report: RunReport, private_way_out: str | None = None) -> int:
    """Prints the report; `private_way_out` is what to do about a `private` refusal when
    another process (a server, the workers) ran the job with its own settings."""
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        _print_report(report)
    if report.problem:
        print(f"ingest: {report.problem}: {report.message}", file=sys.stderr)
        if report.problem == "private":  # the sentence is the business owner's; this is the operator's way out
            where = private_way_out or "set SITEKB_ALLOW_PRIVATE_HOSTS=true"
            print(
                f"ingest: to crawl a site on this machine or a private network (a test, a demo), {where}",
                file=sys.stderr,
            )
        return EXIT_PROBLEM
    if report.error_kind == "BusinessBusy":  # not a failure: this run did not start
        print(f"ingest: {report.error}; run again when it has finished (`ingest status`)", file=sys.stderr)
        return EXIT_PROBLEM
    if report.error:
        print(
            f"ingest: the run stopped: {report.error}. Vectors already paid for are kept and "
            "reused by the next run; the knowledge base is as it was for pages not yet written.",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
    return EXIT_OK


def _print_report(report: RunReport) -> None:
    if report.problem or report.error:
        return
    p, c, e = report.pages, report.chunks, report.embedding
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(p.skipped.items())) or "none"
    print(f"{report.site} → business {report.business!r}")
    print(
        f"  pages: {p.discovered} discovered, {p.fetched} fetched, {p.not_modified} not modified, "
        f"{p.failed} failed, {p.empty} empty; skipped: {skipped}"
    )
    if p.rendered or p.pdfs:
        print(f"  read in a browser: {p.rendered} pages; PDFs read: {p.pdfs}")
    print(f"  chunks: {c.added} added, {c.unchanged} unchanged, {c.deleted} deleted, {c.total} in the knowledge base")
    print(f"  embedding: {e.model}, {e.calls} calls, {e.tokens} tokens, ${report.spend_usd:.4f}")
    print(
        "  site-wide text: header, footer and menus kept once, not on every page; "
        f"{report.templates.template_lines} lines repeat across pages, "
        f"{report.templates.chars_dropped} chars of them cut from the pages' own text"
    )
    for warning in report.warnings:
        print(f"  warning: {warning}")
    print(f"  took {report.seconds:.1f}s")


def _search(args, settings) -> int:
    from ingest.index.chunk import body_of
    from retrieval.search import Answer, Searcher, SearchHit, UnknownBusiness, checked_query

    if args.k < 1 or args.k > 100:
        return _fail(args, "invalid", "-k must be between 1 and 100")
    try:
        checked_query(args.query)  # here too, before a server would refuse it in other words
    except ValueError as exc:
        return _fail(args, "invalid", str(exc))
    link = _server(settings, quiet=True)
    try:
        if link is not None:
            try:
                found = link.search(args.business, args.query, args.k)
            finally:
                link.close()
            answer = Answer(
                hits=[SearchHit(**h) for h in found["hits"]],
                answerable=found["answerable"],
                confidence=found["confidence"],
                judged_by=found.get("judged_by", "signals"),
            )
        else:
            with Searcher(settings) as searcher:
                answer = searcher.answer(args.business, args.query, args.k)
    except UnknownBusiness as exc:
        return _fail(args, "not_found", str(exc))
    except ValueError as exc:
        return _fail(args, "invalid", str(exc))
    except ServerError as exc:  # the server's refusal of what this process would refuse too: the same answer
        if exc.status in (404, 422):
            return _fail(args, "not_found" if exc.status == 404 else "invalid", exc.detail)
        raise
    hits = answer.hits
    if args.json:
        print(
            json.dumps(
                {
                    "business": args.business,
                    "answerable": answer.answerable,
                    "confidence": answer.confidence,
                    "judged_by": answer.judged_by,
                    "hits": [h.to_dict() for h in hits],
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return EXIT_OK
    judge = f", judged by {settings.answer_check_model}" if answer.judged_by == "model" else ""
    if not hits:
        print("no results")
    elif not answer.answerable:
        print(f"probably not answered by this site (confidence {answer.confidence:.2f}{judge}); the nearest passages:")
    else:
        print(f"answered (confidence {answer.confidence:.2f}{judge}); best first, [fusion score]:")
    for rank, hit in enumerate(hits, 1):
        print(f"{rank}. [{hit.score:.3f}] {hit.heading_path}\n   {hit.url}")
        body = body_of(hit.text, hit.heading_path).replace("\n", " ")
        print(f"   {body[:240]}{'…' if len(body) > 240 else ''}")
    return EXIT_OK


def _status(args, settings) -> int:
    businesses = []
    if settings.state_exists():
        state = StateStore(settings.state_location)
        try:
            known = state.businesses.all()
            if args.business and args.business not in known:
                return _fail(args, "not_found", f"unknown business {args.business!r}")
            businesses = _status_of(state, settings, [args.business] if args.business else known)
        finally:
            state.close()
    if args.json:
        print(json.dumps(businesses, ensure_ascii=False, indent=2))
    else:
        _print_status(businesses, settings, card=bool(args.business))
    return EXIT_OK


def _when(ts: float | None) -> str | None:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC") if ts else None


def _status_of(state: StateStore, settings, ids: list[str]) -> list[dict]:
    """Per business: what is stored, each source's next refresh, spend today, the breaker
    and the last run's report."""
    from ingest.ops.guard import SpendGuard
    from ingest.ops.schedule import due_sources

    guard = SpendGuard(settings)
    try:
        now = time.time()
        until, reason = guard.breaker()
        is_open = until > now
        breaker = {"open": is_open, "until": _when(until) if is_open else None, "reason": reason if is_open else None}
        schedule = {(d.business, d.site): d for d in due_sources(settings, now)}
        businesses = []
        for business in ids:
            last = state.runs.last_report(business)
            sources = []
            for source in state.sources.of(business):
                due = schedule.get((business, source.site))
                next_refresh = "now" if due and due.due else _when(due.next_at) if due else None
                sources.append(
                    {**asdict(source), "next_refresh": next_refresh, "refresh_note": due.reason if due else None}
                )
            embedder = state.businesses.embedder_of(business)
            lost = vectors_lost(settings, embedder)
            businesses.append(
                {
                    "business": business,
                    "embedder": embedder,
                    # Never claim chunks no search can find (#19): a lost store holds none.
                    "chunks": 0 if lost else state.chunks.count(business),
                    "vectors_missing": lost,
                    "sources": sources,
                    "spend_today_usd": round(guard.spent_today(business), 6),
                    "breaker": breaker,
                    "last_error": (last.get("error") or last.get("message") or None) if last else None,
                    "last_run": last,
                    "facts": [f.to_dict() for f in state.sources.facts_of(business)],  # as GET /v1/facts serves them
                }
            )
        return businesses
    finally:
        guard.close()


def _print_status(businesses: list[dict], settings, card: bool = False) -> None:
    if not businesses:
        where = redact_dsn(settings.database_url) if settings.database_url else settings.data_dir
        print(f"nothing ingested yet in {where}")
    elif businesses[0]["breaker"]["open"]:
        print(f"circuit breaker OPEN until {businesses[0]['breaker']['until']}: {businesses[0]['breaker']['reason']}")
    for b in businesses:
        print(f"{b['business']}: {b['chunks']} chunks ({b['embedder']}), spent today ${b['spend_today_usd']:.4f}")
        if b["vectors_missing"]:
            print("  the vector store is missing: searches find nothing until the next run rebuilds it (due now)")
        for s in b["sources"]:
            print(
                f"  source {s['site']} ({s['root_url']}): {s['status']}; next refresh {s['next_refresh']} "
                f"({s['refresh_note']})"
            )
        last = b["last_run"]
        if last:
            outcome = f"problem {last['problem']}" if last.get("problem") else (last.get("error_kind") or "ok")
            print(
                f"  last run: {outcome}, {last['pages']['fetched']} pages fetched, "
                f"{last['chunks']['added']} chunks added, {last['seconds']:.1f}s"
            )
            for warning in last.get("warnings", []):
                print(f"  warning: {warning}")
        if b["last_error"]:
            print(f"  last error: {b['last_error']}")
        if card:  # one business asked for: its contact card, as the assistant gets it from GET /v1/facts
            print("  contact card:" if b["facts"] else "  contact card: nothing found on the site")
            for fact in b["facts"]:
                label = f" ({fact['label']})" if fact.get("label") else ""
                print(f"    {fact['kind']}: {fact['value']}{label}")


def _extract(args, settings) -> int:
    from pathlib import Path

    from ingest.extract.html import markdown_to_text, parse_html

    if args.source.startswith(("http://", "https://")):
        import asyncio

        from ingest.crawl.fetch import Fetcher

        async def get():
            async with Fetcher(settings) as fetcher:
                return await fetcher.fetch(args.source)

        page = asyncio.run(get())
        if not (page.ok and page.status == 200):
            print(
                f"ingest: could not fetch {args.source}: {page.error or f'HTTP {page.status}'} {page.detail}".rstrip(),
                file=sys.stderr,
            )
            if page.error == "private":
                print(
                    "ingest: to read a page on this machine or a private network, set SITEKB_ALLOW_PRIVATE_HOSTS=true "
                    "(or give the saved file's path)",
                    file=sys.stderr,
                )
            return EXIT_PROBLEM
        body, url = page.body, page.final_url
    else:
        from ingest.crawl.fetch import NotAPage, read_html_file

        path = Path(args.source)
        try:
            body = read_html_file(path, settings.max_body_bytes)
        except OSError as exc:
            print(f"ingest: cannot read {path}: {exc.strerror or exc}", file=sys.stderr)
            return EXIT_PROBLEM
        except NotAPage as exc:
            print(f"ingest: {exc}", file=sys.stderr)
            return EXIT_PROBLEM
        url = args.url or path.resolve().as_uri()
    doc = parse_html(body, url)
    print(doc.markdown if args.format == "markdown" else markdown_to_text(doc.markdown))
    return EXIT_OK


def _server(settings, quiet: bool = False):
    """The `ingest serve` that owns this data folder, if one runs: work goes to it."""
    from ingest.ops.jobs import find_server

    link = find_server(settings)
    if link is not None and not quiet:
        print(f"ingest: handing the job to the server at {link.url}, which owns {settings.data_dir}", file=sys.stderr)
        if link.not_shared:  # the server reads its own settings for each job, not this shell's
            print(
                f"ingest: the server runs it with its own settings: {', '.join(link.not_shared)} as set here "
                "do not apply (set them where the server runs, or stop it)",
                file=sys.stderr,
            )
    return link


def _run_due_round() -> list[dict]:
    """One round of due refreshes, run by the server if one owns the data folder."""
    from ingest.ops.schedule import run_due
    from ingest.pipeline import run

    link = _server(load_settings())
    if link is None:
        return run_due(load_settings, run)
    try:
        return link.resync_due()
    finally:
        link.close()


def _resync(args) -> int:
    settings = load_settings()
    if settings.database_url:
        from ingest.ops.queue import QueueJobs, enqueue_due

        queued = enqueue_due(settings)
        jobs = QueueJobs(settings)
        try:
            alive = jobs.workers_alive(settings.worker_stalled_s)
        finally:
            jobs.close()
        if queued and not alive:
            print("ingest: no worker is running: start one with `ingest worker` to run them", file=sys.stderr)
        if args.json:
            print(json.dumps(queued, indent=2, ensure_ascii=False))
        else:
            print("nothing due" if not queued else f"queued {len(queued)} refreshes for the workers")
            for q in queued:
                print(f"{q['business']} ({q['site']}): job {q['job']}, {q['reason']}")
        return EXIT_OK

    outcomes = _run_due_round()
    if args.json:
        print(json.dumps(outcomes, indent=2, ensure_ascii=False))
    else:
        if not outcomes:
            print("nothing due")
        for o in outcomes:
            outcome = o["problem"] or o["error_kind"] or "ok"
            print(
                f"{o['business']} ({o['site']}): {outcome}; {o['chunks']['added']} added, "
                f"{o['chunks']['deleted']} deleted, {o['embedding']['calls']} embedding calls"
            )
    stopped = any(o["error_kind"] == "BreakerOpen" for o in outcomes)
    return EXIT_INTERNAL if stopped else EXIT_OK


def _scheduler(args) -> int:
    import signal
    import threading

    from ingest.ops.schedule import scheduler

    if args.interval <= 0:
        print("ingest: --interval must be positive", file=sys.stderr)
        return EXIT_PROBLEM
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    print(f"scheduler: refreshing due sources every {args.interval:.0f}s; SIGTERM stops it", file=sys.stderr)

    def report_round(outcomes: list[dict]) -> None:
        for o in outcomes:
            keys = (
                ("business", "site", "job", "reason")
                if "job" in o
                else ("business", "site", "problem", "error", "seconds")
            )
            print(json.dumps({k: o[k] for k in keys}), flush=True)

    def one_round() -> list[dict]:
        settings = load_settings()
        if settings.database_url:  # the workers run the refreshes; the scheduler only queues them
            from ingest.ops.queue import enqueue_due

            return enqueue_due(settings)
        return _run_due_round()

    scheduler(one_round, args.interval, stop, on_round=report_round)
    return EXIT_OK


def _brief(args, settings) -> int:
    from urllib.parse import urlsplit

    from ingest.brief import BriefReport, build_brief, write_brief
    from ingest.crawl.intake import homepage_candidates
    from ingest.crawl.urls import site_host
    from ingest.ops.guard import BudgetExceeded, SpendGuard, UsageExhausted
    from ingest.problems import SiteProblem

    try:
        business = args.business or site_host(urlsplit(homepage_candidates(args.site)[0]).hostname or args.site)
    except SiteProblem as problem:
        if args.json:  # the JSON says what stderr says, whatever stage found the problem
            print(BriefReport(site=args.site, problem=problem.kind, message=problem.message).model_dump_json(indent=2))
        print(f"ingest: {problem.kind}: {problem.message}", file=sys.stderr)
        return EXIT_PROBLEM
    if args.write and settings.openai_api_key is None:
        print(
            "ingest: --write needs a model to write the brief: set OPENAI_API_KEY (or run without --write "
            "to see the pages and sitemap summary the model would read)",
            file=sys.stderr,
        )
        return EXIT_PROBLEM
    guard = SpendGuard(settings)
    try:
        try:
            runs_left = guard.brief_runs_left(business)
        except UsageExhausted as exc:
            print(f"ingest: {exc}", file=sys.stderr)
            return EXIT_PROBLEM
        report = build_brief(args.site, settings)
        if report.problem is None:
            guard.record_brief_run(business)
            report.runs_left_this_month = runs_left - 1
            if args.write:
                try:
                    report.brief, _, report.spend_usd = write_brief(report, settings, guard, business)
                except BudgetExceeded as exc:
                    print(f"ingest: the brief was not written: {exc}", file=sys.stderr)
                    return EXIT_PROBLEM
    finally:
        guard.close()
    if args.json:
        print(report.model_dump_json(indent=2))
    elif report.problem is None:
        print(f"{report.site}: {len(report.pages)} pages read, logo {report.logo or 'not found'}")
        for page in report.pages:
            print(f"  {page.kind:9} {page.chars:5} chars  {page.url}")
        sections = ", ".join(f"{s.section} {s.urls}" for s in report.sitemap.sections[:10])
        print(f"  sitemap: {report.sitemap.total_urls} URLs; biggest sections: {sections or 'none'}")
        print(f"  brief runs left this month: {report.runs_left_this_month}")
        if report.brief:
            print(f"\n{report.brief}\n\n(written for ${report.spend_usd:.4f})")
    if report.problem:
        print(f"ingest: {report.problem}: {report.message}", file=sys.stderr)
        return EXIT_PROBLEM
    return EXIT_OK


def _serve(args, settings) -> int:
    import uvicorn

    from ingest.server import create_server_app

    if not 0 < args.port < 65536:
        print("ingest: --port must be between 1 and 65535", file=sys.stderr)
        return EXIT_PROBLEM
    if settings.database_url:
        # Several API processes may serve one database; it must answer before uvicorn starts.
        from ingest.kb.db import connect

        connect(settings.database_url).close()
    else:
        link = _server(settings, quiet=True)
        if link is not None:
            link.close()
            print(f"ingest: a server at {link.url} already owns {settings.data_dir}; stop it first", file=sys.stderr)
            return EXIT_PROBLEM
    taken = _port_taken(args.host, args.port)
    if taken:
        print(f"ingest: cannot listen on {args.host}:{args.port}: {taken}", file=sys.stderr)
        return EXIT_PROBLEM
    host = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
    url = f"http://{'[' + host + ']' if ':' in host else host}:{args.port}"
    jobs = (
        "ingestion jobs go to the queue in the database, and `ingest worker` processes run them"
        if settings.database_url
        else f"ingestion jobs for {settings.data_dir} run here while it runs"
    )
    print(
        f"retrieval API on http://{args.host}:{args.port} (OpenAPI at /docs); {jobs}; Ctrl-C stops it", file=sys.stderr
    )
    uvicorn.run(
        create_server_app(settings, announce_url=url, load=load_settings),
        host=args.host,
        port=args.port,
        log_level="warning",
    )
    return EXIT_OK


def _port_taken(host: str, port: int) -> str | None:
    """Why the API could not listen on host:port and what to do (another program has it,
    or the address is not this machine's), or None: said before the server announces
    itself, where uvicorn would print its address and only then fail to bind."""
    import socket

    try:
        family = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
            if family == socket.AF_INET6:  # "::" is IPv6 only there, beside an IPv4 listener
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind((host, port))
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            return "the port is in use by another program; choose another with --port"
        hint = "choose another with --port" if exc.errno in (errno.EACCES, errno.EPERM) else "check --host"
        return f"{exc.strerror or exc}; {hint}"
    return None


def _worker(args, settings) -> int:
    from ingest.ops.queue import run_worker
    from ingest.pipeline import run

    print(
        f"worker{' ' + args.name if args.name else ''}: taking jobs from the queue in {redact_dsn(settings.database_url)}"
        f"{' until it is empty' if args.once else '; SIGTERM stops it after the job in hand'}",
        file=sys.stderr,
    )
    run_worker(settings, run, name=args.name, once=args.once)
    return EXIT_OK


def _keys(args, settings) -> int:
    state = StateStore(settings.state_location)
    try:
        if args.keys_command == "create":
            try:
                key_id, secret = state.keys.create(args.business, args.label)
            except LookupError as exc:
                print(f"ingest: {exc}", file=sys.stderr)
                return EXIT_PROBLEM
            print(secret)
            print(
                f"Created {key_id} for {args.business}. Keep the key now: it is stored only as a hash and "
                "cannot be shown again.",
                file=sys.stderr,
            )
        elif args.keys_command == "list":
            for key in state.keys.of(args.business):
                revoked = " (revoked)" if key.revoked_at else ""
                label = f"  {key.label}" if key.label else ""
                print(f"{key.id}  {key.business}{label}{revoked}")
        else:
            owned = {k.id for k in state.keys.of(args.business)}
            if args.key_id not in owned or not state.keys.revoke(args.key_id):
                print(f"ingest: no active key {args.key_id!r} for business {args.business!r}", file=sys.stderr)
                return EXIT_PROBLEM
            print(f"revoked {args.key_id}")
        return EXIT_OK
    finally:
        state.close()


if __name__ == "__main__":
    sys.exit(main())
