"""`make demo` is a README command: it must work offline and answer its own questions."""

import importlib.util
import re

from conftest import REPO


def test_demo_ingests_the_sample_site_and_answers(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    spec = importlib.util.spec_from_file_location("demo", REPO / "scripts" / "demo.py")
    demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(demo)
    assert demo.main() == 0
    assert demo.main() == 0  # a second run starts fresh instead of piling up a second copy
    out = capsys.readouterr().out
    totals = re.findall(r"(\d+) in the knowledge base", out)
    assert len(totals) == 2 and totals[0] == totals[1] and int(totals[0]) > 50
    assert "17 fetched" in out
    assert "£110" in out  # the single room's high-season price
    assert "15:00" in out  # check-in time
    assert (tmp_path / "demo" / "state.sqlite3").exists()
