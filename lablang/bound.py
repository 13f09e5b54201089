"""Tasks bound to contracts: the simulation's choices scored against a contract's legal set.

The simulation and the contracts are sibling backends that never import each other; this
module joins them. A task that `follows: feedback_weighing(target: 30)` records, with each
transfer, the contract operation it is (`lablang.sim.binding`); here the contract is
compiled with the task's parameters and replayed along the episode's events
(`ContractJudge`): the state advances only on physical outcomes (a transfer's placement
confirmed), and each choice is scored against the legal set of the state it was made in.

`monitor_record` is what `lablang monitor CONTRACT RECORD.jsonl` does with a simulation
record: the one Labference score (`lablang.sim.labference.labference_score`), with the
contract's legal sets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from attrs import frozen

from lablang.contracts.model import Contract, GroundOp
from lablang.contracts.replay import MonitorReport
from lablang.sim.binding import ContractBinding, pick
from lablang.sim.labference import CHOICES, OUTCOMES, labference_score
from lablang.sim.model import Task
from lablang.sim.records import Event, RecordError, json_roundtrip, replay, score


class BindingError(Exception):
    """A bound contract that cannot be loaded (the message says why)."""


def load_contract(binding: ContractBinding, roots: Sequence[str | Path] = ()) -> Contract:
    """The contract a task follows, compiled with the task's parameters."""
    from lablang.contracts.front import compile_contracts
    from lablang.diagnostics import Report
    from lablang.driver import check_source, read_source

    report = Report()
    source = read_source(binding.source, report)
    contracts: list[Contract] = []
    if source is not None:
        result = check_source(
            source, [Path(binding.source).parent, *roots], report=report, backends=False
        )
        if not report.has_errors:
            contracts = compile_contracts(
                result.program.root.module, source, report, dict(binding.params)
            )
    if report.has_errors:
        first = report.sorted()[0]
        raise BindingError(f"contract `{binding.contract}` does not compile: {first.message}")
    found = [c for c in contracts if c.name == binding.contract]
    if not found:
        raise BindingError(f"no contract `{binding.contract}` in {binding.source}")
    return found[0]


@frozen
class ContractJudge:
    """Replays a contract along an episode's events: each transfer's legal set.

    The state advances only on what was physically observed (`lablang.contracts.observed`):
    a transfer's placement, when its outcome is read, applies the contract operation the
    transfer is (of its candidates, `place_a(k) | retry_a`, the first legal one) with the
    outcomes that explain where the object rests (confirmed: as aimed; a tube found in the
    next slot: `slip`; seated nowhere: `fail`); a placement that no outcome explains (an
    addition that cannot fail, refuted) leaves the state as it was. Then, since the outcome
    has reached the agent, each enabled observation operation (`confirm_a`) is applied. A
    `context` event (an object found in place at the start or at a checkpoint) applies its
    operation as it is, then the observations. An `observed` event (the scale's display
    stable, a step that reads it passed: `lablang.sim.observations`) applies its operation
    (`wait_stable`, `record`) when it is enabled (its legal set is kept under its attempt
    too, so a reader can tell the ones that took effect). Evidence takes its default values.
    """

    contract: Contract

    def __call__(self, events: Sequence[Event]) -> dict[str, tuple[str, ...]]:
        from lablang.contracts.observed import explaining_outcomes, observe
        from lablang.contracts.semantics import (
            apply,
            default_evidence,
            find_ground,
            initial_state,
            legal_ground,
        )

        contract = self.contract
        evidence = default_evidence(contract)
        state = initial_state(contract, evidence)
        chosen: dict[str, GroundOp] = {}
        legal: dict[str, tuple[str, ...]] = {}
        for e in sorted(events, key=lambda e: e.time):
            if e.kind in CHOICES:
                legal[e.attempt] = tuple(g.name for g in legal_ground(contract, state, evidence))
                g = find_ground(contract, pick(e.contract_op, legal[e.attempt]))
                if g is not None:
                    chosen[e.attempt] = g
            elif e.kind in OUTCOMES and e.attempt in chosen:
                g = chosen.pop(e.attempt)
                actual = find_ground(contract, pick(e.contract_op, [g.name]))
                outcomes = explaining_outcomes(
                    contract, state, evidence, g, bool(e.confirmed), actual
                )
                if outcomes is not None:
                    state = apply(contract, state, evidence, g, outcomes)
                state = observe(contract, state, evidence)
            elif e.kind == "observed" and e.contract_op:
                # an operation no skill is, seen done (the display stable, the reading
                # recorded): applied when the state allows it
                ground = find_ground(contract, pick(e.contract_op, ()))
                legal[e.attempt] = tuple(g.name for g in legal_ground(contract, state, evidence))
                if ground is not None and ground.name in legal[e.attempt]:
                    state = observe(contract, apply(contract, state, evidence, ground), evidence)
            elif e.kind == "context" and e.contract_op:
                # an object found in place: the state the agent starts from
                ground = find_ground(contract, pick(e.contract_op, ()))
                if ground is not None:
                    state = observe(contract, apply(contract, state, evidence, ground), evidence)
        return legal


