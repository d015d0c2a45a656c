"""The client's version: the package's (pyproject.toml reads it here) and its User-Agent's."""

__version__ = "0.1.0"
