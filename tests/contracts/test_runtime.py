"""The runtime evaluator: legal operations, effects and state input, without a solver."""

from __future__ import annotations

import sys

import pytest

from lablang.contracts.model import NONE
from lablang.contracts.semantics import (
    apply,
    find_ground,
    initial_state,
    legal_operations,
    read_state,
)
from tests.contracts.loading import STDLIB, load

CENTRIFUGE = load(STDLIB / "centrifuge.lab")
WEIGHING = load(STDLIB / "feedback_weighing.lab")
RECALL = load(STDLIB / "placement_recall.lab")


def test_initial_centrifuge_allows_only_placing_a_anywhere() -> None:
    """In the empty rotor the only legal operations are the eight placements of tube A."""
    state = initial_state(CENTRIFUGE, {})
    assert legal_operations(CENTRIFUGE, state) == [f"place_a({k})" for k in range(8)]


def test_b_goes_opposite_the_actual_slot_once_a_is_confirmed() -> None:
    """After A slipped from slot 2 into 3 and was confirmed, only `place_b(7)` is legal."""
    state, evidence = read_state(CENTRIFUGE, {"aim_a": 2, "a": 3, "conf_a": True})
    assert legal_operations(CENTRIFUGE, state, evidence) == ["place_b(7)"]


def test_failed_placement_leaves_only_the_retry() -> None:
    """A failed placement of A (pending, not seated) makes `retry_a` the only legal operation."""
    g = find_ground(CENTRIFUGE, "place_a(1)")
    assert g is not None
    after = apply(CENTRIFUGE, initial_state(CENTRIFUGE, {}), {}, g, {"fail": True})
    assert after["a"] == NONE and after["pend_a"] is True
    assert legal_operations(CENTRIFUGE, after) == ["retry_a"]


def test_slip_outcome_moves_the_tube_to_the_next_slot_modulo_n() -> None:
    """Placing at the last slot with a slip lands the tube in slot 0 (wraps around)."""
    g = find_ground(CENTRIFUGE, "place_a(7)")
    assert g is not None
    after = apply(CENTRIFUGE, initial_state(CENTRIFUGE, {}), {}, g, {"slip": True})
    assert (after["aim_a"], after["a"]) == (7, 0)


def test_terminal_state_has_no_legal_operation() -> None:
    """Once the rotor has spun (terminal), nothing is legal any more."""
    state, _ = read_state(
        CENTRIFUGE,
        {
            "aim_a": 0,
            "a": 0,
            "conf_a": True,
            "aim_b": 4,
            "b": 4,
            "conf_b": True,
            "lid": True,
            "spun": True,
        },
    )
    assert legal_operations(CENTRIFUGE, state) == []


def test_weighing_evidence_sets_the_initial_pan() -> None:
    """`leftover = light` starts with the 1 g and 2 g standards on the pan; at 37 g the 1 g
    is a stray and must come off before any standard is added (strays first)."""
    state, evidence = read_state(WEIGHING, {"evidence": {"leftover": "light"}})
    assert state["pan"] == frozenset({1, 2})
    assert legal_operations(WEIGHING, state, evidence) == ["remove(1)", "wait_stable"]
    state, evidence = read_state(WEIGHING, {"pan": [2], "evidence": {"leftover": "light"}})
    assert legal_operations(WEIGHING, state, evidence) == [
        "add(5)",
        "add(10)",
        "add(20)",
        "wait_stable",
    ]


def test_weighing_record_needs_the_exact_set_and_stability() -> None:
    """`record` is legal at 37 g with the exact standards only after the reading is stable."""
    state, _ = read_state(WEIGHING, {"pan": [2, 5, 10, 20]})
    assert "record" not in legal_operations(WEIGHING, state)
    state["stable"] = True
    assert legal_operations(WEIGHING, state) == ["record"]


def test_recall_retrieval_follows_the_turned_rack() -> None:
    """After a slip into slot 4 and a 180-degree turn of an 8-slot rack, retrieve from slot 3."""
    state, evidence = read_state(
        RECALL,
        {
            "released": True,
            "looked": True,
            "moved": True,
            "tube": 3,
            "evidence": {"slipped": True, "turned": True},
        },
    )
    assert legal_operations(RECALL, state, evidence) == ["retrieve(3)"]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"lidd": True}, "`lidd` is not a variable"),
        ({"a": 9}, "`a`: expected a value of int[0..7]"),
        ({"lid": 1}, "`lid`: expected true or false"),
        ({"evidence": {"x": 1}}, "`x` is not evidence"),
    ],
)
def test_bad_state_json_names_the_key(raw: dict[str, object], message: str) -> None:
    """A state with an unknown key or an out-of-type value is rejected with the key named."""
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        read_state(CENTRIFUGE, raw)


def test_runtime_does_not_import_z3() -> None:
    """Computing legal operations never loads the solver."""
    import subprocess

    code = (
        "import sys\n"
        "from tests.contracts.loading import STDLIB, load\n"
        "from lablang.contracts import legal_operations\n"
        "from lablang.contracts.semantics import initial_state\n"
        "c = load(STDLIB / 'centrifuge.lab')\n"
        "legal_operations(c, initial_state(c, {}))\n"
        "print('z3' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=str(STDLIB.parents[1]),
    )
    assert out.stdout.strip() == "False"


def test_weighing_never_allows_removing_a_standard_the_target_needs() -> None:
    """At 38 g with a stray 1 g on the pan, the only removal that is legal is the stray
    1 g: taking off the 20 g (which the target needs) undoes progress and is not legal."""
    state, evidence = read_state(WEIGHING, {"pan": [1, 2, 5, 10, 20]})
    removals = [op for op in legal_operations(WEIGHING, state, evidence) if "remove" in op]
    assert removals == ["remove(1)"]


def test_weighing_exact_set_follows_the_bound_target() -> None:
    """Bound at 30 g the contract's exact set is 20 g and 10 g: from an empty pan only
    those two may be added, and `record` needs exactly them."""
    contract = load(STDLIB / "feedback_weighing.lab", {"target": 30})
    state, _ = read_state(contract, {})
    assert [op for op in legal_operations(contract, state) if op.startswith("add")] == [
        "add(10)",
        "add(20)",
    ]
    state, _ = read_state(contract, {"pan": [10, 20], "stable": True})
    assert legal_operations(contract, state) == ["record"]
