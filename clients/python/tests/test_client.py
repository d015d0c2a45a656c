"""The workflows against a real lessor (a `wrangler dev` serving the sim, conftest.py): each one as
a notebook user calls it, and what it must answer, print, raise and leave behind."""

from __future__ import annotations

import contextlib
import io
import re
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import TypeVar

import pytest
from openai import OpenAI

from lessor import (
    Client,
    InvalidRequest,
    LeaseReleased,
    NoCapacity,
    NotFound,
    OverBudget,
    Quote,
    Unauthenticated,
)

MODEL = "Qwen/Qwen2.5-0.5B-Instruct"
T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], timeout_s: float = 60.0) -> T:
    deadline = time.monotonic() + timeout_s
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.25)


def test_quote_answers_the_offer_for_a_spec(client: Client) -> None:
    q = client.quote("l40s:1", regions=["us-east", "us-west"], ttl="2h")
    assert isinstance(q, Quote)
    assert q.id.startswith("qt_") and q.offer.gpu == "l40s" and q.offer.region in ("us-east", "us-west")
    assert q.policy.ttl == "2h" and q.ceiling_usd is not None and q.ceiling_usd > 0


def test_the_generated_api_answers_typed_models(client: Client) -> None:
    gpus = client.api.get_catalog_gpus()
    assert "l40s" in {g.name for g in gpus.data}
    assert client.api.get_org().caller is not None


def test_run_streams_the_log_and_answers_the_jobs_exit_code(client: Client, capsys: pytest.CaptureFixture[str]) -> None:
    code = client.run("l4", "echo loading; echo training; sleep 1; echo done; exit 3", name="py-run", ttl="10m")
    assert code == 3
    out, err = capsys.readouterr()
    assert out == "loading\ntraining\ndone\n"
    assert "lessor: lease ls_" in err and "(sim l4 x1, " in err
    lease = client.lease("py-run")
    assert lease.kind == "job" and lease.state in ("releasing", "released") and lease.exit is not None and lease.exit.code == 3


def test_run_takes_a_list_of_words_and_writes_to_the_stream_given(client: Client) -> None:
    out = io.StringIO()
    assert client.run("l4", ["echo", "from", "words"], out=out) == 0
    assert out.getvalue() == "from words\n"


def test_a_job_ended_by_a_signal_exits_128_plus_its_number(client: Client, capsys: pytest.CaptureFixture[str]) -> None:
    result: dict[str, int] = {}
    runner = threading.Thread(target=lambda: result.setdefault("code", client.run("l4", "echo started; hang", name="py-killed", ttl="10m")))
    runner.start()
    lease = wait_for("the job to run", lambda: next((l for l in client.leases(name="py-killed") if l.state == "ready"), None))
    wait_for("its output", lambda: client.logs(lease) == "started\n")
    assert client.api.post_leases_id_kill(lease.id, {"timeout": "5s"}).outcome == "stopped"
    runner.join(60)
    assert result == {"code": 143}
    assert "the command was ended by SIGTERM" in capsys.readouterr().err


class InterruptOnFirstWrite(io.StringIO):
    """A notebook's stop button, as the cell sees it: KeyboardInterrupt while the log is being followed."""

    def write(self, s: str) -> int:
        raise KeyboardInterrupt


