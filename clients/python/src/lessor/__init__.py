"""lessor's Python client: GPU leases from a notebook or a script.

    from lessor import Client
    lessor = Client()                      # LESSOR_URL and LESSOR_API_KEY
    lessor.run("l4", "python train.py")    # the job's output streamed, its exit code answered

docs/python.md in lessor's repository has the workflows, the errors and how the client is made.
"""

from ._async_client import AsyncClient, AsyncScratch
from ._client import Client, Scratch
from ._data import OutputsIncomplete
from ._errors import (
    Conflict,
    Forbidden,
    InvalidRequest,
    LeaseReleased,
    LessorError,
    NoCapacity,
    NotFound,
    OverBudget,
    RateLimited,
    ServerError,
    Unauthenticated,
    Unreachable,
)
from ._generated import Artifact, Deployment, Exec, GuardedLease, Lease, Quote, Spec, Upload, Volume
from ._occupant import LogEnd
from ._version import __version__

__all__ = [
    "Artifact",
    "AsyncClient",
    "AsyncScratch",
    "Client",
    "Conflict",
    "Deployment",
    "Exec",
    "Forbidden",
    "GuardedLease",
    "InvalidRequest",
    "Lease",
    "LeaseReleased",
    "LessorError",
    "LogEnd",
    "NoCapacity",
    "NotFound",
    "OutputsIncomplete",
    "OverBudget",
    "Quote",
    "RateLimited",
    "Scratch",
    "ServerError",
    "Spec",
    "Unauthenticated",
    "Unreachable",
    "Upload",
    "Volume",
    "__version__",
]
