"""Outputs never replace an input, path problems are E0023 diagnostics, and `fmt` writes
through links, keeps the mode and refuses read-only files."""

from __future__ import annotations

import hashlib
import os
import stat
import time
from pathlib import Path

import pytest

from lablang.output import OutputError, remember_input, write_atomic
from tests.hostile.bounded import run_bounded

PROGRAM = "oligo x { seq: 5'-ACGT-3' }\n"
UNFORMATTED = "oligo   x {seq: 5'-ACGT-3'}\n"


def test_export_refuses_to_overwrite_its_input(tmp_path: Path) -> None:
    """`export x.lab -o x.lab` is E0023 and the program is kept."""
    program = tmp_path / "x.lab"
    program.write_text(PROGRAM)
    run = run_bounded(["export", str(program), "-o", str(program)])
    run.assert_clean()
    assert run.returncode == 1
    assert "error[E0023]" in run.output and "is an input of this command" in run.output
    assert program.read_text() == PROGRAM


def test_export_through_a_symlink_to_the_input_is_refused(tmp_path: Path) -> None:
    """A link to the input is the input: refused too."""
    program = tmp_path / "x.lab"
    program.write_text(PROGRAM)
    (tmp_path / "link.json").symlink_to(program)
    run = run_bounded(["export", str(program), "-o", str(tmp_path / "link.json")])
    assert run.returncode == 1 and "E0023" in run.output
    assert program.read_text() == PROGRAM


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("file/out.json", "a part of the path is a file"),
        ("x" * 300 + ".json", "the name is too long"),
        ("readonly/out.json", "not writable"),
    ],
)
def test_path_problems_are_E0023_not_tracebacks(tmp_path: Path, name: str, reason: str) -> None:
    """An output under a file, a too-long name, a read-only folder: E0023 naming the cause."""
    if name.startswith("readonly") and os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    program = tmp_path / "x.lab"
    program.write_text(PROGRAM)
    (tmp_path / "file").write_text("")
    (tmp_path / "readonly").mkdir(mode=0o500)
    run = run_bounded(["export", str(program), "-o", str(tmp_path / name)])
    run.assert_clean()
    assert run.returncode == 1
    assert "error[E0023]" in run.output and reason in run.output, run.output


def test_a_two_hundred_fifty_character_name_is_written(tmp_path: Path) -> None:
    """A long but legal name works: the temporary name is kept short enough."""
    target = tmp_path / ("n" * 250)
    write_atomic(target, "data")
    assert target.read_text() == "data"


def test_write_atomic_refuses_a_remembered_input(tmp_path: Path) -> None:
    """A file read as an input cannot be the output of the same command."""
    path = tmp_path / "in.lab"
    path.write_text(PROGRAM)
    remember_input(path)
    with pytest.raises(OutputError, match="is an input"):
        write_atomic(path, "{}")
    write_atomic(path, PROGRAM + "# x\n", replaces_input=True)


def test_new_outputs_get_the_usual_mode(tmp_path: Path) -> None:
    """A new output file is readable by others as open() would make it, not 0600."""
    target = tmp_path / "new.json"
    write_atomic(target, "{}")
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~mask


def test_fmt_writes_through_a_symlink(tmp_path: Path) -> None:
    """`fmt link.lab` reformats the target and leaves the link a link."""
    real = tmp_path / "real.lab"
    real.write_text(UNFORMATTED)
    link = tmp_path / "link.lab"
    link.symlink_to(real)
    run = run_bounded(["fmt", str(link)])
    assert run.returncode == 0, run.output
    assert link.is_symlink() and real.read_text() != UNFORMATTED


def test_fmt_keeps_hardlinks_and_mode(tmp_path: Path) -> None:
    """A hardlinked file is rewritten in place (both names see it) and keeps its mode."""
    real = tmp_path / "a.lab"
    real.write_text(UNFORMATTED)
    real.chmod(0o640)
    other = tmp_path / "b.lab"
    os.link(real, other)
    run = run_bounded(["fmt", str(real)])
    assert run.returncode == 0, run.output
    assert other.read_text() == real.read_text() != UNFORMATTED
    assert real.stat().st_ino == other.stat().st_ino
    assert stat.S_IMODE(real.stat().st_mode) == 0o640


