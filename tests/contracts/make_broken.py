"""Regenerate the deliberately broken contracts in `data/` from the stdlib ones.

Run `python tests/contracts/make_broken.py` after changing a stdlib contract; each
variant is its stdlib contract with one rule changed, so the goldens stay readable.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STDLIB = ROOT / "stdlib" / "contracts"
DATA = Path(__file__).resolve().parent / "data"

VARIANTS = {
    "centrifuge_no_remove": (
        "centrifuge",
        "no operation removes a tube that slipped, so loading can deadlock",
        [
            (
                "  op remove_b requires conf_b and not balanced and not lid {\n    b = none\n"
                "    aim_b = none\n    conf_b = false\n    confirm b == none\n  }\n",
                "",
            )
        ],
    ),
    "centrifuge_intended": (
        "centrifuge",
        "B goes opposite the slot A was aimed at, not the slot it rests in",
        [("k == opposite {", "k == (aim_a + N/2) % N {")],
    ),
    "centrifuge_unconfirmed": (
        "centrifuge",
        "B may be placed before A is confirmed, using the hidden slot of A",
        [
            (
                "op place_b(k: slot) requires conf_a and",
                "op place_b(k: slot) requires a != none and",
            ),
            ("  invariant aim_b != none -> conf_a\n", ""),
        ],
    ),
    "feedback_weighing_naive": (
        "feedback_weighing",
        "naive rules: add while the reading stays at or below the target, remove only above it",
        [
            ("not (w in pan) and w in exact", "not (w in pan) and reading + w <= target"),
            ("w in pan and not (w in exact) {", "w in pan and reading > target {"),
        ],
    ),
    "placement_recall_instructed": (
        "placement_recall",
        "retrieval computed from the instructed slot, ignoring a slip",
        [("got == none and j == tube", "got == none and j == if(turned, M - 1 - I, I)")],
    ),
}


def main() -> None:
    for name, (base, why, edits) in VARIANTS.items():
        text = (STDLIB / f"{base}.lab").read_text("utf-8")
        for old, new in edits:
            if old not in text:
                raise SystemExit(f"{name}: `{old}` not found in {base}.lab")
            text = text.replace(old, new)
        text = text.replace(f"module contracts.{base} ", f"module {name} ")
        (DATA / f"{name}.lab").write_text(f"# BROKEN on purpose (tests): {why}\n{text}", "utf-8")


if __name__ == "__main__":
    main()
