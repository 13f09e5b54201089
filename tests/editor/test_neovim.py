"""A third-party client drives the server: Neovim's built-in LSP client, headless, opens a
file, reads the diagnostics with their codes, hovers and jumps to a definition in the
stdlib (`.ci/run` installs Debian's `neovim` when it is missing)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("nvim_client.lua")
TEXT = """use illumina.{P5}

oligo X {
  seq: 5'-{P5} ACGT-3'
  role: primer
}

transition rt : reverse_transcription {
  oligos: [TS0]
}
"""


@pytest.mark.skipif(shutil.which("nvim") is None, reason="partial: Neovim is not installed")
def test_neovim_reads_diagnostics_hovers_and_follows_a_definition(tmp_path: Path) -> None:
    """Neovim gets E0203 for `TS0`, a hover for `X` with its length, and `{P5}` leads to
    stdlib/illumina.lab."""
    lab = tmp_path / "a.lab"
    lab.write_text(TEXT)
    out = tmp_path / "out.json"
    environment = dict(
        os.environ,
        LABLANG_NVIM_FILE=str(lab),
        LABLANG_NVIM_OUT=str(out),
        LABLANG_PYTHON=sys.executable,
        PYTHONPATH=str(ROOT),
    )
    subprocess.run(
        ["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SCRIPT}"],
        env=environment,
        cwd=tmp_path,
        timeout=180,
        check=False,
        capture_output=True,
    )
    result = json.loads(out.read_text())
    assert result["errors"] == []
    assert result["codes"] == ["E0203"]
    assert "**oligo** `X`" in result["hover"] and "length: 33 nt" in result["hover"]
    assert result["definition"] == (ROOT / "stdlib" / "illumina.lab").resolve().as_uri()
