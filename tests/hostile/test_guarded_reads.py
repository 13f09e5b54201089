"""The audit's reproducers for files read on a user's behalf (issue 30, items 2 and 4): each
is opened by the guarded opener inside its roots, as a regular file, bounded before it is
read, and a benchmark answer never reaches the task's reference.

Each runs in a child process under CPU and memory limits (`bounded.py`); the bounds are
generous multiples of a normal run measured here (a `bench libstruct` run of one task and
two rounds: 1 s of CPU, 200 MB of address space; `check`, `serve` and `replay`: under
1 s and 200 MB). A wall-clock bound (`hang_seconds`) is only a guard for a child that
blocks without using CPU, as an open of a FIFO did.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

from lablang.guarded import Refused, read_guarded
from tests.hostile.bounded import ROOT, Run, run_bounded, run_code_bounded

TASK = ROOT / "tests" / "agents" / "tasks" / "mini_smart"
HANG = 120.0  # seconds: only a blocked child reaches it
SECRET = "lablang-test-secret-5f3a"


def _tasks(tmp_path: Path, *names: str) -> Path:
    tasks = tmp_path / "tasks"
    for name in names:
        shutil.copytree(TASK, tasks / name)
    return tasks


def _rounds(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]


def _every_output(out: Path) -> str:
    return "".join(p.read_text("utf-8", "replace") for p in sorted(out.rglob("*")) if p.is_file())


# ---------------------------------------------------------------- bench: isolation (item 4)

AGENT = """\
import os, pathlib, sys
prompt = sys.stdin.read()
number = os.environ["LABLANG_ROUND"]
pathlib.Path(sys.argv[1], f"prompt_{number}.txt").write_text(prompt)
if number == "1":  # a near miss: the old harness answered "did you mean `dT`?"
    print("use truth.{dt}\\noligo mine { seq: 5'-ACGT-3' }")
else:  # every name of the reference, which the old harness checked as clean
    print("use truth.{dT, TSO, ISPCR, mrna, hybrid, amplicon, rt, amp, cdna_library}")
