"""Molecular checking speed: a derived split-pool workflow, a declared state graph, and
the check time per derived state of real protocols: the examples and the scg_lib_structs
atlas (`examples/atlas/`).

Run: `python benchmarks/molecular.py` (`--atlas` for the atlas only, `--pydna` for the
pydna row only: the same concrete PCRs, digests and ligations derived by lablang and by pydna). Prints, measured
in one run, the check time per state for growing workflows and how it grows (the ratio
of per-state times between sizes; 1.0 means linear growth of the total), and for the
atlas the molecular time of each page, per derived state, and the whole atlas. Absolute
times are printed for context only; nothing here is asserted but that the generated
programs check clean. `--smoke`: the same code paths at the two smallest sizes of each
table, one example and one atlas page, one repetition each (tests/core/test_benchmarks.py
runs it).
"""

from __future__ import annotations

import gc
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lablang.driver import check_source, check_text
from lablang.source import Source


def split_pool_program(rounds: int) -> str:
    """A derived workflow: a single-stranded RT product gains one barcode per split-pool
    round, joined by RNA ligase (single strands, no splint: DNA ligase would need one)."""
    lines = ["module bench_split_pool"]
    for k in range(1, rounds + 1):
        lines.append(f"oligo bc{k} {{ seq: 5'-/5Phos/ ACGTTGCA [ROUND{k}_BARCODE:8] GGTACCTT-3' }}")
    lines += ["workflow sp {", "  input cdna: DNA 5'-/5Phos/ [CDNA] (A)30-3'"]
    previous = "cdna"
    for k in range(1, rounds + 1):
        lines.append(f"  r{k} = barcode_round({previous}, barcode: bc{k}, end: 5', ligase: rna)")
        previous = f"r{k}"
    lines += [f"  output {previous} as gene_expression", "}"]
    return "\n".join(lines) + "\n"


def declared_program(states: int) -> str:
    """A declared chain of `states` states joined by PCR transitions, each state a duplex."""
    lines = ["module bench_declared"]
    for i in range(states):
        final = "  final: gene_expression" if i == states - 1 else ""
        lines.append(
            f"state s{i} : double_stranded {{ strand a: DNA 5'-ACGTACGTAC [UMI:12] [CDNA] GATCGGAAGAGC-3'"
            f"  strand b: DNA 5'-GCTCTTCCGATC [CDNA'] [UMI:12'] GTACGTACGT-3'  pair a ~ b {final} }}"
        )
    for i in range(states - 1):
        lines.append(
            f"transition t{i} : pcr {{ substrates: [s{i}]  products: [s{i + 1}]  carried: [s{i + 1}] }}"
        )
    return "\n".join(lines) + "\n"


def timed(function: object, repeats: int = 7) -> float:
    """Best of `repeats`, with the cyclic GC paused as `lablang check` itself does."""
    times = []
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            function()  # type: ignore[operator]
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return min(times)


def report(
    title: str, sizes: list[int], make: object, states: object = None, repeats: int = 15
) -> None:
    """The molecular backend's time per state (model, derivation and checks), measured
    on the already parsed and resolved program, and the whole `check` for context."""
    print(title)
    previous = None
    for n in sizes:
        text = make(n)  # type: ignore[operator]
        result = check_source(Source(text, "bench.lab"), backends=False)
        assert result.ok
        program = result.program
        molecular = timed(lambda program=program: _molecular(program), repeats)
        full = timed(lambda text=text: check_source(Source(text, "bench.lab")), min(3, repeats))
        count = states(n) if states else n  # type: ignore[operator]
        per_state = molecular / count
        growth = "" if previous is None else f"   per-state growth x{per_state / previous:.2f}"
        print(
            f"  {count:4d} states: molecular {molecular * 1000:7.1f} ms = {per_state * 1000:6.3f} ms/state"
            f" ({100 * molecular / full:4.1f}% of check){growth}"
        )
        previous = per_state


