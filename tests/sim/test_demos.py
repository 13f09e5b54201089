"""Demonstrations: written as robomimic-style HDF5, read back with h5py, replayed in the
Gymnasium environment to the same trajectory; keyframes, videos and progress bars."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

h5py = pytest.importorskip("h5py")
pytest.importorskip("gymnasium")
pytest.importorskip("mink")

from click.testing import CliRunner  # noqa: E402

from lablang.cli.demos import demos_command  # noqa: E402
from lablang.sim import load_tasks  # noqa: E402
from lablang.sim.demos import operations_per_tick, replay, write_demos  # noqa: E402
from lablang.sim.robots import with_robot  # noqa: E402


def _task(name: str = "move_tube"):
    tasks, report = load_tasks(f"examples/tasks/{name}.lab")
    assert not report.has_errors
    return next(iter(tasks.values()))


def test_demos_command_writes_a_dataset_that_robomimic_reads(tmp_path: Path) -> None:
    """`lablang demos` writes data/demo_i groups whose actions, rewards, states and
    observations (state and images) have consistent lengths, with the seed, task hash and
    the certificate of these very episodes as attributes; and the file follows robomimic's
    `SequenceDataset` field by field: opened with SWMR, `mask/<key>` lists demo names as
    bytes (a seeded split by `--valid-fraction`), demos sorted by `int(name[5:])` have
    `num_samples` rows of `obs/<k>`, `next_obs/<k>` (the next row's `obs`), `actions`,
    `rewards` and `dones` (read as float32), and `env_args` is robomimic's gym metadata
    whose `gym.make(env_name, **env_kwargs)` makes the task's environment."""
    import gymnasium

    from lablang.sim.gym_env import register_tasks

    result = CliRunner().invoke(
        demos_command,
        ["examples/tasks/move_tube.lab", "--episodes", "2", "--out", str(tmp_path),
         "--cameras", "front,wrist", "--image-size", "48x64", "--valid-fraction", "0.5",
         "--no-progress"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    path = tmp_path / "move_tube_demo.hdf5"
    with h5py.File(path, "r", swmr=True, libver="latest") as f:
        masks = {k: [e.decode("utf-8") for e in np.array(f[f"mask/{k}"][:])] for k in f["mask"]}
        assert len(masks["valid"]) == 1 and sorted(masks["train"] + masks["valid"]) == [
            "demo_0", "demo_1"
        ]  # fmt: skip
        data = f["data"]
        certificate = json.loads(data.attrs["certificate"])
        assert certificate["certified"] and certificate["instances"] == 2
        assert data.attrs["task_hash"] == certificate["task_hash"]
        meta = json.loads(data.attrs["env_args"])
        assert sorted(data, key=lambda name: int(name[5:])) == ["demo_0", "demo_1"]
        total = 0
        for i, name in enumerate(["demo_0", "demo_1"]):
            demo = data[name]
            ticks = int(demo.attrs["num_samples"])
            total += ticks
            assert demo.attrs["seed"] == certificate["seeds"][i]
            assert demo.attrs["trace_digest"] == certificate["trace_digests"][i]
            assert demo.attrs["success"] and demo.attrs["replay_exact"]
            assert demo["actions"].shape == (ticks, 6)
            assert np.abs(demo["actions"][()]).max() <= 1.0
            assert demo["rewards"][()].sum() == 1.0 and demo["dones"][()][-1] == 1
            assert demo["step_success"][()][-1].all() and not demo["step_success"][()][0].any()
            assert demo["states"].shape[0] == ticks
            assert demo["obs/proprio"].shape == (ticks, 7)
            assert demo["obs/objects"].shape == (ticks, 7)
            for key in ("actions", "rewards", "dones"):
                assert len(demo[key][()].astype("float32")) == ticks, key
            for key in ("proprio", "tcp", "objects", "front_image", "wrist_image"):
                obs, following = demo[f"obs/{key}"][()], demo[f"next_obs/{key}"][()]
                assert len(obs) == len(following) == ticks, key
                assert np.array_equal(obs[1:], following[:-1]), key
            for camera in ("front_image", "wrist_image"):
                frames = demo["obs"][camera][()]
                assert frames.shape == (ticks, 48, 64, 3) and frames.dtype == np.uint8
                assert frames[0].std() > 10  # a picture, not a blank frame
        assert data.attrs["total"] == total
        seeds = [int(data[n].attrs["seed"]) for n in ("demo_0", "demo_1")]
    assert seeds[0] != seeds[1]
    assert meta["type"] == 2 and meta["env_name"] == "lablang/move_tube"  # EnvType.GYM_TYPE
    assert meta["env_kwargs"]["action_mode"] == "ee_delta"
    assert Path(meta["source"]).is_absolute()
    register_tasks(meta["source"])
    env = gymnasium.make(meta["env_name"], **meta["env_kwargs"])
    assert env.action_space.shape == (6,)
    assert sorted(env.observation_space["images"]) == ["front", "wrist"]
    env.close()


EXAMPLES = sorted(p.stem for p in Path("examples/tasks").glob("*.lab"))


def _replays_exactly(tmp_path: Path, name: str, robot: str, mode: str) -> None:
    task = with_robot(_task(name), robot)
    path, certificate = write_demos(task, 1, tmp_path, seed=4, action_mode=mode, cameras=())
    assert certificate["certified"], certificate["failures"]
    with h5py.File(path, "r") as f:
        demo = f["data/demo_0"]
        assert demo.attrs["replay_exact"] and demo.attrs["success"]
        recorded = {k: demo["obs"][k][()] for k in ("proprio", "tcp", "objects")}
        recorded |= {"rewards": demo["rewards"][()], "dones": demo["dones"][()]}
        terminated = demo["terminated"][()]
    # the demonstration ends on the tick the environment terminates, and only there
    assert terminated[-1] and not terminated[:-1].any()
    assert recorded["dones"][-1] == 1 and not recorded["dones"][:-1].any()
    assert recorded["rewards"].sum() == len(task.steps)
    replayed = replay(path, 0, _task(name))
    for key, values in recorded.items():
        assert np.array_equal(replayed[key], values), key


@pytest.mark.parametrize("name", EXAMPLES)
def test_replaying_every_example_tasks_demonstration_reproduces_it_exactly(
    tmp_path: Path, name: str
) -> None:
    """For every example task (pouring, pipetting, tips, caps, lids included), the actions
    and bookkeeping operations read back from the file, replayed in `LabEnv` with the
    recorded seed, give bit-identical joint, TCP and object observations at every tick and
    exactly the file's rewards and dones, the environment terminating on its last tick."""
    _replays_exactly(tmp_path, name, "gantry", "ee_delta")


@pytest.mark.parametrize(("name", "robot", "mode"), [("open_pour_close", "panda", "ee_delta"),
                                                     ("tip_handling", "panda", "joint"),
                                                     ("move_tube", "gantry", "ee_pose"),
                                                     ("move_tube", "panda", "ee_delta")])  # fmt: skip
def test_replay_is_exact_with_the_panda_and_every_action_mode(
    tmp_path: Path, name: str, robot: str, mode: str
) -> None:
    """Replays are exact with the Panda too, and in the `ee_pose` and `joint` action modes
    (a bottle opened, poured from and closed; tips attached and ejected)."""
    _replays_exactly(tmp_path, name, robot, mode)


def test_without_its_bookkeeping_a_pouring_demonstration_does_not_replay(tmp_path: Path) -> None:
    """The bookkeeping operations are what make a replay exact: `pour` moves contents (and
    so masses) between ticks, and a file stripped of its operations replays to a different
    trajectory."""
    path, _ = write_demos(_task("liquid_transfer"), 1, tmp_path, seed=4, cameras=())
    with h5py.File(path, "a") as f:
        rows = [json.loads(r) for r in f["data/demo_0/bookkeeping"][()]]
        assert {"contents", "weld", "weld_release"} <= {row[1] for row in rows}
        recorded = f["data/demo_0/obs/objects"][()]
        del f["data/demo_0/bookkeeping"]
    assert not np.array_equal(replay(path, 0, _task("liquid_transfer"))["objects"], recorded)


def test_hostile_bookkeeping_rows_are_refused_with_a_message(tmp_path: Path) -> None:
    """A file's bookkeeping is untrusted: rows that are not JSON, ticks out of order,
    unknown operations, entities not in the scene, non-finite amounts and wrong argument
    counts raise ValueError naming the problem (never another exception)."""
    from lablang.sim.gym_env import LabEnv

    with pytest.raises(ValueError, match="not JSON"):
        operations_per_tick([b"{oops"], 5)
    with pytest.raises(ValueError, match="out of order"):
        operations_per_tick(['[3, "held", null]', '[1, "held", null]'], 5)
    with pytest.raises(ValueError, match="out of order or range"):
        operations_per_tick(['[9, "held", null]'], 5)
    env = LabEnv(_task("liquid_transfer"), weld_assist=False)
    env.reset(seed=0)
    for bad, message in [
        (["explode", 1], "unknown bookkeeping operation"),
        (["contents", "nowhere", "water", 1e-6], "not a container of the scene"),
        (["contents", "dst", "water", float("nan")], "not a finite number"),
        (["contents", "dst", "water", 1e9], "an amount of at most"),
        (["geom", 10**9, True], "not a geom"),
        (["cap_off", "dst"], "not a bottle"),
        (["setpoint", "dst", 1000.0], "a setpoint from 4 to 99 C"),
        (["held"], "takes 1 arguments"),
        ("held", "a bookkeeping operation is"),
    ]:
        with pytest.raises(ValueError, match=message):
            env.apply_bookkeeping([bad])
    env.close()


def test_writing_the_same_demonstrations_twice_gives_identical_arrays(tmp_path: Path) -> None:
    """Two runs with one base seed write bit-identical actions, states and images."""
    task = _task()
    first, _ = write_demos(task, 1, tmp_path / "a", seed=2, cameras=("front",), image_size=(32, 32))
    second, _ = write_demos(
        task, 1, tmp_path / "b", seed=2, cameras=("front",), image_size=(32, 32)
    )
    with h5py.File(first, "r") as a, h5py.File(second, "r") as b:
        for key in ("actions", "states", "obs/front_image", "obs/objects"):
            assert np.array_equal(a["data/demo_0"][key][()], b["data/demo_0"][key][()]), key


def test_demos_refuses_bad_options_with_a_message(tmp_path: Path) -> None:
    """An unknown camera or an image size out of range exits 2 with a sentence, no traceback."""
    runner = CliRunner()
    bad_camera = runner.invoke(
        demos_command, ["examples/tasks/move_tube.lab", "--out", str(tmp_path), "--cameras", "side"]
    )
    assert bad_camera.exit_code == 2 and "unknown camera `side`" in bad_camera.output
    bad_size = runner.invoke(
        demos_command,
        ["examples/tasks/move_tube.lab", "--out", str(tmp_path), "--image-size", "4096"],
    )
    assert bad_size.exit_code == 2 and "image sides" in bad_size.output


def test_simulate_video_writes_an_mp4_with_the_episode(tmp_path: Path) -> None:
    """`simulate --video` writes an H.264 MP4 at 960x720 and 25 fps whose length matches
    the simulated time, and the episode's result is unchanged by filming it."""
    import imageio.v2 as imageio

    from lablang.cli.sim import simulate_command

    out = tmp_path / "episode.mp4"
    result = CliRunner().invoke(
        simulate_command, ["examples/tasks/move_tube.lab", "--seed", "1", "--video", str(out)]
    )
    assert result.exit_code == 0, result.output
    reader = imageio.get_reader(out)
    meta = reader.get_meta_data()
    assert meta["size"] == (960, 720) and meta["fps"] == 25.0
    frame = reader.get_data(10)
    assert frame.shape == (720, 960, 3) and frame.std() > 10
    assert abs(meta["duration"] - 7.0) < 0.5
    reader.close()
    assert "trace dfecfd76c9637cb1" in result.output  # the unfilmed run's digest (docs/sim.md)


def test_progress_bar_shows_on_a_terminal_only(monkeypatch) -> None:
    """The progress helper draws a bar when stderr is a terminal and nothing otherwise."""
    from lablang.sim import progress as module

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(module.sys, "stderr", terminal)
    assert list(module.progress(range(3), 3, "demos t")) == [0, 1, 2]
    assert "demos t" in terminal.getvalue()
    pipe = io.StringIO()
    monkeypatch.setattr(module.sys, "stderr", pipe)
    assert list(module.progress(range(3), 3, "demos t")) == [0, 1, 2]
    assert pipe.getvalue() == ""


def test_keyframes_are_960_by_720_with_the_step_and_its_outcome_drawn(tmp_path: Path) -> None:
    """A keyframe carries a caption band: text pixels in green for a passed step."""
    from PIL import Image

    from lablang.sim import simulate_task

    result = simulate_task(_task(), 1, tmp_path)
    keyframe = result.steps[0].keyframe
    assert keyframe is not None
    image = np.asarray(Image.open(keyframe))
    assert image.shape == (720, 960, 3)
    band = image[:30, :300].reshape(-1, 3).astype(int)
    green = (band[:, 1] > 180) & (band[:, 0] < 160) & (band[:, 2] < 160)
    assert green.sum() > 50  # the caption "step 1 `move`: passed" in green


def test_docs_demos_command_runs_as_shown(tmp_path: Path) -> None:
    """The `lablang demos` line of docs/sim.md (run in a scratch folder) writes a certified
    Panda dataset without images (`--cameras none`)."""
    import re
    import shlex

    doc = Path("docs/sim.md").read_text("utf-8")
    (line,) = re.findall(r"^\$ lablang (demos examples/tasks/[^\n]*)$", doc, re.M)
    args = shlex.split(line)[1:]
    args[args.index("--out") + 1] = str(tmp_path / "demos")
    result = CliRunner().invoke(demos_command, args)
    assert result.exit_code == 0, result.output
    with h5py.File(tmp_path / "demos" / "move_tube_demo.hdf5", "r") as f:
        data = f["data"]
        assert data.attrs["robot"] == "panda" and json.loads(data.attrs["certificate"])["certified"]
        assert sorted(data["demo_1/obs"]) == ["objects", "proprio", "tcp"]


def test_demos_writes_a_minari_dataset_that_minari_loads(tmp_path: Path, monkeypatch) -> None:
    """`--format minari` writes one Minari episode per demonstration under OUT only (no
    scratch left, nothing in the home folder), ending where the environment terminates;
    its metadata names the task, hash, robot, seeds and certificate, and
    `recover_environment()` makes the task's environment, which resets to the episode's
    first observation from its seed."""
    minari = pytest.importorskip("minari")
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MINARI_DATASETS_PATH", raising=False)
    out = tmp_path / "out"
    args = ["examples/tasks/move_tube.lab", "--episodes", "2", "--out", str(out),
            "--format", "minari", "--robot", "panda", "--no-progress"]  # fmt: skip
    result = CliRunner().invoke(demos_command, args)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["lablang"] and not home.exists()
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(out))
    dataset = minari.load_dataset("lablang/move_tube/expert-v0")
    meta = dataset.storage.metadata["lablang"]
    certificate = meta["certificate"]
    assert certificate["certified"] and meta["robot"] == "panda" and meta["task"] == "move_tube"
    assert meta["task_hash"] == certificate["task_hash"] and meta["seeds"] == certificate["seeds"]
    episodes = list(dataset.iterate_episodes())
    assert dataset.total_episodes == len(episodes) == 2
    seeds = [m["seed"] for m in dataset.storage.get_episode_metadata([0, 1])]
    assert seeds == meta["seeds"]
    for episode in episodes:
        assert episode.terminations[-1] and not episode.terminations[:-1].any()
        assert episode.rewards.sum() == 1.0 and not episode.truncations.any()
        assert len(episode.observations["proprio"]) == len(episode.actions) + 1
    env = dataset.recover_environment()
    assert env.unwrapped.task.name == "move_tube" and env.unwrapped.robot.name == "panda"
    obs, _ = env.reset(seed=seeds[0])
    assert np.array_equal(obs["proprio"], episodes[0].observations["proprio"][0])
    env.close()