"""


def test_a_bench_answer_cannot_import_the_reference_nor_see_its_names(tmp_path: Path) -> None:
    """The audit's reproducer: an answer's `use truth.{...}` is E0201 (`truth` is not on its
    path: only the standard library and its answer folder are), in round 1 and in the
    repair round, and the repair prompt quotes no name or sequence of the reference."""
    tasks = _tasks(tmp_path, "mini_smart")
    agent, prompts, out = tmp_path / "agent.py", tmp_path / "prompts", tmp_path / "out"
    agent.write_text(AGENT)
    prompts.mkdir()
    command = f"{sys.executable} {agent} {prompts}"
    run = run_bounded(
        ["bench", "libstruct", "--agent", command, "--tasks", str(tasks), "--out", str(out),
         "--rounds", "1"],
        cpu_seconds=60, memory_mb=600,
    )  # fmt: skip
    run.assert_clean()
    assert run.returncode == 0, run.output
    rounds = _rounds(out)
    assert [(r["status"], r["codes"]) for r in rounds] == [("errors", ["E0201"])] * 2
    for r in rounds:
        (diagnostic,) = r["diagnostics"]
        assert diagnostic["message"] == "module `truth` is not found"
        assert r["metrics"]["reward"] == 0.0
    repair = (prompts / "prompt_2.txt").read_text()
    assert "module `truth` is not found" in repair  # the prompt is the one checked here
    for reference_only in ("`dT`", "TSO", "ISPCR", "hybrid", "AAGCAGTGGTATCAACGCAG"):
        assert reference_only not in repair


# ---------------------------------------------------------------- bench: the replay folder


def test_bench_replay_refuses_answers_that_are_symlinks_out_of_the_replay_folder(
    tmp_path: Path,
) -> None:
    """The audit's reproducer: recorded answers linked to `/etc/passwd` and to
    `/proc/self/environ` are `refused` rounds naming the replay folder; neither file's
    text (nor an environment secret) reaches `OUT/`; exit 0."""
    tasks = _tasks(tmp_path, "passwd", "environ")
    replay, out = tmp_path / "replay", tmp_path / "out"
    for name, target in (("passwd", "/etc/passwd"), ("environ", "/proc/self/environ")):
        (replay / name).mkdir(parents=True)
        os.symlink(target, replay / name / "round_1.lab")
    run = run_bounded(
        ["bench", "libstruct", "--replay", str(replay), "--tasks", str(tasks), "--out", str(out)],
        cpu_seconds=60, memory_mb=600, env={"LABLANG_TEST_SECRET": SECRET},
    )  # fmt: skip
    run.assert_clean()
    assert run.returncode == 0, run.output
    rounds = _rounds(out)
    assert [(r["task"], r["status"]) for r in rounds] == [("environ", "refused"),
                                                          ("passwd", "refused")]  # fmt: skip
    for r in rounds:
        assert f"is outside `{replay}`" in r["detail"]
    written = _every_output(out)
    assert SECRET not in written and "root:x:0:0" not in written
    assert not (out / "answers").exists()


def test_bench_replay_refuses_a_fifo_answer_without_blocking(tmp_path: Path) -> None:
    """A FIFO recorded as an answer is a `refused` round ("not a regular file (it is a
    FIFO)"), opened without blocking; exit 0."""
    tasks = _tasks(tmp_path, "mini_smart")
    replay, out = tmp_path / "replay", tmp_path / "out"
    (replay / "mini_smart").mkdir(parents=True)
    os.mkfifo(replay / "mini_smart" / "round_1.lab")
    run = run_bounded(
        ["bench", "libstruct", "--replay", str(replay), "--tasks", str(tasks), "--out", str(out)],
        cpu_seconds=60, memory_mb=600, hang_seconds=HANG,
    )  # fmt: skip
    run.assert_clean()
    assert run.returncode == 0, run.output
    (r,) = _rounds(out)
    assert r["status"] == "refused" and "is not a regular file (it is a FIFO)" in r["detail"]


def test_bench_replay_refuses_a_huge_sparse_answer_before_reading_it(tmp_path: Path) -> None:
    """A 400 MB sparse answer (read whole before: 855 MB) is a `refused` round naming
    `MAX_REPLAY_BYTES`, within 600 MB of memory (a normal run needs 200 MB)."""
    tasks = _tasks(tmp_path, "mini_smart")
    replay, out = tmp_path / "replay", tmp_path / "out"
    (replay / "mini_smart").mkdir(parents=True)
    with open(replay / "mini_smart" / "round_1.lab", "wb") as handle:
        handle.truncate(400 * 1024 * 1024)
    run = run_bounded(
        ["bench", "libstruct", "--replay", str(replay), "--tasks", str(tasks), "--out", str(out)],
        cpu_seconds=60, memory_mb=600,
    )  # fmt: skip
    run.assert_clean()
    assert run.returncode == 0, run.output
    (r,) = _rounds(out)
    assert r["status"] == "refused"
    assert r["detail"] == (
        "`round_1.lab` is 419430400 bytes, more than the 4000000 allowed "
        "(the limit is `MAX_REPLAY_BYTES`)"
    )


# ---------------------------------------------------------------- serve: its roots