def derived_state_times(paths: list[Path], repeats: int = 9) -> list[tuple[str, int, float, float]]:
    """For each `.lab` file: (name, derived states, molecular backend seconds, whole
    `check` seconds). The backend time covers the model, the derivation of every
    workflow and all molecular checks, on the already parsed and resolved program."""
    from lablang.diagnostics import Report
    from lablang.driver import check_file
    from lablang.molecular.front import build_model

    rows = []
    for path in paths:
        result = check_file(path)
        program = result.program
        model = build_model(program, Report()).model
        count = sum(len(g.states) for g in model.graphs if g.derived)
        molecular = timed(lambda program=program: build_model(program, Report()), repeats)
        full = timed(lambda path=path: check_file(path), min(3, repeats))
        rows.append((path.stem, count, molecular, full))
    return rows


def report_derived_states(title: str, paths: list[Path], repeats: int = 9) -> None:
    """Print the check time per derived state of each file, and over all of them."""
    print(title)
    rows = derived_state_times(paths, repeats)
    for name, count, molecular, full in rows:
        per = molecular / count if count else 0.0
        print(
            f"  {name:24s} {count:4d} derived states: molecular {molecular * 1000:6.1f} ms"
            f" = {per * 1000:6.3f} ms/state ({100 * molecular / full:4.1f}% of check)"
        )
    states = sum(r[1] for r in rows)
    total = sum(r[2] for r in rows)
    if states:
        print(
            f"  {'all':24s} {states:4d} derived states: {total * 1000:6.1f} ms = "
            f"{total / states * 1000:6.3f} ms/state"
        )


def _molecular(program: object) -> None:
    from lablang.diagnostics import Report
    from lablang.molecular.front import build_model

    report = Report()
    build_model(program, report)
    assert not report.has_errors, [d.message for d in report][:3]


def atlas_report(pages: int | None = None, repeats: int = 5) -> None:
    """Each atlas page: the molecular backend's time (derivation and checks of all its
    workflows and libraries), its derived states, the time per derived state, and its
    share of the whole `check`; then the whole atlas and its slowest page per state.
    With `pages`, only the first `pages` pages (in name order)."""
    root = Path(__file__).resolve().parents[1] / "examples" / "atlas"
    print("scg_lib_structs atlas (examples/atlas/), per page")
    rows = derived_state_times(sorted(root.glob("*.lab"))[:pages], repeats)
    for name, count, molecular, full in rows:
        per = molecular / count if count else 0.0
        print(
            f"  {name:30s} molecular {molecular * 1000:7.1f} ms  {count:4d} derived states"
            f"  {per * 1000:6.3f} ms/state  check {full * 1000:7.1f} ms"
            f" ({100 * molecular / full:4.1f}%)"
        )
    total_molecular = sum(r[2] for r in rows)
    total_check = sum(r[3] for r in rows)
    total_states = sum(r[1] for r in rows)
    mean = total_molecular / max(total_states, 1)
    slowest = max((r[2] / r[1], r[0]) for r in rows if r[1])
    print(
        f"  whole atlas: {len(rows)} pages, molecular {total_molecular * 1000:.1f} ms"
        f" ({total_molecular / len(rows) * 1000:.1f} ms/page), {total_states} derived states"
        f" ({mean * 1000:.3f} ms/state), check {total_check * 1000:.1f} ms; slowest per"
        f" state: {slowest[1]} ({slowest[0] * 1000:.3f} ms/state = x{slowest[0] / mean:.1f}"
        " the atlas mean)"
    )


