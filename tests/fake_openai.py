"""A local OpenAI-compatible embeddings server on 127.0.0.1 (respx cannot intercept
openai 3.x, which runs on httpx2, not httpx). Vectors are hashed bags of words,
so similar texts get similar vectors and searches over them mean something."""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DIMENSIONS = 1536


def bag_of_words_vector(text: str, dimensions: int = DIMENSIONS) -> list[float]:
    vector = [0.0] * dimensions
    for word in re.findall(r"\w+", text.lower()):
        vector[int(hashlib.md5(word.encode()).hexdigest(), 16) % dimensions] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]


class FakeOpenAI:
    """`failures` is a queue of (status, body) answered before normal responses."""

    def __init__(self) -> None:
        self.failures: list[tuple[int, object]] = []
        self.requests: list[list[str]] = []
        self.chats: list[dict] = []
        self.delay_s = 0.0  # each embeddings answer waits this long (a slow provider)
        self.chat_delay_s = 0.0  # each chat answer waits this long
        self.verdict: str | None = None  # an answer check's word instead of yes/no, without log-probabilities
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.fake = self  # type: ignore[attr-defined]
        self._server = server
        self.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"

    def __enter__(self) -> FakeOpenAI:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def use(self, monkeypatch) -> None:
        """Point sitekb's OpenAI settings (a key, the base URL) at this server."""
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", self.base_url)

    @property
    def inputs_embedded(self) -> int:
        return sum(len(r) for r in self.requests)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        fake: FakeOpenAI = self.server.fake  # type: ignore[attr-defined]
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        if fake.failures:
            status, payload = fake.failures.pop(0)
            return self._send(status, payload)
        if self.path.endswith("/chat/completions"):
            return self._chat(fake, body)
        inputs = body.get("input", [])
        inputs = [inputs] if isinstance(inputs, str) else inputs
        if fake.delay_s:
            time.sleep(fake.delay_s)
        fake.requests.append(inputs)
        tokens = sum(len(re.findall(r"\w+|[^\w\s]", text)) for text in inputs)
        self._send(
            200,
            {
                "object": "list",
                "model": body.get("model"),
                "data": [
                    {"object": "embedding", "index": i, "embedding": bag_of_words_vector(text)}
                    for i, text in enumerate(inputs)
                ],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _chat(self, fake: FakeOpenAI, body: dict) -> None:
        """A 'model' that answers with the first line of each page it was given: enough to
        show the brief is written from exactly the input sitekb sent. Asked for
        log-probabilities (an answer check), it reads like a careless person: yes when the
        passages hold most of the question's longer words."""
        fake.chats.append(body)
        if fake.chat_delay_s:
            time.sleep(fake.chat_delay_s)
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        prompt = sum(len(m["content"].split()) for m in body["messages"])
        if body.get("logprobs"):
            return self._yes_or_no(user, prompt, body)
        headings = [line for line in user.splitlines() if line.startswith("## ")]
        answer = "Brief written from: " + "; ".join(h[3:] for h in headings)
        self._send(
            200,
            {
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": answer}}],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": len(answer.split()),
                    "total_tokens": prompt + len(answer.split()),
                },
            },
        )

    def _yes_or_no(self, user: str, prompt: int, body: dict) -> None:
        question, _, passages = user.partition("Passages:")
        wanted = {w for w in re.findall(r"\w+", question.lower()) if len(w) >= 5} - {"question"}
        found = {w for w in wanted if w in passages.lower()}
        p_yes = 0.95 if wanted and len(found) >= len(wanted) / 2 else 0.05
        word = "yes" if p_yes >= 0.5 else "no"
        if fake_word := self.server.fake.verdict:  # type: ignore[attr-defined]
            word = fake_word

        def alternative(token: str, p: float) -> dict:
            return {"token": token, "logprob": math.log(p), "bytes": list(token.encode())}

        top = [alternative("yes", p_yes), alternative("no", 1 - p_yes)]
        self._send(
            200,
            {
                "id": "chatcmpl-2",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "length",
                        "message": {"role": "assistant", "content": word},
                        "logprobs": None
                        if self.server.fake.verdict  # type: ignore[attr-defined]
                        else {"content": [{**alternative(word, max(p_yes, 1 - p_yes)), "top_logprobs": top}]},
                    }
                ],
                "usage": {"prompt_tokens": prompt, "completion_tokens": 1, "total_tokens": prompt + 1},
            },
        )

    def _send(self, status: int, payload: object) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def error_body(code: str, message: str, kind: str | None = None) -> dict:
    return {"error": {"message": message, "type": kind or code, "param": None, "code": code}}
