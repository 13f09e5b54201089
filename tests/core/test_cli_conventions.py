"""The command line behaves as users of ruff, black and git expect: paths and `-`, counts,
exit codes, one stream for diagnostics, colour only on a terminal, umask-honouring outputs,
shell completion, carets under wide characters."""

from __future__ import annotations

import os
import pty
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from lablang.cli import main
from lablang.diagnostics import Report
from lablang.diagnostics.render import render_text
from lablang.output import write_atomic
from lablang.source import Source, Span

ROOT = Path(__file__).resolve().parents[2]
GOOD = "oligo TSO {\n  seq: 5'-AAGCAGTGGTATCAACGCAGAGTACATrGrGrG-3'\n}\n"
UGLY = "oligo TSO{seq:5'-AAGCAGTGGTATCAACGCAGAGTACATrGrGrG-3'}\n"
BAD = "oligo TSO { seq: 5'-ACGT-3' }\ntransition rt : reverse_transcription { oligos: [TS0] }\n"
WARNS = "protocol p {\n  step cycle { thermocycle { repeat 30 { 980 C for 10 s; 60 C for 30 s } } }\n}\n"
PROTOCOLS = ROOT / "examples" / "protocols"


def run(*args: str, stdin: str = "") -> object:
    return CliRunner().invoke(main, list(args), input=stdin)


def tree(tmp_path: Path) -> Path:
    """a.lab (clean, unformatted), sub/b.lab (clean), .hidden/c.lab (broken, skipped)."""
    (tmp_path / "sub").mkdir()
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "a.lab").write_text(UGLY)
    (tmp_path / "sub" / "b.lab").write_text(GOOD)
    (tmp_path / ".hidden" / "c.lab").write_text(BAD)
    (tmp_path / "notes.txt").write_text("not lablang")
    return tmp_path


def test_check_takes_a_directory_and_checks_its_lab_files_recursively(tmp_path: Path) -> None:
    """`check DIR` checks every `.lab` below DIR (hidden folders skipped) and counts them."""
    result = run("check", str(tree(tmp_path)))
    assert result.exit_code == 0, result.output
    assert "2 files checked: 0 errors, 0 warnings" in result.stderr


def test_check_reads_standard_input_for_a_dash() -> None:
    """`check -` checks the text on stdin and names it `<stdin>` in diagnostics."""
    result = run("check", "-", stdin=BAD)
    assert result.exit_code == 1
    assert "--> <stdin>:2:" in result.stderr


def test_a_directory_without_lab_files_is_a_usage_error(tmp_path: Path) -> None:
    """Naming only a folder with no `.lab` file exits 2 and says so."""
    result = run("check", str(tmp_path))
    assert result.exit_code == 2 and "no .lab files" in result.output


def test_fmt_formats_standard_input_to_standard_output() -> None:
    """`fmt -` prints the canonical text of stdin on stdout and writes nothing else there."""
    result = run("fmt", "-", stdin=UGLY)
    assert result.exit_code == 0
    assert result.stdout == GOOD


def test_fmt_check_counts_files_that_would_change(tmp_path: Path) -> None:
    """`fmt --check DIR` names each file that would change, prints the counts, exits 1."""
    result = run("fmt", "--check", str(tree(tmp_path)))
    assert result.exit_code == 1
    assert f"would reformat {tmp_path / 'a.lab'}" in result.stderr
    assert "1 file would be reformatted, 1 already formatted" in result.stderr
    assert (tmp_path / "a.lab").read_text() == UGLY


def test_fmt_diff_prints_a_unified_diff_and_writes_nothing(tmp_path: Path) -> None:
    """`fmt --diff` prints a unified diff on stdout, leaves the file, exits 1; 0 when clean."""
    path = tmp_path / "a.lab"
    path.write_text(UGLY)
    result = run("fmt", "--diff", str(path))
    assert result.exit_code == 1
    assert result.stdout.startswith(f"--- {path}\n+++ {path}\n@@ ")
    assert "-oligo TSO{seq:" in result.stdout and "+oligo TSO {" in result.stdout
    assert path.read_text() == UGLY
    path.write_text(GOOD)
    assert run("fmt", "--diff", str(path)).exit_code == 0


def test_fmt_rewrites_a_directory_and_counts(tmp_path: Path) -> None:
    """`fmt DIR` rewrites the files that change and reports how many changed."""
    result = run("fmt", str(tree(tmp_path)))
    assert result.exit_code == 0
    assert "1 file reformatted, 1 left unchanged" in result.stderr
    assert (tmp_path / "a.lab").read_text() == GOOD


def test_warnings_as_errors_fails_a_file_with_only_warnings(tmp_path: Path) -> None:
    """A file with a warning passes `check` but fails `check --warnings-as-errors`."""
    path = tmp_path / "w.lab"
    path.write_text(WARNS)
    assert run("check", str(path)).exit_code == 0
    strict = run("check", "--warnings-as-errors", str(path))
    assert strict.exit_code == 1
    assert "(warnings count as errors)" in strict.stderr
    assert run("check", "--warnings-as-errors", "--json", str(path)).exit_code == 1


