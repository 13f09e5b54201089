"""The JSON Schema (2020-12) of a certificate (`lablang certify --out`, `lablang schema
--of certificate`): what `lablang.sim.certify.certificate_of` writes, key for key.

`tests/sim/test_certificate_schema.py` validates real certificates against it (a
sensitive task, a vacuous one, `--mutants none`), so the two cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from lablang.sim.mutants import KINDS

_INT = {"type": "integer"}
_NUM = {"type": "number"}
_STR = {"type": "string"}
_BOOL = {"type": "boolean"}
_NULLABLE_STR = {"type": ["string", "null"]}


def _object(properties: dict[str, Any], extra: Any = False) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": extra,
    }


def _array(items: Any) -> dict[str, Any]:
    return {"type": "array", "items": items}


_UNIT_FAILURE = _object({"unit": _STR, "seed": _INT, "attempts": _INT, "error": _STR})

SENSITIVITY: dict[str, Any] = _object(
    {
        "mutants": {"enum": ["all", "none"]},
        "instances": {**_INT, "description": "instances each mutant ran on, at most"},
        "run": _INT,
        "killed": _INT,
        "surviving": _INT,
        "limit": {**_NULLABLE_STR, "description": "E0713: the mutants' work budget"},
        "work": _INT,
        "steps": {
            "type": "object",
            "additionalProperties": _object(
                {
                    "run": _INT,
                    "killed": _INT,
                    "surviving": _array({"enum": list(KINDS)}),
                    "unchecked": _NULLABLE_STR,
                }
            ),
        },
        "results": _array(
            {
                "type": "object",
                "properties": {
                    "step": _STR,
                    "kind": {"enum": list(KINDS)},
                    "change": _STR,
                    "killed": _BOOL,
                    "runs": _array(
                        _object({"seed": _INT, "killed": _BOOL, "step": _STR, "reason": _STR})
                    ),
                    "lost": _UNIT_FAILURE,
                },
                "required": ["step", "kind", "change", "killed", "runs"],
                "additionalProperties": False,
            }
        ),
        "messages": _array(_STR),
    }
)


def certificate_schema() -> dict[str, Any]:
    """The JSON Schema of a certificate.

    >>> certificate_schema()["properties"]["sensitivity"]["required"][:3]
    ['mutants', 'instances', 'run']
    """
    failure = _object({"seed": _INT, "step": _STR, "reason": _STR, "failing": _array(_STR)})
    fault = _object({"seed": _INT, "step": _STR, "kind": _STR, "detail": _STR, "time": _NUM})
    schema = _object(
        {
            "task": _STR,
            "task_hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
            "robot": _STR,
            "lablang_version": _STR,
            "mujoco_version": _STR,
            "seed": _INT,
            "instances": _INT,
            "seeds": _array(_INT),
            "steps": _array(_STR),
            "step_pass_rates": {"type": "object", "additionalProperties": _NUM},
            "mean_credit": _NUM,
            "success_rate": _NUM,
            "certified": _BOOL,
            "limit": _NULLABLE_STR,
            "limited": _array(_object({"seed": _INT, "limit": _STR})),
            "work": _INT,
            "failures": _array(failure),
            "faults": _array(fault),
            "transient_faults_rerun": _array(_object({"seed": _INT, "fault": _STR})),
            "unit_failures": _array(_UNIT_FAILURE),
            "labference": _object(
                {"opportunities": _INT, "reached": _INT, "correct": _INT, "executed": _INT}
            ),
            # steps that choose from the evidence: instances that took each alternative
            "alternatives": {
                "type": "object",
                "additionalProperties": _object(
                    {"taken": _array(_INT), "uncovered": _array(_INT), "messages": _array(_STR)}
                ),
            },
            "completion": _object({"clean": _INT, "recovered": _INT, "incomplete": _INT}),
            "trace_digests": _array(_STR),
            "bindings": _array({"type": "object", "properties": {"seed": _INT}}),
            "family_binding": {
                "description": "the task family's binding this task is (one certificate "
                "per binding), null for a task that is no family",
                "oneOf": [
                    {"type": "null"},
                    _object(
                        {
                            "family": _STR,
                            "binding": _STR,
                            "heldout": _BOOL,
                            "roles": {"type": "object", "additionalProperties": _STR},
                        }
                    ),
                ],
            },
            "already_held": _array(_object({"step": _STR, "seeds": _array(_INT), "reason": _STR})),
            "sensitivity": SENSITIVITY,
            "unchecked": {"type": "object", "additionalProperties": _STR},
        }
    )
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "lablang certificate",
        **schema,
    }
