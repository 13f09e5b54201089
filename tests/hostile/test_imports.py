"""Imports are bounded: a module's size is checked before it is read, and the module-name
hints of unresolved `use`s walk each root once, at most `max_index_entries` entries."""

from __future__ import annotations

import os
from pathlib import Path

from lablang.limits import Limits
from lablang.resolve import Loader
from tests.hostile.bounded import run_bounded


def test_a_huge_module_is_refused_before_it_is_read(tmp_path: Path) -> None:
    """A 300 MB module (20 s and 1.2 GB before) is E0001 at the `use`, in 300 MB of memory."""
    big = tmp_path / "big.lab"
    with big.open("wb") as handle:
        handle.truncate(300 * 1024 * 1024)  # sparse: nothing to write, all to read
    main = tmp_path / "main.lab"
    main.write_text("use big.{x}\n")
    run = run_bounded(["check", str(main)], cpu_seconds=20, memory_mb=400)
    run.assert_clean()
    assert run.returncode == 1
    assert "error[E0001]: module `big` is more than 4194304 bytes" in run.output
    assert len(run.output) < 5000


def test_module_hints_index_each_root_once(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Many unresolved `use`s walk the roots once between them, not once each."""
    (tmp_path / "kit.lab").write_text("oligo a { seq: 5'-ACGT-3' }\n")
    walks = []
    real_walk = os.walk

    def counting_walk(top, *args, **kwargs):  # type: ignore[no-untyped-def]
        walks.append(top)
        return real_walk(top, *args, **kwargs)

    monkeypatch.setattr(os, "walk", counting_walk)
    loader = Loader.with_roots([tmp_path])
    for _ in range(50):
        assert "kit" in loader.available()
    assert len(walks) == len(loader.roots)


def test_module_hints_stop_at_the_entry_budget(tmp_path: Path) -> None:
    """A root with more entries than `max_index_entries` is indexed only that far."""
    for i in range(30):
        (tmp_path / f"m{i:02}.lab").write_text("")
    loader = Loader.with_roots([tmp_path], Limits(max_index_entries=10))
    names = [n for n in loader.available() if n.startswith("m") and n[1:].isdigit()]
    assert names == []  # the first folder alone is past the budget: no hint, no long walk
    assert "m00" in Loader.with_roots([tmp_path]).available()
