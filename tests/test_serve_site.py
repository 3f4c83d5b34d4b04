"""scripts/serve_site.py as a newcomer runs it from the README: mistakes get a clear error."""

import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "serve_site.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=30)


def test_a_missing_folder_is_an_error_not_a_server_of_404s(tmp_path):
    done = _run(str(tmp_path / "sitee"))
    assert done.returncode == 2 and "no such folder" in done.stderr and "Traceback" not in done.stderr


def test_a_port_in_use_says_so_without_a_traceback(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        done = _run(str(tmp_path), "--port", str(busy.getsockname()[1]))
    assert done.returncode == 2 and "pick another --port" in done.stderr and "Traceback" not in done.stderr


def test_a_rewrite_given_as_a_url_is_read_as_its_host(tmp_path):
    (tmp_path / "index.html").write_text('<a href="https://www.shop.example/about/">About</a>', encoding="utf-8")
    server = subprocess.Popen(
        [sys.executable, str(SCRIPT), str(tmp_path), "--rewrite", "https://www.shop.example/"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stdout.readline()
        base = line.split(" at ", 1)[1].split(",")[0]
        page = urllib.request.urlopen(f"{base}/", timeout=10).read().decode()
        assert f'href="{base}/about/"' in page, page
    finally:
        server.terminate()
        server.wait(timeout=10)
