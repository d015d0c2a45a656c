"""What Client and AsyncClient share about HTTP: where lessor is and its key, how an operation of
the generated Api becomes a request, and how an answer becomes its model or a LessorError.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import Any, TypeVar, cast
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter, ValidationError

from ._errors import LessorError, Unreachable, error_from_answer
from ._version import __version__

T = TypeVar("T")

#: How long one request may take before the client gives up (the CLI's REQUEST_TIMEOUT_MS).
REQUEST_TIMEOUT_S = 30.0
#: How long an exec may wait for its result: the server answers within LESSOR_EXEC_MAX_WAIT_MS
#: (600 s by default; docs/agent.md), 504 ``exec_timeout`` past it; a little more for the trip.
EXEC_WAIT_S = 630.0
#: A followed stream sends a keep-alive every 15 s (docs/agent.md): four missed is a dead connection, asked again.
FOLLOW_READ_TIMEOUT_S = 60.0
#: Reconnects in a row before a follow gives up, each waiting longer, up to RECONNECT_MAX_S (the CLI's).
RECONNECT_TRIES = 8
RECONNECT_MAX_S = 10.0
#: How often a workflow reads a lease or deployment while it waits for it (the CLI's).
READY_POLL_S = 1.0
DEPLOYMENT_POLL_S = 2.0
#: The most a list answers in one page (docs/api.md).
PAGE_LIMIT = 200

USER_AGENT = f"lessor-python/{__version__}"


def resolve_settings(url: str | None, api_key: str | None, env: Mapping[str, str] = os.environ) -> tuple[str, str]:
    """lessor's URL and key: as given, else LESSOR_URL and LESSOR_API_KEY. The key is never part of a message."""
    where = url or env.get("LESSOR_URL") or ""
    if not where:
        raise ValueError("no lessor URL: pass Client(url=...) or set LESSOR_URL")
    try:
        parsed = httpx.URL(where)
    except httpx.InvalidURL as e:
        raise ValueError(f"{where!r} is not a URL") from e
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ValueError(f"{where!r} is not an http(s) URL")
    key = (api_key or env.get("LESSOR_API_KEY") or "").strip()
    if not key:
        raise ValueError("no API key: pass Client(api_key=...) or set LESSOR_API_KEY")
    return where.rstrip("/"), key


def client_headers(api_key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {api_key}", "user-agent": USER_AGENT}


def note(text: str) -> None:
    """A line about what a workflow does (which lease, what it waits for), on stderr, as the CLI's notes."""
    print(f"lessor: {text}", file=sys.stderr, flush=True)


def jsonable(value: Any) -> Any:
    """A body as JSON: a model as its fields that were set (by their wire names), so that what was
    left out is left to the server's defaults."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, Mapping):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def request_of(
    method: str,
    route: str,
    path: Mapping[str, str] | None,
    query: Mapping[str, Any] | None,
    headers: Mapping[str, Any] | None,
    body: Any,
    text_body: bool,
) -> dict[str, Any]:
    """The keyword arguments of ``httpx.Client.request`` for one operation: path parameters
    percent-encoded whole (a name never adds a path segment), parameters left as None not sent."""
    url = route
    for name, value in (path or {}).items():
        url = url.replace("{" + name + "}", quote(str(value), safe=""))
    request: dict[str, Any] = {
        "method": method,
        "url": url,
        "params": {k: _query_value(v) for k, v in (query or {}).items() if v is not None},
        "headers": {k: str(v) for k, v in (headers or {}).items() if v is not None},
    }
    if body is not None:
        if text_body:
            request["content"] = str(body).encode()
            request["headers"]["content-type"] = "text/plain; charset=utf-8"
        else:
            request["json"] = jsonable(body)
    return request


def unreachable(e: httpx.TransportError, where: str) -> Unreachable:
    if isinstance(e, httpx.TimeoutException):
        return Unreachable("timeout", f"{where}: no answer in time ({type(e).__name__})")
    return Unreachable("unreachable", f"cannot reach lessor for {where}: {e}")


def answer_error(response: httpx.Response, where: str) -> LessorError:
    """An error answer as its LessorError (the body read already)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    return error_from_answer(response.status_code, response.headers, body, where)


def decode(response: httpx.Response, answer: type[T], where: str) -> T:
    """The answer as the operation's type: its model, its text, or None; an error answer raised."""
    if response.status_code >= 400:
        raise answer_error(response, where)
    if answer is str:
        return cast(T, response.text)
    if answer is type(None):
        return None
    request_id = response.headers.get("x-request-id")
    try:
        doc = response.json()
    except ValueError as e:
        problem = f"{where} answered {response.status_code} with a body that is not JSON"
        raise LessorError("unexpected_answer", problem, {}, response.status_code, request_id) from e
    try:
        if isinstance(answer, type) and issubclass(answer, BaseModel):
            return cast(T, answer.model_validate(doc))
        return TypeAdapter(answer).validate_python(doc)
    except ValidationError as e:
        # Never the values: an answer may hold a secret (a deployment's api_key, a key's secret).
        problems = "; ".join(f"{'.'.join(str(p) for p in err['loc'])}: {err['msg']}" for err in e.errors(include_input=False, include_url=False))
        raise LessorError("unexpected_answer", f"{where} answered what this client does not read: {problems}", {}, response.status_code, request_id) from None
