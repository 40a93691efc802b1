"""Fixtures for the storage tests: a fresh database per session, a namespace per test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from hermes_core.config.models import StorageConfig
from hermes_core.testing.postgres import DSN_ENV, fresh_database, require


@pytest.fixture(scope="session")
def pg_dsn() -> Iterator[str]:
    with fresh_database(require("HERMES_TEST_PG_DSN")) as dsn:
        yield dsn


@pytest.fixture
def namespace() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def storage(pg_dsn: str, namespace: str) -> StorageConfig:
    return StorageConfig(backend="postgres", dsn_env=DSN_ENV, namespace=namespace)
