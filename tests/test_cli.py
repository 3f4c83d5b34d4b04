"""The command-line contract other checks rely on (issue #2)."""
import json

import pytest

from ingest.cli import main


def test_run_json_report_search_and_status(demo_site, settings, capsys):
    assert main(["run", demo_site.base + "/", "--business", "demo", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    for key in ("business", "site", "problem", "message", "pages", "chunks", "embedding", "spend_usd", "seconds"):
        assert key in report
    assert report["problem"] is None and report["business"] == "demo"
    assert report["pages"]["fetched"] >= 15
    assert set(report["pages"]) >= {"discovered", "fetched", "skipped", "empty", "not_modified", "failed"}
    assert report["chunks"]["added"] == report["chunks"]["total"] > 0
    assert report["embedding"]["model"] and report["embedding"]["calls"] > 0

    assert main(["search", "--business", "demo", "-k", "3", "--json", "how much is a single room?"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 3 and set(hits[0]) >= {"text", "heading_path", "url", "score"}
    assert any("single-room" in h["url"] or "prices" in h["url"] for h in hits)

    assert main(["status", "--business", "demo", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status[0]["chunks"] == report["chunks"]["total"]
    assert status[0]["last_run"]["chunks"]["added"] == report["chunks"]["added"]
    assert status[0]["last_run"]["seconds"] > 0


def test_site_problem_exits_2_with_kind_on_stderr(settings, capsys):
    assert main(["run", "not a site", "--json"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.out)["problem"] == "invalid"
    assert "invalid:" in captured.err


def test_empty_site_is_reported_and_not_indexed(site_dir_server, settings, capsys):
    (site_dir_server.root_dir / "index.html").write_text(
        "<html><body><div id='app'></div><script>render()</script></body></html>")
    assert main(["run", site_dir_server.base + "/", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["problem"] == "empty"


def test_search_errors_are_messages_not_tracebacks(settings, capsys):
    assert main(["search", "--business", "nobody", "anything"]) == 2
    assert "no knowledge base" in capsys.readouterr().err


def test_bad_setting_is_named(settings, monkeypatch, capsys):
    monkeypatch.setenv("SITEKB_MAX_PAGES", "lots")
    assert main(["status"]) == 2
    assert "max_pages" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["search", "--business", "x", "-k", "0", "q"], ["run", "a.com", "--max-pages", "0"]])
def test_bad_arguments(settings, argv, capsys):
    assert main(argv) == 2
