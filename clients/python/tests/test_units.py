"""The client's pure parts, without a server: the event-stream parser, exit codes, command lines,
the error classes, and that neither a key nor a secret shows in a repr or an error."""

from __future__ import annotations

import pickle

import httpx
import pytest

from lessor import Client, Deployment, LessorError, NoCapacity, NotFound, OverBudget, RateLimited, ServerError, Unauthenticated
from lessor._errors import CLASSIFIED_CODES, error_class, error_from_answer
from lessor._generated import ERROR_CODES, CreatedOrgKey, LeaseExit
from lessor._occupant import LogEnd, command_line, exit_code_of, shell_word, spec_of
from lessor._sse import Frame, SseParser
from lessor._transport import decode, request_of, resolve_settings

# --- the event-stream parser ---------------------------------------------------------------------


def frames_of(*chunks: bytes) -> list[Frame]:
    parser = SseParser()
    return [f for chunk in chunks for f in parser.feed(chunk)]


def test_frames_carry_their_id_event_and_data_lines_joined_with_lf() -> None:
    stream = b"retry: 3000\n\nid: 7\ndata: one\ndata: \n\n: keep-alive\n\nevent: end\ndata: {}\n\n"
    assert frames_of(stream) == [Frame("7", "message", "one\n"), Frame("7", "end", "{}")]


@pytest.mark.parametrize("cut", range(1, 40))
def test_a_frame_split_anywhere_is_read_whole(cut: int) -> None:
    stream = "id: 12\r\ndata: héllo\r\ndata: wörld\r\n\r\nid: 13\rdata: x\r\r".encode()
    assert frames_of(stream[:cut], stream[cut:]) == [Frame("12", "message", "héllo\nwörld"), Frame("13", "message", "x")]


def test_a_cr_then_lf_in_the_next_read_is_one_line_end() -> None:
    assert frames_of(b"data: a\r", b"", b"\ndata: b\n\n") == [Frame(None, "message", "a\nb")]
    # A CR that ends a frame dispatches it at once, not when the next read comes.
    parser = SseParser()
    assert parser.feed(b"data: a\r\r") == [Frame(None, "message", "a")]


def test_unicode_line_separators_are_data_not_line_ends() -> None:
    assert frames_of("data: a\u2028b\x0cc\n\n".encode()) == [Frame(None, "message", "a\u2028b\x0cc")]


def test_what_the_stream_left_without_a_blank_line_is_no_frame() -> None:
    assert frames_of(b"id: 1\ndata: cut") == []


def test_a_log_end_says_how_the_command_ended() -> None:
    exited = LogEnd.parse('{"reason":"exited","exit":{"code":null,"signal":"TERM","at":"2026-01-01T00:00:00.000Z"}}')
    assert exited.reason == "exited" and exited.exit is not None and exited.exit.signal == "TERM"
    assert LogEnd.parse('{"reason":"released"}') == LogEnd("released", None)


# --- exit codes and command lines ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "signal", "expected"),
    [(0, None, 0), (3, None, 3), (None, "TERM", 143), (None, "KILL", 137), (None, "INT", 130), (None, "NOSUCH", 128), (None, None, 128)],
)
def test_the_exit_code_is_a_shells_128_plus_the_signal(code: int | None, signal: str | None, expected: int) -> None:
    assert exit_code_of(LeaseExit(code=code, signal=signal, at="2026-01-01T00:00:00.000Z")) == expected


@pytest.mark.parametrize(
    ("cmd", "line"),
    [
        ("echo hi; exit 3", "echo hi; exit 3"),
        (["python", "train.py"], "python train.py"),
        (["echo", "it's", "a b", "--flag=1"], "echo 'it'\\''s' 'a b' --flag=1"),
        (["echo hi; exit 3"], "echo hi; exit 3"),
    ],
)
def test_a_command_is_a_shell_line_or_words_quoted_one_by_one(cmd: str | list[str], line: str) -> None:
    assert command_line(cmd) == line


@pytest.mark.parametrize("cmd", ["", []])
def test_an_empty_command_is_refused(cmd: str | list[str]) -> None:
    with pytest.raises(ValueError, match="cmd is empty"):
        command_line(cmd)


def test_shell_words_that_need_no_quotes_keep_none() -> None:
    assert [shell_word(w) for w in ["a", "x=1", "/p/q.py", "", "$HOME"]] == ["a", "x=1", "/p/q.py", "''", "'$HOME'"]


def test_a_misspelt_spec_field_is_refused_before_anything_is_sent() -> None:
    assert spec_of("l4", {"regions": ["us-east"]}).model_dump(exclude_unset=True) == {"gpu": "l4", "regions": ["us-east"]}
    with pytest.raises(ValueError, match="regoins"):
        spec_of("l4", {"regoins": ["us-east"]})


# --- errors ---------------------------------------------------------------------------------------


def test_every_code_the_client_classifies_is_one_the_document_lists() -> None:
    assert sorted(CLASSIFIED_CODES - ERROR_CODES) == []


