"""AsyncClient against a real lessor: the same workflows as test_client.py, awaited."""

from __future__ import annotations

import asyncio
import io

import pytest
from openai import AsyncOpenAI

from lessor import AsyncClient, LeaseReleased, NotFound

MODEL = "Qwen/Qwen2.5-0.5B-Instruct"


@pytest.mark.asyncio
async def test_run_streams_the_log_and_answers_the_exit_code(server_url: str, api_key: str) -> None:
    out = io.StringIO()
    async with AsyncClient(server_url, api_key) as lessor:
        assert await lessor.run("l4", "echo async; sleep 1; echo done; exit 5", ttl="10m", out=out) == 5
        assert out.getvalue() == "async\ndone\n"
        with pytest.raises(LeaseReleased) as raised:
            await lessor.run("l4", "exit 256", ttl="10m")
        assert raised.value.code == "provider_refused"


@pytest.mark.asyncio
async def test_a_cancelled_run_with_end_on_interrupt_ends_the_lease(server_url: str, api_key: str) -> None:
    async with AsyncClient(server_url, api_key) as lessor:
        task = asyncio.create_task(lessor.run("l4", "echo up; hang", name="py-async-cancel", ttl="10m", out=io.StringIO(), end_on_interrupt=True))
        lease = None
        for _ in range(240):
            found = await lessor.leases(name="py-async-cancel", state="ready")
            if found and await lessor.logs(found[0]) == "up\n":
                lease = found[0]
                break
            await asyncio.sleep(0.25)
        assert lease is not None, "the job did not start"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert (await lessor.lease(lease)).state in ("releasing", "released")


@pytest.mark.asyncio
async def test_scratch_and_up_awaited(server_url: str, api_key: str) -> None:
    async with AsyncClient(server_url, api_key) as lessor:
        async with lessor.scratch("l4", ttl="30m") as box:
            ran = await box.exec("echo awaited; exit 2")
            assert (ran.exit_code, ran.output) == (2, "awaited\n")
        assert (await lessor.lease(box.id)).state in ("releasing", "released")

        d = await lessor.up("py-async-chat", MODEL)
        assert d.state == "ready" and d.base_url and d.api_key
        openai = AsyncOpenAI(base_url=d.base_url, api_key=d.api_key, max_retries=0)
        models = await openai.models.list()
        assert MODEL in [m.id for m in models.data]
        await openai.close()
        await lessor.down("py-async-chat")
        with pytest.raises(NotFound):
            await lessor.deployment("py-async-chat")
