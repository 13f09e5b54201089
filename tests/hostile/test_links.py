"""Every HTML writer builds each `href`/`src` from data through `lablang.links`: only a
relative, percent-encoded path or an http(s) URL can come out, whatever the names hold."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest

from lablang.links import ALLOWED_SCHEMES, url_of
from tests.hostile.bounded import ROOT, run_bounded

HOSTILE = (
    "javascript:alert(document.domain)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/x",
    "\\\\evil.example\\x",
    '"><script>alert(1)</script>',
    "/etc/passwd",
    "file:///etc/passwd",
)
# attributes a browser follows or loads
URL_ATTRIBUTES = {"href", "src", "xlink:href", "action", "formaction", "poster", "srcset",
                  "data", "background", "cite", "ping"}  # fmt: skip
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.\-]*):")


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.scripts += tag == "script"
        self.urls += [v or "" for k, v in attrs if k.lower() in URL_ATTRIBUTES]


def unsafe_urls(page: str) -> list[str]:
    """The URL attributes of `page` that a browser would read as a scheme other than
    http(s) or as another host (browsers drop tabs and newlines and leading spaces)."""
    parser = _Links()
    parser.feed(page)
    bad = []
    for url in parser.urls:
        seen = re.sub(r"^[\x00-\x20]+", "", re.sub(r"[\t\n\r]", "", url))
        scheme = _SCHEME.match(seen)
        foreign = scheme is not None and scheme.group(1).lower() not in ALLOWED_SCHEMES
        if foreign or seen.replace("\\", "/").startswith("//"):
            bad.append(url)
    assert parser.scripts == 0, page[:2000]
    return bad


# ---------------------------------------------------------------- the writers


def _suite_page(name: str) -> str:
    from lablang.sim.suite import suite_html

    row = {"id": f"{name}.task", "task": name, "file": f"{name}.lab", "certified": True,
           "success_rate": 1.0, "mean_credit": 1.0, "faults": 0, "unit_failures": 0,
           "mutants": 1, "mutants_killed": 1, "mutants_surviving": 0, "already_held": 0,
           "simulated_seconds": 1.0}  # fmt: skip
    return suite_html({"instances": 1, "seed": 0, "tasks": [row], "certified": 1, "total": 1})


def _bench_page(name: str, tmp_path: Path) -> str:
    from lablang.agent.bench import Round
    from lablang.agent.bench_report import write_reports

    rounds = [Round(name, 1, name, 1, 0, (name,), 0, {"reward": 0.5}, 0.0, 0.0, 0.0, 1,
                    f"answers/{name}/round_1.lab", name)]  # fmt: skip
    write_reports(rounds, tmp_path)
    return (tmp_path / "report.html").read_text("utf-8")


def _score_page(name: str) -> str:
    from lablang.scoring.aggregate import summarize
    from lablang.scoring.batch import AttemptScore, BatchResult
    from lablang.scoring.report import render_html

    diagnostic = {"code": "E0501", "message": name}
    row = AttemptScore(name, name, {"reward": 0.5}, False, (diagnostic,))
    summary = {"reward": summarize({name: [0.5]}, resamples=20)}
    return render_html(BatchResult((row,), summary, (diagnostic,), 0))


def _draw_pages(name: str, tmp_path: Path) -> str:
    from lablang.diagnostics import Report
    from lablang.driver import check_file
    from lablang.molecular.draw import html_page
    from lablang.molecular.front import build_model

    text = (ROOT / "examples" / "tenx_3p_v3.lab").read_text("utf-8")
    quoted = name.replace("\\", "\\\\").replace('"', '\\"').replace("\t", " ")
    titled = lambda match: f'{match.group(1)} "{quoted}"'  # noqa: E731
    text = re.sub(r'^(module \w+) "[^"]*"', titled, text, count=1, flags=re.M)
    text = re.sub(r'^(oligo \w+) "[^"]*"', titled, text, flags=re.M)
    file = tmp_path / "tenx_3p_v3.lab"
    file.write_text(text, "utf-8")
    model = build_model(check_file(file).program, Report()).model
    assert model.title == name.replace("\t", " ")  # the hostile name reaches the page
    return html_page(model)  # its libraries' and workflows' SVG pictures included


# module of each HTML writer -> a function writing its page(s) with `name` in every
# data field it shows; a new module that writes HTML must be added here
WRITERS: dict[str, Callable[[str, Path], str]] = {
    "lablang/sim/suite.py": lambda name, tmp: _suite_page(name),
    "lablang/agent/bench_report.py": _bench_page,
    "lablang/scoring/report.py": lambda name, tmp: _score_page(name),
    "lablang/molecular/draw.py": _draw_pages,
    "lablang/molecular/draw_workflow.py": _draw_pages,  # the page's workflow pictures
}
NOT_WRITERS = {"lablang/links.py"}  # the link builder itself (its doctests hold markup)
_MARKUP = re.compile(r"<svg|<html|<!doctype|href=|src=|<img|<iframe|<script|<a |<link", re.I)


@pytest.mark.parametrize("writer", sorted(WRITERS))
@pytest.mark.parametrize("name", HOSTILE)
def test_every_html_writer_links_only_relative_paths_or_http(
    writer: str, name: str, tmp_path: Path
) -> None:
    """Each HTML writer, given a hostile name in every data field, writes no URL attribute
    with a scheme other than http(s), none pointing at another host, and no script tag."""
    page = WRITERS[writer](name, tmp_path)
    assert page
    assert unsafe_urls(page) == []


def test_no_module_writes_html_without_being_in_the_writers_list() -> None:
    """Every module of `lablang/` with HTML or SVG markup is listed in `WRITERS` (so the
    test above runs it), and every `href=`/`src=` it builds from data calls `url_attribute`."""
    found = set()
    for file in sorted((ROOT / "lablang").rglob("*.py")):
        relative = file.relative_to(ROOT).as_posix()
        text = file.read_text("utf-8")
        if relative in NOT_WRITERS or not _MARKUP.search(text):
            continue
        found.add(relative)
        for number, line in enumerate(text.splitlines(), start=1):
            built = re.search(r"""\b(?:href|src)=\\?["']?\{""", line)
            assert not built or "url_attribute(" in line, f"{relative}:{number}: {line.strip()}"
    assert found == set(WRITERS)