@pytest.mark.parametrize(
    ("status", "code", "cls"),
    [
        (404, "not_found", NotFound),
        (409, "no_capacity", NoCapacity),
        (409, "quote_drift", NoCapacity),
        (409, "no_placement", NoCapacity),
        (402, "over_budget", OverBudget),
        (401, "unauthenticated", Unauthenticated),
        (429, "rate_limited", RateLimited),
        (503, "misconfigured", ServerError),
        (418, None, LessorError),
    ],
)
def test_an_error_class_is_chosen_by_code_then_status(status: int, code: str | None, cls: type[LessorError]) -> None:
    assert error_class(status, code) is cls


def test_an_envelope_becomes_its_error_with_every_field() -> None:
    body = {"error": {"code": "rate_limited", "message": "slow down", "details": {"retry_after_s": 7}}, "request_id": "req_1"}
    e = error_from_answer(429, {"retry-after": "12"}, body, "GET /v1/leases")
    assert isinstance(e, RateLimited)
    assert (e.code, e.message, e.details, e.status, e.request_id, e.retry_after) == ("rate_limited", "slow down", {"retry_after_s": 7}, 429, "req_1", 12.0)
    assert str(e) == "rate_limited: slow down (request req_1)"
    # Without the header, details.retry_after_s.
    without = error_from_answer(429, {}, body, "x")
    assert isinstance(without, RateLimited) and without.retry_after == 7.0
    copy = pickle.loads(pickle.dumps(e))
    assert (type(copy), copy.code, copy.retry_after) == (RateLimited, "rate_limited", 12.0)


def test_a_body_that_is_not_the_envelope_is_named_by_its_status() -> None:
    e = error_from_answer(502, {"x-request-id": "req_2"}, None, "GET /v1/org")
    assert (type(e), e.code, e.message, e.request_id) == (ServerError, "http_502", "GET /v1/org answered 502", "req_2")


# --- secrets --------------------------------------------------------------------------------------

SECRET = "lsr_" + "S" * 43


def test_the_api_key_is_in_no_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LESSOR_URL", "http://127.0.0.1:9/")
    monkeypatch.setenv("LESSOR_API_KEY", SECRET)
    with Client() as c:
        assert c.url == "http://127.0.0.1:9"
        for text in (repr(c), str(c), repr(c.__dict__), repr(c._http.headers)):
            assert SECRET not in text


def test_settings_come_from_the_arguments_then_the_environment() -> None:
    assert resolve_settings("https://l.example", " k \n", {}) == ("https://l.example", "k")
    assert resolve_settings(None, None, {"LESSOR_URL": "http://a:1/", "LESSOR_API_KEY": "k2"}) == ("http://a:1", "k2")
    with pytest.raises(ValueError, match="LESSOR_URL"):
        resolve_settings(None, "k", {})
    with pytest.raises(ValueError, match="LESSOR_API_KEY") as refused:
        resolve_settings("http://a", None, {})
    with pytest.raises(ValueError, match="not an http"):
        resolve_settings("ftp://a", "k", {})
    assert SECRET not in str(refused.value)


def test_a_secret_answered_is_in_no_models_repr() -> None:
    replicas = {"min": 1, "max": 1, "target_inflight": 8, "idle_timeout": "30m", "scale_down_delay": "60s", "drain_timeout": "5m", "sleep": "stop"}
    d = Deployment.model_validate(
        {
            "name": "chat",
            "id": "dp_1",
            "state": "ready",
            "lease_id": "ls_1",
            "base_url": "http://x/v1",
            "api_key": SECRET,
            "model": "m",
            "hourly_usd": 1.0,
            "replicas": replicas,
            "scaler": None,
        }
    )
    k = CreatedOrgKey(id="key_1", name="n", prefix="lsr_SSSS", scope="admin", created_at="t", revoked_at=None, secret=SECRET)
    for model in (d, k):
        assert SECRET not in repr(model) and SECRET not in str(model)
    assert d.api_key == SECRET


def test_an_answer_the_client_cannot_read_is_an_error_that_shows_no_value() -> None:
    answer = httpx.Response(200, json={"name": "chat", "api_key": SECRET}, headers={"x-request-id": "req_3"})
    with pytest.raises(LessorError) as raised:
        decode(answer, Deployment, "GET /v1/deployments/chat")
    assert raised.value.code == "unexpected_answer" and raised.value.request_id == "req_3"
    assert "lease_id: Field required" in raised.value.message
    assert SECRET not in str(raised.value) and SECRET not in repr(raised.value)
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


# --- requests -------------------------------------------------------------------------------------


def test_a_request_sends_what_was_given_by_its_wire_names() -> None:
    from lessor._generated import PostLeasesIdLockBody

    r = request_of(
        "POST",
        "/v1/deployments/{name}",
        {"name": "a/b c"},
        {"recreate": "true", "tail": None},
        {"idempotency-key": None},
        PostLeasesIdLockBody.model_validate({"for": "2h"}),
        False,
    )
    assert r == {"method": "POST", "url": "/v1/deployments/a%2Fb%20c", "params": {"recreate": "true"}, "headers": {}, "json": {"for": "2h"}}
