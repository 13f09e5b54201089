"""`lablang export --to seqspec` of the 10x 3' v3 example types and names its regions as
seqspec does, primes each read from the region it anneals to, and loads in the seqspec
release that `pip install seqspec` gives."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from lablang.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tenx_3p_v3.lab"


def _export(target: str, directory: Path, onlist: bool) -> tuple[dict, str]:
    lab = directory / "tenx.lab"
    shutil.copy(EXAMPLE, lab)
    if onlist:
        (directory / "3M-february-2018.txt").write_text("AAACCCAAGAAACACT\n")
    result = CliRunner().invoke(
        main, ["export", str(lab), "--to", target, "--path", str(directory)]
    )
    assert result.exit_code == 0, result.output
    return yaml.load(result.stdout, Loader=_TagIgnoring), result.stderr


class _TagIgnoring(yaml.SafeLoader):
    """Reads seqspec 0.3's `!Assay`/`!Region` tags as plain mappings."""


_TagIgnoring.add_multi_constructor("!", lambda loader, _tag, node: loader.construct_mapping(node))


def _regions(spec: dict) -> dict[str, dict]:
    return {r["region_id"]: r for r in spec["library_spec"][0]["regions"]}


@pytest.mark.parametrize("target", ["seqspec", "seqspec-0.4"])
def test_regions_get_the_types_seqspec_gives_them(target: str, tmp_path: Path) -> None:
    """TruSeq Read 1's site is truseq_read1 (not illumina_p5), the dT run poly_T (not
    linker), and the A-tail base Read 2's primer covers is one truseq_read2 region with
    `R2` (34 nt, as seqspec's own 10x specs write TruSeq Read 2), named after both."""
    regions = _regions(_export(target, tmp_path, onlist=True)[0])
    assert regions["rna-TruSeq_R1_after_P5"]["region_type"] == "truseq_read1"
    assert regions["rna-P5"]["region_type"] == "illumina_p5"
    assert regions["rna-dT"]["region_type"] == "poly_T"
    assert "rna-A_tail" not in regions
    assert regions["rna-R2"]["name"] == "A-tail + R2"
    assert regions["rna-R2"]["region_type"] == "truseq_read2"
    assert regions["rna-R2"]["sequence"] == "AGATCGGAAGAGCACACGTCTGAACTCCAGTCAC"


def test_each_read_is_primed_from_the_region_it_anneals_to(tmp_path: Path) -> None:
    """R2's primer is the TruSeq Read 2 region (with the A its last base pairs with, so
    the read starts at the cDNA); R1's is TruSeq Read 1's; the index read's is Read 2's
    site too, as in 10x's own seqspec."""
    spec, _ = _export("seqspec", tmp_path, onlist=True)
    primers = {r["read_id"]: r["primer_id"] for r in spec["sequence_spec"]}
    assert primers == {
        "rna-R1": "rna-TruSeq_R1_after_P5",
        "rna-I1": "rna-R2",
        "rna-R2": "rna-R2",
    }


def test_the_default_format_is_the_one_pypi_seqspec_loads(tmp_path: Path) -> None:
    """`--to seqspec` is 0.3.1 with an md5 of the onlist found beside the file, and no warning."""
    spec, stderr = _export("seqspec", tmp_path, onlist=True)
    assert spec["seqspec_version"] == "0.3.1"
    onlist = _regions(spec)["rna-CB"]["onlist"]
    assert len(onlist["md5"]) == 32 and onlist["filesize"] > 0
    assert "W0050" not in stderr


def test_a_missing_onlist_file_is_warned_about(tmp_path: Path) -> None:
    """Without the onlist file beside the `.lab`, the export still succeeds and warns W0050."""
    _spec, stderr = _export("seqspec", tmp_path, onlist=False)
    assert "warning[W0050]: onlist `3M-february-2018` has no file beside" in stderr


