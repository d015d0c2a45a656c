"""The client's tests run against a real lessor: test/e2e/python-client.test.ts starts `wrangler dev`
as `npm start` does, creates an org, and runs pytest with

- LESSOR_URL: the server;
- LESSOR_API_KEY: that org's admin key (what a user exports after the README's walkthrough);
- LESSOR_TEST_BOOTSTRAP_TOKEN: the installation's bootstrap token, for tests that need an org of
  their own (a budget, the README's notebook). It never reaches the notebook's kernel.

Without them every test that needs the server fails, saying so: none is skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import httpx
import pytest

from lessor import Client


def _setting(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: run these tests through `npx vitest run --project e2e test/e2e/python-client.test.ts`", pytrace=False)
    return value


@pytest.fixture(scope="session")
def server_url() -> str:
    return _setting("LESSOR_URL")


@pytest.fixture(scope="session")
def api_key() -> str:
    return _setting("LESSOR_API_KEY")


@pytest.fixture()
def client(server_url: str, api_key: str) -> Iterator[Client]:
    with Client(server_url, api_key) as c:
        yield c


@pytest.fixture()
def new_org(server_url: str) -> Callable[[str], str]:
    """Creates an org of its own (a unique name) and answers its admin key."""

    def create(prefix: str) -> str:
        token = _setting("LESSOR_TEST_BOOTSTRAP_TOKEN")
        res = httpx.post(f"{server_url}/v1/orgs", json={"name": f"{prefix}-{uuid.uuid4().hex[:8]}"}, headers={"authorization": f"Bearer {token}"})
        assert res.status_code == 201, res.text
        return str(res.json()["key"]["secret"])

    return create