def _serve(requests: list[dict], *args: str, cwd: Path) -> list[dict]:
    lines = "".join(json.dumps(r) + "\n" for r in requests).encode()
    run = run_bounded(["serve", *args], stdin=lines, cwd=cwd, cpu_seconds=60, memory_mb=600)
    run.assert_clean()
    assert run.returncode == 0, run.output
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_serve_reads_only_files_inside_its_roots(tmp_path: Path) -> None:
    """The audit's reproducer (`fix {"path": "/etc/shadow"}` returned the file): a path
    outside the served roots, a symlink inside them leading out, and import `roots`
    outside them get -32602 naming the roots, and nothing of the file is in the reply;
    a file inside a `--root` folder is checked as before."""
    served = tmp_path / "served"
    served.mkdir()
    (served / "ok.lab").write_text("segment U = umi(8)\n")
    os.symlink("/etc/passwd", served / "passwd.lab")
    replies = _serve(
        [
            {"id": 1, "method": "fix", "params": {"path": "/etc/shadow"}},
            {"id": 2, "method": "check", "params": {"path": str(served / "passwd.lab")}},
            {"id": 3, "method": "check", "params": {"text": "use x.{A}", "roots": ["/"]}},
            {
                "id": 4,
                "method": "score",
                "params": {"prediction": "/etc/passwd", "truth": str(served / "ok.lab")},
            },
            {"id": 5, "method": "check", "params": {"path": str(served / "ok.lab")}},
        ],
        "--root",
        str(served),
        cwd=tmp_path,
    )
    by_id = {r["id"]: r for r in replies}
    for number, shown in ((1, "/etc/shadow"), (2, "passwd.lab"), (3, "`/`"), (4, "/etc/passwd")):
        error = by_id[number]["error"]
        assert error["code"] == -32602, by_id[number]
        assert shown in error["message"] and "is outside" in error["message"]
        assert f"served roots: `{served}`" in error["message"]
    assert "root:x:0:0" not in json.dumps(replies)
    assert by_id[5]["result"]["result"] == "ok"


def test_serve_scores_no_file_that_a_served_folder_links_out_to(tmp_path: Path) -> None:
    """A truth folder inside the served root whose T1 file is a symlink to a JSON file
    outside it: that file is E0501 "is outside" (with the fix to give a file inside) and
    scores nothing; the prediction inside the root is read."""
    tiny = ROOT / "tests" / "scoring" / "data" / "tiny"
    served, outside = tmp_path / "served", tmp_path / "outside"
    (served / "truth").mkdir(parents=True)
    outside.mkdir()
    shutil.copy(tiny / "truth_t1.json", outside / "t1.json")
    os.symlink(outside / "t1.json", served / "truth" / "t1.json")
    shutil.copy(tiny / "pred_t1.json", served / "pred_t1.json")
    params = {"prediction": "served/pred_t1.json", "truth": "served/truth"}
    (reply,) = _serve([{"id": 1, "method": "score", "params": params}], "--root", "served",
                      cwd=tmp_path)  # fmt: skip
    refused = [d for d in reply["result"]["diagnostics"] if d["code"] == "E0501"]
    assert [d["file"] for d in refused] == ["served/truth/t1.json"]
    assert "is outside `served`" in refused[0]["message"]
    assert refused[0]["help"] == "give a file inside the allowed folders"
    assert reply["result"]["metrics"] == {}


def test_serve_serves_the_folder_it_starts_in_by_default(tmp_path: Path) -> None:
    """Without `--root`, the working folder is the one root: a file in it is checked, a
    file of its parent folder is refused."""
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "ok.lab").write_text("segment U = umi(8)\n")
    (tmp_path / "outer.lab").write_text("segment U = umi(8)\n")
    replies = _serve(
        [
            {"id": 1, "method": "check", "params": {"path": "ok.lab"}},
            {"id": 2, "method": "check", "params": {"path": "../outer.lab"}},
        ],
        cwd=tmp_path / "inner",
    )
    assert replies[0]["result"]["result"] == "ok"
    assert replies[1]["error"]["code"] == -32602 and "is outside" in replies[1]["error"]["message"]


# ---------------------------------------------------------------- the language server