def test_fmt_refuses_a_read_only_file(tmp_path: Path) -> None:
    """A file without write permission is not rewritten, even by a privileged user."""
    path = tmp_path / "ro.lab"
    path.write_text(UNFORMATTED)
    path.chmod(0o444)
    run = run_bounded(["fmt", str(path)])
    assert run.returncode == 1 and "E0023" in run.output and "read-only" in run.output
    assert path.read_text() == UNFORMATTED


def test_stale_temporary_files_are_removed_on_the_next_write(tmp_path: Path) -> None:
    """A `.NAME.XXXXXXXX.tmp` left by a killed run is cleaned once it is old; others stay."""
    target = tmp_path / "out.json"
    stale = tmp_path / ".out.json.abcd1234.tmp"
    fresh = tmp_path / ".out.json.efgh5678.tmp"
    foreign = tmp_path / ".out.json.notours.tmp"
    for path in (stale, fresh, foreign):
        path.write_text("partial")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    os.utime(foreign, (old, old))
    write_atomic(target, "{}")
    assert not stale.exists() and fresh.exists() and foreign.exists()


def test_onlists_beside_an_agents_program_are_read_only_under_a_root(tmp_path: Path) -> None:
    """`export --to seqspec` prints a neighbouring file's md5 only when its folder is a root."""
    program = tmp_path / "x.lab"
    program.write_text('segment CB = barcode(16, onlist: "secret")\n'
                       "library lib { seq: 5'-ACGTACGT {CB} [CDNA]-3' }\n")  # fmt: skip
    (tmp_path / "secret").write_text("private\n")
    refused = run_bounded(["export", str(program), "--to", "seqspec"])
    assert refused.returncode == 0 and "warning[W0020]" in refused.output
    digest = hashlib.md5(b"private\n", usedforsecurity=False).hexdigest()
    assert digest not in refused.stdout
    allowed = run_bounded(["export", str(program), "--to", "seqspec", "--path", str(tmp_path)])
    assert allowed.returncode == 0 and "W0020" not in allowed.output
    assert digest in allowed.stdout


def test_output_to_a_device_is_written_not_replaced(tmp_path: Path) -> None:
    """`-o /dev/null` writes to the device (it is never replaced by a regular file)."""
    program = tmp_path / "x.lab"
    program.write_text(PROGRAM)
    run = run_bounded(["export", str(program), "-o", "/dev/null"])
    assert run.returncode == 0, run.output
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def _shared_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o1777)  # like /tmp: anyone may create names here
    return folder


def test_a_planted_symlink_in_a_shared_folder_is_not_written_through(tmp_path: Path) -> None:
    """`export -o shared/evil.json`, where evil.json links to the user's file, is E0023 and
    the linked file is untouched (it was overwritten)."""
    program = tmp_path / "x.lab"
    program.write_text(PROGRAM)
    victim = tmp_path / "bashrc"
    victim.write_text("the user's file\n")
    evil = _shared_folder(tmp_path) / "evil.json"
    evil.symlink_to(victim)
    run = run_bounded(["export", str(program), "-o", str(evil)])
    run.assert_clean()
    assert run.returncode == 1, run.output
    assert (
        f"error[E0023]: `{evil}` is a symlink in a folder other users can write; "
        "it is not written through"
    ) in run.output
    assert victim.read_text() == "the user's file\n"
    assert evil.is_symlink()


def test_a_fifo_in_a_shared_folder_is_refused_without_blocking(tmp_path: Path) -> None:
    """A FIFO planted as the output name in a shared folder is E0023, not a hang."""
    program = tmp_path / "x.lab"
    program.write_text(PROGRAM)
    fifo = _shared_folder(tmp_path) / "out.json"
    os.mkfifo(fifo)
    run = run_bounded(["export", str(program), "-o", str(fifo)], hang_seconds=120)
    run.assert_clean()
    assert run.returncode == 1, run.output
    assert "is not a regular file in a folder other users can write" in run.output


def test_a_shared_folder_gets_a_new_file_and_a_hardlink_is_replaced(tmp_path: Path) -> None:
    """In a shared folder a plain output is written, and a hardlinked name is replaced (the
    other link keeps its text) instead of being rewritten in place."""
    folder = _shared_folder(tmp_path)
    write_atomic(folder / "new.json", "{}\n")
    assert (folder / "new.json").read_text() == "{}\n"
    other = tmp_path / "other.json"
    other.write_text("kept\n")
    os.link(other, folder / "linked.json")
    write_atomic(folder / "linked.json", "new\n")
    assert (folder / "linked.json").read_text() == "new\n"
    assert other.read_text() == "kept\n"
