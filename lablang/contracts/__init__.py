"""Legal-operation contracts: a finite-domain model, its Z3 verification, a runtime.

The public verbs, one per stage:

* `compile_contracts(module, source, report)` — AST declarations to models (E06xx);
* `verify(contract, depth)` — goal, deadlock, ranges, invariants, vacuity, pairs and
  non-interference with Z3 (imported only here, lazily);
* `legal_operations(contract, state)` — the legal ground operations in a state,
  pure Python;
* `monitor(contract, events)` — choice, execution and completion of an event log.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lablang.contracts.checks import Result
    from lablang.contracts.model import Contract

__all__ = ["compile_contracts", "legal_operations", "monitor", "verify"]


def compile_contracts(*args: Any, **kwargs: Any) -> list[Contract]:
    from lablang.contracts.front import compile_contracts as run

    return run(*args, **kwargs)


def verify(
    contract: Contract,
    depth: int = 8,
    budget: int | None = None,
    chc: bool = False,
    total: int | None = None,
) -> list[Result]:
    from lablang.contracts.checks import DEFAULT_RLIMIT, DEFAULT_TOTAL_RLIMIT
    from lablang.contracts.checks import verify as run

    return run(
        contract,
        depth,
        DEFAULT_RLIMIT if budget is None else budget,
        chc,
        DEFAULT_TOTAL_RLIMIT if total is None else total,
    )


def legal_operations(contract: Contract, state: Any, evidence: Any = None) -> list[str]:
    from lablang.contracts.semantics import legal_operations as run

    return run(contract, state, evidence)


def monitor(contract: Contract, events: Any) -> Any:
    from lablang.contracts.replay import monitor as run

    return run(contract, events)
