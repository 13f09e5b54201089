"""Exported specs against seqspec's own `check` (the installed release; 0.3.1 on PyPI).

Skipped where seqspec is not installed. Onlists: lablang knows an onlist's name, not
its barcodes, so each test that wants a clean check writes a small onlist file of that
name beside the spec, as a user who has the real list would; the md5 in the spec is
computed from that file by the exporter.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from lablang.diagnostics import Report
from lablang.driver import check_file, check_text
from lablang.molecular.front import build_model
from lablang.molecular.interchange import export_seqspec_0_3_text
from lablang.molecular.seqspec import import_seqspec
from lablang.molecular.seqspec_export import export_seqspec, seqspec_yaml

seqspec = pytest.importorskip("seqspec")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tenx_3p_v3.lab"
SPECS = ROOT.parent.parent / "shared" / "data" / "seqspec"
if not SPECS.is_dir():
    SPECS = ROOT.parent / "shared" / "data" / "seqspec"
FILES = sorted(SPECS.glob("*.spec.yaml")) if SPECS.is_dir() else []
# the format the installed seqspec reads: 0.3.x needs the tagged 0.3.1 layout
FORMAT = "0.3.1" if str(seqspec.__version__).startswith("0.3.") else "0.4.0"
# seqspec's check (0.3.1 and 0.4.0 alike) requires every read to have the same number
# of files, and with no reads at all the set of counts is empty: a spec without reads
# always fails with exactly this message
NO_READS = "Reads must have the same number of files"


def _seqspec_check(spec_path: Path) -> list[str]:
    """The error lines of seqspec's own check on a spec file."""
    if FORMAT == "0.3.1":
        from jsonschema import Draft4Validator
        from seqspec import seqspec_check
        from seqspec.utils import load_spec

        schema_path = Path(seqspec_check.__file__).parent / "schema" / "seqspec.schema.json"
        validator = Draft4Validator(yaml.safe_load(schema_path.read_text()))
        errors = seqspec_check.check(validator, load_spec(str(spec_path)), str(spec_path))
        return [str(e) for e in errors]
    return _seqspec_cli_check(spec_path)