def pydna_report(cases: int) -> None:
    """The same concrete PCRs, digests and ligations of two digest products
    (tests/molecular/concrete_cases.py) derived by
    lablang (check and model) and by pydna, in process: per case lablang's time over
    pydna's, and the median per kind."""
    import random
    import statistics

    from Bio.Restriction import AllEnzymes
    from pydna.amplify import pcr
    from pydna.dseqrecord import Dseqrecord
    from pydna.primer import Primer

    from lablang.diagnostics import Report
    from lablang.molecular.front import build_model
    from tests.molecular.concrete_cases import (
        digest_case,
        digest_program,
        ligation_case,
        ligation_program,
        pcr_case,
        pcr_program,
    )

    def best(work: Any, repeats: int = 3) -> float:
        """The fastest of `repeats` runs (the first, untimed, warms both libraries)."""
        times = []
        for _ in range(repeats):
            begin = time.perf_counter()
            work()
            times.append(time.perf_counter() - begin)
        return min(times)

    def lablang_seconds(text: str) -> float:
        """The model's time (the derivation) on the checked program, as pydna's is its own
        operation's time: parsing and checking the text are left out."""
        program = check_text(text, "bench.lab").program
        return best(lambda: build_model(program, Report()))

    template, forward, reverse = pcr_case(random.Random(999))  # warm-up, untimed
    build_model(check_text(pcr_program(template, forward, reverse), "w.lab").program, Report())
    pcr(Primer(forward), Primer(reverse), Dseqrecord(template))
    template, chosen = digest_case(random.Random(1999))
    build_model(check_text(digest_program(template, chosen), "w.lab").program, Report())
    Dseqrecord(template).cut(*[AllEnzymes.get(name) for name in chosen])

    ratios: dict[str, list[float]] = {"PCR": [], "digest": [], "ligation": []}
    for k in range(cases):
        template, forward, reverse = pcr_case(random.Random(1000 + k))
        ours = lablang_seconds(pcr_program(template, forward, reverse))
        theirs = best(
            lambda f=forward, r=reverse, t=template: pcr(Primer(f), Primer(r), Dseqrecord(t))
        )
        ratios["PCR"].append(ours / theirs)
        template, chosen = digest_case(random.Random(2000 + k))
        enzymes = [AllEnzymes.get(name) for name in chosen]
        ours = lablang_seconds(digest_program(template, chosen))
        theirs = best(lambda t=template, e=enzymes: Dseqrecord(t).cut(*e))
        ratios["digest"].append(ours / theirs)
        # two digests and the join of a piece of each: sticky ends, or blunt (both ways)
        kind = ("sticky", "blunt")[k % 2]
        a, b, first, second = ligation_case(random.Random(7000 + k), kind)
        ours = lablang_seconds(ligation_program(a, b, first, second, kind))
        cut_a, cut_b = AllEnzymes.get(first), AllEnzymes.get(second)

        def join(a: str = a, b: str = b, cut_a: Any = cut_a, cut_b: Any = cut_b) -> None:
            left, right = Dseqrecord(a).cut(cut_a)[0], Dseqrecord(b).cut(cut_b)[1]
            left + right  # pydna's ligation (the result is not kept)

        ratios["ligation"].append(ours / best(join))
    every = [r for kind in ratios.values() for r in kind]
    medians = ", ".join(f"{k} x{statistics.median(v):.2f}" for k, v in ratios.items())
    print(
        f"pydna, {cases} PCRs, {cases} digests and {cases} ligations of two digest products "
        f"in process: lablang's model over pydna, median x{statistics.median(every):.2f} "
        f"({medians}; range x{min(every):.2f}-x{max(every):.2f}); target median <= 2.0"
    )


def main() -> None:
    check_text(split_pool_program(2), "warm.lab")  # imports and caches out of the timing
    smoke = "--smoke" in sys.argv[1:]
    if "--atlas" in sys.argv[1:]:
        atlas_report(*((1, 1) if smoke else ()))
        return
    if "--pydna" in sys.argv[1:]:
        pydna_report(2 if smoke else 24)
        return
    # --smoke: the two smallest sizes (so the growth column is computed), one repetition
    sizes = 2 if smoke else None
    repeats = {"repeats": 1} if smoke else {}
    rounds = [3, 6, 12, 24][:sizes]
    report(
        f"derived split-pool workflow, {'/'.join(map(str, rounds))} rounds (states = rounds + 1)",
        rounds,
        split_pool_program,
        lambda n: n + 1,
        **repeats,
    )
    report("declared state graph", [50, 100, 200, 400][:sizes], declared_program, **repeats)
    examples = sorted((Path(__file__).resolve().parents[1] / "examples").glob("*.lab"))
    report_derived_states(
        "check time per derived state, example protocols",
        examples[: 1 if smoke else None],
        **repeats,
    )
    atlas_report(*((1, 1) if smoke else ()))
    pydna_report(2 if smoke else 24)


if __name__ == "__main__":
    main()