def test_the_language_server_reads_unopened_workspace_files_within_the_size_limit(
    tmp_path: Path,
) -> None:
    """A never-opened 2 GB (sparse) workspace file is refused before it is read: the
    server, held to 800 MB of address space (it needs 300), answers its outline empty,
    and still serves a small file beside it from disk."""
    import resource

    from lablang.lsp.client import LspClient

    root = tmp_path / "ws"
    root.mkdir()
    (root / "small.lab").write_text("oligo a { seq: 5'-ACGT-3' }\n")
    with open(root / "big.lab", "wb") as handle:
        handle.truncate(2 * 1024**3)
    client = LspClient(pythonpath=ROOT)
    try:
        memory = 800 * 1024 * 1024
        resource.prlimit(client.process.pid, resource.RLIMIT_AS, (memory, memory))
        client.initialize(root)
        outline = {
            name: client.request(
                "textDocument/documentSymbol", {"textDocument": {"uri": (root / name).as_uri()}}
            )
            for name in ("big.lab", "small.lab")
        }
        assert client.process.poll() is None
    finally:
        client.close()
    assert outline["big.lab"] == []
    assert [s["name"] for s in outline["small.lab"]] == ["a"]


# ---------------------------------------------------------------- imports, check, replay


def test_a_use_through_a_symlink_out_of_its_root_names_the_reason(tmp_path: Path) -> None:
    """The audit's reproducer: `use secret.{S}` where `secret.lab` links out of the root is
    E0201 saying the module is a symlink leading outside its root (not "not found"); exit 1."""
    outside, root = tmp_path / "outside", tmp_path / "root"
    outside.mkdir()
    root.mkdir()
    (outside / "secret.lab").write_text("oligo S { seq: 5'-ACGT-3' }\n")
    os.symlink(outside / "secret.lab", root / "secret.lab")
    (root / "main.lab").write_text("use secret.{S}\n")
    run = run_bounded(["check", str(root / "main.lab")], cpu_seconds=30, memory_mb=600)
    run.assert_clean()
    assert run.returncode == 1
    assert f"error[E0201]: module `secret` is a symlink leading outside its root `{root}`" in (
        run.output
    )
    assert "not found" not in run.output


def test_check_of_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """`lablang check FIFO` is E0006 "not a regular file (it is a FIFO)" and exit 1,
    opened without blocking (standard input is `-`)."""
    fifo = tmp_path / "pipe.lab"
    os.mkfifo(fifo)
    run = run_bounded(["check", str(fifo)], cpu_seconds=30, memory_mb=600, hang_seconds=HANG)
    run.assert_clean()
    assert run.returncode == 1
    assert "[E0006]" in run.output and "is not a regular file (it is a FIFO)" in run.output


def test_a_module_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """`use piped.{A}` where `piped.lab` is a FIFO is E0201 "cannot be read: ... FIFO"."""
    os.mkfifo(tmp_path / "piped.lab")
    (tmp_path / "main.lab").write_text("use piped.{A}\n")
    run = run_bounded(["check", str(tmp_path / "main.lab")], hang_seconds=HANG)
    run.assert_clean()
    assert run.returncode == 1
    assert "module `piped` cannot be read" in run.output and "(it is a FIFO)" in run.output


def test_replay_of_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """The audit's reproducer: `lablang replay FIFO` hung; now it exits 2 naming the FIFO."""
    fifo = tmp_path / "episode.jsonl"
    os.mkfifo(fifo)
    run = run_bounded(["replay", str(fifo)], cpu_seconds=30, memory_mb=600, hang_seconds=HANG)
    run.assert_clean()
    assert run.returncode == 2
    assert "is not a regular file (it is a FIFO)" in run.output


# ---------------------------------------------------------------- HDF5 demonstrations

_OPEN_DEMO = """\
import sys
from lablang.sim.demos import DemoFileError, replay
try:
    replay(sys.argv[1], 0, None)  # the file is refused before the task is used
except DemoFileError as error:
    print("refused:", error)
    sys.exit(3)
"""


def _replay_demo(path: Path) -> Run:
    """`demos.replay` of `path` in a bounded child: exit 3 and `refused: ...` if refused."""
    code = f"import sys; sys.argv[1:] = [{str(path)!r}]\n" + _OPEN_DEMO
    run = run_code_bounded(code, cpu_seconds=60, memory_mb=1024, hang_seconds=HANG)
    run.assert_clean()
    return run


