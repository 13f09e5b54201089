"""A protocol `add` of a solid's mass: units checked, in the ledger and in the diff."""

from __future__ import annotations

from fractions import Fraction

from lablang.diagnostics import Report
from lablang.protocols.checks import check_protocol
from lablang.protocols.diff import render_diff, semantic_diff
from lablang.protocols.model import Add

from .helpers import codes, protocol

SALT = """
protocol salt "Make 50 mL of a salt solution" {
  materials: [nacl, water]
  containers: {boat: 0 uL, flask: 0 uL}
  step weigh { add: 2.5 g of nacl  to: boat }
  step tip { transfer: all from boat  to: flask }
  step fill { add: 50 mL of water  to: flask }
  step split { transfer: 10 mL from flask  to: boat }
}
"""


def test_an_add_of_grams_is_a_mass_exact_across_units():
    """`add: 2.5 g` builds an `Add` with a mass and no volume, equal to `2500 mg`."""
    built, report = protocol(SALT)
    assert list(report) == []
    action = built.steps[0].action
    assert isinstance(action, Add) and action.volume is None
    other, _ = protocol(SALT.replace("2.5 g", "2500 mg"))
    assert action.mass == other.steps[0].action.mass and str(action.mass) == "2.5 g"


def test_a_mass_of_the_wrong_kind_zero_or_implausible_is_reported():
    """An `add` of degrees is E0801 (a volume or a mass is expected), of 0 g E0802, and of
    5 kg W0801."""
    assert codes(SALT.replace("2.5 g", "2.5 C")) == ["E0801"]
    assert codes(SALT.replace("2.5 g", "0 g")) == ["E0802"]
    assert codes(SALT.replace("2.5 g", "5 kg")) == ["W0801"]


def test_the_ledger_follows_the_solid_through_transfers():
    """The ledger puts 2.5 g in the boat, moves all of it with `transfer: all`, leaves the
    volumes as they were, and sends a fifth with 10 of the 50 mL."""
    built, _ = protocol(SALT)
    ledger = check_protocol(built, None, Report())
    weigh, tip, fill, split = ledger
    assert dict(weigh.masses) == {"boat": Fraction(5, 2)}
    assert dict(weigh.volumes) == {"boat": 0, "flask": 0}
    assert dict(tip.masses) == {"boat": 0, "flask": Fraction(5, 2)}
    assert dict(fill.volumes)["flask"] == 50_000
    assert dict(split.masses) == {"boat": Fraction(1, 2), "flask": 2}


def test_a_changed_mass_is_a_consequential_change_with_its_downstream():
    """2.5 g -> 3 g is one `mass` change of step `weigh`, consequential, with the steps
    the boat's contents reach downstream."""
    old, _ = protocol(SALT)
    new, _ = protocol(SALT.replace("2.5 g", "3000 mg"))
    (change,) = semantic_diff(old, new).changes
    assert change.consequential and change.step == "weigh"
    assert [(p.parameter, str(p.old), str(p.new)) for p in change.parameters] == [
        ("mass", "2.5 g", "3 g")
    ]
    assert change.downstream == ("tip", "fill", "split")
    assert "mass: 2.5 g -> 3 g (3000 mg)" in render_diff(semantic_diff(old, new), old, new)
