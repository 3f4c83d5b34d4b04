#!/usr/bin/env python3
"""Retrieval quality per site and per language: hit@1, hit@5 and MRR for dense-only,
lexical-only and hybrid search, and how well `answerable` flags the questions a site
does not answer, over the callers' question sets in scripts/questions/<site>.json.

    .venv/bin/python scripts/bench_retrieval.py [--sites handbook xhain demo]
        [--models e5-small use-m3 minilm] [--keep DIR] [--json]

Each site is served on 127.0.0.1 and ingested on the embedded defaults with each local
model into a temporary data folder (or DIR/<model>, reused when it exists); then every
question is asked in every mode. A hit counts when a passage within the first k comes
from one of the question's expected pages. Where a question gives an `answer_snippet`
(a string, or a list of its wordings), "answer in passage" counts the hybrid rank of the
first passage holding it: a page can rank first with the passage that answers further
down, and the contact card's passage answers for its page. A question with no expected page is one the
site does not answer: abstention precision is the share of `answerable: false` answers
that were such questions, recall the share of such questions flagged.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from serve_site import StaticSite  # noqa: E402

MODES = ("dense", "lexical", "hybrid")
CORPORA = REPO.parent / "shared" / "corpora" / "sites"
SITES = {
    # name: (folder, production hosts rewritten to the local server)
    "handbook": (CORPORA / "handbook", ("23people.io",)),
    "xhain": (CORPORA / "xhain", ("x-hain.de",)),
    "demo": (REPO / "scripts" / "demo_site", ("www.harbourlight.example", "harbourlight.example")),
    # Written for evaluation by someone who never saw the code (scripts/answer_sites/).
    "dentist": (REPO / "scripts" / "answer_sites" / "dentist", ("www.gulumsedis.example",)),
    "tapas": (REPO / "scripts" / "answer_sites" / "tapas", ("www.lataberna-sevilla.example",)),
    # Built for newcomer trials, small, with shorter question sets (20-25, 5 unanswerable).
    "bakery": (REPO / "scripts" / "answer_sites" / "bakery", ("www.sonnenkorn.example",)),
    "bistro": (REPO / "scripts" / "answer_sites" / "bistro", ("www.bistro-lumiere.example",)),
    "plumber": (REPO / "scripts" / "answer_sites" / "plumber", ()),
    "pizzeria": (REPO / "scripts" / "answer_sites" / "pizzeria", ()),
    # Built by helpers that never read the code, for newcomer trials (24 questions, 5 unanswerable).
    "bikeshop": (REPO / "scripts" / "answer_sites" / "bikeshop", ("www.fietsmakerij-utrecht.example",)),
    "guesthouse": (REPO / "scripts" / "answer_sites" / "guesthouse", ("www.casadaalfama.example",)),
    # Built in newcomer trials, with the trial callers' questions (20 and 25, 5 unanswerable).
    "physio": (REPO / "scripts" / "answer_sites" / "physio", ("www.physio-naschmarkt.example",)),
    "optician": (REPO / "scripts" / "answer_sites" / "optician", ("www.optique-perrottet.ch",)),
    # Built in a newcomer trial: a Korean clinic with en/ja/zh pages, the trial caller's questions (24, 5 unanswerable).
    "clinic": (REPO / "scripts" / "answer_sites" / "clinic", ("www.cheongyeon.co.kr",)),
    # Built in a newcomer trial: a Japanese sweets shop (WordPress markup, en pages), the trial caller's questions (24, 5 unanswerable).
    "sweets": (REPO / "scripts" / "answer_sites" / "sweets", ("www.yuzuriha-yanaka.jp",)),
    # Built in newcomer trials: a Naxos hotel-taverna (Elementor, el with shorter en pages;
    # 24 questions, 5 unanswerable) and a Kraków car workshop (pl with one en page; 16, 4).
    "hotel": (REPO / "scripts" / "answer_sites" / "hotel", ("www.akrogiali-naxos.gr",)),
    "workshop": (REPO / "scripts" / "answer_sites" / "workshop", ("www.autoserwis-kowalczyk.pl",)),
    # Built by helpers that never read the code, held out while asked-kind ranking was written
    # (26 questions each, 4 unanswerable): a Curitiba vet on Elementor (pt/en), a Brno yoga
    # studio on Webnode (cs/en), a Portland dog groomer on Squarespace (en with one es page).
    "vet": (REPO / "scripts" / "answer_sites" / "vet", ("www.clinicaveterinariaaraucaria.example",)),
    "yoga": (REPO / "scripts" / "answer_sites" / "yoga", ("www.jogalotus-brno.example",)),
    "groomer": (REPO / "scripts" / "answer_sites" / "groomer", ("www.muddypawsgrooming.example",)),
    # Built by helpers that never read the code, in languages no site here had, for trials
    # (30-37 questions, 5-7 unanswerable), then read and tuned on: a Cluj car rental (ro,
    # en pages), a Tampere sauna (fi, three en pages), a Szeged salon (hu, three en
    # pages), an Uppsala driving school (sv, three en pages), a Hội An tailor (vi, four en
    # pages), a Ubud scooter rental (id, five en pages), a Lviv dental clinic (uk, four en pages).
    "carrental": (REPO / "scripts" / "answer_sites" / "carrental", ("www.autorent-somes.ro",)),
    "sauna": (REPO / "scripts" / "answer_sites" / "sauna", ("www.saunakaisla.fi",)),
    "salon": (REPO / "scripts" / "answer_sites" / "salon", ("www.vadrozsaszalon.hu",)),
    "drivingschool": (REPO / "scripts" / "answer_sites" / "drivingschool", ("www.lindqviststrafikskola.se",)),
    "tailor": (REPO / "scripts" / "answer_sites" / "tailor", ("www.camvantailor.vn",)),
    "scooters": (REPO / "scripts" / "answer_sites" / "scooters", ("www.wayanjayarental.co.id",)),
    "lvivdental": (REPO / "scripts" / "answer_sites" / "lvivdental", ("www.koval-dent.com.ua",)),
    # The twelfth round's, as the seven above: a Taipei physio (zh-Hant, four en pages), a
    # Chiang Mai massage house (th, five en pages), an Amman garage (ar, right to left, four
    # en pages), a Brač apartment and boat-trip office (hr, five en pages).
    "rehab": (REPO / "scripts" / "answer_sites" / "rehab", ("www.kangfu-taipei.example",)),
    "massage": (REPO / "scripts" / "answer_sites" / "massage", ("www.baanmassage-cm.example",)),
    "garage": (REPO / "scripts" / "answer_sites" / "garage", ("www.alnoor-garage.example",)),
    "apartments": (REPO / "scripts" / "answer_sites" / "apartments", ("www.apartmani-supetar.example",)),
    # The thirteenth round's, as the four above: a Tel Aviv bike shop (he, right to left, five
    # en pages), a Kazan dental clinic (ru, five en pages), an Aarhus café and B&B (da, five en pages).
    "cycles": (REPO / "scripts" / "answer_sites" / "cycles", ("www.ofanaim-tlv.example",)),
    "kazandental": (REPO / "scripts" / "answer_sites" / "kazandental", ("www.zubnaya-liniya.example",)),
    "cafe": (REPO / "scripts" / "answer_sites" / "cafe", ("www.bageriet-frederiksbjerg.example",)),
    # and the round's last held-out site, measured once after its changes: a Haifa dairy
    # restaurant with catering and a cooking workshop (he, five en pages).
    "kitchen": (REPO / "scripts" / "answer_sites" / "kitchen", ("www.beit-hashef-haifa.example",)),
    # The fourteenth round's, each measured once as it came, then read and tuned on: a Bergen
    # salon (nb), a Košice vet (sk), a Veliko Tarnovo guesthouse (bg), a Shiraz dental clinic
    # (fa, right to left, Persian digits), and the round's last held-out site, an Isfahan
    # bakery-café (fa); five en pages each, dated news posts with last year's hours and prices.
    "frisor": (REPO / "scripts" / "answer_sites" / "frisor", ("www.frisor-bryggen.example",)),
    "veterina": (REPO / "scripts" / "answer_sites" / "veterina", ("www.veterina-kosice.example",)),
    "kashta": (REPO / "scripts" / "answer_sites" / "kashta", ("www.kashta-tsarevets.example",)),
    "dandan": (REPO / "scripts" / "answer_sites" / "dandan", ("www.dandanpezeshki-shiraz.example",)),
    "nanvai": (REPO / "scripts" / "answer_sites" / "nanvai", ("www.nanvai-isfahan.example",)),
    # and a Lyon hair salon (fr, three en pages; 20 questions, 3 unanswerable) written for the
    # round's newcomer trial, whose weekday questions each meet a news post naming the day.
    "coiffure": (REPO / "scripts" / "answer_sites" / "coiffure", ("www.salon-croix-rousse.example",)),
    # The fifteenth round's, in languages no site here had (26 questions each, 4 unanswerable):
    # a Gràcia bike shop (ca with es and en pages) and a Ljubljana dental practice (sl, en
    # pages), read and tuned on; a Girona restaurant (ca, es, en, fr) and a Bled guesthouse
    # (sl, en, de), held out to the round's end and measured once.
    "fuster": (REPO / "scripts" / "answer_sites" / "fuster", ("www.bicisfuster.example",)),
    "zobozdravnik": (REPO / "scripts" / "answer_sites" / "zobozdravnik", ("www.zobna-kos.example",)),
    "girona": (REPO / "scripts" / "answer_sites" / "girona", ("www.calferrer-girona.example",)),
    "penzion": (REPO / "scripts" / "answer_sites" / "penzion", ("www.penzionlipa-bled.example",)),
}


def metrics(ranks: list[int | None]) -> dict:
    n = len(ranks)
    return {
        "questions": n,
        "hit@1": round(sum(r == 1 for r in ranks) / n, 3),
        "hit@5": round(sum(r is not None and r <= 5 for r in ranks) / n, 3),
        "mrr": round(sum(1 / r for r in ranks if r) / n, 3),
    }


def abstention(rows: list[tuple[bool, bool]]) -> dict:
    """rows: (the site answers it, search said answerable)."""
    flagged = [answers for answers, said in rows if not said]
    unanswerable = [said for answers, said in rows if not answers]
    answerable = [said for answers, said in rows if answers]
    return {
        "unanswerable": len(unanswerable),
        "precision": round(sum(not a for a in flagged) / len(flagged), 3) if flagged else None,
        "recall": round(sum(not s for s in unanswerable) / len(unanswerable), 3) if unanswerable else None,
        "answerable_flagged": round(sum(not s for s in answerable) / len(answerable), 3) if answerable else None,
    }


# With --keep each site is served on its own fixed port: a site re-ingested into a kept
# folder (its .ingested-<site> marker removed) is then resynced as the same source. On a
# new port it was a second source of the business, beside the first one's passages.
KEPT_PORT_BASE = 18700


def ingest(site: str, model: str, data_dir: Path, port: int = 0) -> dict:
    """Ingests `site` into data_dir with `model` unless it is already there."""
    os.environ.update(
        SITEKB_DATA_DIR=str(data_dir), SITEKB_ALLOW_PRIVATE_HOSTS="true", SITEKB_LOCAL_MODEL=model, HF_HUB_OFFLINE="1"
    )
    os.environ.pop("OPENAI_API_KEY", None)
    from ingest.pipeline import run
    from ingest.settings import load_settings

    settings = load_settings()
    marker = data_dir / f".ingested-{site}"
    if marker.exists():
        return json.loads(marker.read_text())
    folder, hosts = SITES[site]
    with StaticSite(str(folder), rewrite_hosts=hosts, port=port) as served:
        started = time.monotonic()
        report = run(served.base + "/", settings, business=site)
        seconds = time.monotonic() - started
    info = {"chunks": report.chunks.total, "embedder": report.embedding.model, "ingest_s": round(seconds, 1)}
    marker.write_text(json.dumps(info))
    return info


_DASHES = str.maketrans({"–": "-", "—": "-", "‑": "-", "−": "-", "\u00a0": " ", "\u202f": " "})


def _plain(text: str) -> str:
    """Text as a snippet is compared with it: case, spaces, dashes, emphasis marks and
    table cells' borders folded (a snippet copies a row as the page shows it, "Zirconia
    crown (per tooth) €250", the passage holds "| Zirconia crown (per tooth) | €250 |")."""
    text = re.sub(r"\\(?=[^\w\s])", "", text.translate(_DASHES)).replace("**", "")  # Markdown's "\<", "\_"
    return " ".join(text.replace("|", " ").casefold().split())


