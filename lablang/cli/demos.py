"""The `demos` verb: expert demonstrations of a task, as robomimic HDF5 or a Minari dataset."""

from __future__ import annotations

import sys
import time
from typing import Any

import click

from lablang.cli.sim import (
    BINDINGS_OPTION,
    PATH_OPTION,
    ROBOT_OPTION,
    TASK_OPTION,
    _entries,
    _internal_error,
)
from lablang.cli.terminal import echo


def _size(text: str) -> tuple[int, int]:
    height, _, width = text.partition("x")
    try:
        return int(height), int(width or height)
    except ValueError:
        raise click.BadParameter(f"`{text}` is not a size such as 128 or 96x128") from None


@click.command("demos")
@click.argument("files", nargs=-1, required=True, type=click.Path())
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
    default="none",
    show_default=True,
    help="Comma-separated cameras to record (front, overview, wrist), or `none`.",
)
@click.option(
    "--format",
    "file_format",
    type=click.Choice(["robomimic", "minari", "lerobot", "lerobot-v2.1"]),
    default="robomimic",
    show_default=True,
    help="robomimic: OUT/<task>_demo.hdf5; minari: the dataset lablang/<task>/expert-v0 in "
    "OUT; lerobot: a LeRobot v3.0 dataset in OUT/<task> (cameras as MP4); lerobot-v2.1: "
    "the older layout (cameras as PNG).",
)
@click.option(
    "--valid-fraction",
    default=0.1,
    show_default=True,
    type=click.FloatRange(0.0, 1.0),
    help="robomimic: the share of demonstrations in mask/valid (a split seeded by --seed).",
)
@click.option("--image-size", default="128", show_default=True, help="HEIGHTxWIDTH (or one side).")
@click.option("--no-progress", is_flag=True, help="Hide the progress bar (shown on a terminal).")
@BINDINGS_OPTION
@ROBOT_OPTION
@TASK_OPTION
@PATH_OPTION
def demos_command(
    files: tuple[str, ...],
    episodes: int,
    out: str,
    seed: int,
    action_mode: str,
    cameras: str,
    image_size: str,
    file_format: str,
    valid_fraction: float,
    no_progress: bool,
    bindings: str,
    robot: str | None,
    task_name: str | None,
    roots: tuple[str, ...],
) -> None:
    """Run the expert program on randomized instances and write the demonstrations.

    FILES is one task's `.lab` file, or a suite (folders, several files, or a file
    declaring a task family): then every task and binding gets its own file,
    OUT/<file stem>.<task>_demo.hdf5 (or its Minari dataset), from the same seeds, and
    OUT/demos.json lists them with their binding, held-out and coordination flags, the
    episodes' seeds and how many succeeded. Each demonstration ends where the environment terminates, labelled with its rewards
    and dones. Writes OUT/<task>_demo.hdf5 (robomimic layout: data/demo_i with actions,
    rewards, dones, states, obs/..., next_obs/...; mask/train and mask/valid; the seed,
    task hash and certificate as attributes), with `--format minari` a Minari dataset, or
    with `--format lerobot` a LeRobot v3.0 dataset in OUT/<task> (`lerobot-v2.1`: the
    older layout; both need the `datasets` extra). Exit 0 when every episode succeeded, 1 otherwise, 2 on a bad
    option.

    Example: `lablang demos examples/tasks/move_tube.lab --episodes 2 --out demos --robot panda --cameras none`

    Example: `lablang demos examples/families --bindings heldout --episodes 1 --out demos`
    """
    from lablang.sim.demos import write_demos
    from lablang.sim.robots import RobotMissing

    names = tuple(c.strip() for c in cameras.split(",") if c.strip() and c.strip() != "none")
    started = time.perf_counter()
    options: dict[str, Any] = {
        "seed": seed,
        "action_mode": action_mode,
        "cameras": names,
        "image_size": _size(image_size),
        "show_progress": not no_progress,
    }
    suite, entries = _entries(files, roots, task_name, robot, bindings)
    if suite:
        _suite_demos(entries, episodes, out, file_format, valid_fraction, options, started)
    (task, ref) = entries[0]
    file = ref.file
    options["source"] = file
    try:
        if file_format == "minari":
            from lablang.sim.minari_dataset import write_minari

            path, certificate = write_minari(task, episodes, out, **options)
        elif file_format in ("lerobot", "lerobot-v2.1"):
            from lablang.sim.lerobot_dataset import write_lerobot

            version = "v2.1" if file_format == "lerobot-v2.1" else "v3.0"
            path, certificate = write_lerobot(task, episodes, out, version=version, **options)
        else:
            path, certificate = write_demos(
                task, episodes, out, valid_fraction=valid_fraction, **options
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


def _suite_demos(
    entries: list[Any],
    episodes: int,
    out: str,
    file_format: str,
    valid_fraction: float,
    options: dict[str, Any],
    started: float,
) -> None:
    """Every task of a suite: one demonstrations file each and OUT/demos.json; exits."""
    from pathlib import Path

    from lablang.sim.robots import RobotMissing
    from lablang.sim.suite import SuiteError, write_suite_demos

    if file_format != "minari":
        options = {**options, "valid_fraction": valid_fraction}
    try:
        index = write_suite_demos(entries, episodes, Path(out), file_format, **options)
    except (ValueError, RobotMissing, ImportError, SuiteError) as error:
        echo(f"error: {error}", err=True)
        sys.exit(2)
    except Exception as error:  # a bug in lablang: reported, never a traceback
        _internal_error(str(entries[0][1].file), error)
    rows = index["tasks"]
    good = sum(r["succeeded"] == episodes for r in rows)
    minutes = (time.perf_counter() - started) / 60
    echo(
        f"{len(rows)} tasks, {episodes} demonstrations each ({good} with every episode "
        f"succeeded) in {out}, listed in {Path(out) / 'demos.json'}; "
        f"{len(rows) * episodes / minutes:.1f} demonstrations/minute"
    )
    sys.exit(0 if good == len(rows) else 1)
