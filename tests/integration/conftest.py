"""Integration fixtures: one real Kafka-protocol broker per session, uuid topics, ragmon subprocesses."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import psycopg
import pytest

from tests.support.daemon import FAST_KAFKA_ENV, Daemon, interrupt_all, start_daemon
from tests.support.kafka import Broker, free_port, running_broker

DaemonFactory = Callable[..., Daemon]
POSTGRES_URL = os.environ.get("RAGMON_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/test")


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A PostgreSQL store URL whose search_path is a fresh uuid schema, dropped after the test."""
    schema = f"ragmon_test_{uuid.uuid4().hex}"
    with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{schema}"')
    sep = "&" if "?" in POSTGRES_URL else "?"
    try:
        yield f"{POSTGRES_URL}{sep}options={quote(f'-csearch_path={schema}')}"
    finally:
        with psycopg.connect(POSTGRES_URL, autocommit=True) as admin:
            admin.execute(f'DROP SCHEMA "{schema}" CASCADE')


@pytest.fixture(params=["sqlite", "postgres"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The same test on both review stores: a SQLite file, and a fresh PostgreSQL schema."""
    if request.param == "sqlite":
        return str(tmp_path / "review.db")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture(scope="session")
def broker() -> Iterator[Broker]:
    """Tansu on a free loopback port for the whole session, or the Kafka named by RAGMON_TEST_KAFKA."""
    with running_broker() as running:
        yield running


@pytest.fixture
def topic_factory(broker: Broker) -> Callable[[int], str]:
    """Creates a uuid-named topic (and its .dlq twin) with the given number of partitions."""

    def create(partitions: int = 1) -> str:
        return broker.create_topic(partitions)

    return create


@pytest.fixture
def group() -> str:
    """A fresh consumer-group name, so no test sees another's committed offsets."""
    return f"ragmon-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def daemon_factory(tmp_path: Path) -> Iterator[DaemonFactory]:
    """Starts ``ragmon run --source SOURCE --metrics-port FREE --results FILE`` with fast Kafka timings."""
    started: list[Daemon] = []

    def start(
        source: str,
        name: str = "daemon",
        results: bool = True,
        *extra: str,
        env: dict[str, str] | None = None,
    ) -> Daemon:
        daemon = start_daemon(
            ["--source", source, "--dlq", str(tmp_path / f"{name}-dlq.jsonl"), *extra],
            free_port(),
            tmp_path / f"{name}.log",
            results=tmp_path / f"{name}-results.jsonl" if results else None,
            env={**FAST_KAFKA_ENV, **(env or {})},
            cwd=tmp_path,
        )
        started.append(daemon)
        return daemon

    yield start
    interrupt_all(started)