def test_an_interrupted_run_detaches_and_the_job_goes_on(client: Client, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(KeyboardInterrupt):
        client.run("l4", "echo up; hang", name="py-detached", ttl="10m", out=InterruptOnFirstWrite())
    lease = client.leases(name="py-detached")[0]
    assert client.lease(lease).state == "ready"
    assert f".follow_logs({lease.id!r})" in capsys.readouterr().err
    assert client.end("py-detached").state in ("releasing", "released")


def test_an_interrupted_run_with_end_on_interrupt_ends_the_lease(client: Client, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(KeyboardInterrupt):
        client.run("l4", "echo up; hang", name="py-ended", ttl="10m", out=InterruptOnFirstWrite(), end_on_interrupt=True)
    lease = client.leases(name="py-ended")[0]
    assert client.lease(lease).state in ("releasing", "released")
    assert f"ended lease {lease.id}" in capsys.readouterr().err


def test_a_job_released_before_its_command_exited_raises_lease_released(client: Client) -> None:
    # The sim refuses a command its language does not parse: the lease is released at once.
    with pytest.raises(LeaseReleased) as raised:
        client.run("l4", "exit 256", ttl="10m")
    assert raised.value.code == "provider_refused"
    assert raised.value.details["release_reason"] == "provider_refused"
    assert raised.value.details["lease_id"].startswith("ls_")


# A frame is `id: N`, then its other fields, then a blank line. The stream may come chunked, so
# the chunks' size lines are taken out before looking for one.
COMPLETE_ID_FRAME = re.compile(rb"(?:^|\n)id: \d+\n(?:[^\n]+\n)*\n")
CHUNK_SIZE_LINE = re.compile(rb"\r\n[0-9a-fA-F]+\r\n")


class CuttingProxy:
    """A TCP proxy to lessor that cuts its first connection once a whole log chunk (an `id:` frame)
    has passed through it, as a dropped connection would, and keeps every request head it forwarded."""

    def __init__(self, upstream: tuple[str, int]) -> None:
        self.upstream = upstream
        self.heads: list[str] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._first = True
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            cut, self._first = self._first, False
            threading.Thread(target=self._serve, args=(conn, cut), daemon=True).start()

    def _serve(self, conn: socket.socket, cut: bool) -> None:
        up = socket.create_connection(self.upstream)
        try:
            head = b""
            while b"\r\n\r\n" not in head:
                data = conn.recv(65536)
                if not data:
                    return
                head += data
            self.heads.append(head.decode("latin-1"))
            up.sendall(head)
            seen = b""
            while data := up.recv(65536):
                conn.sendall(data)
                seen += data
                # Cut only once a whole frame with an id has passed: a read can end inside a frame,
                # and a client holding half a frame has no id yet to resume from.
                if cut and COMPLETE_ID_FRAME.search(CHUNK_SIZE_LINE.sub(b"", seen)):
                    break
        finally:
            # Either side may have gone already (the client reconnecting, the server ending the
            # stream): a shutdown of a socket no longer connected raises, and an exception in this
            # thread would fail whichever test pytest is running when it collects it.
            for s in (conn, up):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()


@pytest.fixture()
def proxy(server_url: str) -> Iterator[CuttingProxy]:
    host, port = server_url.removeprefix("http://").split(":")
    p = CuttingProxy((host, int(port)))
    yield p
    p.close()


def test_a_follow_that_drops_resumes_after_the_last_chunk(client: Client, api_key: str, proxy: CuttingProxy) -> None:
    lease = client.api.post_leases({"kind": "job", "spec": {"gpu": "l4"}, "cmd": "echo one; sleep 2; echo two; sleep 2; echo three", "policy": {"ttl": "10m"}})
    out = io.StringIO()
    with Client(f"http://127.0.0.1:{proxy.port}", api_key) as through_proxy:
        end = through_proxy.follow_logs(lease.id, out=out)
    assert end.reason == "exited" and end.exit is not None and end.exit.code == 0
    assert out.getvalue() == "one\ntwo\nthree\n"
    follows = [h for h in proxy.heads if "/logs?follow=1" in h]
    assert len(follows) >= 2, proxy.heads
    assert "last-event-id" not in follows[0].lower()
    assert "last-event-id: " in follows[1].lower()


def test_scratch_is_a_context_manager_that_ends_the_session(client: Client) -> None:
    with client.scratch("l40s:1", ttl="30m", name="py-scratch") as box:
        assert box.lease.state == "ready" and box.id.startswith("ls_")
        ran = box.exec("echo there; exit 4")
        assert (ran.exit_code, ran.output, ran.state) == (4, "there\n", "failed")
        assert box.exec(["echo", "ok"]).output == "ok\n"
    assert client.lease(box.id).state in ("releasing", "released")


def test_scratch_ends_the_session_when_the_block_raises(client: Client) -> None:
    with pytest.raises(RuntimeError, match="inside"):
        with client.scratch("l4", ttl="30m") as box:
            raise RuntimeError("inside")
    assert client.lease(box.id).state in ("releasing", "released")


def test_up_answers_what_openai_needs_and_openai_chats_through_it(client: Client) -> None:
    d = client.up("py-chat", MODEL)
    assert d.state == "ready" and d.model == MODEL
    assert d.base_url == f"{client.url}/v1/gateway/{d.id}/v1"
    assert d.api_key is not None and d.api_key not in repr(d)
    openai = OpenAI(base_url=d.base_url, api_key=d.api_key, max_retries=0)
    reply = openai.chat.completions.create(model=d.model, messages=[{"role": "user", "content": "Say hello"}], max_tokens=16)
    assert reply.choices[0].message.content
    # Asked again: the same deployment, found.
    assert client.up("py-chat", MODEL).id == d.id
    assert client.down("py-chat").name == "py-chat"
    with pytest.raises(NotFound):
        client.deployment("py-chat")


def test_leases_lists_every_page_filtered_and_end_takes_a_name(client: Client) -> None:
    made = [client.api.post_leases({"kind": "scratch", "spec": {"gpu": "l4"}, "name": f"py-list-{i}", "policy": {"ttl": "10m"}}) for i in range(3)]
    scratch = client.leases(kind="scratch")
    assert {m.id for m in made} <= {l.id for l in scratch}
    assert all(l.kind == "scratch" for l in scratch)
    assert len(client.leases(limit=2)) == 2
    for m in made:
        assert client.end(m.name or "").id == m.id
    assert {client.lease(m).state for m in made} <= {"releasing", "released"}


def test_an_unknown_lease_is_not_found_with_the_envelopes_fields(client: Client) -> None:
    with pytest.raises(NotFound) as raised:
        client.lease("ls_" + "0" * 26)
    e = raised.value
    assert (e.code, e.status) == ("not_found", 404)
    assert e.request_id is not None and e.request_id.startswith("req_")
    with pytest.raises(NotFound, match="no lease is named py-nothing"):
        client.end("py-nothing")


def test_a_wrong_key_is_unauthenticated(server_url: str) -> None:
    with Client(server_url, "lsr_" + "x" * 43) as wrong, pytest.raises(Unauthenticated) as raised:
        wrong.leases()
    assert (raised.value.code, raised.value.status) == ("unauthenticated", 401)


def test_nothing_that_fits_is_no_capacity_naming_the_constraint(client: Client) -> None:
    with pytest.raises(NoCapacity) as raised:
        client.quote("b200:8", max_hourly_usd=5)
    assert raised.value.code == "no_capacity" and raised.value.status == 409 and raised.value.details


def test_a_bad_duration_is_an_invalid_request_with_its_own_code(client: Client) -> None:
    with pytest.raises(InvalidRequest) as raised:
        client.run("l4", "echo never", ttl="forever")
    assert (raised.value.code, raised.value.status) == ("invalid_duration", 400)


def test_a_run_past_the_orgs_budget_is_over_budget_and_rents_nothing(server_url: str, new_org: Callable[[str], str]) -> None:
    with Client(server_url, new_org("py-budget")) as c:
        c.api.put_budget({"concurrent_hourly_usd": 0.01})
        with pytest.raises(OverBudget) as raised:
            c.run("l4", "echo never", ttl="10m")
        assert (raised.value.code, raised.value.status) == ("over_budget", 402)
        assert c.leases() == []
