import pytest

# Doctests run over the whole package; the entry point is not a module to import.
collect_ignore = ["lablang/__main__.py"]

# The core package's tests (`-m core`): syntax, check, fmt, records and the wheel, which
# .ci/run runs on every supported Python with only the core package and `test-core`
# installed (`python -m pytest -m core tests/core tests/syntax lablang/syntax`). Paths
# from the repository root; a folder ends with `/`.
CORE = (
    "tests/syntax/",
    "lablang/syntax/",
    "tests/core/test_syntax.py",
    "tests/core/test_parser_cache.py",
    "tests/core/test_check.py",
    "tests/core/test_fmt.py",
    "tests/core/test_records.py",
    "tests/core/test_wheel.py",
)


# Under pytest-xdist (`-n 2 --dist loadgroup`, as the README's test command runs), the tests
# of one file stay on one worker, so a module-scoped fixture (a built wheel, an analysed
# grammar) is made once; the executor tests share one worker, so one Ray instance runs at a
# time on the machine.
ONE_WORKER = ("tests/distributed/",)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    grouped = config.pluginmanager.hasplugin("xdist")
    for item in items:
        where = item.path.relative_to(root).as_posix()
        if any(where == path or (path.endswith("/") and where.startswith(path)) for path in CORE):
            item.add_marker(pytest.mark.core)
        if grouped:
            group = next((path for path in ONE_WORKER if where.startswith(path)), where)
            item.add_marker(pytest.mark.xdist_group(group))