def test_diff_exits_1_when_the_protocols_differ_and_0_when_they_do_not() -> None:
    """`lablang diff` exits like `git diff --exit-code`: 1 on differences, 0 on none."""
    published, gc_rich = str(PROTOCOLS / "pcr_published.lab"), str(PROTOCOLS / "pcr_gc_rich.lab")
    assert run("diff", published, gc_rich).exit_code == 1
    assert run("diff", published, published).exit_code == 0
    assert run("diff", published, gc_rich, "--json").exit_code == 1


@pytest.mark.parametrize(
    "args",
    [["check"], ["fmt"], ["export"], ["diff", str(PROTOCOLS / "pcr_published.lab")]],
    ids=["check", "fmt", "export", "diff"],
)
def test_diagnostics_go_to_stderr_in_every_verb(args: list[str], tmp_path: Path) -> None:
    """The same broken file's diagnostics are on stderr, never stdout, whatever the verb."""
    path = tmp_path / "bad.lab"
    path.write_text("oligo X { seq: 5'-ACGT-3' \n")  # a syntax error every verb reports
    result = run(*args, str(path))
    assert result.exit_code == 1
    assert "error[E01" in result.stderr
    assert "error[" not in result.stdout


def _colour_run(tmp_path: Path, env: dict[str, str], *args: str, tty: bool) -> str:
    """Run `lablang check BAD` as a process, stderr on a pseudo-terminal or a pipe."""
    path = tmp_path / "bad.lab"
    path.write_text(BAD)
    command = [sys.executable, "-m", "lablang", *args, "check", str(path)]
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    environment |= {"TERM": "xterm"} | env
    if not tty:
        done = subprocess.run(command, capture_output=True, text=True, env=environment)
        return done.stderr
    leader, follower = pty.openpty()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=follower, env=environment)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert done.returncode == 1
    return b"".join(chunks).decode()


def test_diagnostics_are_coloured_on_a_terminal_only(tmp_path: Path) -> None:
    """On a terminal, severity, code and caret are coloured; piped output has no escape codes."""
    on_tty = _colour_run(tmp_path, {}, tty=True)
    assert "\x1b[1;31merror[E0203]\x1b[0m" in on_tty
    assert "\x1b[1;31m^^^" in on_tty
    assert "\x1b[" not in _colour_run(tmp_path, {}, tty=False)


def test_no_color_and_the_color_option_decide_over_the_terminal(tmp_path: Path) -> None:
    """NO_COLOR turns colour off on a terminal; `--color always` forces it into a pipe,
    `--color never` removes it on a terminal."""
    assert "\x1b[" not in _colour_run(tmp_path, {"NO_COLOR": "1"}, tty=True)
    assert "\x1b[1;31m" in _colour_run(tmp_path, {}, "--color", "always", tty=False)
    assert "\x1b[" not in _colour_run(tmp_path, {}, "--color", "never", tty=True)
    verb_option = CliRunner().invoke(main, ["check", "--color", "always", "-"], input=BAD)
    assert "\x1b[1;31merror[E0203]" in verb_option.stderr


def test_output_files_get_the_mode_the_umask_gives(tmp_path: Path) -> None:
    """A new output file is 0644 under umask 022 and 0600 under 077; a rewrite keeps the mode."""
    previous = os.umask(0o022)
    try:
        write_atomic(tmp_path / "a.json", "{}")
        os.umask(0o077)
        write_atomic(tmp_path / "b.json", "{}")
        os.chmod(tmp_path / "a.json", 0o664)
        write_atomic(tmp_path / "a.json", "[]")
    finally:
        os.umask(previous)
    assert stat.S_IMODE((tmp_path / "a.json").stat().st_mode) == 0o664
    assert stat.S_IMODE((tmp_path / "b.json").stat().st_mode) == 0o600


def test_export_output_is_world_readable_under_the_default_umask(tmp_path: Path) -> None:
    """`export -o` under umask 022 writes a 0644 file, as `>` redirection would."""
    target = tmp_path / "out.json"
    previous = os.umask(0o022)
    try:
        lab = tmp_path / "a.lab"
        lab.write_text(GOOD)
        assert run("export", str(lab), "-o", str(target)).exit_code == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_shell_completion_offers_the_export_targets() -> None:
    """Click's bash completion of `lablang export x.lab --to ` lists every export target."""
    environment = dict(
        os.environ,
        _LABLANG_COMPLETE="bash_complete",
        COMP_WORDS="lablang export x.lab --to ",
        COMP_CWORD="4",
    )
    done = subprocess.run(
        [sys.executable, "-c", "from lablang.cli import main; main(prog_name='lablang')"],
        capture_output=True,
        text=True,
        env=environment,
    )
    values = [line.split(",", 1)[1] for line in done.stdout.splitlines() if "," in line]
    assert {"json", "libstruct-t1", "seqspec", "seqspec-0.3"} <= set(values)


def test_the_caret_stands_under_the_span_after_wide_characters() -> None:
    """After an emoji (two terminal columns) the caret is shifted by two, not one."""
    text = 'oligo X "🧪 tube" { seq: TS0 }'
    start = text.index("TS0")
    report = Report()
    diagnostic = report.add(
        "E0203", "x", Source(text, "a.lab"), Span(start, start + 3), label="here"
    )
    lines = render_text(diagnostic).splitlines()
    source_line = next(line for line in lines if line.startswith("1 | "))
    caret_line = next(line for line in lines if "^" in line)
    # the display column of `TS0` is one more than its code-point column
    assert caret_line.index("^") == source_line.index("TS0") + 1
