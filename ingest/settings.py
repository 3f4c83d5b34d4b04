"""Settings: one object, read when a job starts (R-10.3), never at import time.

Precedence: explicit overrides > environment (`SITEKB_*`) > `.env` >
`config/defaults.toml`. `OPENAI_API_KEY` is read without the prefix, as users
already have it set.
"""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, ValidationError
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

REPO_CONFIG_DIR = Path(__file__).resolve().parent.parent / "config"


def config_dir() -> Path:
    return Path(os.environ.get("SITEKB_CONFIG_DIR") or REPO_CONFIG_DIR)


class SettingsError(ValueError):
    """A setting has a value we cannot use; the message names it."""


def private_dir(path: Path) -> Path:
    """`path`, created readable by its owner only (0700) if it does not exist: the data
    folder holds API key hashes, the spend ledger and the sites' raw pages."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.mkdir(mode=0o700, exist_ok=True)
    return path


class DiskFull(RuntimeError):
    """Too little free space where the data folder lives to write safely."""


def ensure_free_space(path: Path, min_free_mb: float, doing: str) -> None:
    """Refuse to write into `path` with less than `min_free_mb` free: the embedded vector
    store writes through memory-mapped files, and a full disk kills the process with
    SIGBUS, mid-write and without a word."""
    free_mb = shutil.disk_usage(path).free / 1e6
    if free_mb < min_free_mb:
        raise DiskFull(
            f"the disk holding {path} has {free_mb:,.0f} MB free; {doing} needs at least {min_free_mb:,.0f} MB "
            "(setting min_free_disk_mb): free some space and run again. Nothing was written."
        )


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SITEKB_", env_file=".env", extra="ignore", populate_by_name=True)

    data_dir: Path = Path("./data")
    allow_private_hosts: bool = False
    user_agent: str = "sitekb/0.1"

    max_pages: int = Field(500, ge=1)
    max_depth: int = Field(5, ge=0)
    request_timeout_s: float = Field(20.0, gt=0)
    max_body_bytes: int = Field(5_000_000, ge=1024)
    max_redirects: int = Field(5, ge=0)
    concurrency_start: int = Field(2, ge=1)
    concurrency_max: int = Field(4, ge=1)
    fetch_attempts: int = Field(3, ge=1)
    max_site_bytes: int = Field(200_000_000, ge=1)
    # Send every request through this HTTP(S) proxy (for sites that block datacenter IPs).
    proxy_url: str | None = None
    # Diagnostics: discover from sitemaps only, or from links only.
    use_sitemaps: bool = True
    follow_links: bool = True

    embedder: Literal["auto", "local", "openai"] = "auto"
    # The offline model used when embedder is "local" (or "auto" without an OpenAI key).
    local_model: Literal["e5-small", "use-m3", "minilm"] = "e5-small"
    openai_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("SITEKB_OPENAI_API_KEY", "OPENAI_API_KEY")
    )
    openai_base_url: str | None = Field(
        None, validation_alias=AliasChoices("SITEKB_OPENAI_BASE_URL", "OPENAI_BASE_URL")
    )
    openai_model: str = "text-embedding-3-small"
    openai_price_per_mtok: float = Field(0.02, ge=0)
    # The model that writes briefs, and its USD prices per 1M input / output tokens.
    brief_model: str = "gpt-4o-mini"
    brief_price_in_per_mtok: float = Field(0.15, ge=0)
    brief_price_out_per_mtok: float = Field(0.60, ge=0)
    # Whether a search's passages answer its question (`answerable`, `confidence`): judged
    # on local signals, or asked of a chat model (needs OPENAI_API_KEY; each check is paid
    # under the daily caps; a check slower than the timeout, failing or over budget falls
    # back to the local signals). Prices: USD per 1M input / output tokens.
    answer_check: Literal["signals", "openai"] = "signals"
    answer_check_model: str = "gpt-4o-mini"
    answer_check_price_in_per_mtok: float = Field(0.15, ge=0)
    answer_check_price_out_per_mtok: float = Field(0.60, ge=0)
    answer_check_timeout_s: float = Field(3.0, gt=0)
    answer_check_passages: int = Field(3, ge=1, le=10)
    # What answer checks may spend a day, all businesses together, within the daily caps
    # below: searches cannot use up what ingestion needs.
    answer_check_daily_cap_usd: float = Field(1.0, ge=0)
    # Daily spend caps in USD, per business and for the whole installation.
    daily_cap_business_usd: float = Field(3.0, ge=0)
    daily_cap_total_usd: float = Field(8.0, ge=0)
    # Proxy bandwidth price, USD per GB received through proxy_url (0: not billed).
    proxy_price_per_gb: float = Field(0.0, ge=0)
    # Alerts: e-mail over SMTP and/or a webhook; daily spend that raises one.
    alert_spend_usd: float = Field(5.0, ge=0)
    smtp_host: str = ""
    smtp_port: int = Field(587, ge=1, le=65535)
    smtp_tls: Literal["starttls", "ssl", "none"] = "starttls"
    smtp_user: str = ""
    smtp_password: SecretStr | None = None
    alert_from: str = "sitekb@localhost"
    alert_to: list[str] = Field(default_factory=list)
    alert_webhook_url: str = ""
    # Weekly refresh, and the wait after a failed refresh.
    resync_interval_days: float = Field(7.0, gt=0)
    failed_retry_hours: float = Field(24.0, ge=0)
    # Brief runs allowed per business per calendar month, by plan.
    plan: str = "business"
    plans: dict[str, int] = Field(default_factory=lambda: {"free": 3, "business": 150})

    # PostgreSQL for the state (and, without qdrant_url, the vectors and the job queue),
    # shared by every worker and API process: postgresql://user:password@host:5432/db.
    # Empty: the embedded defaults (SQLite and qdrant-edge in data_dir).
    database_url: str = Field("", pattern=r"^(|postgres(ql)?://.*)$")
    qdrant_url: str = ""
    qdrant_api_key: SecretStr | None = None
    # Workers (`ingest worker`, with database_url): heartbeat interval; a worker silent for
    # worker_stalled_s is taken for dead and its job is queued again, at most
    # worker_max_attempts times in all; and how often the workers check for due refreshes.
    worker_heartbeat_s: float = Field(10.0, gt=0)
    worker_stalled_s: float = Field(30.0, gt=0)
    worker_max_attempts: int = Field(3, ge=1)
    # A queued run whose business another job is refreshing waits this long, then tries again.
    worker_busy_retry_s: int = Field(30, ge=0)
    due_check_cron: str = "*/10 * * * *"
    # The retrieval API refuses request bodies larger than this (413), before reading them.
    api_max_body_bytes: int = Field(65_536, ge=1024)
    # A process that finds the embedded vector store held by another (a run, a search)
    # waits this long for it before giving up with a sentence.
    store_wait_s: float = Field(10.0, ge=0)
    # A run refuses to start, or to write its vectors, with less free disk than this.
    min_free_disk_mb: float = Field(500.0, ge=0)
    # Wall-clock budget of one run (a job of `ingest serve`, a due refresh, `ingest run`);
    # past it the run stops between pages or batches and reports error_kind "timeout". 0: none.
    run_budget_s: float = Field(3600.0, ge=0)
    # Extraction time of one page; past it the page is skipped (too_slow) and the crawl goes on.
    page_budget_s: float = Field(20.0, gt=0)
    # PDFs the site links to are pages, up to this size and this many pages each.
    read_pdfs: bool = True
    max_pdf_bytes: int = Field(20_000_000, ge=1024)
    pdf_max_pages: int = Field(300, ge=1)
    # Pages that build their text in the browser are rendered in headless Chromium:
    # "auto" renders only those, "never" none. browser_path: Chromium's executable
    # (default: the first of chromium, chromium-browser, google-chrome on PATH).
    render: Literal["auto", "never"] = "auto"
    browser_path: str = ""
    render_concurrency: int = Field(2, ge=1, le=8)
    render_timeout_s: float = Field(20.0, gt=0)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, toml_file=config_dir() / "defaults.toml")
        return init_settings, env_settings, dotenv_settings, toml

    @property
    def state_path(self) -> Path:
        return self.data_dir / "state.sqlite3"

    @property
    def state_location(self) -> Path | str:
        """Where the state lives: PostgreSQL's DSN when configured, else the SQLite file."""
        return self.database_url or self.state_path

    def state_exists(self) -> bool:
        """Whether there is a state to read (a PostgreSQL database always counts)."""
        return bool(self.database_url) or self.state_path.exists()

    @property
    def vectors_dir(self) -> Path:
        return self.data_dir / "vectors"

    @property
    def raw_dir(self) -> Path:
        return self.data_dir / "raw"


def load_settings(**overrides: object) -> Settings:
    """Read settings now. Raises SettingsError with the offending key named."""
    try:
        settings = Settings(**overrides)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'settings'}: {err['msg']}" for err in exc.errors()
        )
        raise SettingsError(f"invalid setting ({problems})") from None
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{config_dir() / 'defaults.toml'} is not valid TOML: {exc}") from None
    if settings.concurrency_max < settings.concurrency_start:
        raise SettingsError("concurrency_max must be >= concurrency_start")
    if settings.worker_stalled_s <= settings.worker_heartbeat_s:  # live workers would be taken for dead
        raise SettingsError("worker_stalled_s must be more than worker_heartbeat_s (3x or more is safe)")
    if settings.answer_check == "openai" and settings.openai_api_key is None:
        raise SettingsError(
            "answer_check=openai asks a chat model whether the passages found answer the question: "
            "set OPENAI_API_KEY, or SITEKB_ANSWER_CHECK=signals to judge on local signals"
        )
    return settings


def load_exclusions() -> dict:
    path = config_dir() / "exclusions.toml"
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"cannot read exclusion list {path}: {exc}") from None
