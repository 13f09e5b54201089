"""Fixtures for the editor tests: a language server subprocess per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lablang.lsp.client import LspClient

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def lsp(tmp_path: Path) -> Iterator[LspClient]:
    client = LspClient("--path", str(tmp_path), pythonpath=ROOT)
    client.initialize(tmp_path)
    yield client
    client.close()
