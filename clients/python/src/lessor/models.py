"""Every request and answer of lessor's API as a pydantic model, and every operation's typed
method (Api, AsyncApi): generated from the OpenAPI document into _generated.py (docs/python.md)."""

from ._generated import *  # noqa: F403
from ._generated import __all__ as __all__
