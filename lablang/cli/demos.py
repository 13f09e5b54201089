"""The `demos` verb: expert demonstrations of a task, written as robomimic-style HDF5."""

from __future__ import annotations

import sys
import time

import click

from lablang.cli.sim import PATH_OPTION, ROBOT_OPTION, TASK_OPTION, _internal_error, _load
from lablang.cli.terminal import echo


def _size(text: str) -> tuple[int, int]:
    height, _, width = text.partition("x")
    try:
        return int(height), int(width or height)
    except ValueError:
        raise click.BadParameter(f"`{text}` is not a size such as 128 or 96x128") from None


@click.command("demos")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--episodes", default=10, show_default=True, type=click.IntRange(1, 1000))
@click.option(
    "--out", "out", required=True, type=click.Path(file_okay=False), help="Folder to write to."
)
@click.option("--seed", default=0, show_default=True, type=click.IntRange(0, 2**32 - 1))
@click.option(
    "--action-mode",
    type=click.Choice(["ee_delta", "ee_pose", "joint"]),
    default="ee_delta",
    show_default=True,
    help="The environment action space the actions are recorded in.",
)
@click.option(
    "--cameras",
    default="front,wrist",
    show_default=True,
    help="Comma-separated cameras to record (front, overview, wrist), or `none`.",
)
@click.option("--image-size", default="128", show_default=True, help="HEIGHTxWIDTH (or one side).")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar (shown on a terminal).")
@ROBOT_OPTION
@TASK_OPTION
@PATH_OPTION
def demos_command(
    file: str,
    episodes: int,
    out: str,
    seed: int,
    action_mode: str,
    cameras: str,
    image_size: str,
    no_progress: bool,
    robot: str | None,
    task_name: str | None,
    roots: tuple[str, ...],
) -> None:
    """Run the expert program on randomized instances and write the demonstrations.

    Writes OUT/<task>_demo.hdf5 (robomimic/LIBERO layout: data/demo_i with actions,
    rewards, dones, states, obs/...; the seed, task hash and certificate as attributes).
    Exit 0 when every episode succeeded, 1 otherwise, 2 on a bad option.

    Example: `lablang demos examples/tasks/move_tube.lab --episodes 2 --out demos --robot panda --cameras none`
    """
    from lablang.sim.demos import write_demos
    from lablang.sim.robots import RobotMissing

    task = _load(file, roots, task_name, robot)
    names = tuple(c.strip() for c in cameras.split(",") if c.strip() and c.strip() != "none")
    started = time.perf_counter()
    try:
        path, certificate = write_demos(
            task,
            episodes,
            out,
            seed=seed,
            action_mode=action_mode,
            cameras=names,
            image_size=_size(image_size),
            source=file,
            show_progress=not no_progress,
        )
    except (ValueError, RobotMissing, ImportError) as error:
        echo(f"error: {error}", err=True)
        sys.exit(2)
    except Exception as error:  # a bug in lablang: reported, never a traceback
        _internal_error(file, error)
    minutes = (time.perf_counter() - started) / 60
    echo(
        f"{task.name}: {episodes} demonstrations ({certificate['success_rate']:.0%} succeeded, "
        f"robot {task.scene.robot}, actions {action_mode}) in {path}; "
        f"{episodes / minutes:.1f} demonstrations/minute"
    )
    sys.exit(0 if certificate["certified"] else 1)
