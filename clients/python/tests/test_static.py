"""The package as Python 3.10 reads it: mypy --strict with 3.10's standard library, and ruff with
3.10 as its target (pyproject.toml), so nothing newer than the oldest Python it claims slips in
where the tests' own interpreter is newer."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "command",
    [
        ["mypy", "--python-version", "3.10", "--cache-dir", "/dev/null"],
        ["ruff", "check", "--no-cache", "--target-version", "py310", "."],
        ["ruff", "format", "--no-cache", "--check", "."],
    ],
    ids=["mypy", "ruff-check", "ruff-format"],
)
def test_the_package_checks_as_python_3_10(command: list[str]) -> None:
    result = subprocess.run([sys.executable, "-m", *command], cwd=PACKAGE, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"{' '.join(command)}:\n{result.stdout}{result.stderr}"
