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

from attrs import frozen

# skill calls that carry an object to a target (object, target): each is one transfer
TRANSFERS = ("insert_into_slot", "place", "put_on_scale", "incubate", "discard")


@frozen
class OperationMap:
    """One transfer (an object carried to a target) and the contract operation it is."""

    skill: str  # the skill call as written, e.g. `put_on_scale(w20, scale)`
    object: str
    target: str  # `scale`, `table`, `rack.slot[3]`
    operation: str  # the contract's ground operation, e.g. `add(20)`


@frozen
class ContractBinding:
    contract: str  # the name of a `contract` declaration in scope
    source: str  # the file that declares it
    params: tuple[tuple[str, int], ...] = ()
    operations: tuple[OperationMap, ...] = ()

    def operation_of(self, obj: str, target: str | None) -> str:
        """The contract operation a transfer of `obj` to `target` is ("" when none is)."""
        for item in self.operations:
            if item.object == obj and item.target == target:
                return item.operation
        return ""

    def to_json(self) -> dict[str, object]:
        return {
            "contract": self.contract,
            "params": dict(self.params),
            "operations": {
                f"transfer({o.object}, {o.target})": o.operation for o in self.operations
            },
        }
