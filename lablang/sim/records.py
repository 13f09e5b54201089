"""Labference event records: choices, executions and completions, kept apart.

An episode emits one `Event` per fact, in simulated-time order:

* `choice` (one per skill call, at its start): the attempt id (`step.k`), the operation
  chosen with its arguments resolved in the current state, the object it acts on, the
  chosen target, and the *measured* target: what the task's own program resolves that
  argument to in the actual state (for the second centrifuge tube, the slot opposite the
  one the first tube really sits in). A choice is correct when the two agree.
* `execution` (one per skill call, at its end): the skill's status, where the object
  actually is (`target`), and the physical confirmation: the object is in the chosen slot
  (or on the chosen surface), is held after a pick, or the skill succeeded.
* `completion` (one per step, when its spec held or its deadline passed) and `persistence`
  (one per passed step, at the end of the episode: does its placement still hold).
* `fault`: a simulator fault (not a task result) and `intervention`: an intervention of a
  matched continuation.
* `trigger`, `premature`, `response` (coordination tasks): a scripted event starts (a
  colleague moves a rack); the gripper starts touching that fixture or its load while a
  step `on` that event waits for it; the first touch after the event started.

`score(steps, events)` computes the three Labference measures from the events alone, so a
persisted record (`write_records`, JSON lines) re-scores identically (`replay`).

>>> e = [Event("choice", 1.0, "a", attempt="a.1", operation="pick(x)", target="x",
...            measured="x"),
...      Event("execution", 2.0, "a", attempt="a.1", operation="pick(x)", object="x",
...            confirmed=True, status="succeeded"),
...      Event("completion", 2.5, "a", confirmed=True)]
>>> s = score(("a",), e)
>>> s["choice"]["correct"], s["execution"]["executed"], s["completion"]["status"]
(1, 1, 'clean')
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from attrs import asdict, fields, frozen

RECORD_VERSION = 1


@frozen
class Event:
    # choice | execution | completion | persistence | fault | intervention, and for scripted
    # events (coordination): trigger | premature | response
    kind: str
    time: float  # simulated seconds
    step: str
    attempt: str = ""
    operation: str = ""
    object: str | None = None
    target: str | None = None  # choice: the chosen target; execution: where it ended up
    measured: str | None = None  # choice: the target the actual state calls for
    confirmed: bool | None = None  # execution: physical confirmation; completion: passed
    status: str = ""  # execution: the skill's status; completion: the step's status
    detail: str = ""


def event_json(event: Event) -> dict[str, Any]:
    data = asdict(event)
    data["time"] = round(event.time, 6)
    return data


def event_from_json(data: dict[str, Any]) -> Event:
    known = {f.name for f in fields(Event)}
    unknown = set(data) - known - {"record"}
    if unknown:
        raise ValueError(f"unknown event fields {sorted(unknown)}")
    return Event(**{k: v for k, v in data.items() if k in known})


def _family(operation: str) -> str:
    return operation.split("(", 1)[0]


def score(steps: Sequence[str], events: Iterable[Event]) -> dict[str, Any]:
    """Choice correctness, execution and completion, each from the events alone.

    Choice: every choice with a measured target is correct when it equals the chosen
    one. Execution: per obligation (a step, an operation and its object, counted once
    however many attempts it takes), executed when one of its own attempts was physically
    confirmed: an attempt counts once (its first execution record) and only for the
    obligation of its own step, so a grasp in one step never completes another step's. Completion:
    ordered credit over the steps; `clean` when every step passed, persisted, and every
    attempt was correct and confirmed the first time, `recovered` when every step passed
    and persisted after some wrong or unconfirmed attempt, `incomplete` otherwise.
    """
    events = list(events)
    choices = [e for e in events if e.kind == "choice" and e.measured is not None]
    wrong = [e.attempt for e in choices if e.target != e.measured]
    obligations: dict[str, bool] = {}
    first_time = True
    counted: set[str] = set()
    for e in events:
        if e.kind != "execution":
            continue
        if e.attempt:
            if e.attempt in counted:
                continue  # no double counting: one execution per attempt
            counted.add(e.attempt)
        key = f"{e.step}:{_family(e.operation)}:{e.object or ''}"
        confirmed = bool(e.confirmed)
        if not confirmed:
            first_time = False
        obligations[key] = obligations.get(key, False) or confirmed
    passed = {e.step for e in events if e.kind == "completion" and e.confirmed}
    credit_steps = 0
    for name in steps:
        if name not in passed:
            break
        credit_steps += 1
    lost = sorted(e.step for e in events if e.kind == "persistence" and not e.confirmed)
    faults = [e.detail for e in events if e.kind == "fault"]
    triggers = {e.detail: e.time for e in events if e.kind == "trigger"}
    responses = [e for e in events if e.kind == "response"]
    first_response = min(responses, key=lambda e: e.time) if responses else None
    side_effects = [e.detail for e in events if e.kind == "side_effect"]
    complete = credit_steps == len(steps) and not lost and not faults and not side_effects
    if not complete:
        status = "incomplete"
    elif wrong or not first_time:
        status = "recovered"
    else:
        status = "clean"
    return {
        "choice": {
            "choices": len(choices),
            "correct": len(choices) - len(wrong),
            "incorrect_attempts": wrong,
            "first": None
            if not choices
            else {
                "attempt": choices[0].attempt,
                "operation": choices[0].operation,
                "correct": choices[0].target == choices[0].measured,
            },
        },
        "execution": {
            "obligations": len(obligations),
            "executed": sum(obligations.values()),
            "unexecuted": sorted(k for k, v in obligations.items() if not v),
        },
        "completion": {
            "status": status,
            "credit": round(credit_steps / len(steps), 6) if steps else 1.0,
            "steps_passed": credit_steps,
            "not_persisted": lost,
            "fault": faults[0] if faults else None,
            "side_effects": side_effects,
        },
        # kept apart from completion: touching a fixture before the event a step waits for,
        # and how soon after the event it was touched again
        "coordination": {
            "triggers": sorted(triggers),
            "premature": sum(e.kind == "premature" for e in events),
            "response_latency": None
            if first_response is None
            else round(
                first_response.time
                - triggers.get(first_response.detail.split(":")[0], first_response.time),
                6,
            ),
        },
    }


def record_lines(
    header: dict[str, Any],
    events: Sequence[Event],
    observations: Sequence[dict[str, Any]],
    steps: Sequence[str],
) -> list[str]:
    """An episode as JSON lines: a header, its events, observations and its score."""
    lines = [json.dumps({"record": "episode", "version": RECORD_VERSION, **header})]
    lines += [json.dumps({"record": "event", **event_json(e)}) for e in events]
    lines += [json.dumps({"record": "observation", **o}) for o in observations]
    lines.append(json.dumps({"record": "score", **score(steps, events)}))
    return lines


def write_records(path: Path, lines: Sequence[str]) -> None:
    """Write record lines atomically (a temporary file in the same folder, then rename)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.replace(tmp, path)