def test_the_meta_check_sees_an_unlisted_writer(tmp_path: Path) -> None:
    """The markup pattern the meta-test greps for matches a new writer's f-string link."""
    line = """    return f'<a href="{name}.json">{html.escape(name)}</a>'"""
    assert _MARKUP.search(line)
    assert re.search(r"""\b(?:href|src)=\\?["']?\{""", line)


@pytest.mark.parametrize("name", HOSTILE)
def test_url_of_keeps_no_scheme_but_http(name: str) -> None:
    """`url_of` turns a hostile target into a relative path or an http(s) URL."""
    url = url_of(name)
    scheme = _SCHEME.match(url)
    assert not scheme or scheme.group(1).lower() in ALLOWED_SCHEMES
    assert not url.startswith(("/", "\\"))


def test_url_of_keeps_http_links_and_encodes_relative_paths() -> None:
    """An https URL stays a link to its host; a relative path keeps its folders."""
    assert url_of("https://example.org/a?b=1#c") == "https://example.org/a?b=1#c"
    assert url_of("certs/a b.cert.json") == "certs/a%20b.cert.json"


def test_certify_suite_page_links_a_javascript_named_task_as_a_file(tmp_path: Path) -> None:
    """The audit's reproducer: a suite file named `javascript:alert(document.domain).lab`
    gives, in `certify --out`'s suite.html, a percent-encoded relative link to its
    certificate (exit 0, within 120 s of CPU and 1.5 GB; a normal run takes ~2 s, 90 MB)."""
    suite = tmp_path / "suite"
    suite.mkdir()
    hostile = suite / "javascript:alert(document.domain).lab"
    shutil.copy(ROOT / "examples" / "tasks" / "move_tube.lab", hostile)
    out = tmp_path / "out"
    run = run_bounded(
        ["certify", str(suite), "--instances", "1", "--out", str(out)],
        cpu_seconds=120,
        memory_mb=1536,
        env={"MUJOCO_GL": "egl"},
    )
    run.assert_clean()
    assert run.returncode == 0, run.output
    page = (out / "suite.html").read_text("utf-8")
    assert 'href="javascript%3Aalert%28document.domain%29.move_tube.cert.json"' in page
    assert unsafe_urls(page) == []
    assert (out / "javascript:alert(document.domain).move_tube.cert.json").is_file()