def _demo_with(tmp_path: Path, kind: str) -> Path:
    h5py = pytest.importorskip("h5py")
    path = tmp_path / f"{kind}.hdf5"
    with h5py.File(path, "w") as f:
        data = f.create_group("data")
        data.attrs["env_args"] = '{"env_kwargs": {"robot": "gantry", "action_mode": "ee_delta"}}'
        demo = data.create_group("demo_0")
        demo.attrs["seed"] = 0
        if kind == "external":
            demo.create_dataset("actions", shape=(100, 6), dtype="f8",
                                external=[("/etc/passwd", 0, 4800)])  # fmt: skip
        elif kind == "link":
            demo["actions"] = h5py.ExternalLink("/etc/passwd", "/actions")
        else:  # a virtual dataset mapping another file
            layout = h5py.VirtualLayout(shape=(100, 6), dtype="f8")
            layout[:] = h5py.VirtualSource("/etc/passwd", "actions", shape=(100, 6))
            demo.create_virtual_dataset("actions", layout)
    return path


@pytest.mark.parametrize(
    ("kind", "said"),
    [
        ("external", "dataset `/data/demo_0/actions` stores its data in `/etc/passwd`"),
        ("link", "`/data/demo_0/actions` is an external link to `/etc/passwd`"),
        ("virtual", "dataset `/data/demo_0/actions` is virtual"),
    ],
)
def test_a_demonstration_with_data_or_links_outside_the_file_is_refused(
    tmp_path: Path, kind: str, said: str
) -> None:
    """The audit's reproducer: an HDF5 demonstration whose actions are external storage
    on `/etc/passwd`, an external link or a virtual dataset is refused by `replay` before
    anything is read, naming the object and the outside file."""
    path = _demo_with(tmp_path, kind)
    run = _replay_demo(path)
    assert run.returncode == 3, run.output
    assert f"refused: `{path.name}` refers outside itself: {said}" in run.stdout


def test_a_demonstration_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """A FIFO given as a demonstration is refused ("not a regular file") at once."""
    pytest.importorskip("h5py")
    fifo = tmp_path / "demo.hdf5"
    os.mkfifo(fifo)
    run = _replay_demo(fifo)
    assert run.returncode == 3 and "is not a regular file (it is a FIFO)" in run.stdout


# ---------------------------------------------------------------- the opener itself


def test_the_guarded_opener_refuses_each_kind_of_file_with_its_reason(tmp_path: Path) -> None:
    """Outside the roots, a FIFO, a folder, a device and a file past its limit are each
    refused with their reason; a file inside a root is read."""
    root = tmp_path / "root"
    root.mkdir()
    (root / "ok.txt").write_bytes(b"fine")
    os.symlink("/etc/hostname", root / "out.txt")
    os.mkfifo(root / "fifo")
    (root / "folder").mkdir()
    cases = {
        root / "out.txt": ("outside", "is outside"),
        root / "fifo": ("special", "(it is a FIFO)"),
        root / "folder": ("special", "(it is a directory)"),
        Path("/dev/zero"): ("special", "(it is a character device)"),
        root / "missing": ("unreadable", "cannot read"),
    }
    for path, (reason, said) in cases.items():
        within = None if path == Path("/dev/zero") else [root]
        with pytest.raises(Refused) as caught:
            read_guarded(path, within, max_bytes=100, limit="test_limit")
        assert caught.value.reason == reason and said in caught.value.message, path
    with pytest.raises(Refused, match="the limit is `test_limit`"):
        read_guarded(root / "ok.txt", [root], max_bytes=3, limit="test_limit")
    assert read_guarded(root / "ok.txt", [root], max_bytes=4, limit="test_limit") == b"fine"


# ---------------------------------------------------------------- no read beside the opener

