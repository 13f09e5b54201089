"""The events of an episode: what the runtime, the skills, the Labference observer and the
scripted colleagues record as it runs. Below both `records` (which writes and reads them)
and `labference` (which emits and scores them), so neither imports the other's way down.
"""

from __future__ import annotations

from attrs import frozen

__all__ = ["Event"]


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
    # transfer (`lablang.sim.labference`): the legal next operations in the state at the choice
    legal: tuple[str, ...] = ()
    # transfer of a task bound to a contract: the contract operation it is (`add(20)`)
    contract_op: str = ""
