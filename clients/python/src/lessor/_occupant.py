"""The pure parts of the workflows, shared by Client and AsyncClient, each the CLI's own rule
(cli/occupant.mjs, cli/deployments.mjs, cli/commands.mjs): the command line a job runs, the exit
code a shell gives a command, how a followed log ends, and the error a lease released too early is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import quote

from ._data import OutputsIncomplete
from ._errors import LeaseReleased
from ._generated import Lease, LeaseExit, PolicyInput, Spec, VolumeMount

#: A lease id as the API makes them; anything else is looked up as a lease's name.
LEASE_ID = re.compile(r"^ls_[0-9a-z]{26}$")

#: The signal numbers of Linux, where lessor's machines run: a command a signal ended exits, as
#: a shell reports it, with 128 + the number (an unknown signal counts as 0, as in the CLI).
SIGNAL_NUMBERS: Mapping[str, int] = {
    "HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "TRAP": 5, "ABRT": 6, "BUS": 7, "FPE": 8, "KILL": 9,
    "USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15,
}  # fmt: skip


def exit_code_of(exit: LeaseExit) -> int:
    """The exit code a shell gives a command that ended so: its own code, or 128 + its signal's number."""
    if exit.code is not None:
        return exit.code
    return 128 + SIGNAL_NUMBERS.get(exit.signal or "", 0)


_PLAIN_WORD = re.compile(r"^[A-Za-z0-9_@%+=:,./-]+$")


def shell_word(word: str) -> str:
    """A word for sh: as it is when it needs no quoting, else in single quotes."""
    return word if _PLAIN_WORD.match(word) else "'" + word.replace("'", "'\\''") + "'"


def command_line(cmd: str | Sequence[str]) -> str:
    """The command line the machine's agent runs with ``sh -c``: a string as it is (``"echo hi; exit 3"``),
    a list of words quoted word by word, as a shell would have passed them."""
    if isinstance(cmd, str):
        if cmd == "":
            raise ValueError("cmd is empty: give a command line, e.g. 'python train.py'")
        return cmd
    words = list(cmd)
    if not words:
        raise ValueError("cmd is empty: give a command line or a list of words")
    return words[0] if len(words) == 1 else " ".join(shell_word(w) for w in words)


def spec_of(gpu: str | None, spec: Mapping[str, Any]) -> Spec:
    """The lease's spec: ``gpu`` and the other Spec fields given by name (a misspelt one is refused here)."""
    return Spec.model_validate({**({"gpu": gpu} if gpu is not None else {}), **spec})


def mounts_of(volumes: Mapping[str, str] | None) -> list[VolumeMount] | None:
    """The volumes a lease mounts, from ``{"name": "/mount/path"}``; None when none is given."""
    return [VolumeMount(name=name, path=path) for name, path in volumes.items()] if volumes else None


def policy_of(**fields: Any) -> PolicyInput | None:
    """The policy fields given (None: left to the kind's defaults), or None when none is."""
    given = {k: v for k, v in fields.items() if v is not None}
    return PolicyInput.model_validate(given) if given else None


@dataclass(frozen=True)
class LogEnd:
    """How a followed log ended: the command ``exited`` (``exit`` says how), or the lease was ``released`` first."""

    reason: Literal["exited", "released"]
    exit: LeaseExit | None

    @staticmethod
    def parse(data: str) -> LogEnd:
        doc = json.loads(data)
        if doc.get("reason") == "exited":
            return LogEnd("exited", LeaseExit.model_validate(doc["exit"]))
        return LogEnd("released", None)


def released_early(lease: Lease, before: str, **details: Any) -> LeaseReleased:
    """The error of a lease released before its command exited or its model answered, with the release's reason as its code."""
    reason = lease.release_reason
    return LeaseReleased(
        reason or "released",
        f"lease {lease.id} was released ({reason or 'no reason given'}) before {before}",
        {**details, "lease_id": lease.id, "release_reason": reason},
    )


def machine_text(lease: Lease) -> str:
    """``sim l40s x1, us-east, $0.79/h``: where the lease runs and what it costs, for the line a workflow prints."""
    offer = f" {lease.offer.gpu} x{lease.offer.gpu_count}, {lease.offer.region}" if lease.offer else ""
    return f"{lease.provider}{offer}, ${lease.hourly_usd:.2f}/h"


# --- data in and out (docs/artifacts.md; the CLI's cli/artifacts.mjs) ---------------------------

#: How long a run waits after its job's end for lessor's word on the outputs (the CLI's
#: OUTPUTS_VERDICT_MS): the release waits for an upload up to 5 minutes, and a little more.
OUTPUTS_VERDICT_S = 360.0
OUTPUTS_POLL_S = 1.0


@dataclass(frozen=True)
class OutputsVerdict:
    """What a lease's events say of its outputs: all ``uploaded``, ``incomplete`` (``missing`` names
    what did not come back, the first 100), or ``unknown`` (neither said before the wait ended)."""

    state: Literal["uploaded", "incomplete", "unknown"]
    missing: list[str]


def verdict_of(events: Sequence[Any], after: int) -> tuple[OutputsVerdict | None, int]:
    """The verdict among one page of a lease's events, if it holds one, and the last seq read."""
    for event in events:
        after = max(after, event.seq)
        if event.type == "outputs_uploaded":
            return OutputsVerdict("uploaded", []), after
        if event.type == "outputs_incomplete":
            return OutputsVerdict("incomplete", list(event.detail.missing)), after
    return None, after


def artifact_route(lease_id: str, path: str) -> str:
    """An artifact's route: each segment of its path percent-encoded on its own."""
    return f"/v1/leases/{quote(lease_id, safe='')}/artifacts/" + "/".join(quote(s, safe="") for s in path.split("/"))


def bytes_text(n: int) -> str:
    """``1.5 MiB``: a size for a person (the CLI's bytesText)."""
    size = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{int(size)} B" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


def incomplete_error(missing: Sequence[str], failed: Sequence[Mapping[str, Any]], exit_code: int | None) -> OutputsIncomplete:
    """The error of outputs that did not all come back: what the lease says is missing, and what
    failed to download (its bytes did not match, or the download failed)."""
    parts = []
    if missing:
        shown = ", ".join(missing[:10]) + (", ..." if len(missing) > 10 else "")
        parts.append(f"{len(missing)} file{'' if len(missing) == 1 else 's'} the job left did not come back: {shown}")
    if failed:
        shown = ", ".join(f"{f['path']} ({f['code']})" for f in failed[:10]) + (", ..." if len(failed) > 10 else "")
        parts.append(f"{len(failed)} did not download: {shown}")
    return OutputsIncomplete(
        "outputs_incomplete",
        "outputs incomplete: " + "; and ".join(parts),
        {"missing": list(missing), "failed": [dict(f) for f in failed], "exit_code": exit_code},
    )
