"""Solid handling traced: a task's weighed amount against the protocol's mass (E0845)."""

from __future__ import annotations

import shutil
from pathlib import Path

from lablang.driver import check_file, check_text

SUITE = Path(__file__).parents[2] / "examples" / "suite"

TEXT = """
protocol salt_out "Weigh out 1 g of salt" {
  materials: [nacl]
  containers: {stock: unknown, boat: 0 uL}
  step weigh "Weigh 1 g of NaCl into the boat" { add: 1 g of nacl  to: boat }
}
scene bench {
  jar: beaker(capacity: 50 mL, contents: 5 g of salt) on table at (0.15 m, -0.15 m)
  scale: scale() on table at (0.45 m, 0.15 m)
  cup: beaker(capacity: 50 mL) on scale
  other: beaker(capacity: 50 mL) on table at (0.30 m, 0.20 m)
}
task weigh_salt in bench realizes salt_out {
  bind: {boat: cup, nacl: salt}
  tolerance: 0.05 g
  instruction: "Tare the scale with the cup on it so that it reads 0 g, dispense 1 g of salt from the jar into the cup without spilling, and read 1 g on the scale."
  step tare { do { tare(scale) }  success: reading(scale, 0 g, within: 0.05 g) }
  step dispense realizes weigh {
    do { pick(jar); dispense_powder(jar, cup, 1 g); read_scale(scale) }
    success: contains(cup, salt, 1 g, within: 0.05 g) and reading(scale, 1 g, within: 0.1 g)
             and not_spilled()
  }
}
"""


def _errors(text: str) -> list:
    return list(check_text(text, "t.lab").report.errors)


def _at(text: str, diagnostic) -> str:
    return text[diagnostic.span.start : diagnostic.span.end]


def test_a_task_weighing_out_the_protocols_mass_checks_clean():
    """Dispensing and checking 1 g of salt into the cup bound to `boat` has no errors."""
    assert _errors(TEXT) == []


def test_a_changed_protocol_mass_is_an_error_at_the_program_the_spec_and_the_reading():
    """The protocol weighing out 2 g: E0845 at the dispensed 1 g, the checked 1 g and the
    tared scale's 1 g reading, each labelled at the protocol's `2 g` and fixed with it."""
    text = TEXT.replace("add: 1 g", "add: 2 g")
    errors = _errors(text)
    assert [e.code for e in errors] == ["E0845", "E0845", "E0845"]
    assert [_at(text, e) for e in errors] == ["1 g", "1 g", "1 g"]
    for error in errors:
        assert [_at(text, label) for label in error.labels] == ["2 g"]
        assert [edit.replacement for edit in error.fix.edits] == ["2 g"]
    assert "weighs out 2 g" in errors[2].message


def test_a_mass_within_the_tolerance_agrees_and_outside_it_does_not():
    """1.04 g dispensed agrees with 1 g within 0.05 g; 1.1 g is E0845."""
    near = TEXT.replace("dispense_powder(jar, cup, 1 g)", "dispense_powder(jar, cup, 1.04 g)")
    far = TEXT.replace("dispense_powder(jar, cup, 1 g)", "dispense_powder(jar, cup, 1.1 g)")
    assert _errors(near) == []
    assert [e.code for e in _errors(far)] == ["E0845"]


def test_powder_into_another_vessel_breaks_the_containers_identity():
    """Dispensing into `other` while `boat` is bound to `cup` is E0844 at the call."""
    text = TEXT.replace("dispense_powder(jar, cup, 1 g)", "dispense_powder(jar, other, 1 g)")
    (error,) = _errors(text)
    assert error.code == "E0844" and _at(text, error) == "dispense_powder(jar, other, 1 g)"
    assert "moves powder into `other`" in error.message


def test_a_liquid_volume_does_not_realize_a_mass():
    """A spec checking 1 mL in the cup is not the protocol's 1 g: E0845, no `contains` of
    that mass."""
    text = TEXT.replace("contains(cup, salt, 1 g,", "contains(cup, salt, 1 mL,").replace(
        "within: 0.05 g) and reading", "within: 0.05 mL) and reading"
    )
    (error,) = _errors(text)
    assert error.code == "E0845" and "does not check the 1 g of salt" in error.message