_READ = re.compile(
    r"\bopen\(|\.read_text\(|\.read_bytes\(|h5py\.File\(|os\.open\(|fdopen\(|\.open\(\"r"
    r"|json\.load\(|yaml\.(safe_)?load\(|np\.load\(|from_xml_path|MjSpec\.from_file"
)
# (module, a piece of the line): every other way of opening a file, and why it is not a
# read on a user's behalf (or is the opener's own descriptor)
NOT_USER_INPUT = {
    ("lablang/output.py", 'os.fdopen(fd, "wb")'): "writes an output",
    ("lablang/output.py", 'open(target, "wb")'): "writes an output",
    ("lablang/output.py", "what open() would give"): "a comment",
    ("lablang/output.py", 'open(target, "r+b")'): "rewrites a hardlinked output in place",
    ("lablang/output.py", '"/proc/self/status"'): "the process's own status",
    ("lablang/lsp/client.py", "client.open("): "an LSP didOpen, not a file",
    ("lablang/lsp/client.py", "def open("): "an LSP didOpen, not a file",
    ("lablang/spec.py", 'resources.files("lablang")'): "package data",
    ("lablang/sim/labference.py", 'files("lablang.sim").joinpath'): (
        "package data (the evaluate JSON Schema)"
    ),
    ("lablang/rubrics/benchmark.py", 'files("lablang.rubrics").joinpath'): (
        "package data (the benchmark report's JSON Schema)"
    ),
    ("lablang/syntax/grammar.py", "packaged.read_text"): "package data (the grammar)",
    ("lablang/syntax/grammar.py", "source_tree.read_text"): "the checkout's grammar",
    ("lablang/syntax/grammar.py", "Path(spec.origin).read_text"): "lark's own source",
    # the parser cache: opened O_NOFOLLOW, owner and mode checked on the descriptor
    ("lablang/syntax/grammar.py", "fd = os.open(path"): "the parser cache (its own checks)",
    ("lablang/syntax/grammar.py", 'os.fdopen(fd, "rb"'): "the parser cache (its own checks)",
    ("lablang/syntax/grammar.py", 'os.fdopen(fd, "wb")'): "writes the parser cache",
    ("lablang/sim/demos.py", 'h5py.File(partial, "w", libver="latest")'): "writes demonstrations",
    ("lablang/sim/lerobot_v3.py", 'av.open(str(path), "w", format="mp4")'): "writes a video",
    ("lablang/sim/demos.py", 'h5py.File(handle, "r")'): "the guarded opener's descriptor",
    ("lablang/sim/robots/panda.py", "path.read_text()"): "package data (the Panda's MJCF)",
    ("lablang/sim/robots/panda.py", "p.read_bytes()"): "package data (the Panda's meshes)",
    ("lablang/cli/scoring.py", '"summary.json").read_text'): "the summary this run wrote",
    ("lablang/diagnostics/codes.py", "path.read_text"): "package data (the code registry)",
}


def test_no_module_opens_a_file_but_through_the_guarded_opener() -> None:
    """Every place in `lablang/` that opens or reads a file is `lablang/guarded.py` or is
    listed in `NOT_USER_INPUT` with why it is not a user's input; a new raw read (and a
    listed place that is gone) fails here."""
    found = set()
    for file in sorted((ROOT / "lablang").rglob("*.py")):
        relative = file.relative_to(ROOT).as_posix()
        if relative == "lablang/guarded.py":
            continue
        for number, line in enumerate(file.read_text("utf-8").splitlines(), start=1):
            if not _READ.search(line):
                continue
            known = [key for key in NOT_USER_INPUT if key[0] == relative and key[1] in line]
            assert known, f"{relative}:{number} reads a file beside the opener: {line.strip()}"
            found.update(known)
    assert found == set(NOT_USER_INPUT)


def test_a_file_whose_size_says_zero_is_still_read_only_to_its_bound() -> None:
    """A /proc file reports size 0 to fstat: it is read to the bound and no further, and
    one with more than the bound is refused as too big ("has more than")."""
    status = read_guarded("/proc/self/status", None, max_bytes=1 << 20, limit="test_limit")
    assert status.startswith(b"Name:")
    with pytest.raises(Refused, match="has more than the 10 bytes allowed") as caught:
        read_guarded("/proc/self/status", None, max_bytes=10, limit="test_limit")
    assert caught.value.reason == "too-big"
