"""seqspec's own command line on the export of every shipped example: `seqspec check`
reports no error, `seqspec index -t kb` gives the technology string kallisto|bustools
takes for the assay, written here from the assay's page and the kb documentation, and
`seqspec print` draws every read.

One subprocess runs seqspec's console entry point (`seqspec.main:main`, what the
`seqspec` command calls) once per command for all the exports, so the test costs one
interpreter start. A user who has an onlist keeps it beside the `.lab`; the test writes
a small file of that name, as the existing seqspec tests do (check reads only that it
exists; the exporter records its md5).

kallisto's technology string is `barcodes:UMI:sequence`, each a list of
`file,start,stop` triples; a stop of 0 means "to the end of the read" (kb docs,
"Technology string"). seqspec writes the read's last position instead, so a sequence
triple that ends where its read ends is compared as kallisto writes it (`_as_kallisto`);
barcode and UMI triples are compared exactly.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lablang.diagnostics import Report
from lablang.driver import check_file
from lablang.molecular.front import build_model
from lablang.molecular.interchange import export_seqspec_0_3_text
from lablang.molecular.seqspec import load_seqspec_yaml

seqspec = pytest.importorskip("seqspec")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"

# example -> (modality, the reads in kallisto's file order, kallisto's technology string)
TECHNOLOGY = {
    # kb docs: `-x 0,0,16:0,16,28:1,0,0` for 10xv3; Read 2 is cDNA from its first base
    "tenx_3p_v3": ("rna", ["R1", "R2"], "0,0,16:0,16,28:1,0,0"),
    # kallisto's DropSeq: 12-bp bead barcode and 8-bp UMI on Read 1, cDNA on Read 2
    "drop_seq": ("rna", ["R1", "R2"], "0,0,12:0,12,20:1,0,0"),
    # SPLiT-seq's page: Read 2 is UMI(10), round-3 barcode(8), 30-nt linker, round-2
    # barcode(8), 30-nt linker, round-1 barcode(8) (seqspec's own split_seq spec has the
    # same two 30-nt linkers); kb's docs print the third barcode at 78-86, which two
    # 30-nt linkers do not give: the three barcodes are at 10, 48 and 86
    "split_seq": ("rna", ["R1", "R2"], "1,10,18,1,48,56,1,86,94:1,0,10:0,0,0"),
    # 10x scATAC: the 16-bp cell barcode is the whole i5 read (I2), from its first base;
    # no UMI; genomic DNA on Read 1 and Read 2
    "tenx_scatac": ("atac", ["R1", "I2", "R2"], "1,0,16:-1,-1,-1:0,0,0,2,0,0"),
    # sci-RNA-seq's page: Read 1 is UMI(8) then the 10-bp RT barcode; cDNA on Read 2
    "sci_rna_seq": ("rna", ["R1", "R2"], "0,8,18:0,0,8:1,0,0"),
    # Smart-seq2: no barcode or UMI in the reads (cells are told apart by the i5/i7 pair)
    "smart_seq2": ("rna", ["R1", "R2"], "-1,-1,-1:-1,-1,-1:0,0,0,1,0,0"),
    # Smart-seq3's 5' UMI fragments: 11-nt tag, UMI(8), GGG, then cDNA on Read 1
    "smart_seq3": ("rna", ["R1", "R2"], "-1,-1,-1:0,11,19:0,22,0,1,0,0"),
}

# `seqspec check` output, `seqspec index -t kb` output, read id -> the read's length,
# `seqspec print -f seqspec-ascii` output
Outputs = tuple[str, str, dict[str, int], str]

# one interpreter runs `seqspec` once per argv and prints each command's output as JSON
RUNNER = """
import contextlib, io, json, sys
from seqspec.main import main
results = []
for argv in json.loads(sys.stdin.read()):
    sys.argv = ["seqspec", *argv]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main()
    results.append(out.getvalue())
