"""Every weight and threshold of the LibStructBench grader, as data a user can override.

The defaults are the published grader's (libgen benchmark 4.5.0). A weights file (JSON
or TOML) holds any subset of the same nested keys; what it leaves out keeps its
default:

```toml
[reward]
t2 = 0.5
t3 = 0.5

[state]
reference_strand = 0.4
```
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attr import asdict  # plain data: tuples and sets become lists, as JSON has them
from attrs import evolve, fields, frozen, has


@frozen
class OligoWeights:
    """Task 2 scientific similarity of one oligo (weights renormalized over enabled dims)."""

    sequence: float = 0.65
    modifications: float = 0.15
    kind: float = 0.10
    orientation: float = 0.05
    role: float = 0.05
    # assignment = sequence similarity + tie_break x scientific similarity
    assignment_tie_break: float = 1e-6


@frozen
class FamilyMetadataWeights:
    """Which ground-truth family template a predicted member is attributed to."""

    role: float = 0.40
    orientation: float = 0.20
    modifications: float = 0.25
    kind: float = 0.15


@frozen
class StateWeights:
    reference_strand: float = 0.50
    architecture: float = 0.15
    segments: float = 0.20
    pairing: float = 0.15
    # assignment = (score + boundary_tie_break x same boundary class) / (1 + tie_break)
    boundary_tie_break: float = 0.10


@frozen
class StrandWeights:
    """One strand against another: ordered segments, molecule type, orientation."""

    segments: float = 0.75
    molecule_type: float = 0.15
    orientation: float = 0.10
    # each aligned segment position: sequence vs structural role
    position_sequence: float = 0.75
    position_structural_role: float = 0.25


@frozen
class TransitionWeights:
    operation: float = 0.30
    substrates: float = 0.15
    products: float = 0.20
    disposition: float = 0.15
    oligos: float = 0.20
    identity_tie_break: float = 0.03


@frozen
class WorkflowWeights:
    """Workflow assignment: terminal-modality F1, transition F1, state F1."""

    terminal_modality: float = 0.45
    transitions: float = 0.35
    states: float = 0.20


@frozen
class RewardWeights:
    """Headline reward = t2 x required-family F1 + t3 x molecular-transition F1."""

    t2: float = 0.30
    t3: float = 0.70


@frozen
class Weights:
    """All grader parameters. `Weights()` is the published grader."""

    oligo: OligoWeights = OligoWeights()
    family_metadata: FamilyMetadataWeights = FamilyMetadataWeights()
    state: StateWeights = StateWeights()
    strand: StrandWeights = StrandWeights()
    transition: TransitionWeights = TransitionWeights()
    workflow: WorkflowWeights = WorkflowWeights()
    reward: RewardWeights = RewardWeights()
    minimum_assignment_score: float = 0.25

    def with_overrides(self, overrides: Mapping[str, Any]) -> Weights:
        """A copy with the given (possibly nested, possibly partial) values replaced.

        >>> Weights().with_overrides({"reward": {"t2": 0.5, "t3": 0.5}}).reward.t2
        0.5
        """
        return _evolve(self, overrides, "weights")

    @classmethod
    def from_file(cls, path: str | Path) -> Weights:
        """Defaults overridden by a JSON (`.json`) or TOML (any other suffix) file."""
        from lablang.datafile import load_json, read_data_text

        path = Path(path)
        text = read_data_text(path)  # a DataFileError (a ValueError) says why it is refused
        data = load_json(text, path.name) if path.suffix.lower() == ".json" else tomllib.loads(text)
        if not isinstance(data, dict):
            raise WeightsError(f"{path}: the top level must be a table of weights")
        return cls().with_overrides(data)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class WeightsError(ValueError):
    """A weights file names a key that does not exist or gives a non-number."""


def _evolve(instance: Any, overrides: Mapping[str, Any], where: str) -> Any:
    by_name = {field.name: field for field in fields(type(instance))}
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in by_name:
            known = ", ".join(sorted(by_name))
            raise WeightsError(f"unknown weight `{where}.{key}` (known: {known})")
        current = getattr(instance, key)
        if has(type(current)):
            if not isinstance(value, Mapping):
                raise WeightsError(f"`{where}.{key}` must be a table")
            changes[key] = _evolve(current, value, f"{where}.{key}")
        elif isinstance(value, bool) or not isinstance(value, int | float):
            raise WeightsError(f"`{where}.{key}` must be a number, not {value!r}")
        else:
            changes[key] = float(value)
    return evolve(instance, **changes)
