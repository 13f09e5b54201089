"""Semantic diff: exact change lists for reordering, edits, insertions and cycle counts."""

from __future__ import annotations

from lablang.protocols.diff import diff_json, render_diff, semantic_diff

from .helpers import protocol

BASE_STEPS = {
    "master": "add: 25 uL of kapa_mix  to: pcr",
    "primers": "add: 5 uL of primer_mix  to: pcr",
    "mix": "mix: pipette  count: 10  container: pcr",
    "spin": "centrifuge: 280 xg for 10 s  container: pcr",
    "cycle": "thermocycle { 98 C for 45 s; repeat 8 { 98 C for 15 s; 60 C for 30 s; "
    "72 C for 30 s }; hold 4 C }",
    "beads": "cleanup: 1 x of spri  elute: 22 uL  container: pcr",
}


def build(steps: dict[str, str], name: str = "p"):
    body = "".join(f"  step {k} {{ {v} }}\n" for k, v in steps.items())
    text = (
        f"protocol {name} {{\n  materials: [kapa_mix, primer_mix, spri, dmso]\n"
        f"  containers: [pcr]\n{body}}}\n"
    )
    built, report = protocol(text)
    assert [d.code for d in report] == []
    return built


def changes(old: dict[str, str], new: dict[str, str]):
    diff = semantic_diff(build(old, "old"), build(new, "new"))
    return [
        (c.kind, c.step, [(p.parameter, str(p.old), str(p.new)) for p in c.parameters])
        for c in diff.changes
    ]


def test_identical_protocols_have_no_changes():
    """A protocol diffed against itself has an empty change list."""
    assert changes(BASE_STEPS, BASE_STEPS) == []


def test_reordering_alone_moves_exactly_one_step():
    """Swapping two neighbouring steps reports one move and no parameter change."""
    swapped = dict(BASE_STEPS)
    order = ["master", "primers", "spin", "mix", "cycle", "beads"]
    swapped = {k: BASE_STEPS[k] for k in order}
    assert changes(BASE_STEPS, swapped) == [("moved", "mix", [])]


def test_changed_annealing_temperature_is_one_parameter_change():
    """60 C -> 65 C annealing is one `annealing` change in the `cycle` step."""
    new = dict(BASE_STEPS, cycle=BASE_STEPS["cycle"].replace("60 C", "65 C"))
    assert changes(BASE_STEPS, new) == [("changed", "cycle", [("annealing", "60 C", "65 C")])]


def test_inserted_step_is_one_addition():
    """A DMSO addition inserted after the primers is one `added` change."""
    new = {}
    for key, value in BASE_STEPS.items():
        new[key] = value
        if key == "primers":
            new["dmso"] = "add: 2.5 uL of dmso  to: pcr"
    assert changes(BASE_STEPS, new) == [("added", "dmso", [])]


def test_changed_cycle_count_is_one_parameter_change():
    """`repeat 8` -> `repeat 12` is one `cycles` change."""
    new = dict(BASE_STEPS, cycle=BASE_STEPS["cycle"].replace("repeat 8", "repeat 12"))
    assert changes(BASE_STEPS, new) == [("changed", "cycle", [("cycles", "8", "12")])]


def test_units_are_normalized_before_comparing():
    """`45 s` rewritten as `0.75 min` is no change; `10 s` -> `1 min` reads in seconds."""
    same = dict(BASE_STEPS, cycle=BASE_STEPS["cycle"].replace("98 C for 45 s", "98 C for 0.75 min"))
    assert changes(BASE_STEPS, same) == []
    longer = dict(BASE_STEPS, spin=BASE_STEPS["spin"].replace("10 s", "1 min"))
    assert changes(BASE_STEPS, longer) == [("changed", "spin", [("duration", "10 s", "60 s")])]


def test_removed_step_is_one_removal():
    """Dropping the spin step is one `removed` change, placed where the step was."""
    new = {k: v for k, v in BASE_STEPS.items() if k != "spin"}
    assert changes(BASE_STEPS, new) == [("removed", "spin", [])]


def test_renamed_step_is_matched_by_content():
    """A step renamed with the same content is a name change, not a removal and an addition."""
    new = {("centrifuge" if k == "spin" else k): v for k, v in BASE_STEPS.items()}
    assert changes(BASE_STEPS, new) == [("changed", "centrifuge", [("name", "spin", "centrifuge")])]


def test_downstream_steps_follow_the_containers():
    """A change to the cycling affects the later cleanup in the same tube, not earlier steps."""
    new = dict(BASE_STEPS, cycle=BASE_STEPS["cycle"].replace("repeat 8", "repeat 12"))
    diff = semantic_diff(build(BASE_STEPS), build(new))
    assert diff.changes[0].downstream == ("beads",)


def test_example_diff_matches_the_published_text_and_json(tmp_path):
    """The example diff (published -> GC-rich) equals the committed diff.txt."""
    from pathlib import Path

    from click.testing import CliRunner

    from lablang.cli.protocols import diff_command

    root = Path(__file__).parents[2] / "examples" / "protocols"
    runner = CliRunner()
    result = runner.invoke(
        diff_command, [str(root / "pcr_published.lab"), str(root / "pcr_gc_rich.lab")]
    )
    assert result.exit_code == 1, result.output  # the protocols differ
    assert result.output == (root / "diff.txt").read_text()
    as_json = runner.invoke(
        diff_command, [str(root / "pcr_published.lab"), str(root / "pcr_gc_rich.lab"), "--json"]
    )
    import json

    assert [c["kind"] for c in json.loads(as_json.output)["changes"]] == [
        "added",
        "changed",
        "changed",
        "moved",
    ]


def test_render_and_json_agree_on_values():
    """The JSON gives canonical values with the author's text; the text shows both."""
    old = build(BASE_STEPS)
    new = build(dict(BASE_STEPS, spin=BASE_STEPS["spin"].replace("10 s", "1 min")))
    diff = semantic_diff(old, new)
    data = diff_json(diff)
    parameter = data["changes"][0]["parameters"][0]  # type: ignore[index]
    assert parameter["new"] == {"value": 60, "unit": "s", "dimension": "time", "text": "1 min"}
    assert "duration: 10 s -> 60 s (1 min)" in render_diff(diff, old, new)
