"""The child process of `check_speed.py --phases`: `python -m lablang check FILE`, timed.

Run as `python benchmarks/check_phases.py OUT.json FILE` (`--smoke`: one timed check of a
protocol file, its phases printed): it installs an import timer and
then runs `lablang` exactly as `python -m lablang check FILE` does (runpy, the module's
`__main__`), timing each stage where the driver calls it (read, parse, resolve, check,
each backend's import and its run, rendering). At exit it writes the phases as JSON.

Nothing is imported here beyond what the interpreter has already loaded (`sys`, `time`,
`atexit` are built in, `os` is loaded at start; no `typing`, no `__future__`), so the child pays only for what `lablang check` pays for, plus
the timers themselves (a few microseconds per import and per stage).

Times are `time.perf_counter()` readings, which on Linux are CLOCK_MONOTONIC and so
comparable with the parent's: the parent's reading before it spawns the child and after
the child ends give the interpreter's start and exit around the child's own readings.
"""

import atexit
import os
import sys
import time

clock = time.perf_counter
BEGIN = clock()

# phase -> seconds; imports: (phase, module) -> the module's own import seconds
phase_times: dict[str, float] = {}
import_times: dict[tuple[str, str], float] = {}
_phases: list[list[object]] = [["start-up", BEGIN, 0.0]]  # [name, started, nested seconds]
_imports: list[float] = []  # per executing import: seconds spent in its nested imports
seen: set[str] = set()


def _enter(name: str) -> None:
    _phases.append([name, clock(), 0.0])


def _leave() -> None:
    name, started, nested = _phases.pop()
    took = clock() - started
    phase_times[name] = phase_times.get(name, 0.0) + took - nested
    if _phases:
        _phases[-1][2] += took
    seen.add(name)


def timed(name: str, function: object) -> object:
    """`function`, its calls counted as phase `name` (its own time: nested phases apart)."""

    def call(*args: object, **kwargs: object) -> object:
        _enter(name)
        try:
            return function(*args, **kwargs)
        finally:
            _leave()

    call.__wrapped__ = function  # type: ignore[attr-defined]
    return call


def _timed_step(name: str, step: object) -> object:
    def call(*args: object) -> object:
        _imports.append(0.0)
        started = clock()
        try:
            return step(*args)
        finally:
            took = clock() - started
            nested = _imports.pop()
            key = (_phases[-1][0], name)
            import_times[key] = import_times.get(key, 0.0) + took - nested
            if _imports:
                _imports[-1] += took
            if step.__name__ == "exec_module" and name in _AFTER_IMPORT:
                _AFTER_IMPORT[name](sys.modules[name])

    return call


class _Forwarding:
    """A loader that is a class (built-in and frozen modules): a per-module stand-in."""

    def __init__(self, loader: object, name: str) -> None:
        self._loader = loader
        self.create_module = _timed_step(name, loader.create_module)
        self.exec_module = _timed_step(name, loader.exec_module)

    def __getattr__(self, attribute: str) -> object:
        return getattr(self._loader, attribute)


class ImportTimer:
    """First on `sys.meta_path`: asks the other finders, then times the module's loader."""

    @classmethod
    def find_spec(cls, name: str, path: object = None, target: object = None) -> object:
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is cls or find is None:
                continue
            spec = find(name, path, target)
            if spec is None:
                continue
            loader = spec.loader
            if loader is None or not hasattr(loader, "exec_module"):
                return spec
            if isinstance(loader, type):
                spec.loader = _Forwarding(loader, name)
            else:  # one loader object per module (source, bytecode, extension files)
                loader.create_module = _timed_step(name, loader.create_module)
                loader.exec_module = _timed_step(name, loader.exec_module)
            return spec
        return None


