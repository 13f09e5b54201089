"""LibStructBench Task 2 export: chemistry in the benchmark's words, imported oligos kept."""

from __future__ import annotations

import json

from lablang.driver import check_text
from lablang.molecular.interchange import export_t2_text
from lablang.scoring.oligo_modifications import modification_claims_of as _modification_claims


def _oligos(text: str) -> dict[str, dict]:  # type: ignore[type-arg]
    exported, _ = export_t2_text(check_text(text, "case.lab"))
    assert exported is not None
    return {o["oligo_id"]: o for o in json.loads(exported)["oligos"]}


def test_modifications_are_exported_in_the_benchmark_s_words() -> None:
    """A TSO's rGrGrG is "three riboguanosines (rG) at the 3' end" (the truth's own words),
    a /5Phos/ is "5' phosphate", a /3SpC3/ "3' C3 spacer", a /iBiodT/ "internal biotin dT"."""
    oligos = _oligos(
        "oligo tso { seq: 5'-AAGCAGTGGTATCAACGCAGAGTACAT rGrGrG-3' }\n"
        "oligo lig { seq: 5'-/5Phos/AGATCGG/iBiodT/AAGAGC/3SpC3/-3' }\n"
    )
    assert oligos["tso"]["modifications"] == ["three riboguanosines (rG) at the 3' end"]
    assert oligos["lig"]["modifications"] == [
        "5' phosphate",
        "internal biotin dT",
        "3' C3 spacer",
    ]


def test_exported_words_give_the_grader_s_claims() -> None:
    """The grader reads the exported words as the located claims an IDT code gives inline."""
    oligos = _oligos("oligo lig { seq: 5'-/5Phos/AGATCGGAAGAGC/3ddC/-3' }\n")
    words_only = {**oligos["lig"], "sequence": "AGATCGGAAGAGC"}
    claims = _modification_claims(words_only, None)
    assert {"five_prime:phosphate", "three_prime:dideoxycytidine"} <= claims


def test_oligos_imported_with_use_are_exported() -> None:
    """An oligo imported from the standard library with `use` is one of the exported oligos."""
    oligos = _oligos("use illumina.{truseq_read1_primer}\noligo mine { seq: 5'-ACGTACGT-3' }\n")
    assert set(oligos) == {"mine", "truseq_read1_primer"}
