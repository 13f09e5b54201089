"""The `lablang` command line: a thin click front end over library functions.

Each verb lives in its own module and is imported only when it is run, so that
`lablang check` never pays for z3, mujoco or scipy; `lablang check PATHS...` without
options does not even load click (`run`, the console script).
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn


def run(argv: list[str] | None = None) -> None:
    """The `lablang` command. `lablang check PATHS...` with no option goes straight to the
    checker (click's import is a tenth of a small check's start-up); everything else, and
    every case that check cannot finish (a usage error), goes through click. Called
    without `argv` it is the process's own command: a check then ends the process once
    its output is flushed (`_end_process`); with `argv` it raises `SystemExit`."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 and args[0] == "check" and all(a == "-" or a[:1] != "-" for a in args[1:]):
        import gc

        from lablang.limits import RELAXED_THRESHOLD

        # A check *process* (argv from the command line, not a caller's list) keeps what
        # it allocates (its ~250 classes, the tree) until it exits, so frequent young
        # collections only rescan it; a larger first threshold keeps the collector running
        # (memory stays bounded) but rarely. A caller's process is left as it was.
        own_process = argv is None
        if own_process:
            gc.set_threshold(RELAXED_THRESHOLD)
        from lablang.cli.checking import check_paths

        code = check_paths(args[1:])
        if code is not None:
            if own_process:
                _end_process(code)
            sys.exit(code)
    from lablang.cli.group import main

    main(args=args, prog_name="lablang")


def _end_process(code: int) -> NoReturn:
    """End a check process without the interpreter's teardown, as mypy ends its own: the
    teardown frees each of the check's modules, classes and tree nodes one by one and
    collects (2-3 ms of a check's start-up), and a check leaves nothing for it to do:
    its output is flushed here, it writes no file after reporting, starts no thread and
    registers no exit handler."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def __getattr__(name: str) -> Any:
    # `from lablang.cli import main` (the click group) loads click only when asked for
    if name in ("main", "LazyGroup"):
        from lablang.cli import group

        return getattr(group, name)
    if name == "VERBS":
        from lablang.cli.verbs import VERBS

        return VERBS
    raise AttributeError(f"module 'lablang.cli' has no attribute {name!r}")
