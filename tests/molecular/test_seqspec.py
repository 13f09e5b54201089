"""seqspec import and export on the eight published specs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from lablang.diagnostics import Report
from lablang.driver import check_file, check_text
from lablang.molecular.front import build_model
from lablang.molecular.seqspec import import_seqspec, load_seqspec_yaml, validate_seqspec
from lablang.molecular.seqspec_export import export_seqspec, seqspec_yaml, spec_sequence

ROOT = Path(__file__).resolve().parents[2]
SPECS = ROOT.parent.parent / "shared" / "data" / "seqspec"
if not SPECS.is_dir():
    SPECS = ROOT.parent / "shared" / "data" / "seqspec"
FILES = sorted(SPECS.glob("*.spec.yaml")) if SPECS.is_dir() else []

pytestmark = pytest.mark.skipif(
    len(FILES) != 8, reason="the eight reference specs are not beside the repo"
)


def _imported(path: Path):  # type: ignore[no-untyped-def]
    spec = yaml.safe_load(path.read_text())
    result = import_seqspec(spec)
    checked = check_text(result.text, f"{path.stem}.lab")
    return spec, result, checked


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_imported_libraries_have_the_specs_sequence(path: Path) -> None:
    """Each imported library checks without errors and, written back in seqspec's letters,
    is the spec's joined sequence; barcodes, UMIs and indexes take roles LibStructBench's
    grader expands (a W0406 names only other random regions such as a `POLY_T` block)."""
    spec, result, checked = _imported(path)
    assert [d.code for d in checked.report if d.code != "W0406"] == []
    for diagnostic in checked.report:
        roles = re.findall(r"`\[(\w+):LEN\]`", diagnostic.message)
        kinds = {"BARCODE", "UMI", "INDEX", "BC", "CB", "I5", "I7"}
        assert not [r for r in roles if kinds & set(r.split("_"))], roles
    model = build_model(checked.program, Report()).model
    segments = {s.name: s for s in model.segments}
    assert [spec_sequence(lib.seq, segments) for lib in model.libraries] == [
        seq for _, seq in result.sequences
    ]
    assert [seq for _, seq in result.sequences] == [
        str(r.get("sequence") or "") for r in spec["library_spec"]
    ]


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_schema_problem_is_reported_and_export_is_clean(path: Path) -> None:
    """Problems of the published file are listed; re-exporting the import passes the checks."""
    spec, result, checked = _imported(path)
    assert list(result.problems) == validate_seqspec(spec)
    if result.problems:
        assert result.repairs
    exported = export_seqspec(checked.program)
    assert validate_seqspec(exported) == []
    again = import_seqspec(yaml.safe_load(seqspec_yaml(exported)))
    assert [s for _, s in again.sequences] == [s for _, s in result.sequences]


def test_capitalised_modality_and_unknown_region_types_are_repaired() -> None:
    """sci-RNA-seq's `RNA` modality and `cDNA` region type are repaired and said so."""
    _, result, _ = _imported(SPECS / "sci_rna_seq.spec.yaml")
    assert "modality `RNA` written as `rna`" in result.repairs
    assert "region `cDNA`: type `cDNA` read as `cdna`" in result.repairs
    assert any("flattened" in r for r in result.repairs)


def test_reads_become_primer_checked_reads() -> None:
    """10x v3 reads import with their primers; Read 2 (neg) is primed on the top strand."""
    _, _, checked = _imported(SPECS / "10x_rna_v3.spec.yaml")
    (library,) = build_model(checked.program, Report()).model.libraries
    assert [(r.strand, r.length) for r in library.reads] == [
        ("bottom", 28),
        ("bottom", 8),
        ("top", 50),
    ]


def test_tenx_example_exports_a_valid_spec_with_reads() -> None:
    """The 10x example's library exports as a spec that passes the checks, with three reads."""
    exported = export_seqspec(check_file(ROOT / "examples" / "tenx_3p_v3.lab").program)
    assert validate_seqspec(exported) == []
    assert [r["strand"] for r in exported["sequence_spec"]] == ["pos", "pos", "neg"]
    assert exported["library_spec"][0]["sequence"].startswith("AATGATACGGCGACCACCGAGATCTACAC")


def test_a_spec_with_duplicate_region_ids_fails_validation() -> None:
    """Region ids must be unique across the file."""
    spec = yaml.safe_load((SPECS / "10x_rna_v3.spec.yaml").read_text())
    spec["library_spec"][0]["regions"][1]["region_id"] = "rna-illumina_p5"
    assert any("not unique" in p for p in validate_seqspec(spec))


def test_the_0_3_1_format_imports_as_the_0_4_0_format_does() -> None:
    """A tagged 0.3.1 export imports to the same `.lab` as the 0.4.0 export (bar the header)."""
    program = check_file(ROOT / "examples" / "tenx_3p_v3.lab").program
    texts = []
    for version in ("0.4.0", "0.3.1"):
        spec = load_seqspec_yaml(seqspec_yaml(export_seqspec(program, version)))
        lines = import_seqspec(spec).text.splitlines()
        comment = f"# imported from seqspec {version} (no doi)"
        assert comment in lines[:3]
        texts.append([line for line in lines if line != comment])
    assert texts[0] == texts[1]
    assert seqspec_yaml(export_seqspec(program, "0.3.1")).startswith("!Assay\n")


def test_an_unknown_seqspec_version_is_refused() -> None:
    """`export_seqspec` writes only the formats it knows (0.4.0 and 0.3.1)."""
    program = check_file(ROOT / "examples" / "tenx_3p_v3.lab").program
    with pytest.raises(ValueError, match=r"0\.5\.0"):
        export_seqspec(program, "0.5.0")


def test_reads_that_name_the_library_prep_are_kept() -> None:
    """A published 0.3.0 spec whose reads name the prep (`illumina_truseq_prep`) and its
    generic primers keeps both reads, each primed at the library's Read 1 / Read 2 site."""
    spec = yaml.safe_load((SPECS / "drop_seq.spec.yaml").read_text())
    result = import_seqspec(spec)
    assert 'read Read_1 "R1.fastq.gz"' in result.text
    assert 'read Read_2 "R2.fastq.gz"' in result.text
    assert "oligo R1_fastq_gz_primer { seq: 5'-{r1_primer}-3'" in " ".join(result.text.split())
    assert "oligo R2_fastq_gz_primer { seq: 5'-{ME'}-3'" in " ".join(result.text.split())
    assert not any("read not imported" in r for r in result.repairs), result.repairs


def test_each_repair_names_the_yaml_node_it_is_about() -> None:
    """Every repair carries the path of its YAML node: the read's `modality`, the
    primer's `primer_id`, the region's `region_type`."""
    spec = yaml.safe_load((SPECS / "drop_seq.spec.yaml").read_text())
    result = import_seqspec(spec)
    where = dict(zip(result.repairs, result.where, strict=True))
    modality = next(r for r in where if "R1.fastq.gz`: modality" in r)
    assert where[modality] == ("sequence_spec", 0, "modality")
    primer = next(r for r in where if "R2.fastq.gz`: primer" in r)
    assert where[primer] == ("sequence_spec", 1, "primer_id")
    region = next(r for r in where if "type `primer_read1`" in r)
    assert where[region] == ("library_spec", 0, "regions", 1, "region_type")
