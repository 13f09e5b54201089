"""The restriction enzyme table is REBASE's commercial set as Biopython gives it, and
`check` reads it without importing Biopython."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_generated_table_is_what_biopython_gives_now() -> None:
    """`scripts/restriction_table.py --check` regenerates the module's text from the
    installed Biopython and finds it unchanged (run the script after moving the pin)."""
    pytest.importorskip("Bio.Restriction")
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import restriction_table
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert restriction_table.main(["--check"]) == 0


def test_a_digest_is_checked_without_importing_biopython() -> None:
    """Checking a workflow that digests with SbfI leaves `Bio` unimported."""
    code = (
        "import sys\n"
        "from lablang.driver import check_text\n"
        "r = check_text(\"workflow w { input g: DNA 5'-AACCTGCAGGAA-3' as duplex  "
        'a = digest(g, enzyme: SbfI) }")\n'
        "assert not list(r.report), list(r.report)\n"
        "print('Bio' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_reference_counts_the_enzymes_from_the_table() -> None:
    """`lablang spec` says how many enzymes `digest` knows, read from the generated
    table, and how to give another by its site."""
    from lablang.molecular.ops.digestion import ENZYMES
    from lablang.spec import spec_text

    text = spec_text(["molecular"])
    assert f"the {len(ENZYMES)} enzymes of REBASE's commercial set" in text
    assert 'site:\n"CCTGCA^GG"' in text or 'site: "CCTGCA^GG"' in text
