"""The certificate's JSON Schema (`lablang schema --of certificate`) validates what
`certify` writes, its sensitivity section included, and nothing else."""

from __future__ import annotations

import json

import jsonschema
import pytest
from click.testing import CliRunner

from lablang.cli.core import schema_command
from lablang.sim import certify_task, load_tasks
from lablang.sim.certificate_schema import certificate_schema

MOVE = "examples/tasks/move_tube.lab"


@pytest.fixture(scope="module")
def certificates() -> dict[str, dict]:
    tasks, _ = load_tasks(MOVE)
    task = tasks["move_tube"]
    from attrs import evolve

    from lablang.sim.model import Bool

    vacuous = evolve(task, steps=(evolve(task.steps[0], success=Bool(True)),))
    return {
        "sensitive": certify_task(task, instances=1, seed=0),
        "vacuous": certify_task(vacuous, instances=1, seed=0),
        "none": certify_task(task, instances=1, seed=0, mutants="none"),
    }


@pytest.mark.parametrize("kind", ["sensitive", "vacuous", "none"])
def test_certificates_validate_against_the_published_schema(certificates, kind: str) -> None:
    """A certified task, a vacuous one (surviving mutants, a step held at its start) and one
    certified without mutants are all valid certificates under the schema."""
    certificate = json.loads(json.dumps(certificates[kind]))
    jsonschema.validate(certificate, certificate_schema())
    assert certificate["certified"] is (kind != "vacuous")


def test_the_schema_rejects_a_sensitivity_section_without_its_counts(certificates) -> None:
    """Dropping `killed` from the sensitivity section, or adding an unknown key at the top,
    makes a certificate invalid: the schema is closed."""
    certificate = json.loads(json.dumps(certificates["sensitive"]))
    del certificate["sensitivity"]["killed"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(certificate, certificate_schema())
    extra = {**certificates["sensitive"], "surprise": 1}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(extra, certificate_schema())


def test_lablang_schema_of_certificate_prints_the_schema() -> None:
    """`lablang schema --of certificate` prints exactly `certificate_schema()`."""
    result = CliRunner().invoke(schema_command, ["--of", "certificate"])
    assert result.exit_code == 0 and json.loads(result.output) == certificate_schema()
