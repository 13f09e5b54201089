"""The `--update-goldens` switch for the contract golden files."""

from __future__ import annotations

import contextlib

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    with contextlib.suppress(ValueError):  # another conftest may have registered it
        parser.addoption("--update-goldens", action="store_true", help="rewrite golden files")


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens", default=False))
