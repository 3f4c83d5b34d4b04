"""Alerts (R-9.3): a pause, the breaker opening, daily spend passing its mark.

Each alert is sent once per event (its key is recorded first), by e-mail over SMTP
and/or to a webhook, whichever is configured. Delivery failures are returned, never
raised: an alert must not break the job that raised it.
"""

from __future__ import annotations

import smtplib
import ssl
import time
from email.message import EmailMessage

import httpx

from ingest.kb.db import connect
from ingest.settings import Settings


class Alerter:
    def __init__(self, settings: Settings, clock=time.time) -> None:
        self.settings = settings
        self.clock = clock
        self._db = connect(settings.state_location)

    def close(self) -> None:
        self._db.close()

    def send_once(self, event: str, subject: str, body: str) -> list[str]:
        """Sends unless `event` was alerted before. Returns delivery problems, if any."""
        inserted = self._db.execute(
            "INSERT INTO alerts (event, subject, at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (event, subject, self.clock()),
        ).rowcount
        if not inserted:
            return []
        problems = []
        if self.settings.smtp_host and self.settings.alert_to:
            try:
                self._mail(subject, body)
            except (OSError, smtplib.SMTPException) as exc:
                problems.append(f"alert e-mail to {self.settings.smtp_host} failed: {exc}")
        if self.settings.alert_webhook_url:
            try:
                httpx.post(
                    self.settings.alert_webhook_url, json={"event": event, "subject": subject, "text": body}, timeout=10
                ).raise_for_status()
            except httpx.HTTPError as exc:
                problems.append(f"alert webhook failed: {exc}")
        return problems

    def _mail(self, subject: str, body: str) -> None:
        s = self.settings
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = s.alert_from, ", ".join(s.alert_to), f"[sitekb] {subject}"
        message.set_content(body)
        if s.smtp_tls == "ssl":
            client = smtplib.SMTP_SSL(s.smtp_host, s.smtp_port, timeout=20, context=ssl.create_default_context())
        else:
            client = smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=20)
        with client:
            if s.smtp_tls == "starttls":
                client.starttls(context=ssl.create_default_context())
            if s.smtp_user:
                client.login(s.smtp_user, s.smtp_password.get_secret_value() if s.smtp_password else "")
            client.send_message(message)