class RecordError(Exception):
    """A record file that cannot be read (the message names the line)."""


@frozen
class Replayed:
    header: dict[str, Any]
    events: tuple[Event, ...]
    observations: tuple[dict[str, Any], ...]
    stored_score: dict[str, Any] | None
    score: dict[str, Any]

    @property
    def identical(self) -> bool:
        return self.stored_score == self.score


MAX_RECORD_BYTES = 64 * 1024 * 1024


def replay(path: Path) -> Replayed:
    """Read a record file, reconstruct its choices and confirmations, and re-score them."""
    if path.stat().st_size > MAX_RECORD_BYTES:
        raise RecordError(f"`{path}` is larger than {MAX_RECORD_BYTES // 2**20} MiB")
    header: dict[str, Any] | None = None
    events: list[Event] = []
    observations: list[dict[str, Any]] = []
    stored: dict[str, Any] | None = None
    from lablang.datafile import DataFileError, load_json_lines, read_data_text

    try:
        lines = list(load_json_lines(read_data_text(path), path.name))  # the guarded loader
    except DataFileError as error:
        raise RecordError(str(error)) from None
    for number, data in lines:
        if not isinstance(data, dict):
            raise RecordError(f"line {number}: a record is a JSON object")
        kind = data.pop("record", None)
        if kind == "episode":
            if header is not None:
                raise RecordError(f"line {number}: a second episode header")
            header = data
        elif kind == "event":
            try:
                events.append(event_from_json(data))
            except (TypeError, ValueError) as error:
                raise RecordError(f"line {number}: {error}") from None
        elif kind == "observation":
            observations.append(data)
        elif kind == "score":
            stored = data
        else:
            raise RecordError(f"line {number}: unknown record kind `{kind}`")
    if header is None:
        raise RecordError('no episode header (a line with `"record": "episode"`)')
    steps = header.get("steps")
    if not isinstance(steps, list) or not all(isinstance(s, str) for s in steps):
        raise RecordError("the episode header has no list of step names")
    return Replayed(
        header, tuple(events), tuple(observations), stored, json_roundtrip(score(steps, events))
    )


def json_roundtrip(data: dict[str, Any]) -> dict[str, Any]:
    """The value as it reads back from JSON (tuples become lists)."""
    result: dict[str, Any] = json.loads(json.dumps(data))
    return result
