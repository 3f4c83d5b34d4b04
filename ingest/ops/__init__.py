"""Operations around a run: the spend guard and circuit breaker, alerts, the weekly
schedule, and the job runner an API server uses to run ingestion in-process."""
