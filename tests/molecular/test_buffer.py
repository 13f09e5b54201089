"""The buffer primers' melting temperatures are computed in: a workflow's `param salt`,
`mg`, `dntp`, `primer_conc`, or a thermocycling step's fields of the same names; units
checked, bounded (E0429 with the default as its fix), primer3's defaults otherwise."""

from __future__ import annotations

import pytest

from lablang.diagnostics import Report
from lablang.driver import check_text
from lablang.molecular.explain_names import explain_in_model
from lablang.molecular.front import build_model
from lablang.molecular.primer_sites import step_conditions
from lablang.molecular.thermo import (
    BUFFER_FIELDS,
    DEFAULT_CONDITIONS,
    Conditions,
    melting_temperature,
)
from tests.molecular.test_primer_sites import FWD
from tests.molecular.test_primer_sites import WORKFLOW as TAILED

# the tailed primer `f` pairs over FWD, so its Tm is FWD's
WORKFLOW = TAILED.replace("{param}", "{params}")
PROTOCOL = """
protocol run "the amplification" realizes w.amp {{
  materials: [mix]
  step cycle {{ thermocycle {{ 98 C for 30 s; repeat 20 {{ 98 C for 10 s; {anneal} C for 30 s; 72 C for 30 s }}; hold 4 C }}
    {fields} }}
}}
"""


def _check(params: str = "", protocol: str = ""):  # type: ignore[no-untyped-def]
    return check_text(WORKFLOW.replace("{params}", params) + protocol, "b.lab")


def test_a_workflows_buffer_params_set_the_tm_explain_shows() -> None:
    """`param salt: 20 mM` and `param mg: 3 mM` are the step's conditions: explain states
    them and gives the Tm primer3 computes in them."""
    result = _check("param salt: 20 mM\n  param mg: 3 mM")
    assert not result.report.has_errors, [d.message for d in result.report]
    model = build_model(result.program, Report()).model
    step = model.graphs[0].transitions[0]
    assert step_conditions(step) == Conditions(na=20.0, mg=3.0)
    text = explain_in_model(model, "w.amp")
    assert text is not None and "buffer 20 mM Na+, 3 mM Mg2+, 0.6 mM dNTP, 50 nM primer" in text
    assert f"Tm {melting_temperature(FWD, Conditions(na=20.0, mg=3.0)):.1f} C" in text


def test_a_concentration_in_another_unit_is_converted() -> None:
    """`param mg: 1500 uM` is 1.5 mM: the conditions are primer3's defaults, said so."""
    result = _check("param mg: 1500 uM\n  param primer_conc: 0.05 uM")
    model = build_model(result.program, Report()).model
    conditions = step_conditions(model.graphs[0].transitions[0])
    assert conditions == DEFAULT_CONDITIONS and "primer3's default buffer" in conditions.text()


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        ("param salt: 50 C", "`salt` is a molar concentration such as `50 mM`"),
        ("param salt: 5 M", "`salt` must be between 0 and 2000 mM, not 5 M"),
        ('param dntp: "lots"', "`dntp` is a molar concentration such as `0.6 mM`"),
        ("param primer_conc: 0 nM", "`primer_conc` must be between 0.001 and 1e+06 nM"),
    ],
)
def test_a_buffer_param_that_is_not_a_bounded_concentration_is_e0428(
    written: str, problem: str
) -> None:
    """A wrong unit, a value out of bounds or a text is E0429, whose fix writes the default."""
    result = _check(written)
    (diagnostic,) = [d for d in result.report if d.code == "E0429"]
    assert diagnostic.message.startswith(problem)
    assert diagnostic.fix is not None
    (edit,) = diagnostic.fix.edits
    default = f"{getattr(DEFAULT_CONDITIONS, BUFFER_FIELDS[written.split()[1][:-1]][0]):g}"
    assert edit.replacement.startswith(default)
    assert result.source.text[edit.span.start : edit.span.end] == written.split(": ", 1)[1]


def test_a_thermocycling_steps_buffer_is_used_for_w0408_over_the_workflows() -> None:
    """At 45 C no primer is too weak in primer3's buffer; with the step's `salt: 10 mM`
    and `mg: 0 mM` both are (Tm below 45 C), the step's buffer over the workflow's."""
    plain = _check("param salt: 100 mM", PROTOCOL.format(anneal=45, fields=""))
    assert [d.code for d in plain.report if d.code == "W0408"] == []
    low = _check("param salt: 100 mM", PROTOCOL.format(anneal=45, fields="salt: 10 mM  mg: 0 mM"))
    warned = [d.message for d in low.report if d.code == "W0408"]
    assert len(warned) == 2 and all("buffer 10 mM Na+, 0 mM Mg2+" in m for m in warned)


def test_a_thermocycling_steps_wrong_buffer_field_is_e0428_even_unlinked() -> None:
    """A step's `mg: 2 s` is E0429 with its fix, whether or not the protocol realizes a
    workflow step."""
    text = PROTOCOL.format(anneal=55, fields="mg: 2 s").replace("realizes w.amp ", "")
    report = _check("", text).report
    (diagnostic,) = [d for d in report if d.code == "E0429"]
    assert diagnostic.fix is not None and diagnostic.fix.edits[0].replacement == "1.5 mM"


def test_the_protocols_thermocycle_fields_are_the_buffer_fields() -> None:
    """The protocols checker accepts on a thermocycling step exactly the buffer fields the
    Tm reads (the two backends cannot import each other, so a test keeps them equal)."""
    from lablang.protocols.front import ACTION_FIELDS

    assert ACTION_FIELDS["thermocycle"] == set(BUFFER_FIELDS)


def test_the_workflow_picture_states_the_workflows_buffer_once() -> None:
    """With `param salt: 20 mM` the picture's one conditions line names that buffer."""
    from lablang.molecular.draw import workflow_svg

    model = build_model(_check("param salt: 20 mM").program, Report()).model
    svg = workflow_svg(model.graphs[0], {o.name: o for o in model.oligos})
    assert svg.count("buffer 20 mM Na+, 1.5 mM Mg2+") == 1 and "default buffer" not in svg
