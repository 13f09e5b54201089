"""The `--update-goldens` switch for the contract golden files."""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    try:
        parser.addoption("--update-goldens", action="store_true", help="rewrite golden files")
    except ValueError:
        pass  # another conftest registered it


@pytest.fixture
def update_goldens(request: pytest.FixtureRequest) -> bool:
    return bool(request.config.getoption("--update-goldens", default=False))
