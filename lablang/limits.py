"""Bounds on everything a `.lab` file or a data file can ask for (both come from agents).

Exceeding a bound is a diagnostic naming the limit, never a hang or a traceback. The
values are generous for real protocols and small enough to keep every stage fast.

This module is the registry of limits: each field of `Limits` carries the diagnostic code
reported when it is exceeded and one line of documentation, and `BACKEND_LIMITS` names
the bounds a backend keeps next to the code that enforces them. `docs/limits.md` is
generated from both (`python -m lablang.limits_doc > docs/limits.md`; a test keeps it
current). A limit is raised for one run with the environment variable
`LABLANG_LIMITS="max_tokens=2000000,max_file_bytes=16777216"`, or from Python by passing
`Limits(...)` to the library functions that take one.
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from collections.abc import Iterator
from typing import Any

from attrs import field, fields, frozen


def _limit(default: Any, code: str, doc: str) -> Any:
    return field(default=default, metadata={"code": code, "doc": doc})


@frozen
class Limits:
    # ---------------------------------------------------------------- .lab text
    max_file_bytes: int = _limit(4 * 1024 * 1024, "E0001", "bytes in one `.lab` file or module")
    max_tokens: int = _limit(
        150_000, "E0021", "tokens in one `.lab` file (parsing costs 15-45 µs a token)"
    )
    max_number_digits: int = _limit(
        40, "E0020", "significant digits of one number literal (`98.5`, `1e-9 M`)"
    )
    max_number_exponent: int = _limit(
        100, "E0020", "size of the exponent of a number literal (`1e100` at most)"
    )
    max_nesting: int = _limit(64, "E0002", "brackets and blocks inside each other")
    max_expression_depth: int = _limit(
        200, "E0002", "operators inside each other in one expression (parentheses included)"
    )
    max_homopolymer: int = _limit(1_000, "E0003", "bases of one homopolymer such as `(T)30`")
    max_placeholder_length: int = _limit(
        100_000, "E0003", "bases a placeholder such as `[CB:16]` may stand for"
    )
    max_sequence_parts: int = _limit(10_000, "E0003", "parts of one sequence literal")
    max_list_items: int = _limit(10_000, "E0004", "items of one list, block or argument list")
    max_modules: int = _limit(256, "E0004", "modules one program imports")
    max_index_entries: int = _limit(
        20_000, "E0201", "folder entries of a root read for a module-name hint (`did you mean`)"
    )
    # ---------------------------------------------------------------- molecular
    max_workflow_bases: int = _limit(
        1_000_000,
        "E0460",
        "bases (and symbolic positions) of all products one workflow derives, summed",
    )
    max_workflow_products: int = _limit(
        20_000, "E0460", "products one workflow derives, over all its steps"
    )
    # ---------------------------------------------------------------- data files
    max_data_bytes: int = _limit(
        64 * 1024 * 1024, "E0022", "bytes of one JSON, JSONL or YAML data file"
    )
    max_data_depth: int = _limit(
        100, "E0022", "arrays and objects inside each other in a data file"
    )
    max_data_integer_digits: int = _limit(100, "E0022", "digits of one integer in a data file")
    max_yaml_bytes: int = _limit(
        512 * 1024, "E0022", "characters of one YAML file (PyYAML reads about 150 KB a second)"
    )
    max_yaml_aliases: int = _limit(
        0, "E0022", "YAML aliases (`*name`) in one file (seqspec files need none)"
    )
    # ---------------------------------------------------------------- output
    max_printed_diagnostics: int = _limit(
        200, "-", "diagnostics printed as text (the rest are counted in one line)"
    )
    max_snippet_width: int = _limit(
        160, "-", "characters of a source line shown under a diagnostic"
    )
    # ---------------------------------------------------------------- scoring and grading
    max_scored_states: int = _limit(
        200, "E0530", "states (or transitions) of one Task 3 document, over its workflows"
    )
    max_scored_oligos: int = _limit(
        300, "E0530", "oligos of one Task 2 document (family collapse is quadratic: 300 take ~2 s)"
    )
    max_scored_oligo_bases: int = _limit(
        200_000, "E0530", "characters of oligo sequence of one Task 2 document, summed"
    )
    max_scored_sequence_bases: int = _limit(
        200_000, "E0530", "bases of library sequence of one Task 1 document"
    )

    @classmethod
    def from_environment(cls, environ: dict[str, str] | None = None) -> Limits:
        """The defaults, with `LABLANG_LIMITS="name=value,..."` applied (invalid entries ignored).

        >>> Limits.from_environment({"LABLANG_LIMITS": "max_tokens=10, nonsense=3"}).max_tokens
        10
        """
        text = (os.environ if environ is None else environ).get("LABLANG_LIMITS", "")
        names = {f.name for f in fields(cls)}
        changes: dict[str, int] = {}
        for entry in text.split(","):
            name, _, value = entry.partition("=")
            name, value = name.strip(), value.strip()
            if name in names and value.isdigit() and len(value) < 19:
                changes[name] = int(value)
        return cls(**changes)


DEFAULT_LIMITS = Limits.from_environment()

# Bounds kept beside the code that enforces them: (module, constant, code, what it bounds);
# "-" is a bound that clamps or stops quietly rather than reporting a code.
BACKEND_LIMITS: tuple[tuple[str, str, str, str], ...] = (
    ("lablang.molecular.builder.common", "MAX_WORKFLOW_STEPS", "E0415", "steps of one workflow"),
    ("lablang.molecular.ops.core", "MAX_PRODUCTS", "E0415", "products of one operation"),
    ("lablang.molecular.sequence", "MAX_SEQUENCE_TOKENS", "E0415", "positions of one sequence"),
    ("lablang.scoring.score", "MAX_INPUT_BYTES", "E0501", "bytes of one file `score` reads"),
    (
        "lablang.molecular.seqspec_export",
        "MAX_ONLIST_BYTES",
        "-",
        "bytes of an onlist file whose checksum an export computes (larger: left out)",
    ),
    (
        "lablang.agent.bench",
        "MAX_REPLAY_BYTES",
        "-",
        "bytes of one recorded answer `bench --replay` reads (a larger one is a `refused` round)",
    ),
    ("lablang.rubrics.front", "MAX_ITEMS", "E0821", "items of one rubric"),
    ("lablang.rubrics.evaluate", "MAX_STEPS", "-", "evaluation steps of one rubric `check:`"),
    ("lablang.rubrics.grading", "MAX_JUDGMENT_LINES", "E0830", "lines of one judgments file"),
    ("lablang.rubrics.grading", "MAX_RESAMPLES", "-", "bootstrap resamples (clamped)"),
    ("lablang.rubrics.grading", "EXACT_BEST_OF_K", "-", "attempts graded with exact fractions"),
    ("lablang.protocols.front", "MAX_STAGES", "E0807", "stages of one thermocycle program"),
    ("lablang.protocols.diff", "MAX_DOWNSTREAM", "-", "downstream steps named per diff change"),
    ("lablang.contracts.front", "MAX_INT_DOMAIN", "E0603", "values of one contract variable"),
    ("lablang.contracts.front", "MAX_GROUND_OPS", "E0603", "grounded operations of a contract"),
    ("lablang.contracts.checks", "MAX_DEPTH", "-", "bounded model checking depth (clamped)"),
    ("lablang.sim.catalog", "MAX_ENTITIES", "E0708", "entities of one scene"),
    ("lablang.sim.catalog", "MAX_EPISODE_TIME", "-", "simulated seconds of one episode"),
    ("lablang.sim.records", "MAX_RECORD_BYTES", "-", "bytes of one episode record (`replay`)"),
    ("lablang.sim.demos", "MAX_DEMO_BYTES", "-", "bytes of one demonstration file a replay opens"),
    (
        "lablang.sim.demos",
        "MAX_DEMO_OBJECTS",
        "-",
        "groups, datasets and links of a demonstration file searched for links to other files",
    ),
    ("lablang.sim.demos", "MAX_DEMO_TICKS", "-", "rows of a demonstration's dataset (refused)"),
    ("lablang.sim.demos", "MAX_ENV_ARGS_BYTES", "-", "characters of a demo's `env_args` JSON"),
    ("lablang.agent.bench", "MAX_OUTPUT_BYTES", "-", "bytes of an agent's output per round (cut)"),
    ("lablang.syntax.grammar", "MAX_CACHE_BYTES", "-", "bytes of the parser cache file read"),
)


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while building large acyclic structures.

    Parsing allocates many small objects that all stay alive; collections during it
    only rescan them (measured: building the parser 35-40% faster, and parse time per
    line constant instead of growing with file size). Nothing cyclic is created there.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# A large first threshold while the backends check a program (`gc_relaxed`), and for a
# whole `lablang check` process (`lablang.cli.run`)
RELAXED_THRESHOLD = 50_000
_relaxed_lock = threading.Lock()
_relaxed: list[Any] = [0, None]  # callers inside, the thresholds the first one found


@contextlib.contextmanager
def gc_relaxed() -> Iterator[None]:
    """Collect rarely (a first-generation threshold of `RELAXED_THRESHOLD` allocations)
    while the backends check a program, and restore the thresholds after.

    The tree was built with the collector paused (`gc_paused`), so its objects are all
    young: every young collection during the backends rescans them, and on a big file that
    dominates (measured on the 50k-line benchmark program: the contracts backend 25 us per
    line with the default threshold, 8.7 with the collector off; the whole check 82 -> 70
    us per line). Unlike pausing, the collector keeps running, so the backends' cyclic
    garbage stays bounded (peak memory unchanged). Re-entrant and thread-safe: the first
    caller in sets the threshold, the last one out restores what the first one found.
    """
    with _relaxed_lock:
        if _relaxed[0] == 0:
            _relaxed[1] = gc.get_threshold()
            gc.set_threshold(max(RELAXED_THRESHOLD, _relaxed[1][0]), *_relaxed[1][1:])
        _relaxed[0] += 1
    try:
        yield
    finally:
        with _relaxed_lock:
            _relaxed[0] -= 1
            if _relaxed[0] == 0:
                gc.set_threshold(*_relaxed[1])
