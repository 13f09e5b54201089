"""Success over an interval: `during(cond)` holds only if cond held at every tick of the
step's program, `throughout(cond, T)` only if it held for the last T."""

from __future__ import annotations

from pathlib import Path

from lablang.driver import check_text
from lablang.sim.episode import run_episode

STIR = Path("examples/tasks/stir_at_60c.lab")
DURING = "during(temperature(flask, 60 C, within: 3 C), min: 30 s) and mixed(flask)"


def _variant(task_from, spec: str, preheat: bool):
    text = STIR.read_text(encoding="utf-8")
    if not preheat:  # stirring starts while the flask is still warming up
        text = text.replace(
            "wait 50 s }\n    success: temperature(flask, 60 C, within: 3 C) within 30 s",
            "wait(10 s) }\n    success: true",
        )
    return task_from(text.replace(DURING, spec))


def test_stirring_at_60_c_holds_during_the_whole_stir(task_from) -> None:
    """Heated first, the flask stays within 3 C of 60 C for the 30 s of stirring."""
    result = run_episode(_variant(task_from, DURING, preheat=True), 1)
    assert result.succeeded, result.steps


def test_a_flask_still_warming_up_passes_a_sampled_spec_but_not_during(task_from) -> None:
    """Stirring starts at ~45 C: the temperature sampled after the stir is within 3 C of
    60 C (that spec passes, as before), but `during(...)` fails and names the atom."""
    sampled = run_episode(
        _variant(task_from, "temperature(flask, 60 C, within: 3 C) and mixed(flask)", False), 1
    )
    assert sampled.succeeded
    during = run_episode(_variant(task_from, DURING, preheat=False), 1)
    stir = during.steps[1]
    assert stir.status == "failed"
    assert stir.failing == ("during(temperature(flask, 60 C, within: 3 C), min: 30 s)",)


def test_throughout_needs_the_condition_for_the_last_interval(task_from) -> None:
    """`throughout(cond, 5 s)` holds once the warming flask has been within 3 C for 5 s;
    with a preheated flask, `throughout(cond, 20 s)` passes as the 30 s stir ends: the
    step's program counts (its timer starts when the program does)."""
    short = "throughout(temperature(flask, 60 C, within: 3 C), 5 s) and mixed(flask)"
    assert run_episode(_variant(task_from, short, preheat=False), 1).succeeded
    long = "throughout(temperature(flask, 60 C, within: 3 C), 20 s) and mixed(flask)"
    result = run_episode(_variant(task_from, long, preheat=True), 1)
    stir = result.steps[1]
    assert result.succeeded
    assert stir.end - stir.skills[-1].end < 0.05


def test_a_throughout_longer_than_the_window_of_a_step_without_a_program_is_rejected() -> None:
    """`throughout(..., 30 s)` in a step with no program and the default 6 s window can
    never hold: E0708 with a fix (a program's own time counts, so only then is it certain)."""
    text = (
        STIR.read_text(encoding="utf-8")
        .replace(DURING, "throughout(temperature(flask, 60 C, within: 3 C), 30 s)")
        .replace("do { stir(stirrer, 30 s) }", "")
    )
    [diagnostic] = check_text(text).report.diagnostics
    assert diagnostic.code == "E0708" and "cannot hold within the 6 s" in diagnostic.message
    assert (
        diagnostic.help
        == "end the spec with `within 32 s`, or use `during(...)` for the time the program runs"
    )


def test_the_instruction_must_state_a_condition_inside_during() -> None:
    """W0702 looks inside `during(...)`: an instruction without the 60 C is warned about."""
    text = STIR.read_text(encoding="utf-8").replace(
        "stir it for 30 s while it stays at 60 C, until it is mixed",
        "stir it for 30 s until it is mixed",
    )
    text = text.replace("heat it to 60 C", "heat it")
    codes = [d.code for d in check_text(text).report]
    assert "W0702" in codes
    assert [d.code for d in check_text(STIR.read_text(encoding="utf-8")).report] == []
