"""lessor's Python client: GPU leases from a notebook or a script.

    from lessor import Client
    lessor = Client()                      # LESSOR_URL and LESSOR_API_KEY
    lessor.run("l4", "python train.py")    # the job's output streamed, its exit code answered

docs/python.md in lessor's repository has the workflows, the errors and how the client is made.
"""

from ._async_client import AsyncClient, AsyncScratch
from ._client import Client, Scratch
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
from ._generated import Deployment, Exec, GuardedLease, Lease, Quote, Spec
from ._occupant import LogEnd
from ._version import __version__

__all__ = [
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
    "OverBudget",
    "Quote",
    "RateLimited",
    "Scratch",
    "ServerError",
    "Spec",
    "Unauthenticated",
    "Unreachable",
    "__version__",
]
