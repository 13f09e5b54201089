"""Protocol front end and checks: dimensions, units, values, materials, the volume ledger."""

from __future__ import annotations

from fractions import Fraction

from lablang.protocols.model import Add, Hold, Repeat, Segment, Thermocycle, Transfer

from .helpers import codes, messages, protocol

HEADER = "protocol p {\n  materials: [water, mix]\n"


def test_tour_protocol_builds_typed_steps():
    """The tour's `amp` protocol becomes an add step and a thermocycle with 11 repeats."""
    amp, report = protocol(
        'protocol amp "cDNA amplification" realizes gex.cdna {\n'
        "  materials: [amp_mix]\n"
        "  step mix { add: 50 uL of amp_mix  to: tube1 }\n"
        "  step cycle { thermocycle { 98 C for 3 min; repeat 11 { 98 C for 15 s; "
        "63 C for 20 s; 72 C for 1 min }; hold 4 C } }\n}\n"
    )
    assert messages(report) == []
    assert amp.realizes == "gex.cdna"
    add = amp.steps[0].action
    assert isinstance(add, Add) and add.material == "amp_mix" and add.destination == "tube1"
    assert add.volume is not None and add.volume.value == 50
    cycle = amp.steps[1].action
    assert isinstance(cycle, Thermocycle)
    first, repeat, hold = cycle.stages
    assert isinstance(first, Segment) and first.duration is not None
    assert first.duration.value == 180  # 3 min in seconds, exactly
    assert isinstance(repeat, Repeat) and repeat.count == 11 and len(repeat.segments) == 3
    assert isinstance(hold, Hold) and hold.temperature.value == 4


def test_wrong_dimension_is_E0801():
    """A temperature given as the volume of an `add` is a wrong-dimension error."""
    assert codes(HEADER + "  step a { add: 50 C of water  to: t1 }\n}\n") == ["E0801"]


def test_centrifuge_speed_accepts_rpm_and_xg_but_not_time():
    """A centrifuge speed is a rotation speed or an RCF; a time there is E0801."""
    assert codes(HEADER + "  step a { centrifuge: 1000 rpm for 1 min }\n}\n") == []
    assert codes(HEADER + "  step a { centrifuge: 300 xg for 1 min }\n}\n") == []
    assert codes(HEADER + "  step a { centrifuge: 10 s for 1 min }\n}\n") == ["E0801"]


def test_negative_volume_is_reported_by_the_checker_and_the_backend():
    """`-5 uL` is the core's E0303 in `lablang check` and this backend's E0802 on its own."""
    text = HEADER + "  step a { add: -5 uL of water  to: t1 }\n}\n"
    assert codes(text) == ["E0303"]
    _, report = protocol(text)
    assert [d.code for d in report] == ["E0802"]


def test_zero_duration_is_E0802():
    """A wait of zero seconds is not a step: E0802."""
    assert codes(HEADER + "  step a { wait 0 s }\n}\n") == ["E0802"]


def test_over_drawn_container_is_E0803_with_the_ledger():
    """Drawing 30 uL from a tube holding 20 uL is an error that shows the ledger."""
    _, report = protocol(
        HEADER + "  containers: [t1, t2]\n"
        "  step a { add: 20 uL of water  to: t1 }\n"
        "  step b { transfer: 30 uL from t1  to: t2 }\n}\n"
    )
    assert messages(report) == [("E0803", "step `b` draws 30 uL from `t1`, which holds only 20 uL")]
    assert report.diagnostics[0].notes == ("the ledger before this step: `t1` 20 uL, `t2` 0 uL",)


def test_ledger_tracks_exact_volumes_across_units():
    """0.5 mL in, 120 uL out, 1 uL measured: 379 uL left, exactly."""
    from lablang.diagnostics import Report
    from lablang.protocols.checks import check_protocol

    p, report = protocol(
        HEADER + "  containers: {t1: 0 uL, t2: 0 uL}\n"
        "  step a { add: 0.5 mL of water  to: t1 }\n"
        "  step b { transfer: 120 uL from t1  to: t2 }\n"
        "  step c { measure: concentration  volume: 1 uL  container: t1 }\n}\n"
    )
    assert messages(report) == []
    ledger = check_protocol(p, None, Report(), materials=["water", "mix"])
    assert ledger[-1].volumes == (("t1", Fraction(379)), ("t2", Fraction(120)))


