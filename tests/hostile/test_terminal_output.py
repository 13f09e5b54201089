"""What lablang prints for people never steers the terminal: control, format and line-separator
characters from data (a record's fields, a file's lines quoted by a diagnostic, a file name)
are shown escaped by `lablang.cli.terminal.terminal_text`."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from lablang.cli.terminal import terminal_text
from lablang.sim.records import Event, record_lines, write_records
from tests.hostile.bounded import run_bounded

OSC = "\x1b]0;owned\x07"  # retitles an xterm-compatible terminal
STEERING = OSC + "\x9b2J\r\u202e\u2028\x7f"


@given(st.text(st.characters(categories=None) | st.sampled_from(STEERING)))
def test_escaped_text_holds_no_steering_character(text: str) -> None:
    """After escaping, only newline and tab remain of the control characters, and no
    format character, line separator or lone surrogate remains."""
    import unicodedata

    shown = terminal_text(text)
    for char in shown:
        if char in "\n\t":
            continue
        assert unicodedata.category(char) not in ("Cc", "Cf", "Cs", "Zl", "Zp"), repr(char)
    shown.encode("utf-8")  # printable on any UTF-8 terminal


def test_replay_prints_record_fields_escaped(tmp_path: Path) -> None:
    """`replay` of a record whose task name and event detail hold an OSC sequence, C1 CSI,
    CR and a bidi override prints them as escapes (exit 0: the stored score matches)."""
    events = [Event("completion", 1.0, "a", confirmed=True, status="passed", detail=STEERING)]
    header = {"task": "t" + OSC, "seed": 1, "steps": ["a"]}
    record = tmp_path / "episode.jsonl"
    write_records(record, record_lines(header, events, [], ["a"]))
    run = run_bounded(["replay", str(record)], cpu_seconds=60, memory_mb=1024)
    run.assert_clean()
    assert run.returncode == 0, run.output
    for raw in "\x1b\x07\x9b\r\u202e\u2028\x7f":
        assert raw not in run.stdout
    assert "episode of task t\\x1b]0;owned\\x07, seed 1" in run.stdout
    assert "\\x1b]0;owned\\x07\\x9b2J\\x0d\\u202e\\u2028\\x7f" in run.stdout


def test_a_diagnostic_quotes_a_file_line_escaped(tmp_path: Path) -> None:
    """`check` quoting a line with an OSC sequence in its comment prints the line escaped."""
    program = tmp_path / "p.lab"
    program.write_text(f"oligo X {{ seq: 5'-{{NOPE}}-3' }}  # {OSC}\n")
    run = run_bounded(["check", "--color", "always", str(program)], cpu_seconds=60)
    run.assert_clean()
    assert run.returncode == 1, run.output
    assert OSC not in run.stderr and "\x07" not in run.stderr
    assert "# \\x1b]0;owned\\x07" in run.stderr
    assert "\x1b[" in run.stderr  # lablang's own colours are kept


def test_only_tab_newline_and_printable_ascii_pass_unexamined() -> None:
    """The escaping's candidate class (written as a complement, cheap to compile) is every
    code point but tab, newline and printable ASCII (those pass unexamined, every other
    code point is examined: an unsafe one escaped, a safe one kept)."""
    from lablang.cli import terminal

    # every code point of the first planes' start, the surrogates and the last ones
    every = "".join(map(chr, [*range(0x3000), *range(0xD800, 0xE000), *range(0x10FF00, 0x110000)]))
    assert terminal._CANDIDATE.sub("", every) == "\t\n" + "".join(map(chr, range(0x20, 0x7F)))
