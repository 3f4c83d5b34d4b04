"""Synthetic business websites, each with one mistake real sites make with the signals
a crawler is taught to obey (canonical links, clean URLs, path prefixes, sitemaps built
with the wrong host, meta refresh stubs, hreflang, noindex).

    build_site("canonical-home", folder) -> Quirk

Each site is written as static files (served by `serve_site.py` in tests and by
`bench_sites.py`), with pages of their own text, so that losing or merging a page by
mistake shows. Absolute URLs in the files name `https://www.quirk.example`; serve with
`rewrite_hosts=("www.quirk.example",)`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

HOST = "https://www.quirk.example"
# Hugo's default base URL: sites built without setting theirs list it in their sitemaps.
OTHER_HOST = "http://localhost:1313"

_EN = [
    "We repair {t} for homes and small offices across the city.",
    "Our {t} team answers the phone from eight in the morning until six in the evening.",
    "A standard {t} visit costs {n} euros, travel within the ring road included.",
    "Customers ask us about {t} warranties: every part we fit is covered for {n} months.",
    "For {t} we keep spare parts from {n} manufacturers in our own workshop.",
    "Book a {t} appointment online or call us; we confirm within {n} hours.",
    "Since {n} we have trained apprentices in {t}, and many of them still work with us.",
    "The {t} service includes a written report with photographs of every step.",
]
_DE = [
    "Wir reparieren {t} für Wohnungen und kleine Büros in der ganzen Stadt.",
    "Unser {t}-Team ist telefonisch von acht bis achtzehn Uhr erreichbar.",
    "Ein normaler {t}-Termin kostet {n} Euro, Anfahrt innerhalb des Rings inklusive.",
    "Kundinnen fragen oft nach der Garantie für {t}: jedes Teil hat {n} Monate Gewährleistung.",
    "Für {t} lagern wir Ersatzteile von {n} Herstellern in unserer Werkstatt.",
    "Termine für {t} buchen Sie online oder telefonisch; wir bestätigen in {n} Stunden.",
    "Seit {n} bilden wir im Bereich {t} aus, viele Azubis sind geblieben.",
    "Zum {t}-Service gehört ein schriftlicher Bericht mit Fotos jedes Arbeitsschritts.",
]
TOPICS_EN = [
    "boiler",
    "heating",
    "plumbing",
    "ventilation",
    "solar panels",
    "heat pumps",
    "radiators",
    "water heaters",
    "underfloor heating",
    "gas lines",
    "air conditioning",
    "thermostats",
    "chimneys",
    "bathroom fittings",
    "leak detection",
    "pipe insulation",
    "water softeners",
    "pumps",
]
TOPICS_DE = [
    "Heizkessel",
    "Heizung",
    "Sanitär",
    "Lüftung",
    "Solaranlagen",
    "Wärmepumpen",
    "Heizkörper",
    "Warmwasserbereiter",
    "Fußbodenheizung",
    "Gasleitungen",
    "Klimaanlagen",
    "Thermostate",
    "Schornsteine",
    "Badarmaturen",
    "Leckortung",
    "Rohrdämmung",
    "Enthärtungsanlagen",
    "Pumpen",
]


@dataclass(frozen=True)
class Quirk:
    """A built site: where to start the crawl (a path on the server), which folder holds
    the site's own pages, and what the quirk is."""

    name: str
    start: str
    folder: str
    about: str


def prose(topic: str, seed: int, lang: str = "en", sentences: int = 6) -> str:
    """A paragraph of its own about `topic` (seeded, so a page says the same on every build)."""
    rng = random.Random(f"{topic}-{seed}-{lang}")
    lines = rng.sample(_DE if lang == "de" else _EN, sentences)
    return " ".join(line.format(t=topic, n=rng.randint(2, 2024)) for line in lines)


def page(title: str, body: str, *, lang: str = "en", head: str = "", nav: tuple[str, ...] = ()) -> str:
    links = "".join(f'<li><a href="{href}">{href.strip("/") or "Home"}</a></li>' for href in nav)
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{title} | Quirk Heating</title>'
        f"{head}</head><body><header><nav><ul>{links}</ul></nav></header><main><h1>{title}</h1>{body}</main>"
        f"<footer><p>Quirk Heating GmbH, Ringstraße 5, 10115 Berlin. Phone +49 30 1234567.</p></footer>"
        f"</body></html>"
    )


def _write(root: Path, path: str, text: str) -> None:
    target = root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def _sitemap(urls: list[str]) -> str:
    entries = "".join(f"<url><loc>{u}</loc></url>" for u in urls)
    return f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>'


def _paragraphs(topic: str, seed: int, lang: str = "en") -> str:
    return "".join(f"<p>{prose(topic, seed * 10 + i, lang)}</p>" for i in range(3))