def judge_for(task: Task, roots: Sequence[str | Path] = ()) -> ContractJudge | None:
    """The judge of the contract a task follows (None for a task bound to none)."""
    if task.contract is None:
        return None
    return ContractJudge(load_contract(task.contract, roots))


def monitor_record(contract: Contract, path: Path) -> dict[str, Any]:
    """A simulation record (`simulate --record`, `evaluate --records`) scored against a
    contract: the episode, its stored score and the score with the contract's legal sets."""
    replayed = replay(path)
    steps = replayed.header["steps"]
    required = replayed.header.get("obligations", [])
    bound = json_roundtrip(score(steps, replayed.events, required, ContractJudge(contract)))
    return {
        "episode": replayed.header,
        "contract": contract.name,
        "params": dict(contract.params),
        "score": bound,
        "unbound_score": replayed.score,
    }


def log_score(report: MonitorReport) -> dict[str, Any]:
    """An event log's choice, execution and completion by the one Labference scorer
    (`labference_score`), so that `monitor` on an event log, on a simulation record,
    `evaluate` and `branch` score alike: each attempt is a choice (its operation, legal
    when it lies in the legal set the contract replay gave it) and its outcome (executed as
    the log confirms it), the log's obligations (one per object and operation family,
    `number_obligations`) the opportunities, and completion the contract's goal reached
    with no invariant broken at the end."""
    events: list[Event] = []
    for a in report.attempts:
        family = f"{a.object_id or '-'}:{a.operation.split('(')[0]}"
        events += [
            Event("transfer", a.time, "goal", attempt=a.attempt, operation=a.operation,
                  object=family, contract_op=a.operation),
            Event("outcome", a.time, "goal", attempt=a.attempt, operation=a.operation,
                  object=family, confirmed=a.executed),
        ]  # fmt: skip
    end = max((a.time for a in report.attempts), default=0.0)
    reached = report.completion in ("clean", "recovered")
    events.append(Event("completion", end, "goal", confirmed=reached))
    required = [f"goal:transfer:{o.key.split('#')[0]}" for o in report.obligations]
    verdicts = {a.attempt: a.legal_set for a in report.attempts}
    return json_roundtrip(labference_score(["goal"], required, events, lambda _e: verdicts))


def looks_like_sim_record(text: str) -> bool:
    """Is this JSON-lines text a simulation record (its first line an episode header)?"""
    from lablang.datafile import load_json

    first = text.lstrip().split("\n", 1)[0]
    try:
        data = load_json(first)  # bounded: a deeply nested line is not a record either
    except ValueError:
        return False
    return isinstance(data, Mapping) and data.get("record") == "episode"


__all__ = [
    "BindingError",
    "ContractJudge",
    "RecordError",
    "judge_for",
    "load_contract",
    "log_score",
    "looks_like_sim_record",
    "monitor_record",
]