def answer_rank(texts: list[str], snippet: str | list[str]) -> int | None:
    """The rank of the first passage holding the answer (any of the snippets)."""
    wanted = [_plain(s) for s in ([snippet] if isinstance(snippet, str) else snippet) if s]
    return next((i + 1 for i, t in enumerate(texts) if any(w in _plain(t) for w in wanted)), None)


def ask(site: str, questions: list[dict]) -> dict:
    from ingest.settings import load_settings
    from retrieval.search import Searcher

    ranks: dict[str, dict[str, list]] = {m: {"all": []} for m in MODES}
    answered: dict[str, list] = {"all": []}  # hybrid: the rank of the first passage holding the answer
    misses: list[dict] = []
    said: dict[str, list] = {"all": []}
    query_ms: list[float] = []
    with Searcher(load_settings()) as searcher:
        for q in questions:
            for mode in MODES:
                started = time.perf_counter()
                answer = searcher.answer(site, q["question"], 10, mode=mode)
                if mode == "hybrid":
                    query_ms.append((time.perf_counter() - started) * 1000)
                    for group in ("all", q["lang"]):
                        said.setdefault(group, []).append((bool(q["expected"]), answer.answerable))
                if not q["expected"]:
                    continue
                paths = [urlsplit(h.url).path for h in answer.hits]
                rank = next((i + 1 for i, p in enumerate(paths) if p in q["expected"]), None)
                for group in ("all", q["lang"]):
                    ranks[mode].setdefault(group, []).append(rank)
                if mode == "hybrid" and q.get("answer_snippet"):
                    found = answer_rank([h.text for h in answer.hits], q["answer_snippet"])
                    for group in ("all", q["lang"]):
                        answered.setdefault(group, []).append(found)
                if mode == "hybrid" and (rank is None or rank > 5):
                    misses.append(
                        {"id": q["id"], "question": q["question"], "expected": q["expected"], "got": paths[:3]}
                    )
    query_ms.sort()
    return {
        "metrics": {m: {g: metrics(r) for g, r in by.items() if r} for m, by in ranks.items()},
        "abstention": {g: abstention(rows) for g, rows in said.items()},
        # passages, not pages: the contact card's passage answers "what's your number?" for its page
        "answer_in_passage": {
            g: {
                "questions": len(r),
                "at1": round(sum(x == 1 for x in r) / len(r), 3),
                "at5": round(sum(x is not None and x <= 5 for x in r) / len(r), 3),
            }
            for g, r in answered.items()
            if r
        },
        "query_ms_p50": round(query_ms[len(query_ms) // 2], 1),
        "misses_at_5": misses,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", nargs="*", default=list(SITES))
    parser.add_argument("--models", nargs="*", default=None, help="local models (default: the configured one)")
    parser.add_argument(
        "--keep",
        help="keep each model's data folder under DIR and reuse it next time (remove DIR/<model>/.ingested-<site> "
        f"to resync that site; sites are then served on fixed ports from {KEPT_PORT_BASE})",
    )
    parser.add_argument("--questions", default=str(REPO / "scripts" / "questions"), help="folder of <site>.json")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    from ingest.settings import load_settings

    models = args.models or [load_settings().local_model]
    results = []
    for model in models:
        data_dir = Path(args.keep) / model if args.keep else Path(tempfile.mkdtemp(prefix=f"sitekb-retrieval-{model}-"))
        data_dir.mkdir(parents=True, exist_ok=True)
        for site in args.sites:
            folder, _ = SITES[site]
            questions_file = Path(args.questions) / f"{site}.json"
            if not folder.exists() or not questions_file.exists():
                print(
                    f"note: {site} skipped: {folder if not folder.exists() else questions_file} is missing",
                    file=sys.stderr,
                )
                continue
            port = KEPT_PORT_BASE + list(SITES).index(site) if args.keep else 0
            info = ingest(site, model, data_dir, port)
            questions = json.loads(questions_file.read_text(encoding="utf-8"))
            results.append({"site": site, "model": model, **info, **ask(site, questions)})
    if args.json:
        print(json.dumps(results, indent=1, ensure_ascii=False))
        return
    for r in results:
        print(
            f"\n{r['site']} · {r['model']} · {r['chunks']} chunks · ingest {r['ingest_s']} s · query p50 {r['query_ms_p50']} ms"
        )
        for mode in MODES:
            cells = "  ".join(
                f"{g} {m['hit@1']:.2f}/{m['hit@5']:.2f}/{m['mrr']:.2f} (n={m['questions']})"
                for g, m in r["metrics"][mode].items()
            )
            print(f"  {mode:8} hit@1/hit@5/MRR  {cells}")
        if r["answer_in_passage"]:
            cells = "  ".join(
                f"{g} {m['at1']:.2f}/{m['at5']:.2f} (n={m['questions']})" for g, m in r["answer_in_passage"].items()
            )
            print(f"  answer in passage @1/@5  {cells}")
        a = r["abstention"]["all"]
        print(
            f"  abstention: {a['unanswerable']} unanswerable, precision {a['precision']}, recall {a['recall']}, "
            f"answerable flagged {a['answerable_flagged']}"
        )
        for miss in r["misses_at_5"]:
            print(f"  miss #{miss['id']}: {miss['question']}  expected {miss['expected'][0]}  got {miss['got'][:2]}")


if __name__ == "__main__":
    main()