def canonical_home(root: Path) -> Quirk:
    """A bilingual site whose template points every page's canonical link at the homepage,
    plus one true duplicate (a print version whose canonical is right)."""
    pages_en = [f"/en/{t.replace(' ', '-')}/" for t in TOPICS_EN]
    pages_de = [f"/de/{t.lower()}/" for t in TOPICS_DE]
    nav = ("/", "/en/", "/de/")
    bad = f'<link rel="canonical" href="{HOST}/">'
    _write(
        root,
        "index.html",
        page(
            "Quirk Heating",
            _paragraphs("heating service", 0) + "".join(f'<a href="{p}">{p}</a> ' for p in pages_en),
            head=f'<link rel="canonical" href="{HOST}/">',
            nav=nav,
        ),
    )
    _write(root, "en/index.html", page("Services", _paragraphs("service overview", 1), head=bad, nav=nav))
    _write(
        root,
        "de/index.html",
        page("Leistungen", _paragraphs("Leistungsübersicht", 1, "de"), lang="de", head=bad, nav=nav),
    )
    for i, (path, topic) in enumerate(zip(pages_en, TOPICS_EN)):
        _write(root, path + "index.html", page(topic.title(), _paragraphs(topic, i), head=bad, nav=nav))
    for i, (path, topic) in enumerate(zip(pages_de, TOPICS_DE)):
        _write(root, path + "index.html", page(topic, _paragraphs(topic, i, "de"), lang="de", head=bad, nav=nav))
    body = _paragraphs(TOPICS_EN[0], 0)
    _write(
        root,
        "print/boiler/index.html",
        page(TOPICS_EN[0].title(), body, head=f'<link rel="canonical" href="{HOST}{pages_en[0]}">'),
    )
    _write(
        root,
        "sitemap.xml",
        _sitemap([f"{HOST}{p}" for p in ["/", "/en/", "/de/", *pages_en, *pages_de, "/print/boiler/"]]),
    )
    return Quirk("canonical-home", "/", "", "canonical links of 38 of 40 pages point to the homepage")


def clean_urls(root: Path) -> Quirk:
    """Pages served from `name.html` at `/name`; links spell each page three ways."""
    names = ["catalogo", "precios", "contacto", "horarios", "garantia", "envios"]
    spell = ["/{n}", "/{n}.html", "/{n}/"]
    nav = tuple(spell[i % 3].format(n=n) for i, n in enumerate(names))
    other = tuple(spell[(i + 1) % 3].format(n=n) for i, n in enumerate(names))
    _write(root, "index.html", page("Inicio", _paragraphs("inicio", 0), nav=("/", *nav)))
    for i, name in enumerate(names):
        _write(
            root,
            f"{name}.html",
            page(name.title(), _paragraphs(name, i + 1) + '<a href="precios.html">precios</a>', nav=("/", *other)),
        )
    return Quirk("clean-urls", "/", "", "/x served from x.html; links use /x, /x.html and /x/")


def trailing_slash(root: Path) -> Quirk:
    """Folders served at /x/; canonical and hreflang links spell them without the slash (301)."""
    nav = ("/", "/about/", "/prices/", "/de/", "/de/ueber-uns/", "/de/preise/")
    en = {"about": "about", "prices": "prices"}
    de = {"ueber-uns": "about", "preise": "prices"}
    _write(
        root,
        "index.html",
        page(
            "Home",
            _paragraphs("home", 0),
            nav=nav,
            head=f'<link rel="canonical" href="{HOST}"><link rel="alternate" hreflang="de" href="{HOST}/de">',
        ),
    )
    _write(
        root,
        "de/index.html",
        page(
            "Start",
            _paragraphs("Start", 0, "de"),
            lang="de",
            nav=nav,
            head=f'<link rel="canonical" href="{HOST}/de"><link rel="alternate" hreflang="en" href="{HOST}">',
        ),
    )
    for i, (slug, twin) in enumerate(en.items()):
        other = next(k for k, v in de.items() if v == twin)
        _write(
            root,
            f"{slug}/index.html",
            page(
                slug.title(),
                _paragraphs(slug, i + 1),
                nav=nav,
                head=f'<link rel="canonical" href="{HOST}/{slug}">'
                f'<link rel="alternate" hreflang="de" href="{HOST}/de/{other}">',
            ),
        )
        _write(
            root,
            f"de/{other}/index.html",
            page(
                other.title(),
                _paragraphs(other, i + 1, "de"),
                lang="de",
                nav=nav,
                head=f'<link rel="canonical" href="{HOST}/de/{other}">'
                f'<link rel="alternate" hreflang="en" href="{HOST}/{slug}">',
            ),
        )
    return Quirk("trailing-slash", "/", "", "canonical and hreflang URLs without the slash the server redirects to")