def test_unknown_volume_is_not_zero():
    """A container of unknown volume is never over-drawn; an empty one is."""
    _unknown, report = protocol(
        HEADER + "  containers: {sample: unknown, t2: 0 uL}\n"
        "  step b { transfer: 30 uL from sample  to: t2 }\n}\n"
    )
    assert messages(report) == []
    _, report = protocol(
        HEADER + "  containers: {sample: 0 uL, t2: 0 uL}\n"
        "  step b { transfer: 30 uL from sample  to: t2 }\n}\n"
    )
    assert [d.code for d in report] == ["E0803"]


def test_transfer_all_moves_the_whole_volume_and_unknown_propagates():
    """`transfer: all` empties the source; from an unknown source the destination is unknown."""
    from lablang.diagnostics import Report
    from lablang.protocols.checks import check_protocol

    p, _ = protocol(
        HEADER + "  containers: {a: 40 uL, b: 0 uL, u: unknown, c: 0 uL}\n"
        "  step one { transfer: all from a  to: b }\n"
        "  step two { transfer: all from u  to: c }\n}\n"
    )
    assert isinstance(p.steps[0].action, Transfer) and p.steps[0].action.volume is None
    ledger = check_protocol(p, None, Report(), materials=["water", "mix"])
    assert dict(ledger[0].volumes) == {"a": 0, "b": 40, "u": None, "c": 0}
    assert dict(ledger[1].volumes) == {"a": 0, "b": 40, "u": 0, "c": None}


def test_cleanup_sets_the_elution_volume():
    """After a bead cleanup the container holds the elution volume (or unknown without one)."""
    from lablang.diagnostics import Report
    from lablang.protocols.checks import check_protocol

    p, report = protocol(
        "protocol p {\n  materials: [water, beads]\n  containers: [t]\n"
        "  step a { add: 50 uL of water  to: t }\n"
        "  step b { cleanup: 0.8 x of beads  elute: 22 uL  container: t }\n"
        "  step c { cleanup: 1 x of beads  container: t }\n}\n"
    )
    assert messages(report) == []
    ledger = check_protocol(p, None, Report(), materials=["water", "beads"])
    assert [dict(e.volumes)["t"] for e in ledger] == [50, 22, None]


def test_undeclared_material_is_E0804_and_module_materials_count():
    """A material missing from `materials` is E0804 unless a `material` declaration names it."""
    assert codes("protocol p {\n  step a { add: 5 uL of buffer  to: t }\n}\n") == ["E0804"]
    assert (
        codes('material buffer "TE"\nprotocol p {\n  step a { add: 5 uL of buffer  to: t }\n}\n')
        == []
    )


def test_undeclared_container_is_E0805_when_containers_are_declared():
    """With a `containers` field every container used must be declared."""
    assert codes(HEADER + "  containers: [t1]\n  step a { add: 5 uL of water  to: t2 }\n}\n") == [
        "E0805"
    ]


def test_plain_number_is_E0810_and_implausible_value_is_W0801():
    """`wait 300` lacks a unit; a 980 C segment and 80 cycles are warnings."""
    assert codes(HEADER + "  step a { wait 300 }\n}\n") == ["E0810"]
    assert codes(
        HEADER + "  step c { thermocycle { repeat 80 { 980 C for 10 s; 60 C for 30 s } } }\n}\n"
    ) == ["W0801", "W0801"]


def test_step_structure_errors():
    """Two actions (E0808), a stray field (E0807), a repeated name (E0809), no time (E0806)."""
    assert codes(HEADER + "  step a { wait 5 min  centrifuge: 300 xg for 1 min }\n}\n") == ["E0808"]
    assert codes(HEADER + "  step a { centrifuge: 300 xg for 1 min  volume: 10 uL }\n}\n") == [
        "E0807"
    ]
    assert codes(HEADER + "  step a { wait 5 min }\n  step a { wait 6 min }\n}\n") == ["E0809"]
    assert codes(HEADER + "  step c { thermocycle { 98 C; repeat 3 { 98 C for 1 s } } }\n}\n") == [
        "E0806"
    ]


def test_examples_check_clean():
    """The published and modified example protocols have no diagnostics at all."""
    from pathlib import Path

    from lablang.driver import check_file

    root = Path(__file__).parents[2] / "examples" / "protocols"
    for path in [*root.glob("*.lab"), *root.glob("answers/*/*.lab")]:
        assert [d.code for d in check_file(path).report] == [], path


def test_thermocycle_without_a_block_is_E0806():
    """`thermocycle` with no block (found by mutation fuzzing) is a diagnostic, not a crash."""
    assert codes(HEADER + "  step c { thermocycle }\n}\n") == ["E0806"]