def test_the_installed_seqspec_loads_and_checks_the_default_export(tmp_path: Path) -> None:
    """The installed seqspec (the PyPI release) loads `--to seqspec` output and its check
    finds nothing when the onlist file is beside the spec."""
    seqspec = pytest.importorskip("seqspec")
    if not str(getattr(seqspec, "__version__", "0.3")).startswith("0.3"):
        pytest.skip("this check is for the 0.3 release that PyPI serves")
    from jsonschema import Draft4Validator
    from seqspec import seqspec_check
    from seqspec.utils import load_spec

    lab = tmp_path / "tenx.lab"
    shutil.copy(EXAMPLE, lab)
    (tmp_path / "3M-february-2018.txt").write_text("AAACCCAAGAAACACT\n")
    out = tmp_path / "spec.yaml"
    assert (
        CliRunner()
        .invoke(
            main, ["export", str(lab), "--to", "seqspec", "-o", str(out), "--path", str(tmp_path)]
        )
        .exit_code
        == 0
    )
    schema = Path(seqspec_check.__file__).parent / "schema" / "seqspec.schema.json"
    validator = Draft4Validator(yaml.safe_load(schema.read_text()))
    assert seqspec_check.check(validator, load_spec(str(out)), str(out)) == []


def test_a_segment_of_bases_and_a_placeholder_is_cut_into_fixed_and_variable_regions() -> None:
    """A segment that holds an adapter, the insert and an adapter (as a derived library's
    copy does) is three regions, so the read primed on the first adapter is found and
    starts at the insert."""
    from lablang.driver import check_text
    from lablang.molecular.seqspec_export import export_seqspec

    program = check_text(
        "segment copy = 5'-ACGTACGTTGCAACGTAC [GDNA] GGTTCCAAGGTTCCAAGG-3'\n"
        "oligo p { seq: 5'-ACGTACGTTGCAACGTAC-3' }\n"
        "library lib { modality: \"genomic DNA\"  seq: 5'-{copy}-3'\n"
        "  read R1 { primer: p  strand: bottom  length: 50 nt } }\n"
    ).program
    spec = export_seqspec(program)
    regions = spec["library_spec"][0]["regions"]
    assert [(r["region_type"], r["sequence_type"]) for r in regions] == [
        ("linker", "fixed"),
        ("gdna", "random"),
        ("linker", "fixed"),
    ]
    assert spec["sequence_spec"][0]["primer_id"] == regions[0]["region_id"]


def test_a_library_longer_than_seqspec_allows_is_cut_to_2048_in_its_variable_regions() -> None:
    """Two inserts of unstated length (up to 1000 each) and adapters are over seqspec's
    2048: the longest variable regions are shortened and the spec validates."""
    from lablang.driver import check_text
    from lablang.molecular.seqspec import validate_seqspec
    from lablang.molecular.seqspec_export import export_seqspec

    program = check_text(
        "library lib { seq: 5'-" + "ACGT" * 20 + " [CDNA] " + "TTGG" * 20 + " [GDNA]-3' }\n"
    ).program
    for version in ("0.4.0", "0.3.1"):
        spec = export_seqspec(program, version)
        assert spec["library_spec"][0]["max_len"] == 2048
        assert validate_seqspec(spec) == []


@pytest.mark.parametrize("version", ["0.4.0", "0.3.1"])
def test_onlists_not_at_hand_are_named_once_and_never_get_an_empty_md5(version: str) -> None:
    """An onlist named with its suffix keeps it (no `.txt.txt`), a bare name gets `.txt`,
    10x's list is its published URL (`urltype` https); the md5 is absent or null, never ''."""
    from lablang.driver import check_text
    from lablang.molecular.seqspec_export import PUBLISHED_ONLISTS, export_seqspec

    program = check_text(
        'segment A = barcode(8, onlist: "barcode-1_onlist_v2.txt")\n'
        'segment B = barcode(8, onlist: "my_list")\n'
        'segment C = barcode(16, onlist: "3M-february-2018")\n'
        "library lib { seq: 5'-ACGTACGT {A} {B} {C} [CDNA]-3' }\n"
    ).program
    onlists = {
        r["name"]: r["onlist"]
        for r in export_seqspec(program, version)["library_spec"][0]["regions"]
        if r["onlist"]
    }
    assert onlists["A"]["filename"] == "barcode-1_onlist_v2.txt"
    assert (onlists["B"]["filename"], onlists["B"]["urltype"]) == ("my_list.txt", "local")
    assert onlists["C"]["url"] == PUBLISHED_ONLISTS["3M-february-2018"]
    assert onlists["C"]["urltype"] == "https"
    assert all(onlist.get("md5") is None for onlist in onlists.values())
    assert all(("md5" in onlist) == (version == "0.3.1") for onlist in onlists.values())