print(json.dumps(results))
"""


def _shipped() -> list[str]:
    """The shipped examples that declare a library (each must be in TECHNOLOGY)."""
    return sorted(
        p.stem
        for p in EXAMPLES.glob("*.lab")
        if any(line.startswith("library ") for line in p.read_text().splitlines())
    )


def _export(name: str, folder: Path) -> Path:
    """The example's `export --to seqspec` beside it, with its onlists at hand."""
    lab = folder / f"{name}.lab"
    shutil.copy(EXAMPLES / lab.name, lab)
    result = check_file(lab, [str(folder)])
    for segment in build_model(result.program, Report()).model.segments:
        if segment.onlist:
            (folder / f"{segment.onlist}.txt").write_text("AAACCCAAGAAACACT\n")
    text, report = export_seqspec_0_3_text(result)
    assert text is not None
    codes = {d.code for d in report}
    # Smart-seq3's second gene-expression library cannot share the spec (W0051)
    assert codes <= ({"W0051"} if name == "smart_seq3" else set()), list(report)
    spec = folder / f"{name}.spec.yaml"
    spec.write_text(text)
    return spec


@pytest.fixture(scope="module")
def seqspec_outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Outputs]:
    """Each example's `seqspec check` output, `seqspec index -t kb` output, the length
    of each read the export declares, and `seqspec print -f seqspec-ascii` output."""
    commands: list[list[str]] = []
    lengths: dict[str, dict[str, int]] = {}
    for name in TECHNOLOGY:
        path = _export(name, tmp_path_factory.mktemp(name))
        spec = str(path)
        reads = load_seqspec_yaml(path.read_text())["sequence_spec"]
        lengths[name] = {read["read_id"]: read["max_len"] for read in reads}
        modality, reads, _ = TECHNOLOGY[name]
        ids = ",".join(f"{modality}-{read}" for read in reads)
        commands += [
            ["check", spec],
            ["index", "-t", "kb", "-m", modality, "-i", ids, spec],
            ["print", "-f", "seqspec-ascii", spec],
        ]
    run = subprocess.run(
        [sys.executable, "-c", RUNNER],
        input=json.dumps(commands),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    outputs = json.loads(run.stdout)
    return {
        name: (outputs[3 * i], outputs[3 * i + 1], lengths[name], outputs[3 * i + 2])
        for i, name in enumerate(TECHNOLOGY)
    }


def _as_kallisto(technology: str, read_lengths: list[int]) -> str:
    """seqspec's kb string with a sequence triple that ends at its read's end written
    as kallisto writes it (stop 0); barcode and UMI triples as they are."""
    barcodes, umis, sequence = technology.split(":")
    numbers = [int(n) for n in sequence.split(",")]
    triples = [numbers[i : i + 3] for i in range(0, len(numbers), 3)]
    for triple in triples:
        if triple[0] >= 0 and triple[2] == read_lengths[triple[0]]:
            triple[2] = 0
    return ":".join([barcodes, umis, ",".join(",".join(map(str, t)) for t in triples)])


def test_every_shipped_example_with_a_library_is_covered() -> None:
    """Each shipped example that declares a library has its technology string here."""
    assert _shipped() == sorted(TECHNOLOGY)


@pytest.mark.parametrize("name", sorted(TECHNOLOGY))
def test_seqspec_check_finds_no_error_in_the_export(
    name: str, seqspec_outputs: dict[str, Outputs]
) -> None:
    """`seqspec check` prints no error for the example's export (its onlists at hand)."""
    assert seqspec_outputs[name][0].strip() == ""


@pytest.mark.parametrize("name", sorted(TECHNOLOGY))
def test_seqspec_index_gives_kallistos_technology_string(
    name: str, seqspec_outputs: dict[str, Outputs]
) -> None:
    """`seqspec index -t kb` on the export's reads is the assay's kallisto|bustools string."""
    modality, reads, expected = TECHNOLOGY[name]
    _check, index, lengths, _print = seqspec_outputs[name]
    got = index.strip()
    assert _as_kallisto(got, [lengths[f"{modality}-{r}"] for r in reads]) == expected, got


@pytest.mark.parametrize("name", sorted(TECHNOLOGY))
def test_seqspec_print_draws_every_read_of_the_export(
    name: str, seqspec_outputs: dict[str, Outputs]
) -> None:
    """`seqspec print -f seqspec-ascii` draws the library with an arrow for each read."""
    _check, _index, lengths, drawing = seqspec_outputs[name]
    assert lengths and all(f") {read_id}" in drawing for read_id in lengths), drawing[:500]