def test_an_untared_reading_is_not_compared_with_the_mass():
    """Without the tare step a scale's reading (the cup and the salt) is the task's to
    state: only the dispensed and contained amounts are traced."""
    text = TEXT.replace("do { tare(scale) }", "do { wait(1 s) }").replace(
        "reading(scale, 1 g, within: 0.1 g)", "reading(scale, 31 g, within: 0.1 g)"
    )
    assert [e.code for e in _errors(text)] == []


SCOOPED = TEXT.replace(
    "  other: beaker(capacity: 50 mL) on table at (0.30 m, 0.20 m)\n",
    "  other: beaker(capacity: 50 mL) on table at (0.30 m, 0.20 m)\n"
    "  spoon: scoop(capacity: 2 mL) on table at (0.15 m, 0.05 m)\n",
).replace(
    "do { pick(jar); dispense_powder(jar, cup, 1 g); read_scale(scale) }",
    "do { pick(spoon); scoop(spoon, jar, 0.5 g); empty_scoop(spoon, cup); "
    "scoop(spoon, jar, 0.5 g); empty_scoop(spoon, cup); place(spoon, table); read_scale(scale) }",
)


def test_two_scoops_emptied_into_the_bound_vessel_are_traced_as_their_sum():
    """Two 0.5 g scoops emptied into the cup realize the protocol's 1 g; one of 0.5 g and
    one of 0.25 g is E0845 naming the 750 mg moved."""
    assert _errors(SCOOPED) == []
    short = SCOOPED.replace(
        "empty_scoop(spoon, cup); scoop(spoon, jar, 0.5 g); empty_scoop",
        "empty_scoop(spoon, cup); scoop(spoon, jar, 0.25 g); empty_scoop",
    )
    (error,) = _errors(short)
    assert error.code == "E0845" and "moves 750 mg into `cup`" in error.message


def test_a_tared_reading_after_two_additions_is_their_sum(tmp_path):
    """In the suite's two-salt scenario the reading after the second scoop is the 1.5 g
    both protocol steps weigh out together: 1.5 g checks clean, 0.5 g is E0845 naming
    both steps (once per binding of the family, as every trace error)."""
    assert check_file(SUITE / "solid_two_salts.lab").report.errors == []
    shutil.copytree(SUITE / "protocols", tmp_path / "protocols")
    text = (SUITE / "solid_two_salts.lab").read_text(encoding="utf-8")
    wrong = tmp_path / "solid_two_salts.lab"
    wrong.write_text(text.replace("reading(scale, 1.5 g,", "reading(scale, 0.5 g,"))
    errors = list(check_file(wrong).report.errors)
    assert [e.code for e in errors] == ["E0845"] * 4
    assert {e.message for e in errors} == {
        "the success spec reads 500 mg on tared `scale`; protocol steps `nacl`, `kcl` weigh "
        "out 1.5 g together"
    }


def test_diff_of_a_changed_mass_lists_the_task_step_that_weighs_it(tmp_path, monkeypatch):
    """Weighing 2 g instead of 1 g is a consequential `mass` change, and `lablang diff
    --tasks` names the suite's task step that realizes the weighing."""
    from click.testing import CliRunner

    from lablang.cli import main

    old = SUITE / "protocols" / "weigh_salt.lab"
    new = tmp_path / "weigh_salt_2g.lab"
    new.write_text(old.read_text(encoding="utf-8").replace("add: 1 g", "add: 2 g"))
    monkeypatch.chdir(SUITE)
    result = CliRunner().invoke(
        main, ["diff", str(old), str(new), "--tasks", "solid_scoop_salt.lab"]
    )
    assert result.exit_code == 1
    assert "mass: 1 g -> 2 g" in result.output
    assert "task `scoop_salt` step `dose` realizes `weigh` (changed)" in result.output


def test_a_held_out_solid_handling_binding_certifies_with_its_trace(tmp_path):
    """The scoop scenario's held-out binding (the dose into a 250 mL flask's neck)
    certifies on one instance without mutants (the cheap CI sample): its certificate is
    certified, for the held-out binding that binds the vessel to `conical`."""
    import json

    from click.testing import CliRunner

    from lablang.cli import main

    args = ["certify", str(SUITE / "solid_scoop_salt.lab"), "--task", "scoop_salt-flask"]
    args += ["--instances", "1", "--mutants", "none", "--out", str(tmp_path / "cert.json")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    cert = json.loads((tmp_path / "cert.json").read_text())
    assert cert["certified"] is True and cert["success_rate"] == 1.0
    assert cert["family_binding"]["heldout"] is True
    assert cert["family_binding"]["roles"] == {"vessel": "conical"}
