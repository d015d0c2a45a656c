"""The synchronous client: the workflows a notebook reaches for, over the generated Api.

Each workflow is the CLI's command of the same name, with its semantics (cli/occupant.mjs,
cli/deployments.mjs, cli/commands.mjs, cli/stream.mjs): AsyncClient (_async_client.py) is the
same, awaited; what they share that does no I/O is in _occupant.py and _transport.py.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO, TypeVar
from urllib.parse import quote

import httpx

from ._data import PARTIAL_SUFFIX, OutputsIncomplete, artifact_target, file_sha256, keep_download, left_out_summary, pack_workdir
from ._errors import LessorError, NotFound, Unreachable
from ._generated import (
    Api,
    Artifact,
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


class _Caller:
    """The Api's one way to the server: an operation as a request, its answer as its type."""

    def __init__(self, http: httpx.Client, timeout: float) -> None:
        self._http = http
        self._timeout = timeout

    def __call__(
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
            answer = self._http.request(**request_of(method, route, path, query, headers, body, text_body), timeout=self._timeout)
        except httpx.TransportError as e:
            raise unreachable(e, where) from e
        return decode(answer, response, where)


def _given(**fields: Any) -> dict[str, Any]:
    """The fields that were given: a model built from them sends only those (None is "not given")."""
    return {k: v for k, v in fields.items() if v is not None}


class Client:
    """lessor from Python: ``Client(url, api_key)``, else ``LESSOR_URL`` and ``LESSOR_API_KEY``.

    The workflows (``quote``, ``run``, ``scratch``, ``up``, ``leases``, ``end``...) are methods;
    every operation of the API is on ``client.api``, typed from the OpenAPI document. An error
    answer raises a LessorError carrying its code. The key is never printed, nor in a repr.
    """

    def __init__(self, url: str | None = None, api_key: str | None = None, *, timeout: float = REQUEST_TIMEOUT_S) -> None:
        self.url, key = resolve_settings(url, api_key)
        self._http = httpx.Client(base_url=self.url, headers=client_headers(key), timeout=timeout)
        self.api = Api(_Caller(self._http, timeout))
        # An exec's request waits for the command's result (docs/agent.md).
        self._exec_api = Api(_Caller(self._http, EXEC_WAIT_S))

    def __repr__(self) -> str:
        return f"Client(url={self.url!r})"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- catalog and quotes --------------------------------------------------------------------

    def quote(self, gpu: str | None = None, *, kind: str | None = None, ttl: str | None = None, **spec: Any) -> Quote:
        """The offer lessor would choose for a spec (``gpu="l40s:1"`` and any other Spec field, e.g.
        ``regions=["us-east"]``, ``max_hourly_usd=2``), its fallbacks, rate and cost ceiling."""
        body = QuoteRequest(spec=spec_of(gpu, spec), **_given(kind=kind, policy=policy_of(ttl=ttl)))
        return self.api.post_quotes(body)

    # --- leases --------------------------------------------------------------------------------

    def leases(
        self, *, state: GetLeasesState | None = None, kind: GetLeasesKind | None = None, name: str | None = None, limit: int | None = None
    ) -> list[Lease]:
        """The org's leases, newest first: every page, or the first ``limit``."""
        found: list[Lease] = []
        cursor: str | None = None
        while True:
            want = PAGE_LIMIT if limit is None else min(PAGE_LIMIT, limit - len(found))
            if want <= 0:
                return found
            page = self.api.get_leases(state=state, kind=kind, name=name, limit=want, cursor=cursor)
            found.extend(page.data)
            cursor = page.next_cursor
            if not cursor:
                return found

    def lease_id(self, ref: str | Lease) -> str:
        """A lease's id: as given, or the id of the lease with that name (its live one, else its newest)."""
        if isinstance(ref, Lease):
            return ref.id
        if LEASE_ID.match(ref):
            return ref
        if ref.startswith("ls_"):
            raise NotFound("not_found", f"lease {ref} was not found", {"id": ref})
        page = self.api.get_leases(name=ref, limit=50)
        lease = next((l for l in page.data if l.state != "released"), page.data[0] if page.data else None)
        if lease is None:
            raise NotFound("not_found", f"no lease is named {ref}", {"name": ref})
        return lease.id

    def lease(self, ref: str | Lease) -> GuardedLease:
        """A lease as its object has it, with ``guard``: what its policy will do next, and when."""
        return self.api.get_leases_id(self.lease_id(ref))

    def end(self, ref: str | Lease) -> Lease:
        """Ends a lease: its machine is destroyed (ending it again is harmless)."""
        return self.api.post_leases_id_end(self.lease_id(ref))

    def logs(self, ref: str | Lease, *, tail: int | None = None) -> str:
        """What the lease's command printed so far (the last ``tail`` lines)."""
        return self.api.get_leases_id_logs(self.lease_id(ref), tail=tail)

    def follow_logs(self, ref: str | Lease, *, out: TextIO | None = None) -> LogEnd:
        """Writes the lease's log to ``out`` (stdout) as it comes, until its command exits or the lease is released."""
        return self._follow_log(self.lease_id(ref), out if out is not None else sys.stdout)

    # --- jobs and scratch sessions ---------------------------------------------------------------

    def run(
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
        """Runs ``cmd`` as a job on a new machine, streams its output to ``out`` (stdout), and answers
        its exit code (128 + the signal's number when a signal ended it).

        ``workdir`` (a directory) is packed and unpacked on the machine as the command's working
        directory (``upload_workdir``); ``outputs`` (a directory) receives what the command left in
        ``$LESSOR_OUT`` once the job has ended (``download``), and OutputsIncomplete is raised when
        some of it did not come back (docs/artifacts.md). ``outputs_wait`` bounds how long ending the
        lease waits for those uploads before the machine is destroyed (default ``"5m"``).

        ``recovery`` (``{"on": ["preempted"], "max_restarts": 3, "backoff": "30s"}``) runs the command
        again on a new machine after such a loss, with ``LESSOR_RESTART`` set; its output goes on in the
        one log that is followed (docs/leases.md "Recovery"). ``spot=True`` places the job on spot offers.

        ``cmd`` is a shell line (``"python train.py --epochs 3"``) or a list of words. An interrupt
        (Ctrl-C, a notebook's stop) detaches: the job goes on, and ``follow_logs``/``end`` reach it;
        with ``end_on_interrupt`` it ends the lease instead. A lease released before its command
        exited raises LeaseReleased, its reason as the code.
        """
        bundle = self.upload_workdir(workdir).id if workdir is not None else None
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
        lease = self.api.post_leases(body)
        note(f"lease {lease.id} ({machine_text(lease)}): following its output")
        try:
            end = self._follow_log(lease.id, out if out is not None else sys.stdout)
        except KeyboardInterrupt:
            if end_on_interrupt:
                self.api.post_leases_id_end(lease.id)
                note(f"ended lease {lease.id}")
            else:
                note(f"detached; the job goes on. Follow it again: .follow_logs({lease.id!r})   End it: .end({lease.id!r})")
            raise
        if end.exit is None:
            raise released_early(self.api.get_leases_id(lease.id), "its command exited")
        if end.exit.signal is not None:
            note(f"the command was ended by SIG{end.exit.signal}")
        code = exit_code_of(end.exit)
        if outputs is not None:
            self._bring_outputs(lease.id, outputs, code)
        return code

    @contextmanager
    def scratch(
        self,
        gpu: str | None = None,
        *,
        name: str | None = None,
        env: Mapping[str, str] | None = None,
        ttl: str | None = None,
        image: str | None = None,
        volumes: Mapping[str, str] | None = None,
        **spec: Any,
    ) -> Iterator[Scratch]:
        """A scratch session: ``with client.scratch("l4") as box: box.exec("nvidia-smi")``.

        Entering rents a machine and waits until it is ready; leaving ends the lease, whatever
        happened inside (an error, an interrupt). ``ttl`` caps it (the kind's default is 4h).
        """
        body = CreateLeaseForSpec(
            kind="scratch",
            spec=spec_of(gpu, spec),
            **_given(name=name, env=dict(env) if env else None, image=image, volumes=mounts_of(volumes), policy=policy_of(ttl=ttl)),
        )
        lease = self.api.post_leases(body)
        note(f"lease {lease.id} ({machine_text(lease)}): waiting for its machine")
        try:
            yield Scratch(self, self._ready(lease.id))
        finally:
            self.api.post_leases_id_end(lease.id)
            note(f"ended lease {lease.id}")

    def _ready(self, lease_id: str) -> GuardedLease:
        while True:
            lease = self.api.get_leases_id(lease_id)
            if lease.state == "ready":
                return lease
            if lease.state == "released":
                raise released_early(lease, "its machine was ready")
            time.sleep(READY_POLL_S)

    def _exec(self, lease_id: str, cmd: str | Sequence[str], timeout: str | None) -> Exec:
        return self._exec_api.post_leases_id_exec(lease_id, ExecRequest(cmd=command_line(cmd), **_given(timeout=timeout)))

    # --- volumes (docs/volumes.md) -------------------------------------------------------------

    def volume(self, name: str, size_gb: int, *, region: str | None = None, provider: str | None = None) -> Volume:
        """Makes the volume ``name`` (``size_gb`` GB, where ``region``/``provider`` say), or finds the
        org's volume of that name: storage that outlives a lease. A lease mounts it with
        ``volumes={name: "/path"}`` and is placed where it lives."""
        return self.api.post_volumes(CreateVolume(name=name, size_gb=size_gb, **_given(region=region, provider=provider)))

    def volumes(self) -> list[Volume]:
        """The org's volumes, by name: every page."""
        found: list[Volume] = []
        cursor: str | None = None
        while True:
            page = self.api.get_volumes(limit=PAGE_LIMIT, cursor=cursor)
            found.extend(page.data)
            cursor = page.next_cursor
            if not cursor:
                return found

    def delete_volume(self, ref: str | Volume) -> Volume:
        """Deletes a volume (its id, its name, or a Volume) and its data; Conflict ``volume_in_use``
        while a lease that mounts it is not released."""
        if isinstance(ref, Volume):
            volume_id = ref.id
        elif ref.startswith("vol_"):
            volume_id = ref
        else:
            found = next((v for v in self.volumes() if v.name == ref), None)
            if found is None:
                raise NotFound("not_found", f"no volume is named {ref}", {"name": ref})
            volume_id = found.id
        return self.api.delete_volumes_id(volume_id)

    # --- data in and out (docs/artifacts.md) ---------------------------------------------------

    def upload_workdir(self, directory: str | os.PathLike[str]) -> Upload:
        """Packs ``directory`` (never ``.git``, ``.env*``, ``.dev.vars``, ``node_modules``,
        ``__pycache__``, what ``.gitignore`` and ``.lessorignore`` files match, links out of it),
        says on stderr what it left out and what it sends, and uploads it once: the bundle a job or
        scratch session names as its ``workdir``."""
        bundle = pack_workdir(directory)
        try:
            summary = left_out_summary(bundle.walk.left_out)
            if summary:
                note(summary)
            note(f"workdir {directory}: {bundle.walk.files} files, sending {bytes_text(bundle.size)}")
            headers = {"content-type": "application/gzip", "lessor-sha256": bundle.sha256, "content-length": str(bundle.size)}
            try:
                with bundle.path.open("rb") as body:
                    answer = self._http.post("/v1/uploads", content=body, headers=headers)
            except httpx.TransportError as e:
                raise unreachable(e, "POST /v1/uploads") from e
            return decode(answer, Upload, "POST /v1/uploads")
        finally:
            bundle.remove()

    def artifacts(self, ref: str | Lease) -> list[Artifact]:
        """What the lease's command left in ``$LESSOR_OUT``: path, size, sha256, created_at, expires_at."""
        lease_id = self.lease_id(ref)
        found: list[Artifact] = []
        cursor: str | None = None
        while True:
            page = self.api.get_leases_id_artifacts(lease_id, limit=PAGE_LIMIT, cursor=cursor)
            found.extend(page.data)
            cursor = page.next_cursor
            if not cursor:
                return found

    def download(self, ref: str | Lease, directory: str | os.PathLike[str], path: str | None = None) -> list[Path]:
        """Downloads the lease's artifacts into ``directory`` (all, the one at ``path``, or those
        under ``path/``): each checked against its SHA-256 and only then renamed into place, a
        path that would leave the directory refused, a file already there with its digest not
        fetched again. Answers the files written; OutputsIncomplete names any that failed."""
        lease_id = self.lease_id(ref)
        wanted = [a for a in self.artifacts(lease_id) if path is None or a.path == path or a.path.startswith(path.rstrip("/") + "/")]
        if path is not None and not wanted:
            raise NotFound("not_found", f"lease {lease_id} has no artifact at {path}", {"path": path})
        got: list[Path] = []
        failed: list[dict[str, Any]] = []
        for artifact in wanted:
            try:
                got.append(self._download_one(lease_id, directory, artifact))
            except LessorError as e:
                failed.append({"path": artifact.path, "code": e.code, "message": e.message})
        note(f"outputs: got {len(got)} files ({bytes_text(sum(p.stat().st_size for p in got))}) into {directory}")
        if failed:
            raise incomplete_error([], failed, None)
        return got

    def _download_one(self, lease_id: str, directory: str | os.PathLike[str], artifact: Artifact) -> Path:
        target = artifact_target(directory, artifact.path)
        if target.is_file() and file_sha256(target) == artifact.sha256:
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + PARTIAL_SUFFIX)
        route = artifact_route(lease_id, artifact.path)
        try:
            with self._http.stream("GET", route) as res:
                if res.status_code >= 400:
                    res.read()
                    raise answer_error(res, f"GET {route}")
                with partial.open("wb") as f:
                    for chunk in res.iter_bytes():
                        f.write(chunk)
                sent = res.headers.get("lessor-sha256", artifact.sha256)
        except httpx.TransportError as e:
            raise unreachable(e, f"GET {route}") from e
        return keep_download(partial, target, artifact.path, sent, artifact.sha256)

    def outputs_verdict(self, ref: str | Lease, *, wait_s: float = OUTPUTS_VERDICT_S) -> OutputsVerdict:
        """What the lease's events say of its outputs: ``uploaded``, ``incomplete`` (with what is
        missing), or ``unknown`` when neither came before its release and ``wait_s`` passed."""
        lease_id = self.lease_id(ref)
        deadline = time.monotonic() + wait_s
        after = 0
        while True:
            page = self.api.get_leases_id_events(lease_id, after=str(after))
            found, after = verdict_of(page.data, after)
            if found is not None:
                return found
            if page.next_after is not None:
                continue
            if page.released or time.monotonic() >= deadline:
                return OutputsVerdict("unknown", [])
            time.sleep(OUTPUTS_POLL_S)

    def _bring_outputs(self, lease_id: str, directory: str | os.PathLike[str], exit_code: int) -> None:
        note(f"outputs: waiting for lessor to store them, then downloading them into {directory}")
        verdict = self.outputs_verdict(lease_id)
        Path(directory).mkdir(parents=True, exist_ok=True)
        try:
            self.download(lease_id, directory)
        except OutputsIncomplete as e:
            raise incomplete_error(verdict.missing, e.details.get("failed", []), exit_code) from None
        if verdict.state == "unknown":
            note("outputs: lessor has not said whether every output came back; what is listed was downloaded")
        if verdict.missing:
            raise incomplete_error(verdict.missing, [], exit_code)

    # --- deployments ---------------------------------------------------------------------------

    def up(self, name: str, model: str, *, gpu: str | None = None, recreate: bool = False, wait: bool = True, **spec: Any) -> Deployment:
        """Serves ``model`` under ``name`` (made, started again or found) and waits until it answers.

        The answer's ``base_url``, ``api_key`` and ``model`` are what the ``openai`` package takes:
        ``OpenAI(base_url=d.base_url, api_key=d.api_key)``. Without ``gpu`` (or another Spec field)
        the smallest machine that fits the model is rented. A deployment whose lease was released
        before its model answered raises LeaseReleased.
        """
        config = DeploymentConfig(model=model, **_given(spec=spec_of(gpu, spec) if gpu is not None or spec else None))
        d = self.api.put_deployments_name(name, config, recreate="true" if recreate else None)
        if wait and d.state != "ready":
            note(f"deployment {d.name}: {d.state}, waiting for {d.model} to answer")
            while d.state not in ("ready", "released"):
                time.sleep(DEPLOYMENT_POLL_S)
                d = self.api.get_deployments_name(name)
            if d.state == "released":
                raise released_early(self.api.get_leases_id(d.lease_id), "its model answered", deployment=d.name)
        return d

    def deployment(self, name: str) -> Deployment:
        return self.api.get_deployments_name(name)

    def down(self, name: str) -> Deployment:
        """Ends a deployment: its lease, machine, name and key."""
        return self.api.delete_deployments_name(name)

    # --- following a stream --------------------------------------------------------------------

    def _follow_log(self, lease_id: str, out: TextIO) -> LogEnd:
        for frame in self._follow(f"/v1/leases/{quote(lease_id, safe='')}/logs"):
            if frame.event == "end":
                return LogEnd.parse(frame.data)
            out.write(f"{frame.data}\n" if frame.event == "dropped" else frame.data)
            out.flush()
        raise Unreachable("unreachable", f"the log of {lease_id} ended without its end")

    def _follow(self, route: str, last_event_id: str | None = None) -> Iterator[Frame]:
        """The frames of a stream until one named ``end``, which comes last. A connection that drops,
        or a 5xx or 429, is asked for again after the last id seen (``Last-Event-ID``), so nothing is
        missed or read twice; another error answer raises its LessorError."""
        last = last_event_id
        failures = 0
        timeout = httpx.Timeout(REQUEST_TIMEOUT_S, read=FOLLOW_READ_TIMEOUT_S)
        while True:
            headers = {"accept": "text/event-stream", **({"last-event-id": last} if last is not None else {})}
            try:
                with self._http.stream("GET", route, params={"follow": "1"}, headers=headers, timeout=timeout) as res:
                    if res.status_code >= 400:
                        res.read()
                        error = answer_error(res, f"GET {route}")
                        if (res.status_code >= 500 or res.status_code == 429) and failures < RECONNECT_TRIES:
                            failures += 1
                            time.sleep(min(RECONNECT_MAX_S, 0.5 * 2**failures))
                            continue
                        raise error
                    parser = SseParser()
                    for chunk in res.iter_bytes():
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
                time.sleep(min(RECONNECT_MAX_S, 0.5 * 2**failures))
                continue
            # Closed without its end (a proxy's timeout, a redeploy): asked again after `last`.
            time.sleep(min(RECONNECT_MAX_S, 0.25 * 2**failures))


class Scratch:
    """A scratch session's machine, ready: ``exec`` commands on it; the ``with`` block ends it."""

    def __init__(self, client: Client, lease: GuardedLease) -> None:
        self._client = client
        self.lease = lease
        self.id = lease.id

    def __repr__(self) -> str:
        return f"Scratch(id={self.id!r})"

    def exec(self, cmd: str | Sequence[str], *, timeout: str | None = None) -> Exec:
        """Runs ``cmd`` on the machine and waits for it: its ``exit_code`` and ``output``
        (at most ``timeout``, default 60s; past it the exec goes on and ServerError ``exec_timeout`` is raised)."""
        return self._client._exec(self.id, cmd, timeout)

    def refresh(self) -> GuardedLease:
        self.lease = self._client.api.get_leases_id(self.id)
        return self.lease

    def end(self) -> Lease:
        return self._client.api.post_leases_id_end(self.id)