def _time_driver(driver: object) -> None:
    """Time the stages where `lablang.driver` calls them (its globals, its defaults)."""
    for stage in ("read_source", "resolve", "check"):
        setattr(driver, stage, timed(stage.replace("_source", ""), getattr(driver, stage)))
    parse = driver.parse
    timed_parse = timed("parse", parse)
    driver.parse = timed_parse
    for function in vars(driver).values():
        defaults = getattr(function, "__defaults__", None)
        if defaults and any(d is parse for d in defaults):
            function.__defaults__ = tuple(timed_parse if d is parse else d for d in defaults)
    backends: dict[str, str] = {}
    for kind, target in driver.BACKEND_CHECKS.items():
        if target not in backends:
            backends[target] = _backend_shim(target, len(backends))
        driver.BACKEND_CHECKS[kind] = backends[target]


def _backend_shim(target: str, number: int) -> str:
    """A stand-in module whose check function imports the backend and runs it, timed."""
    import types

    module_name, function_name = target.split(":")
    shim = types.ModuleType(f"_phases_backend_{number}")

    def check_program(*args: object) -> None:
        _enter(f"{module_name} import")
        try:
            module = __import__(module_name, fromlist=["_"])
        except ModuleNotFoundError as error:  # the driver skips a backend not landed
            if error.name and module_name.startswith(error.name):
                return
            raise
        finally:
            _leave()
        timed(f"{module_name} run", getattr(module, function_name))(*args)

    setattr(shim, function_name, check_program)
    sys.modules[shim.__name__] = shim
    return f"{shim.__name__}:{function_name}"


def _time_checking(checking: object) -> None:
    checking.diagnostics_text = timed("render", checking.diagnostics_text)
    outer = checking.check_paths
    checking.check_paths = timed("driver and CLI glue", outer)


_AFTER_IMPORT = {"lablang.driver": _time_driver, "lablang.cli.checking": _time_checking}


def _write(out: str) -> None:
    end = clock()
    while len(_phases) > 1:  # sys.exit inside a phase
        _leave()
    _leave()
    sys.meta_path.remove(ImportTimer)  # type: ignore[arg-type]
    import json  # after the end, and not timed

    payload = {
        "begin": BEGIN,
        "end": end,
        "phases": phase_times,
        "imports": [[phase, module, took] for (phase, module), took in import_times.items()],
        "seen": sorted(seen),
    }
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(payload, handle)


def main() -> None:
    out, *argv = sys.argv[1:]
    sys.meta_path.insert(0, ImportTimer)  # type: ignore[arg-type]
    atexit.register(_write, out)
    end_process = os._exit  # a check process ends with it, skipping the exit handlers

    def written_then_ended(code: int) -> None:
        atexit.unregister(_write)
        _write(out)
        end_process(code)

    os._exit = written_then_ended
    sys.argv = ["lablang", "check", *argv]
    import runpy

    runpy.run_module("lablang", run_name="__main__", alter_sys=True)


SMOKE_FILE = "examples/protocols/pcr_published.lab"


def smoke() -> None:
    """`--smoke`: one timed check of a protocol file (as `check_speed.py --phases` runs
    each start-up file), its stages all seen, its phases printed in milliseconds."""
    import json
    import subprocess
    import tempfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "phases.json"
        done = subprocess.run(
            [sys.executable, __file__, str(out), SMOKE_FILE], cwd=root, capture_output=True
        )
        assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
        child = json.loads(out.read_text("utf-8"))
    missing = {"read", "parse", "resolve", "check"} - set(child["seen"])
    assert not missing, f"no {sorted(missing)} phase: the timers must follow the driver"
    print(
        f"phases of `lablang check {SMOKE_FILE}`: {1000 * (child['end'] - child['begin']):.1f} ms"
    )
    for phase, took in child["phases"].items():
        print(f"  {phase:<32} {1000 * took:7.2f} ms")
    imported = sum(took for _phase, _module, took in child["imports"])
    print(f"  imports, all phases              {1000 * imported:7.2f} ms")


if __name__ == "__main__":
    if sys.argv[1:] == ["--smoke"]:
        smoke()
    else:
        main()