def path_prefix(root: Path) -> Quirk:
    """A shop published under /shop/ on a host whose root is another site (a user page)."""
    _write(
        root, "index.html", page("Someone's homepage", _paragraphs("personal blog", 0), nav=("/", "/blog/", "/shop/"))
    )
    _write(root, "blog/index.html", page("Blog", _paragraphs("holiday photos", 1), nav=("/",)))
    items = ["kettles", "toasters", "grinders", "scales", "timers"]
    nav = ("/shop/", *(f"/shop/{item}/" for item in items), "/")
    _write(root, "shop/index.html", page("Shop", _paragraphs("kitchen shop", 2), nav=nav))
    for i, item in enumerate(items):
        _write(root, f"shop/{item}/index.html", page(item.title(), _paragraphs(item, i + 3), nav=nav))
    _write(root, "shop/sitemap.xml", _sitemap([f"{HOST}/shop/{p}" for p in ["", *(f"{i}/" for i in items)]]))
    return Quirk("path-prefix", "/shop/", "shop", "the site is published under /shop/ on a shared host")


def sitemap_other_host(root: Path) -> Quirk:
    """The homepage links to one page; the sitemap index lists them all on another host."""
    names = ["installation", "maintenance", "emergency", "financing", "careers-in-heating", "references"]
    _write(root, "index.html", page("Home", _paragraphs("home", 0), nav=("/", "/installation/")))
    for i, name in enumerate(names):
        _write(root, f"{name}/index.html", page(name.title(), _paragraphs(name, i + 1), nav=("/",)))
    _write(
        root,
        "sitemap.xml",
        '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/'
        f'sitemap/0.9"><sitemap><loc>{OTHER_HOST}/pages-sitemap.xml</loc></sitemap>'
        "</sitemapindex>",
    )
    _write(root, "pages-sitemap.xml", _sitemap([f"{OTHER_HOST}/{n}/" for n in names]))
    return Quirk("sitemap-other-host", "/", "", "the sitemap index and its sitemap name localhost:1313")


def refresh_stubs(root: Path) -> Quirk:
    """The homepage and an old address are meta refresh stubs; one stub leaves the site."""
    stub = '<meta http-equiv="refresh" content="0; url={0}">'
    _write(
        root,
        "index.html",
        f'<html><head><title>{HOST}/en/</title><link rel="canonical" href="{HOST}/en/">'
        f"{stub.format(HOST + '/en/')}</head></html>",
    )
    nav = ("/en/", "/en/prices/", "/old-prices/", "/partner/", "/en/team/")
    _write(root, "en/index.html", page("Welcome", _paragraphs("welcome", 0), nav=nav))
    _write(root, "en/prices/index.html", page("Prices", _paragraphs("prices", 1), nav=nav))
    _write(root, "en/team/index.html", page("Team", _paragraphs("team", 2), nav=nav))
    _write(
        root,
        "old-prices/index.html",
        f"<html><head>{stub.format('/en/prices/')}</head><body><p>This page has moved.</p></body></html>",
    )
    _write(root, "partner/index.html", f"<html><head>{stub.format('https://partner.example/offer')}</head></html>")
    return Quirk("refresh-stubs", "/", "", "/ and /old-prices/ are meta refresh stubs; /partner/ leaves the site")


def hreflang(root: Path) -> Quirk:
    """English pages link to each other; their German translations only through hreflang."""
    pairs = [("opening-hours", "oeffnungszeiten"), ("prices", "preise"), ("emergency", "notdienst")]
    nav = ("/", *(f"/{en}/" for en, _ in pairs))
    for i, (en, de) in enumerate([("", ""), *pairs]):
        alt = (
            f'<link rel="alternate" hreflang="en" href="{HOST}/{en + "/" if en else ""}">'
            f'<link rel="alternate" hreflang="de" href="{HOST}/de/{de + "/" if de else ""}">'
        )
        _write(
            root,
            f"{en}/index.html" if en else "index.html",
            page((en or "home").title(), _paragraphs(en or "home", i), nav=nav, head=alt),
        )
        _write(
            root,
            f"de/{de}/index.html" if de else "de/index.html",
            page((de or "Start").title(), _paragraphs(de or "Start", i, "de"), lang="de", head=alt),
        )
    return Quirk("hreflang", "/", "", "German translations reachable only through hreflang links")


def noindex_majority(root: Path) -> Quirk:
    """Most pages say noindex (a staging setting left on in production)."""
    names = ["about", "services", "prices", "contact", "faq", "team", "history"]
    nav = ("/", *(f"/{n}/" for n in names))
    _write(root, "index.html", page("Home", _paragraphs("home", 0), nav=nav))
    for i, name in enumerate(names):
        head = '<meta name="robots" content="noindex, follow">' if i < 5 else ""
        _write(root, f"{name}/index.html", page(name.title(), _paragraphs(name, i + 1), nav=nav, head=head))
    return Quirk("noindex-majority", "/", "", "5 of 8 pages say noindex")


QUIRKS = {
    builder.__name__.replace("_", "-"): builder
    for builder in (
        canonical_home,
        clean_urls,
        trailing_slash,
        path_prefix,
        sitemap_other_host,
        refresh_stubs,
        hreflang,
        noindex_majority,
    )
}


def build_site(name: str, root: Path) -> Quirk:
    root.mkdir(parents=True, exist_ok=True)
    _write(root, "404.html", page("Page not found", "<p>Sorry, this page does not exist.</p>"))
    return QUIRKS[name](root)
