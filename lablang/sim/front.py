"""The front end: `scene` and `task` declarations -> the simulator's model.

It imports no MuJoCo, so `lablang check` can run it on every file that declares
scenes or tasks. Every problem is a diagnostic (E07xx/W07xx), never an exception.
Its parts: `front_scene` (scenes), `front_placement` (placements, randomizations),
`front_tasks` (tasks and steps), `front_skills` (skill calls), `front_exprs` (expressions),
`front_instruction` (W0701/W0702), `front_values` (quantities), `front_checks`,
`front_events`.

>>> from lablang.driver import check_text
>>> result = check_text('''
... scene s { tube: tube_1_5ml() on table at (0.2 m, 0.1 m) }
... task t in s { step lift { do { pick(tube) } success: grasped(tube) } }''')
>>> task = tasks_of(result.program, result.report)["t"]
>>> [c.func for c in task.steps[0].program], task.scene.entities[0].placement
(['pick'], OnSurface(surface='table', x=0.2, y=0.1, yaw=0.0))
"""

from __future__ import annotations

from lablang.diagnostics import Report
from lablang.resolve import Program
from lablang.sim import model as sm
from lablang.sim.front_exprs import Front
from lablang.sim.front_scene import SceneFront
from lablang.sim.front_tasks import TaskFront
from lablang.source import Source, Span


def check_program(program: Program, report: Report) -> None:
    """Backend check for `lablang check`: scenes and tasks turn into a runnable model."""
    tasks_of(program, report)


def tasks_of(program: Program, report: Report) -> dict[str, sm.Task]:
    """Every task of the root module, as simulator tasks (those with errors are left out)."""
    source = program.root.source
    scenes: dict[str, sm.Scene | None] = {}
    for decl in program.decls("scene"):
        scenes[decl.name] = SceneFront(source, report).scene(decl)
    tasks: dict[str, sm.Task] = {}
    for decl in program.decls("task"):
        task = TaskFront(source, report).task(decl, program, scenes)
        # a task family is one task per binding, `<task>-<binding>`
        for one in sm.family_tasks(task) if task is not None else ():
            tasks[one.name] = one
    return tasks


def value_expr(text: str, scene: sm.Scene, report: Report) -> sm.Expr | None:
    """An expression of the task model read from `text` (an entity, a part, a call such as
    `opposite(rotor, rotor.slot[0])`, a quantity), checked against `scene`; None with a
    diagnostic in `report` when it is not one.

    >>> from lablang.sim import load_tasks
    >>> tasks, _ = load_tasks("examples/tasks/move_tube.lab")
    >>> value_expr("rack2.slot[4]", tasks["move_tube"].scene, Report()).text()
    'rack2.slot[4]'
    """
    from lablang.syntax import parse

    source = Source(f"material value = {text}\n", "<value>")
    module = parse(source, report)
    if report.has_errors:
        return None
    if len(module.decls) != 1 or module.decls[0].value is None:
        report.add("E0708", "write one expression such as `rack.slot[2]`", source, Span(0, 0))
        return None
    front = Front(source, report)
    value = front.expr(module.decls[0].value, scene, False)
    return None if front.failed else value
