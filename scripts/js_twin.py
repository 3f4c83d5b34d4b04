#!/usr/bin/env python3
"""Build the client-rendered twin of a static site folder, for the rendering tests and
benchmark (#17): every page keeps its <head> but its <body> becomes an empty mount
point and a script, which fetches the page's body from the site and writes it in, the
way a single-page app's shell loads its content.

    python scripts/js_twin.py scripts/demo_site /tmp/demo_twin

Other files (robots.txt, sitemap.xml, 404.html, assets) are copied as they are. The
body fragments live under /_twin/ and are linked from nowhere. Standard library only.
"""

from __future__ import annotations

import argparse
import re
import shutil
from pathlib import Path
from urllib.parse import quote

_BODY = re.compile(r"(<body\b[^>]*>)(.*)(</body>)", re.I | re.S)
APP = """(function () {
  var key = window.__PAGE__;
  fetch('/_twin/pages/' + key).then(function (r) { return r.text(); }).then(function (html) {
    document.getElementById('root').innerHTML = html;
  });
})();
"""


def build_twin(source: Path, dest: Path) -> int:
    """Write the twin of `source` into `dest`; returns how many pages became shells."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest)
    (dest / "_twin" / "pages").mkdir(parents=True)
    (dest / "_twin" / "app.js").write_text(APP)
    shells = 0
    for page in sorted(dest.rglob("*.html")):
        relative = page.relative_to(dest)
        if relative.parts[0] == "_twin" or relative.name == "404.html":
            continue
        html = page.read_text(encoding="utf-8")
        match = _BODY.search(html)
        if not match:
            continue
        key = "__".join(relative.parts)
        (dest / "_twin" / "pages" / key).write_text(match.group(2), encoding="utf-8")
        shell = (
            f'{match.group(1)}<div id="root"></div><noscript>Please enable JavaScript to view this site.</noscript>'
            f'<script>window.__PAGE__ = "{quote(key)}";</script><script src="/_twin/app.js"></script>{match.group(3)}'
        )
        page.write_text(html[: match.start()] + shell + html[match.end() :], encoding="utf-8")
        shells += 1
    return shells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("dest", type=Path)
    args = parser.parse_args()
    print(f"{build_twin(args.source, args.dest)} pages are shells in {args.dest}")


if __name__ == "__main__":
    main()