def _seqspec_cli_check(spec_path: Path) -> list[str]:
    """The error lines `seqspec check FILE` prints (its console entry point)."""
    code = "import sys; from seqspec.main import main; sys.argv[0] = 'seqspec'; main()"
    run = subprocess.run(
        [sys.executable, "-c", code, "check", str(spec_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in run.stderr, run.stderr
    return [line for line in run.stdout.splitlines() if line.strip()]


def _write_onlists(model: Any, directory: Path) -> None:
    """One small onlist file per onlist the libraries name (barcodes of the right length
    are not needed: seqspec's check reads only that the file exists)."""
    for segment in model.segments:
        if segment.onlist:
            name = segment.onlist if "." in segment.onlist else f"{segment.onlist}.txt"
            (directory / name).write_text("AAACCCAAGAAACACT\nAAACCCAAGAAACCAT\n")


def _export(program: Any, directory: Path, with_onlists: bool = True) -> tuple[dict, Path]:
    model = build_model(program, Report()).model
    if with_onlists:
        _write_onlists(model, directory)
    spec = export_seqspec(program, FORMAT, directory if with_onlists else None)
    path = directory / "spec.yaml"
    path.write_text(seqspec_yaml(spec))
    return spec, path


def test_tenx_example_passes_seqspec_check(tmp_path: Path) -> None:
    """The 10x 3' v3 example, exported with its onlist beside it, has no `seqspec check` errors."""
    spec, path = _export(check_file(EXAMPLE).program, tmp_path)
    assert _seqspec_check(path) == []
    assert [r["read_id"] for r in spec["sequence_spec"]] == ["rna-R1", "rna-I1", "rna-R2"]


def test_tenx_example_passes_the_seqspec_command(tmp_path: Path) -> None:
    """`seqspec check FILE` (the console entry point) prints no error for the 10x export."""
    _, path = _export(check_file(EXAMPLE).program, tmp_path)
    assert _seqspec_cli_check(path) == []


def test_without_the_onlist_file_check_reports_only_what_lablang_cannot_know(
    tmp_path: Path,
) -> None:
    """Without the onlist file the check names the unknown md5 (null, never '') and, with
    no network, the published onlist it cannot reach; nothing else."""
    _, path = _export(check_file(EXAMPLE).program, tmp_path, with_onlists=False)
    errors = _seqspec_check(path)
    assert "None is not of type 'string'" in errors[0] and "md5" in errors[0], errors
    url = "https://github.com/10XGenomics/cellranger/raw/master/lib/python/cellranger/barcodes"
    assert all(f"{url}/3M-february-2018.txt.gz does not exist" in e for e in errors[1:]), errors
    assert len(errors) <= 2, errors


@pytest.mark.skipif(len(FILES) != 8, reason="the eight reference specs are not beside the repo")
@pytest.mark.parametrize("spec_file", FILES, ids=[p.name for p in FILES])
def test_reexported_published_specs_pass_seqspec_check(spec_file: Path, tmp_path: Path) -> None:
    """Each published spec, imported and exported again, passes `seqspec check`, except the
    one objection seqspec raises against any spec whose libraries have no reads."""
    imported = import_seqspec(yaml.safe_load(spec_file.read_text()))
    checked = check_text(imported.text, f"{spec_file.stem}.lab")
    assert checked.ok
    spec, path = _export(checked.program, tmp_path)
    errors = _seqspec_check(path)
    # every published spec's reads are imported (0.3.0 reads that name the library prep
    # too); only the template has none
    assert bool(spec["sequence_spec"]) == (spec_file.name != "template.spec.yaml")
    if spec["sequence_spec"]:
        assert errors == []
    else:  # the template has no reads
        assert [e.split("] ", 1)[1] for e in errors] == [NO_READS]


def test_the_export_hook_writes_the_format_the_release_loads(tmp_path: Path) -> None:
    """The `seqspec-0.3` hook's text, beside the example's onlist, is clean for seqspec 0.3.1."""
    if FORMAT != "0.3.1":
        pytest.skip(f"installed seqspec {seqspec.__version__} reads the 0.4.0 format")
    lab = tmp_path / "tenx.lab"
    lab.write_text(EXAMPLE.read_text())
    _write_onlists(build_model(check_file(lab).program, Report()).model, tmp_path)
    text, report = export_seqspec_0_3_text(check_file(lab, [tmp_path]))
    assert text is not None and not list(report)
    (tmp_path / "spec.yaml").write_text(text)
    assert _seqspec_check(tmp_path / "spec.yaml") == []


def test_the_untagged_0_4_format_is_what_the_0_3_release_cannot_load(tmp_path: Path) -> None:
    """seqspec 0.3.1 cannot load the default 0.4.0 output (no YAML tags): why 0.3.1 exists."""
    if FORMAT != "0.3.1":
        pytest.skip(f"installed seqspec {seqspec.__version__} reads the 0.4.0 format")
    from seqspec.utils import load_spec

    spec = export_seqspec(check_file(EXAMPLE).program)
    (tmp_path / "spec.yaml").write_text(seqspec_yaml(spec))
    with pytest.raises(AttributeError):
        load_spec(str(tmp_path / "spec.yaml"))


def test_cli_export_writes_the_seqspec_0_3_format(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """`lablang export --to seqspec-0.3` writes a tagged 0.3.1 spec of the example."""
    from click.testing import CliRunner

    from lablang.cli import main

    out = tmp_path / "spec.yaml"
    result = CliRunner().invoke(
        main, ["export", "examples/tenx_3p_v3.lab", "--to", "seqspec-0.3", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.startswith("!Assay") and "seqspec_version: 0.3.1" in text
