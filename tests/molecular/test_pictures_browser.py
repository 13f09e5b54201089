"""The pictures as a biologist sees them, in headless Chromium: at a desktop's 1400 px and
at a phone's 390 px, for every shipped example's page (`lablang draw`'s HTML), no two texts
overlap, no text is cut by its picture or spills out of its workflow box, no text is drawn
smaller than 7.5 px, and the page itself never scrolls sideways (a wide picture scrolls in
its own box).

Chromium is Debian's `chromium` (`.ci/run` installs it); without it the test is skipped on
a developer's machine and fails in CI.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from lablang.diagnostics import Report
from lablang.driver import check_file
from lablang.molecular.draw import html_page
from lablang.molecular.front import build_model

ROOT = Path(__file__).resolve().parents[2]
# every shipped example at the top of examples/, and an atlas page with three barcode rounds
EXAMPLES = [p.stem for p in sorted((ROOT / "examples").glob("*.lab"))] + ["atlas/SPLiT-seq"]
WIDTHS = {"desktop": 1400, "phone": 390}
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
]

# Loads the page in a frame of the given width, measures it once laid out, and writes
# what it found into <pre id="found"> as JSON (Chromium's window is at least 500 px wide,
# so a phone is a frame).
PROBE = """<!DOCTYPE html><html><body style="margin:0">
FRAMES
<pre id="found"></pre>
<script>
const measure = (doc, win) => {
const found = {overlaps: [], cut: [], spills: [], small: [], pageWidth: 0, window: 0};
const inter = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) *
  Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
const name = (t) => t.textContent.slice(0, 60);
doc.querySelectorAll("svg").forEach((svg, k) => {
  const box = svg.getBoundingClientRect();
  const scale = box.width / svg.width.baseVal.value;
  const texts = [...svg.querySelectorAll("text")].filter((t) => t.textContent.trim());
  const rects = texts.map((t) => t.getBoundingClientRect());
  texts.forEach((t, i) => {
    const r = rects[i];
    const size = parseFloat(win.getComputedStyle(t).fontSize) * scale;
    if (size < 7.5) found.small.push([k, name(t), size]);
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 ||
        r.bottom > box.bottom + 1) found.cut.push([k, name(t)]);
    for (let j = i + 1; j < texts.length; j++) {
      const a = inter(r, rects[j]);
      if (a > 2 * scale * scale) found.overlaps.push([k, name(t), name(texts[j]), a]);
    }
  });
  svg.querySelectorAll("g.node").forEach((g) => {
    const shape = g.querySelector("rect, polygon").getBoundingClientRect();
    g.querySelectorAll("text").forEach((t) => {
      const r = t.getBoundingClientRect();
      if (r.left < shape.left - 1 || r.right > shape.right + 1 || r.top < shape.top - 1 ||
          r.bottom > shape.bottom + 1) found.spills.push([k, name(t)]);
    });
  });
});
found.pageWidth = doc.documentElement.scrollWidth;
found.window = win.innerWidth;
return found;
};
window.addEventListener("load", () => {
  const all = {};
  document.querySelectorAll("iframe").forEach((f) => {
    all[f.dataset.example] = measure(f.contentDocument, f.contentWindow);
  });
  document.getElementById("found").textContent = JSON.stringify(all);
});
</script></body></html>
"""
FRAME = '<iframe data-example="{name}" src="{src}" style="border:0;width:{width}px;height:600px">'


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must have Debian's chromium for the picture test (.ci/run installs it)")
        pytest.skip("Debian's chromium is not installed")
    return path


def _measure(chromium: str, page: Path, profile: Path) -> dict:
    done = subprocess.run(
        [
            chromium,
            *FLAGS,
            f"--user-data-dir={profile}",
            "--window-size=1500,1000",
            "--allow-file-access-from-files",
            "--virtual-time-budget=10000",
            "--dump-dom",
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    text = done.stdout.split('<pre id="found">', 1)[1].split("</pre>", 1)[0]
    return json.loads(text.replace("&quot;", '"').replace("&amp;", "&"))


def test_every_text_of_every_page_is_whole_apart_and_readable(tmp_path: Path) -> None:
    """At 1400 px and at 390 px no two texts of a shipped example's page overlap, none is cut
    or spills from its box, none is under 7.5 px, and only a picture's own box scrolls
    sideways."""
    chromium = _chromium()
    for example in EXAMPLES:
        program = check_file(ROOT / "examples" / f"{example}.lab").program
        page = tmp_path / (example.replace("/", "-") + ".html")
        page.write_text(html_page(build_model(program, Report()).model), encoding="utf-8")
    for label, width in WIDTHS.items():
        frames = "".join(
            FRAME.format(name=e, src=e.replace("/", "-") + ".html", width=width) + "</iframe>"
            for e in EXAMPLES
        )
        probe = tmp_path / f"probe-{label}.html"
        probe.write_text(PROBE.replace("FRAMES", frames), encoding="utf-8")
        measured = _measure(chromium, probe, tmp_path / f"profile-{label}")
        assert sorted(measured) == sorted(EXAMPLES)
        for example, found in measured.items():
            assert found["window"] == width, (example, label, found["window"])
            problems = {k: found[k] for k in ("overlaps", "cut", "spills", "small") if found[k]}
            assert not problems, (example, label, problems)
            assert found["pageWidth"] <= width, (example, label, found["pageWidth"])
