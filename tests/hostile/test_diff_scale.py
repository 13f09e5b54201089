"""`diff` of large protocols is near-linear: content matching is windowed past a pair
budget and each change names at most MAX_DOWNSTREAM downstream steps."""

from __future__ import annotations

from pathlib import Path

from lablang.protocols.diff import MAX_DOWNSTREAM, _match, diff_json, semantic_diff
from lablang.protocols.model import Add, Protocol, Step
from lablang.protocols.quantities import Amount
from tests.hostile.bounded import run_bounded


def protocol_text(steps: int, variant: int) -> str:
    lines = ['protocol p "x" {', '  materials: { m: "m" }', "  containers: {tube: 0 uL}"]
    for i in range(steps):
        name = f"s{i}" if variant == 0 else f"t{i}"
        volume = (i % 7) + 1 + (variant if i % 3 == 0 else 0)
        lines.append(f"  step {name} {{ add: {volume} uL of m  to: tube }}")
    return "\n".join([*lines, "}"]) + "\n"


def adds(prefix: str, volumes: list[int]) -> tuple[Step, ...]:
    return tuple(
        Step(name=f"{prefix}{i}", action=Add(volume=Amount.parse(str(v), "uL"), material="m", destination="tube"))
        for i, v in enumerate(volumes)
    )  # fmt: skip


def test_two_large_protocols_diff_in_bounds(tmp_path: Path) -> None:
    """Two 9,000-step protocols (each ~380 KB; 44 s and 2.7 GB before) diff in bounds."""
    (tmp_path / "a.lab").write_text(protocol_text(9000, 0))
    (tmp_path / "b.lab").write_text(protocol_text(9000, 1))
    run = run_bounded(["diff", str(tmp_path / "a.lab"), str(tmp_path / "b.lab")],
                      cpu_seconds=60, memory_mb=800)  # fmt: skip
    run.assert_clean()
    assert len(run.stdout) < 5_000_000
    assert "downstream:" in run.stdout and ", …" in run.stdout


def test_downstream_lists_are_capped_and_marked() -> None:
    """A change with a hundred downstream steps names MAX_DOWNSTREAM and says there are more."""
    old = Protocol(name="a", steps=adds("s", [1] * 100))
    new = Protocol(name="b", steps=adds("s", [2] + [1] * 99))
    (change,) = semantic_diff(old, new).changes
    assert change.kind == "changed" and len(change.downstream) == MAX_DOWNSTREAM
    assert change.downstream_truncated
    assert diff_json(semantic_diff(old, new))["changes"][0]["downstream_truncated"] is True  # type: ignore[index]


def test_short_downstream_lists_are_complete() -> None:
    """Five downstream steps are all named, and not marked truncated."""
    old = Protocol(name="a", steps=adds("s", [1] * 6))
    new = Protocol(name="b", steps=adds("s", [2] + [1] * 5))
    (change,) = semantic_diff(old, new).changes
    assert change.downstream == ("s1", "s2", "s3", "s4", "s5") and not change.downstream_truncated


def test_windowed_matching_still_finds_shifted_copies() -> None:
    """Past the pair budget a renamed step still finds its copy a few positions away."""
    volumes = [i % 50 + 1 for i in range(1200)]
    old = adds("a", volumes)
    new = adds("b", [99, 98, 97, *volumes])
    pairs = _match(old, new)
    assert len(pairs) == len(old)
    assert all(j == i + 3 for i, j in pairs)
    changes = semantic_diff(Protocol(name="a", steps=old), Protocol(name="b", steps=new)).changes
    assert [c.kind for c in changes].count("added") == 3
