"""The collector tuning around a check: the backends run with a relaxed first threshold
(the tree they read was built with the collector paused, so young collections would
rescan all of it), and the caller's thresholds come back whatever happens."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator

import pytest

import lablang.protocols.front as protocols_front
from lablang.driver import check_text
from lablang.limits import RELAXED_THRESHOLD, gc_relaxed

PROTOCOL = 'protocol p "x" {\n  materials: [mix]\n  step a { add: 50 uL of mix to: tube1 }\n}\n'


@pytest.fixture
def default_thresholds() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield gc.get_threshold()
    gc.set_threshold(*before)


# the same protocol with a declaration the core checks reject (E0204, X declared twice):
# the backends then run after errors (`driver._backend_checks_after_errors`)
WITH_AN_ERROR = PROTOCOL + "oligo X { seq: 5'-ACGT-3' }\noligo X { seq: 5'-ACGT-3' }\n"


@pytest.mark.parametrize("text", [PROTOCOL, WITH_AN_ERROR], ids=["ok", "after errors"])
def test_backends_run_with_the_relaxed_threshold_and_the_callers_comes_back(
    text: str, default_thresholds: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """While a backend checks a program, ok or with errors elsewhere, the first threshold
    is RELAXED_THRESHOLD (the others kept); after `check_text` the caller's are back."""
    seen: list[tuple[int, int, int]] = []
    original = protocols_front.check_program

    def spy(program: object, report: object) -> object:
        seen.append(gc.get_threshold())
        return original(program, report)  # type: ignore[arg-type]

    monkeypatch.setattr(protocols_front, "check_program", spy)
    assert check_text(text).ok is (text == PROTOCOL)
    assert seen == [(RELAXED_THRESHOLD, 10, 10)]
    assert gc.get_threshold() == default_thresholds


def test_a_backend_that_fails_still_gives_the_thresholds_back(
    default_thresholds: tuple[int, int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A backend raising (reported as E0000) leaves the caller's thresholds restored."""

    def broken(program: object, report: object) -> None:
        raise RuntimeError("a backend bug")

    monkeypatch.setattr(protocols_front, "check_program", broken)
    result = check_text(PROTOCOL)
    assert [d.code for d in result.report] == ["E0000"]
    assert gc.get_threshold() == default_thresholds


def test_a_caller_with_a_higher_threshold_keeps_it_inside_and_after(
    default_thresholds: tuple[int, int, int],
) -> None:
    """A first threshold already above RELAXED_THRESHOLD is not lowered, and comes back."""
    gc.set_threshold(RELAXED_THRESHOLD * 2, 10, 10)
    with gc_relaxed():
        assert gc.get_threshold()[0] == RELAXED_THRESHOLD * 2
    assert gc.get_threshold() == (RELAXED_THRESHOLD * 2, 10, 10)


def test_overlapping_callers_in_two_threads_restore_the_thresholds_once_both_leave(
    default_thresholds: tuple[int, int, int],
) -> None:
    """Thread A enters, thread B enters, A leaves (still relaxed: B is inside), B leaves
    (restored): the thresholds the first caller found come back, not the relaxed ones."""
    a_inside, b_inside, a_left = threading.Event(), threading.Event(), threading.Event()
    during_b: list[int] = []

    def first() -> None:
        with gc_relaxed():
            a_inside.set()
            b_inside.wait(5)
        a_left.set()

    def second() -> None:
        a_inside.wait(5)
        with gc_relaxed():
            b_inside.set()
            a_left.wait(5)
            during_b.append(gc.get_threshold()[0])

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert during_b == [RELAXED_THRESHOLD]
    assert gc.get_threshold() == default_thresholds
