"""The repository explains itself: every rule id the code cites is stated in docs/requirements.md."""

import re

from conftest import REPO

RULE = re.compile(r"\bR-\d+\.\d+b?\b")


def test_every_rule_the_code_cites_is_stated_in_the_repository():
    stated = set(re.findall(r"\*\*(R-\d+\.\d+b?)\*\*", (REPO / "docs" / "requirements.md").read_text()))
    cited = {
        (rule, path.relative_to(REPO).as_posix())
        for folder in ("ingest", "retrieval", "scripts", "tests")
        for path in (REPO / folder).rglob("*.py")
        for rule in RULE.findall(path.read_text())
    }
    assert sorted(c for c in cited if c[0] not in stated) == []
