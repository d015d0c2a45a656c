"""lessor's errors as exceptions.

Every error answer of the API is one envelope, ``{"error": {"code", "message", "details"},
"request_id"}`` (docs/api.md "Errors"). The client raises it as a :class:`LessorError` carrying those
fields and the HTTP status; a subclass names the common classes of code, chosen by the code first
and the status second, as the CLI chooses its exit code (cli/exit-codes.mjs).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class LessorError(Exception):
    """An error answer of lessor's API, or why none came.

    ``code`` is stable and meant for programs (``no_capacity``, ``not_found``, ...); ``message`` is
    for people; ``details`` is what the code's description names; ``status`` is the HTTP status
    (None when nothing was answered); ``request_id`` is what to quote when reporting it.
    """

    def __init__(
        self,
        code: str,
        message: str,
        details: Mapping[str, Any] | None = None,
        status: int | None = None,
        request_id: str | None = None,
    ) -> None:
        super().__init__(code, message, details, status, request_id)
        self.code = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})
        self.status = status
        self.request_id = request_id

    def __str__(self) -> str:
        quoted = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.code}: {self.message}{quoted}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, status={self.status!r}, request_id={self.request_id!r})"


class InvalidRequest(LessorError):
    """400: the request is not one lessor accepts (``details.issues`` or ``details.field`` say why)."""


class Unauthenticated(LessorError):
    """401: no valid credential (the API key is wrong, revoked, or missing)."""


class Forbidden(LessorError):
    """403: the credential's scope does not allow this (``insufficient_scope``)."""


class OverBudget(LessorError):
    """402 ``over_budget``: the request would pass one of the org's caps; nothing changed."""


class NotFound(LessorError):
    """404 ``not_found``: no such lease, deployment, key or receipt (or another org's)."""


class Conflict(LessorError):
    """409: the request does not fit the state of things (``name_taken``, ``quota_exceeded``, ...)."""


class NoCapacity(Conflict):
    """No offer fits (``no_capacity``, ``details`` name the constraint), the quote's price moved
    (``quote_drift``), or the model does not fit the machine asked for (``no_placement``)."""


class RateLimited(LessorError):
    """429 ``rate_limited``: over a request budget; ``retry_after`` is how many seconds to wait."""

    def __init__(
        self,
        code: str,
        message: str,
        details: Mapping[str, Any] | None = None,
        status: int | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(code, message, details, status, request_id)
        self.args = (code, message, details, status, request_id, retry_after)
        self.retry_after = retry_after


class ServerError(LessorError):
    """5xx: lessor failed (``internal``: quote the request id), is misconfigured, or a wait timed out."""


class Unreachable(LessorError):
    """No answer: lessor could not be reached (``unreachable``) or did not answer in time (``timeout``)."""


class LeaseReleased(LessorError):
    """The lease was released before its command exited, or before its deployment's model answered.

    ``code`` is the release's reason (``boot_timeout``, ``budget_exceeded``, ``model_server_failed``,
    ...), also in ``details["release_reason"]`` with ``details["lease_id"]``.
    """


# The codes whose class is not the one their HTTP status suggests, or that several statuses carry.
_BY_CODE: dict[str, type[LessorError]] = {
    "unauthenticated": Unauthenticated,
    "insufficient_scope": Forbidden,
    "bootstrap_disabled": Forbidden,
    "not_found": NotFound,
    "no_capacity": NoCapacity,
    "quote_drift": NoCapacity,
    "no_placement": NoCapacity,
    "over_budget": OverBudget,
    "rate_limited": RateLimited,
}

_BY_STATUS: dict[int, type[LessorError]] = {
    400: InvalidRequest,
    401: Unauthenticated,
    402: OverBudget,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    429: RateLimited,
}

#: The error codes the client names a class for: each is one the OpenAPI document lists
#: (clients/python/tests/test_units.py checks them against the generated ERROR_CODES).
CLASSIFIED_CODES = frozenset(_BY_CODE)


def error_class(status: int, code: str | None) -> type[LessorError]:
    """The exception class for an error answer: by its code when the code decides, else its status."""
    if code is not None and code in _BY_CODE:
        return _BY_CODE[code]
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return ServerError if status >= 500 else LessorError


def retry_after_of(headers: Mapping[str, str], details: Mapping[str, Any]) -> float | None:
    """Seconds to wait: the Retry-After header (RFC 9110 delay-seconds), else ``details.retry_after_s``."""
    for value in (headers.get("retry-after"), details.get("retry_after_s")):
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            continue
        try:
            seconds = float(value)
        except ValueError:
            continue
        if seconds >= 0:
            return seconds
    return None


def error_from_answer(status: int, headers: Mapping[str, str], body: Any, where: str) -> LessorError:
    """The LessorError for an error answer: its envelope's code, message and details, or, for a body
    that is not the envelope (a proxy's page), ``http_<status>`` and where it came from."""
    envelope: Mapping[str, Any] = body if isinstance(body, Mapping) else {}
    error = envelope.get("error")
    inner: Mapping[str, Any] = error if isinstance(error, Mapping) else {}
    code: str | None = inner["code"] if isinstance(inner.get("code"), str) else None
    message: str = inner["message"] if isinstance(inner.get("message"), str) else f"{where} answered {status}"
    details: Mapping[str, Any] = inner["details"] if isinstance(inner.get("details"), Mapping) else {}
    request_id: str | None = envelope["request_id"] if isinstance(envelope.get("request_id"), str) else headers.get("x-request-id")
    cls = error_class(status, code)
    if cls is RateLimited:
        return RateLimited(code or f"http_{status}", message, details, status, request_id, retry_after=retry_after_of(headers, details))
    return cls(code or f"http_{status}", message, details, status, request_id)
