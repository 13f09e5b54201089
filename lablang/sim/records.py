"""Labference event records: choices, executions and completions, kept apart.

An episode emits one `Event` per fact, in simulated-time order. What the gripper does is
read the same way for the expert and for a policy (`lablang.sim.labference`):

* `grasp` (an object is taken), `transfer` (the choice: the object released and the
  target it was carried to, with `legal`, the legal next operations in the state at the
  release), `placed` (the transfer's outcome, 0.5 s later: where the object rests,
  `confirmed` when it is at the chosen target, `detail` the obligation it completed) and
  `press` (a button registered, `detail` the obligation it completed).
* `completion` (one per step, when its spec held or its deadline passed) and `persistence`
  (one per passed step, at the end of the episode: does its placement still hold).
* The expert's call log (not scored): `choice` at each skill call's start (attempt id
  `step.k`, the operation with its arguments resolved now, the chosen and the *measured*
  target, what the task's own program resolves it to in the actual state) and `execution`
  at its end (the skill's status and its physical confirmation).
* `fault`: a simulator fault (not a task result) and `intervention`: an intervention of a
  matched continuation.
* `trigger`, `premature`, `response` (coordination tasks): a scripted event starts (a
  colleague moves a rack); the gripper starts touching that fixture or its load while a
  step `on` that event waits for it; the first touch after the event started.

`score(steps, events, required)` computes the three Labference measures from the events
alone, so a persisted record (`write_records`, JSON lines) re-scores identically (`replay`).

>>> e = [Event("transfer", 1.0, "a", attempt="t1", operation="transfer(x, s)", object="x",
...            target="s", legal=("transfer(x, s)",)),
...      Event("placed", 1.5, "a", attempt="t1", object="x", target="s", confirmed=True,
...            detail="a:transfer:x"),
...      Event("completion", 2.5, "a", confirmed=True)]
>>> s = score(("a",), e, ["a:transfer:x"])
>>> s["choice"]["correct"], s["execution"]["executed"], s["completion"]["status"]
(1, 1, 'clean')
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from attr import asdict  # plain data: tuples and sets become lists, as JSON has them
from attrs import fields, frozen

from lablang.sim.events import Event

RECORD_VERSION = 2  # 2: transfers, outcomes and presses scored by lablang.sim.labference


def event_json(event: Event) -> dict[str, Any]:
    data = asdict(event)
    data["time"] = round(event.time, 6)
    return data


def event_from_json(data: dict[str, Any]) -> Event:
    known = {f.name for f in fields(Event)}
    unknown = set(data) - known - {"record"}
    if unknown:
        raise ValueError(f"unknown event fields {sorted(unknown)}")
    values = {k: v for k, v in data.items() if k in known}
    if "legal" in values:
        legal = values["legal"]
        if not isinstance(legal, list) or not all(isinstance(x, str) for x in legal):
            raise ValueError("`legal` must be a list of operations")
        values["legal"] = tuple(legal)
    return Event(**values)


def score(
    steps: Sequence[str],
    events: Iterable[Event],
    required: Sequence[str] = (),
    judge: Any = None,
) -> dict[str, Any]:
    """Choice, execution and completion (`lablang.sim.labference.labference_score`, the one
    scorer), and the coordination measures, from the events alone. `required` are the
    task's obligation keys (`lablang.sim.labference.obligations`); `judge` gives the legal
    sets of a bound contract (`lablang.bound.ContractJudge`)."""
    from lablang.sim.labference import labference_score

    events = list(events)
    out = labference_score(steps, required, events, judge)
    triggers = {e.detail: e.time for e in events if e.kind == "trigger"}
    responses = [e for e in events if e.kind == "response"]
    first_response = min(responses, key=lambda e: e.time) if responses else None
    # kept apart from completion: touching a fixture before the event a step waits for,
    # and how soon after the event it was touched again
    out["coordination"] = {
        "triggers": sorted(triggers),
        "premature": sum(e.kind == "premature" for e in events),
        "response_latency": None
        if first_response is None
        else round(
            first_response.time
            - triggers.get(first_response.detail.split(":")[0], first_response.time),
            6,
        ),
    }
    return out


def score_lines(lines: Sequence[str], judge: Any = None) -> dict[str, Any]:
    """An episode's record lines (`record_lines`) scored again, e.g. against the legal sets
    of a bound contract (`judge`)."""
    header: dict[str, Any] = {}
    events: list[Event] = []
    for line in lines:
        data = json.loads(line)
        kind = data.pop("record", None)
        if kind == "episode":
            header = data
        elif kind == "event":
            events.append(event_from_json(data))
    steps, required = header.get("steps", []), header.get("obligations", [])
    return json_roundtrip(score(steps, events, required, judge))


def record_lines(
    header: dict[str, Any],
    events: Sequence[Event],
    observations: Sequence[dict[str, Any]],
    steps: Sequence[str],
    required: Sequence[str] = (),
) -> list[str]:
    """An episode as JSON lines: a header (with the task's obligation keys), its events,
    observations and its score."""
    header = {**header, "obligations": list(required)}
    lines = [json.dumps({"record": "episode", "version": RECORD_VERSION, **header})]
    lines += [json.dumps({"record": "event", **event_json(e)}) for e in events]
    lines += [json.dumps({"record": "observation", **o}) for o in observations]
    lines.append(json.dumps({"record": "score", **score(steps, events, required)}))
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
    """Read a record file, reconstruct its choices and confirmations, and re-score them.

    The file is opened by the guarded opener (a regular file, so a FIFO never blocks; at
    most `MAX_RECORD_BYTES`, checked before reading) and read by the bounded JSON reader."""
    header: dict[str, Any] | None = None
    events: list[Event] = []
    observations: list[dict[str, Any]] = []
    stored: dict[str, Any] | None = None
    from lablang.datafile import DataFileError, load_json_lines
    from lablang.guarded import Refused, read_guarded

    try:
        data = read_guarded(path, None, max_bytes=MAX_RECORD_BYTES, limit="MAX_RECORD_BYTES")
        lines = list(load_json_lines(data.decode("utf-8"), path.name))
    except Refused as refused:
        raise RecordError(refused.message) from None
    except UnicodeDecodeError as error:
        raise RecordError(f"`{path.name}` is not UTF-8 (byte {error.start})") from None
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
    required = header.get("obligations", [])
    if not isinstance(required, list) or not all(
        isinstance(k, str) and k.count(":") >= 2 for k in required
    ):
        raise RecordError("the episode header's `obligations` are not `step:kind:subject` keys")
    rescored = json_roundtrip(score(steps, events, required))
    return Replayed(header, tuple(events), tuple(observations), stored, rescored)


def json_roundtrip(data: dict[str, Any]) -> dict[str, Any]:
    """The value as it reads back from JSON (tuples become lists)."""
    result: dict[str, Any] = json.loads(json.dumps(data))
    return result
