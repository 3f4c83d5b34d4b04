"""Whether the passages found answer the question, asked of a chat model (#18).

The local signals (retrieval.search.answer_signals) tell answered from unanswered
questions only weakly: on the five sites' question sets each has an AUC of 0.71-0.76,
and so does the best cosine between the question and any single sentence of the top
passages (0.75, docs/benchmarks.md). Deciding that "Can I bring my dog?" is not
answered by the office rules takes reading them. With `answer_check = "openai"` and an
OpenAI key, the question and the best passages go to a cheap chat model that answers
yes or no; its probability of "yes" (from the answer token's log-probabilities) is the
answer's confidence. Each check is paid under the spend guard (kind `answer_check`);
a repeated question with the same passages is not asked twice; and when the model is
slow, failing, out of budget or out of credit the search answers on the local signals,
saying so (`judged_by`).
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass

from ingest.index.chunk import body_of
from ingest.settings import Settings

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "You check search results for a business's telephone assistant. You get a caller's question and "
    "numbered passages from the business's own website. Answer yes if the passages contain what is needed "
    "to answer the question, fully or mostly; answer no if they do not (even when they are about the same "
    "subject). The question and passages may be in different languages. Answer with one word: yes or no."
)
MAX_PASSAGE_CHARS = 1500
CACHE_SIZE = 4096
# A check waits this long for the state database's write lock (an ingestion writing
# there) before the local signals judge instead: a caller is waiting. *ours*
LEDGER_WAIT_S = 0.5
# Prompt tokens per passage character, for the estimate reserved before a call: cl100k
# averages ~4 characters a token in English and ~2.5 in Korean or Turkish. *ours*
TOKENS_PER_CHAR = 0.4


@dataclass(frozen=True)
class Verdict:
    answerable: bool
    confidence: float  # the model's probability that the passages answer the question


def prompt(question: str, passages: list[tuple[str, str]]) -> str:
    """passages: (heading path, text), best first."""
    parts = [f"Question: {question.strip()}", "", "Passages:"]
    for i, (heading, text) in enumerate(passages, 1):
        parts += [f"[{i}] {heading}".rstrip(), body_of(text, heading)[:MAX_PASSAGE_CHARS], ""]
    return "\n".join(parts).rstrip()


def verdict_of(choice) -> Verdict:
    """The model's yes/no and its probability of yes, from the first token's top
    log-probabilities when the API returns them (else 0.9 / 0.1 by the word)."""
    said = (choice.message.content or "").strip().lower().strip(".!")
    yes = no = 0.0
    tokens = getattr(getattr(choice, "logprobs", None), "content", None) or []
    alternatives = (getattr(tokens[0], "top_logprobs", None) or []) if tokens else []
    for alternative in alternatives:
        word = alternative.token.strip().lower()
        if word in ("yes", "no"):
            p = math.exp(alternative.logprob)
            yes, no = (yes + p, no) if word == "yes" else (yes, no + p)
    if yes + no > 0:
        p_yes = yes / (yes + no)
    elif said in ("yes", "no"):
        p_yes = 0.9 if said == "yes" else 0.1
    else:
        raise ValueError(f"the model answered {said[:40]!r}, not yes or no")
    return Verdict(answerable=p_yes >= 0.5, confidence=round(p_yes, 3))


class AnswerCheck:
    """One per Searcher: the OpenAI client, the spend guard and the cache of verdicts."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._cache: OrderedDict[tuple, Verdict] = OrderedDict()
        self._lock = threading.Lock()
        self._client = None
        self._idle: list = []  # spend guards (state connections) not in use: one per check at once
        self._guards: list = []
        self._warned: set[str] = set()

    def judge(self, business: str, question: str, passages: list[tuple[str, str]]) -> Verdict | None:
        """The model's verdict, or None when it cannot be had now (the caller falls back
        to the local signals); never raises for the provider's or the budget's sake."""
        if not passages:
            return None
        key = (self.settings.answer_check_model, question.strip(), tuple(passages))
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        text = prompt(question, passages)
        s = self.settings
        estimate = ((len(INSTRUCTIONS) + len(text)) * TOKENS_PER_CHAR * s.answer_check_price_in_per_mtok) / 1e6
        estimate += s.answer_check_price_out_per_mtok / 1e6
        try:
            guard = self._take_guard()
        except Exception as exc:  # the state database is out of reach: the search still answers
            return self._fallback("ledger", f"the spend ledger cannot be opened ({exc})")
        try:
            found = self._paid_check(guard, business, text, estimate)
        finally:
            with self._lock:
                self._idle.append(guard)
        if found is not None:
            with self._lock:
                self._warned.clear()  # the next failure is news again
                self._cache[key] = found
                if len(self._cache) > CACHE_SIZE:
                    self._cache.popitem(last=False)
        return found

    def _paid_check(self, guard, business: str, text: str, estimate: float) -> Verdict | None:
        from ingest.kb.embed import CreditExhausted, EmbedderError, QuotaExceeded
        from ingest.ops.guard import BudgetExceeded

        s = self.settings
        try:
            if guard.breaker()[0] > guard.clock():
                return self._fallback("breaker", "the provider circuit breaker is open")
            if guard.spent_today(kind="answer_check") + estimate > s.answer_check_daily_cap_usd:
                return self._fallback(
                    "cap",
                    f"answer checks have spent their daily cap of ${s.answer_check_daily_cap_usd:.2f} "
                    "(SITEKB_ANSWER_CHECK_DAILY_CAP_USD)",
                )
            with guard.spending(business, "search", "answer_check", estimate) as settle:
                found, tokens_in, tokens_out = self._ask(text)
                usd = (
                    tokens_in * s.answer_check_price_in_per_mtok + tokens_out * s.answer_check_price_out_per_mtok
                ) / 1e6
                settle(tokens_in + tokens_out, usd)
            return found
        except BudgetExceeded as exc:
            return self._fallback("budget", str(exc))
        except CreditExhausted as exc:
            with contextlib.suppress(Exception):  # the breaker is a courtesy to the other jobs here
                guard.credit_exhausted()
            return self._fallback("credit", str(exc))
        except (QuotaExceeded, EmbedderError) as exc:
            status = re.search(r"Error code: (\d{3})", str(exc))  # a revoked key (401) after a timeout is news
            return self._fallback(f"provider {status.group(1) if status else type(exc).__name__}", str(exc))
        except Exception as exc:  # the ledger locked or unreachable: never fail the search for it
            return self._fallback("ledger", f"the spend ledger could not be used ({type(exc).__name__}: {exc})")

    def _fallback(self, kind: str, why: str) -> None:
        """Logs the first of each kind of failure since the last check that worked (the
        messages carry amounts and request ids: one line per failed search would flood);
        the provider's kinds are told apart by status (a 500, then a 401)."""
        with self._lock:
            first = kind not in self._warned
            self._warned.add(kind)
        if first:
            log.warning("answer check by the model skipped, the local signals judge instead: %s", why)
        return None

    def _take_guard(self):
        """An idle spend guard, or a new one: as many as checks run at once, whatever
        threads run them (the API's pool retires idle threads and starts new ones)."""
        with self._lock:
            if self._idle:
                return self._idle.pop()
        from ingest.ops.guard import SpendGuard

        guard = SpendGuard(self.settings, shared=True, busy_s=LEDGER_WAIT_S)  # shared: any thread uses it next
        with self._lock:
            self._guards.append(guard)
        return guard

    def _openai(self):
        with self._lock:
            if self._client is None:
                import openai

                self._client = openai.OpenAI(
                    api_key=self.settings.openai_api_key.get_secret_value(),
                    base_url=self.settings.openai_base_url,
                    max_retries=0,  # a caller is waiting: no retry, the local signals answer instead
                    timeout=self.settings.answer_check_timeout_s,
                )
            return self._client

    def _ask(self, text: str) -> tuple[Verdict, int, int]:
        from ingest.kb.embed import chat_errors

        with chat_errors("the answer check failed"):
            response = self._openai().chat.completions.create(
                model=self.settings.answer_check_model,
                max_tokens=1,
                temperature=0,
                logprobs=True,
                top_logprobs=5,
                messages=[{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": text}],
            )
            found = verdict_of(response.choices[0])
            return found, response.usage.prompt_tokens, response.usage.completion_tokens

    def close(self) -> None:
        with self._lock:
            guards, self._guards, self._idle = self._guards, [], []
            client, self._client = self._client, None
        for guard in guards:
            guard.close()
        if client is not None:
            client.close()
