"""The asynchronous client: Client's workflows (_client.py), awaited, for asyncio code and for
notebooks that ``await``. Each method is its sync twin's, line for line; the twin's docstring says
what it does, and what they share that does no I/O is in _occupant.py and _transport.py.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from contextlib import aclosing, asynccontextmanager
from pathlib import Path
from typing import Any, TextIO, TypeVar
from urllib.parse import quote

import httpx

from ._data import PARTIAL_SUFFIX, Bundle, OutputsIncomplete, artifact_target, file_sha256, keep_download, left_out_summary, pack_workdir
from ._errors import LessorError, NotFound, Unreachable
from ._generated import (
    Artifact,
    AsyncApi,
    CreateLeaseForSpec,
    CreateVolume,
    Deployment,
    DeploymentConfig,
    Exec,
    ExecRequest,
    GetLeasesKind,
    GetLeasesState,
    GuardedLease,
    Lease,
    Quote,
    QuoteRequest,
    Upload,
    Volume,
)
from ._occupant import (
    LEASE_ID,
    OUTPUTS_POLL_S,
    OUTPUTS_VERDICT_S,
    LogEnd,
    OutputsVerdict,
    artifact_route,
    bytes_text,
    command_line,
    exit_code_of,
    incomplete_error,
    machine_text,
    mounts_of,
    policy_of,
    released_early,
    spec_of,
    verdict_of,
)
from ._sse import Frame, SseParser
from ._transport import (
    DEPLOYMENT_POLL_S,
    EXEC_WAIT_S,
    FOLLOW_READ_TIMEOUT_S,
    PAGE_LIMIT,
    READY_POLL_S,
    RECONNECT_MAX_S,
    RECONNECT_TRIES,
    REQUEST_TIMEOUT_S,
    answer_error,
    client_headers,
    decode,
    note,
    request_of,
    resolve_settings,
    unreachable,
)

T = TypeVar("T")


class _AsyncCaller:
    def __init__(self, http: httpx.AsyncClient, timeout: float) -> None:
        self._http = http
        self._timeout = timeout

    async def __call__(
        self,
        method: str,
        route: str,
        *,
        response: type[T],
        path: Mapping[str, str] | None = None,
        query: Mapping[str, Any] | None = None,
        headers: Mapping[str, Any] | None = None,
        body: Any = None,
        text_body: bool = False,
    ) -> T:
        where = f"{method} {route}"
        try:
            answer = await self._http.request(**request_of(method, route, path, query, headers, body, text_body), timeout=self._timeout)
        except httpx.TransportError as e:
            raise unreachable(e, where) from e
        return decode(answer, response, where)


def _given(**fields: Any) -> dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


class AsyncClient:
    """Client, awaited: ``async with AsyncClient() as lessor: code = await lessor.run("l4", "python train.py")``."""

    def __init__(self, url: str | None = None, api_key: str | None = None, *, timeout: float = REQUEST_TIMEOUT_S) -> None:
        self.url, key = resolve_settings(url, api_key)
        self._http = httpx.AsyncClient(base_url=self.url, headers=client_headers(key), timeout=timeout)
        self.api = AsyncApi(_AsyncCaller(self._http, timeout))
        self._exec_api = AsyncApi(_AsyncCaller(self._http, EXEC_WAIT_S))

    def __repr__(self) -> str:
        return f"AsyncClient(url={self.url!r})"

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def quote(self, gpu: str | None = None, *, kind: str | None = None, ttl: str | None = None, **spec: Any) -> Quote:
        body = QuoteRequest(spec=spec_of(gpu, spec), **_given(kind=kind, policy=policy_of(ttl=ttl)))
        return await self.api.post_quotes(body)

    async def leases(
        self, *, state: GetLeasesState | None = None, kind: GetLeasesKind | None = None, name: str | None = None, limit: int | None = None
    ) -> list[Lease]:
        found: list[Lease] = []
        cursor: str | None = None
        while True:
            want = PAGE_LIMIT if limit is None else min(PAGE_LIMIT, limit - len(found))
            if want <= 0:
                return found
            page = await self.api.get_leases(state=state, kind=kind, name=name, limit=want, cursor=cursor)
            found.extend(page.data)
            cursor = page.next_cursor
            if not cursor:
                return found

    async def lease_id(self, ref: str | Lease) -> str:
        if isinstance(ref, Lease):
            return ref.id
        if LEASE_ID.match(ref):
            return ref
        if ref.startswith("ls_"):
            raise NotFound("not_found", f"lease {ref} was not found", {"id": ref})
        page = await self.api.get_leases(name=ref, limit=50)
        lease = next((l for l in page.data if l.state != "released"), page.data[0] if page.data else None)
        if lease is None:
            raise NotFound("not_found", f"no lease is named {ref}", {"name": ref})
        return lease.id

    async def lease(self, ref: str | Lease) -> GuardedLease:
        return await self.api.get_leases_id(await self.lease_id(ref))

    async def end(self, ref: str | Lease) -> Lease:
        return await self.api.post_leases_id_end(await self.lease_id(ref))

    async def logs(self, ref: str | Lease, *, tail: int | None = None) -> str:
        return await self.api.get_leases_id_logs(await self.lease_id(ref), tail=tail)

    async def follow_logs(self, ref: str | Lease, *, out: TextIO | None = None) -> LogEnd:
        return await self._follow_log(await self.lease_id(ref), out if out is not None else sys.stdout)

    async def run(
        self,
        gpu: str | None,
        cmd: str | Sequence[str],
        *,
        name: str | None = None,
        env: Mapping[str, str] | None = None,
        ttl: str | None = None,
        max_runtime: str | None = None,
        max_inactivity: str | None = None,
        outputs_wait: str | None = None,
        image: str | None = None,
        end_on_interrupt: bool = False,
        out: TextIO | None = None,
        workdir: str | os.PathLike[str] | None = None,
        outputs: str | os.PathLike[str] | None = None,
        volumes: Mapping[str, str] | None = None,
        recovery: Mapping[str, Any] | None = None,
        **spec: Any,
    ) -> int:
        bundle = (await self.upload_workdir(workdir)).id if workdir is not None else None
        body = CreateLeaseForSpec(
            kind="job",
            spec=spec_of(gpu, spec),
            cmd=command_line(cmd),
            **_given(
                name=name,
                env=dict(env) if env else None,
                image=image,
                workdir=bundle,
                volumes=mounts_of(volumes),
                policy=policy_of(
                    ttl=ttl,
                    max_runtime=max_runtime,
                    max_inactivity=max_inactivity,
                    outputs_wait=outputs_wait,
                    recovery=dict(recovery) if recovery else None,
                ),
            ),
        )
        lease = await self.api.post_leases(body)
        note(f"lease {lease.id} ({machine_text(lease)}): following its output")
        try:
            end = await self._follow_log(lease.id, out if out is not None else sys.stdout)
        except (KeyboardInterrupt, asyncio.CancelledError):
            # A cancelled task may still await once more: the end is sent before the cancel goes on.
            if end_on_interrupt:
                await self.api.post_leases_id_end(lease.id)
                note(f"ended lease {lease.id}")
            else:
                note(f"detached; the job goes on. Follow it again: .follow_logs({lease.id!r})   End it: .end({lease.id!r})")
            raise
        if end.exit is None:
            raise released_early(await self.api.get_leases_id(lease.id), "its command exited")
        if end.exit.signal is not None:
            note(f"the command was ended by SIG{end.exit.signal}")
        code = exit_code_of(end.exit)
        if outputs is not None:
            await self._bring_outputs(lease.id, outputs, code)
        return code

    @asynccontextmanager
    async def scratch(
        self,
        gpu: str | None = None,
        *,
        name: str | None = None,
        env: Mapping[str, str] | None = None,
        ttl: str | None = None,
        image: str | None = None,
        volumes: Mapping[str, str] | None = None,
        **spec: Any,
    ) -> AsyncIterator[AsyncScratch]:
        body = CreateLeaseForSpec(
            kind="scratch",
            spec=spec_of(gpu, spec),
            **_given(name=name, env=dict(env) if env else None, image=image, volumes=mounts_of(volumes), policy=policy_of(ttl=ttl)),
        )
        lease = await self.api.post_leases(body)
        note(f"lease {lease.id} ({machine_text(lease)}): waiting for its machine")
        try:
            yield AsyncScratch(self, await self._ready(lease.id))
        finally:
            await self.api.post_leases_id_end(lease.id)
            note(f"ended lease {lease.id}")

    async def _ready(self, lease_id: str) -> GuardedLease:
        while True:
            lease = await self.api.get_leases_id(lease_id)
            if lease.state == "ready":
                return lease
            if lease.state == "released":
                raise released_early(lease, "its machine was ready")
            await asyncio.sleep(READY_POLL_S)

    async def _exec(self, lease_id: str, cmd: str | Sequence[str], timeout: str | None) -> Exec:
        return await self._exec_api.post_leases_id_exec(lease_id, ExecRequest(cmd=command_line(cmd), **_given(timeout=timeout)))

    # --- volumes (docs/volumes.md) -------------------------------------------------------------

    async def volume(self, name: str, size_gb: int, *, region: str | None = None, provider: str | None = None) -> Volume:
        """Makes the volume ``name`` (``size_gb`` GB, where ``region``/``provider`` say), or finds the
        org's volume of that name: storage that outlives a lease. A lease mounts it with
        ``volumes={name: "/path"}`` and is placed where it lives."""
        return await self.api.post_volumes(CreateVolume(name=name, size_gb=size_gb, **_given(region=region, provider=provider)))

    async def volumes(self) -> list[Volume]:
        """The org's volumes, by name: every page."""
        found: list[Volume] = []
        cursor: str | None = None
        while True:
            page = await self.api.get_volumes(limit=PAGE_LIMIT, cursor=cursor)
            found.extend(page.data)
            cursor = page.next_cursor
            if not cursor:
                return found

    async def delete_volume(self, ref: str | Volume) -> Volume:
        """Deletes a volume (its id, its name, or a Volume) and its data; Conflict ``volume_in_use``
        while a lease that mounts it is not released."""
        if isinstance(ref, Volume):
            volume_id = ref.id
        elif ref.startswith("vol_"):
            volume_id = ref
        else:
            found = next((v for v in await self.volumes() if v.name == ref), None)
            if found is None:
                raise NotFound("not_found", f"no volume is named {ref}", {"name": ref})
            volume_id = found.id
        return await self.api.delete_volumes_id(volume_id)

    # --- data in and out (docs/artifacts.md): Client's, awaited --------------------------------

    async def upload_workdir(self, directory: str | os.PathLike[str]) -> Upload:
        bundle = await asyncio.to_thread(pack_workdir, directory)
        try:
            summary = left_out_summary(bundle.walk.left_out)
            if summary:
                note(summary)
            note(f"workdir {directory}: {bundle.walk.files} files, sending {bytes_text(bundle.size)}")
            headers = {"content-type": "application/gzip", "lessor-sha256": bundle.sha256, "content-length": str(bundle.size)}
            try:
                answer = await self._http.post("/v1/uploads", content=_chunks_of(bundle), headers=headers)
            except httpx.TransportError as e:
                raise unreachable(e, "POST /v1/uploads") from e
            return decode(answer, Upload, "POST /v1/uploads")
        finally:
            bundle.remove()

    async def artifacts(self, ref: str | Lease) -> list[Artifact]:
        lease_id = await self.lease_id(ref)
        found: list[Artifact] = []
        cursor: str | None = None
        while True:
            page = await self.api.get_leases_id_artifacts(lease_id, limit=PAGE_LIMIT, cursor=cursor)
            found.extend(page.data)
            cursor = page.next_cursor
            if not cursor:
                return found

    async def download(self, ref: str | Lease, directory: str | os.PathLike[str], path: str | None = None) -> list[Path]:
        lease_id = await self.lease_id(ref)
        wanted = [a for a in await self.artifacts(lease_id) if path is None or a.path == path or a.path.startswith(path.rstrip("/") + "/")]
        if path is not None and not wanted:
            raise NotFound("not_found", f"lease {lease_id} has no artifact at {path}", {"path": path})
        got: list[Path] = []
        failed: list[dict[str, Any]] = []
        for artifact in wanted:
            try:
                got.append(await self._download_one(lease_id, directory, artifact))
            except LessorError as e:
                failed.append({"path": artifact.path, "code": e.code, "message": e.message})
        note(f"outputs: got {len(got)} files ({bytes_text(sum(p.stat().st_size for p in got))}) into {directory}")
        if failed:
            raise incomplete_error([], failed, None)
        return got

    async def _download_one(self, lease_id: str, directory: str | os.PathLike[str], artifact: Artifact) -> Path:
        target = artifact_target(directory, artifact.path)
        if target.is_file() and file_sha256(target) == artifact.sha256:
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + PARTIAL_SUFFIX)
        route = artifact_route(lease_id, artifact.path)
        try:
            async with self._http.stream("GET", route) as res:
                if res.status_code >= 400:
                    await res.aread()
                    raise answer_error(res, f"GET {route}")
                with partial.open("wb") as f:
                    async for chunk in res.aiter_bytes():
                        f.write(chunk)
                sent = res.headers.get("lessor-sha256", artifact.sha256)
        except httpx.TransportError as e:
            raise unreachable(e, f"GET {route}") from e
        return keep_download(partial, target, artifact.path, sent, artifact.sha256)

    async def outputs_verdict(self, ref: str | Lease, *, wait_s: float = OUTPUTS_VERDICT_S) -> OutputsVerdict:
        lease_id = await self.lease_id(ref)
        deadline = time.monotonic() + wait_s
        after = 0
        while True:
            page = await self.api.get_leases_id_events(lease_id, after=str(after))
            found, after = verdict_of(page.data, after)
            if found is not None:
                return found
            if page.next_after is not None:
                continue
            if page.released or time.monotonic() >= deadline:
                return OutputsVerdict("unknown", [])
            await asyncio.sleep(OUTPUTS_POLL_S)

    async def _bring_outputs(self, lease_id: str, directory: str | os.PathLike[str], exit_code: int) -> None:
        note(f"outputs: waiting for lessor to store them, then downloading them into {directory}")
        verdict = await self.outputs_verdict(lease_id)
        Path(directory).mkdir(parents=True, exist_ok=True)
        try:
            await self.download(lease_id, directory)
        except OutputsIncomplete as e:
            raise incomplete_error(verdict.missing, e.details.get("failed", []), exit_code) from None
        if verdict.state == "unknown":
            note("outputs: lessor has not said whether every output came back; what is listed was downloaded")
        if verdict.missing:
            raise incomplete_error(verdict.missing, [], exit_code)

    async def up(self, name: str, model: str, *, gpu: str | None = None, recreate: bool = False, wait: bool = True, **spec: Any) -> Deployment:
        config = DeploymentConfig(model=model, **_given(spec=spec_of(gpu, spec) if gpu is not None or spec else None))
        d = await self.api.put_deployments_name(name, config, recreate="true" if recreate else None)
        if wait and d.state != "ready":
            note(f"deployment {d.name}: {d.state}, waiting for {d.model} to answer")
            while d.state not in ("ready", "released"):
                await asyncio.sleep(DEPLOYMENT_POLL_S)
                d = await self.api.get_deployments_name(name)
            if d.state == "released":
                raise released_early(await self.api.get_leases_id(d.lease_id), "its model answered", deployment=d.name)
        return d

    async def deployment(self, name: str) -> Deployment:
        return await self.api.get_deployments_name(name)

    async def down(self, name: str) -> Deployment:
        return await self.api.delete_deployments_name(name)

    async def _follow_log(self, lease_id: str, out: TextIO) -> LogEnd:
        # Closed here, not when collected: its connection is let go as soon as the end is read.
        async with aclosing(self._follow(f"/v1/leases/{quote(lease_id, safe='')}/logs")) as frames:
            async for frame in frames:
                if frame.event == "end":
                    return LogEnd.parse(frame.data)
                out.write(f"{frame.data}\n" if frame.event == "dropped" else frame.data)
                out.flush()
        raise Unreachable("unreachable", f"the log of {lease_id} ended without its end")

    async def _follow(self, route: str, last_event_id: str | None = None) -> AsyncGenerator[Frame, None]:
        last = last_event_id
        failures = 0
        timeout = httpx.Timeout(REQUEST_TIMEOUT_S, read=FOLLOW_READ_TIMEOUT_S)
        while True:
            headers = {"accept": "text/event-stream", **({"last-event-id": last} if last is not None else {})}
            try:
                async with self._http.stream("GET", route, params={"follow": "1"}, headers=headers, timeout=timeout) as res:
                    if res.status_code >= 400:
                        await res.aread()
                        error = answer_error(res, f"GET {route}")
                        if (res.status_code >= 500 or res.status_code == 429) and failures < RECONNECT_TRIES:
                            failures += 1
                            await asyncio.sleep(min(RECONNECT_MAX_S, 0.5 * 2**failures))
                            continue
                        raise error
                    parser = SseParser()
                    async for chunk in res.aiter_bytes():
                        for frame in parser.feed(chunk):
                            failures = 0
                            if frame.id is not None:
                                last = frame.id
                            yield frame
                            if frame.event == "end":
                                return
            except httpx.TransportError as e:
                failures += 1
                if failures > RECONNECT_TRIES:
                    raise unreachable(e, f"GET {route}") from e
                await asyncio.sleep(min(RECONNECT_MAX_S, 0.5 * 2**failures))
                continue
            await asyncio.sleep(min(RECONNECT_MAX_S, 0.25 * 2**failures))


class AsyncScratch:
    """Scratch, awaited."""

    def __init__(self, client: AsyncClient, lease: GuardedLease) -> None:
        self._client = client
        self.lease = lease
        self.id = lease.id

    def __repr__(self) -> str:
        return f"AsyncScratch(id={self.id!r})"

    async def exec(self, cmd: str | Sequence[str], *, timeout: str | None = None) -> Exec:
        return await self._client._exec(self.id, cmd, timeout)

    async def refresh(self) -> GuardedLease:
        self.lease = await self._client.api.get_leases_id(self.id)
        return self.lease

    async def end(self) -> Lease:
        return await self._client.api.post_leases_id_end(self.id)


async def _chunks_of(bundle: Bundle) -> AsyncIterator[bytes]:
    """A bundle's bytes for an async request body, a MiB at a time."""
    with bundle.path.open("rb") as f:
        while chunk := await asyncio.to_thread(f.read, 1 << 20):
            yield chunk
