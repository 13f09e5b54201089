"""A task bound to a contract: which contract, with which parameters, and which contract
operation each transfer of the task is (`put_on_scale(w10, scale)` is `add(10)`).

Written in the task, read by the simulation's observer (each transfer it records carries
the contract operation it is) and by `lablang.bound`, which compiles the contract and
scores choices against its legal set. The simulation never imports the contracts backend.

```lab
use contracts.feedback_weighing.{feedback_weighing}
task weigh_30g in balance {
  follows: feedback_weighing(target: 30)
  operations: {
    put_on_scale(w20, scale) as add(20)
    place(w20, table) as remove(20)
  }
  ...
}
```
"""

from __future__ import annotations

import re

from attrs import frozen

# skill calls that carry an object to a target (object, target): each is one transfer
TRANSFERS = ("insert_into_slot", "place", "put_on_scale", "incubate", "discard")
# skill calls that press a button of their first argument, by the button's name
PRESSES = {"tare": "tare", "start_centrifuge": "start", "set_temperature": "set", "stir": "stir"}
# skill calls that work a closure by its handle, by the direction (`rotor.open`): a hinged
# lid or door, or a drawer (its handle is gripped the same way; `state.closure_open`)
LIDS = {"open_lid": "open", "close_lid": "close", "open_drawer": "open", "close_drawer": "close"}
# skill calls that mix, pour, pipette or scoop, each the operations (kind, the argument
# naming its target, or None) a hand commits to by moving its first argument, read from
# that motion (`lablang.sim.motion_choices`); `mix_by_pipetting` is a draw and an
# expulsion per cycle; a scoop's dose tipped out is a pour
HANDLING: dict[str, tuple[tuple[str, int | None], ...]] = {
    "shake": (("mix", None),),
    "swirl": (("mix", None),),
    "invert": (("mix", None),),
    "vortex": (("mix", None),),
    "pour": (("pour", 1),),
    "dispense_powder": (("pour", 1),),
    "aspirate": (("aspirate", 1),),
    "dispense": (("dispense", 1),),
    "transfer": (("aspirate", 1), ("dispense", 2)),
    "mix_by_pipetting": (("aspirate", 1), ("dispense", 1)),
    "scoop": (("scoop", 1),),
    "empty_scoop": (("pour", 1),),
}


# what an operation no skill is is applied from (`stable(scale) as wait_stable`): a scale's
# display stable for its window, a step whose success spec reads the scale passing
OBSERVED = ("stable", "reading")


@frozen
class OperationMap:
    """One transfer (an object carried to a target) and the contract operation it is.

    A slot pattern (`insert_into_slot(tube_B, rotor.slot[k]) as place_b(k)`) has `slot`
    set to its index name: the transfer to `rotor.slot[5]` is then `place_b(5)`.
    """

    skill: str  # the skill call as written, e.g. `put_on_scale(w20, scale)`
    object: str  # the object carried; for a press or lid move its subject, `rotor.close`
    target: str  # `scale`, `table`, `rack.slot[3]`; for a pattern its container, `rotor`;
    # "" for a press or lid move
    operation: str  # the contract's operation, e.g. `add(20)`, or `place_b(k)` for a pattern
    slot: str = ""  # a pattern's index name (`k`), "" for a fixed target

    def ground(self, obj: str, target: str | None) -> str:
        """The ground operation a transfer of `obj` to `target` is under this map ("" if
        it is not this map's)."""
        if obj != self.object:
            return ""
        if target is None or not self.target:  # a press or a lid move: it has no target
            return self.operation if target is None and not self.target else ""
        if not self.slot:
            return self.operation if target == self.target else ""
        found = re.fullmatch(rf"{re.escape(self.target)}\.slot\[(\d+)\]", target)
        if found is None:
            return ""
        return substitute(self.operation, self.slot, found.group(1))


def pick(operations: str, legal: tuple[str, ...] | list[str]) -> str:
    """Which of a transfer's candidate operations (`place_a(3) | retry_a`) it is: the
    first that is legal, else the first ("" for none).

    >>> pick("place_a(3) | retry_a", ["retry_a"]), pick("add(5)", []), pick("", [])
    ('retry_a', 'add(5)', '')
    """
    candidates = [c.strip() for c in operations.split("|") if c.strip()]
    wanted = {x.replace(" ", "") for x in legal}
    legal_first = [c for c in candidates if c.replace(" ", "") in wanted]
    return (legal_first or candidates or [""])[0]


def substitute(operation: str, name: str, value: str) -> str:
    """`place_b(k)` with `k` := 5 is `place_b(5)` (only whole arguments are replaced)."""
    head, paren, rest = operation.partition("(")
    if not paren:
        return operation
    args = [a.strip() for a in rest.rstrip(")").split(",")]
    return f"{head}({', '.join(value if a == name else a for a in args)})"


@frozen
class ContractBinding:
    contract: str  # the name of a `contract` declaration in scope
    source: str  # the file that declares it
    params: tuple[tuple[str, int], ...] = ()
    operations: tuple[OperationMap, ...] = ()

    def operation_of(self, obj: str, target: str | None) -> str:
        """The contract operation a transfer of `obj` to `target` is ("" when none is).
        When several maps fit (a placement and its retry: `place_a(k)`, `retry_a`), all
        of them, joined by ` | `: the judge takes the first that is legal.

        >>> b = ContractBinding("c", "c.lab", operations=(
        ...     OperationMap("", "tube_A", "rotor", "place_a(k)", slot="k"),
        ...     OperationMap("", "tube_A", "rotor", "retry_a", slot="k")))
        >>> b.operation_of("tube_A", "rotor.slot[3]"), b.operation_of("tube_A", "table")
        ('place_a(3) | retry_a', '')
        """
        found = [g for g in (item.ground(obj, target) for item in self.operations) if g]
        return " | ".join(dict.fromkeys(found))

    def to_json(self) -> dict[str, object]:
        operations: dict[str, str] = {}
        for o in self.operations:
            key = f"transfer({o.object}, {o.target}{f'.slot[{o.slot}]' if o.slot else ''})"
            operations[key] = (
                f"{operations[key]} | {o.operation}" if key in operations else o.operation
            )
        return {"contract": self.contract, "params": dict(self.params), "operations": operations}
