"""Extract the expected library structures of the scg_lib_structs pages into test data.

Each method page (Teichlab/scg_lib_structs, `methods_html/*.html`) lists a method's
oligos and primers, draws the library generation step by step, then draws the final
library on both strands and how it is sequenced. Segments are marked with tags that
say what they are (`p5`, `s5`, `cbc`, `umi`, `me`, ...; see the data README). This
script reads the pages with the standard library's HTML parser (no network) and
writes, per page and per method on the page (family pages have several), the final
library segment by segment on both strands, the oligos and primers listed, the step
titles and the reads, to `tests/data/atlas/<stem>.json`, so that the atlas tests do
not need the pages at run time. What it cannot extract is listed in the file's
`not_extracted`.

    python scripts/extract_atlas.py [PAGES_DIR] [-o tests/data/atlas]

A method starts at each "Adapter and primer sequences" heading and is named by the
last `h1` before it; its final library is drawn in the `<pre>` blocks after the step
heading that says "Final library structure" (up to the next `h2`); each 5'- line
followed by a 3'- line is one library, labelled by the nearest label line, `<i>`
caption or `h4` before it.
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import sys
import tempfile
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PAGES = ROOT.parent.parent / "shared" / "data" / "scg_lib_structs" / "html"
DEFAULT_OUT = ROOT / "tests" / "data" / "atlas"
INTRODUCTION = "Illumina"  # the general introduction page, not a method

# Tags that mark segments (page_format.css colours them); every other tag is layout.
SEGMENT_TAGS = frozenset(
    ["p5", "p7", "s5", "s7", "r1", "r2", "r3", "pe1", "pe2", "pe3", "me", "cbc", "umi", "tso", "t7", "w1", "nexus", "cs1", "cs2", "hairp", "lstem", "ustem", "bulge"]
)  # fmt: skip
PRIMES = str.maketrans({"\u2032": "'", "\u2019": "'", "\u2018": "'", "\u00a0": " "})
BLOCK_TAGS = frozenset({"h1", "h2", "h3", "h4", "p", "pre", "i", "br"})


class _Events(HTMLParser):
    """A flat list of (kind, tag, text, segment tag) events: headings, blocks, text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.events: list[tuple[str, str, str, str | None]] = []
        self.stack: list[str] = []
        self.in_title = False
        self.title = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self.in_title = True
        if tag in SEGMENT_TAGS:
            self.stack.append(tag)
        if tag in BLOCK_TAGS:
            self.events.append(("start", tag, "", None))

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self.in_title = False
        if tag in SEGMENT_TAGS and tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass
        if tag in BLOCK_TAGS:
            self.events.append(("end", tag, "", None))
        if tag in {"p", "pre", "h1", "h2", "h3", "h4"}:
            self.stack.clear()  # a segment tag the page never closed ends with its block

    def handle_data(self, data: str) -> None:
        data = data.translate(PRIMES)
        if self.in_title:
            self.title += data
            return
        self.events.append(("text", "", data, self.stack[-1] if self.stack else None))


def _blocks(events: list[tuple[str, str, str, str | None]]) -> list[dict[str, object]]:
    """Group events into blocks: headings (text), paragraphs and `pre`s (tagged lines)."""
    blocks: list[dict[str, object]] = []
    current: dict[str, object] | None = None
    depth_pre = 0
    for kind, tag, text, seg in events:
        if kind == "start" and tag in {"h1", "h2", "h3", "h4"} and not depth_pre:
            current = {"kind": tag, "runs": []}
            blocks.append(current)
        elif kind == "start" and tag == "pre":
            depth_pre += 1
            current = {"kind": "pre", "runs": []}
            blocks.append(current)
        elif kind == "end" and tag == "pre":
            depth_pre = max(0, depth_pre - 1)
            current = None
        elif kind == "start" and tag == "p" and not depth_pre:
            current = {"kind": "p", "runs": []}
            blocks.append(current)
        elif kind == "end" and tag in {"h1", "h2", "h3", "h4", "p"} and not depth_pre:
            current = None
        elif kind == "start" and tag == "i" and depth_pre and current is not None:
            current["runs"].append(("", "\x01"))  # type: ignore[attr-defined]
        elif kind == "end" and tag == "i" and depth_pre and current is not None:
            current["runs"].append(("", "\x02"))  # type: ignore[attr-defined]
        elif kind == "text" and current is not None:
            current["runs"].append((seg or "", text))  # type: ignore[attr-defined]
    return blocks


def _text(block: dict[str, object]) -> str:
    raw = "".join(text for _, text in block["runs"])  # type: ignore[attr-defined]
    return " ".join(raw.replace("\x01", "").replace("\x02", "").split())


def _lines(block: dict[str, object]) -> list[list[tuple[str, str]]]:
    """A `pre` block's lines, each a list of (segment tag, text) runs."""
    lines: list[list[tuple[str, str]]] = [[]]
    for seg, text in block["runs"]:  # type: ignore[attr-defined]
        parts = text.split("\n")
        for i, part in enumerate(parts):
            if i:
                lines.append([])
            if part:
                lines[-1].append((seg, part))
    return lines


def _line_text(line: list[tuple[str, str]]) -> str:
    return "".join(text for _, text in line)


STRAND_START = re.compile(r"^\s*(\|--)?\s*(5'|3')-")
STRAND_END = re.compile(r"(-\s?3'|-\s?5'|3'-|5'-)(\s*$|,)")


def strand_segments(line: list[tuple[str, str]]) -> list[dict[str, str]]:
    """A strand line's segments: runs of one tag with the orientation marks and spaces removed.

    Untagged runs keep their text (`(dT)VXXX...XXXA`, `NNNNNNNN`); adjacent runs with the
    same tag are merged, and a run that is only spaces is dropped.
    """
    text = _line_text(line)
    start = STRAND_START.match(text)
    end = STRAND_END.search(text)
    lo = start.end() if start else 0
    hi = end.start() if end else len(text)
    out: list[dict[str, str]] = []
    pos = 0
    depth = 0  # inside `[16-bp cell barcode]` spaces are words, not layout
    for seg, run in line:
        a, b = pos, pos + len(run)
        pos = b
        piece = run[max(lo, a) - a : max(0, min(hi, b) - a)] if b > lo and a < hi else ""
        kept = []
        for char in piece:
            depth += (char == "[") - (char == "]")
            if depth > 0 or not char.isspace():
                kept.append(char)
        piece = "".join(kept)
        if not piece:
            continue
        if out and out[-1]["tag"] == seg:
            out[-1]["text"] += piece
        else:
            out.append({"tag": seg, "text": piece})
    return out


def _strand(line: list[tuple[str, str]]) -> dict[str, object]:
    segments = strand_segments(line)
    return {"segments": segments, "sequence": "".join(s["text"] for s in segments)}


def _orientation(line: list[tuple[str, str]]) -> str | None:
    m = STRAND_START.match(_line_text(line))
    return m.group(2) if m else None


def _is_bottom(line: list[tuple[str, str]]) -> bool:
    """The line under a drawn top strand is its bottom strand: `3'- ...` or `... -5'`."""
    text = _line_text(line)
    return _orientation(line) == "3'" or bool(re.search(r"-5'\s*$", text))


def _label_of(line: list[tuple[str, str]]) -> str:
    text = _line_text(line).replace("\x01", "").replace("\x02", "")
    return " ".join(text.split()).rstrip(":")


def libraries_in(pre: dict[str, object], heading: str) -> list[dict[str, object]]:
    """Each 5'- line followed by a 3'- line in a `pre`, labelled by the line before it."""
    found: list[dict[str, object]] = []
    lines = _lines(pre)
    label = heading
    i = 0
    while i < len(lines):
        line = lines[i]
        orient = _orientation(line)
        nxt = lines[i + 1] if i + 1 < len(lines) else []
        if orient == "5'" and _is_bottom(nxt):
            found.append({"label": label, "top": _strand(line), "bottom": _strand(nxt)})
            i += 2
            continue
        raw = _line_text(line)
        if orient is None and _label_of(line) and ("\x01" in raw or raw.rstrip().endswith(":")):
            label = _label_of(line)
        i += 1
    return found


OLIGO_LINE = re.compile(r"^\s*(?:(?P<label>[^:|]*?):)?\s*(?P<seq>(\|--)?\s*(5'|3')-.*)$")


def oligos_in(blocks: list[dict[str, object]]) -> list[dict[str, object]]:
    """The oligos listed under "Adapter and primer sequences": name, then strand lines."""
    oligos: list[dict[str, object]] = []
    for block in blocks:
        if block["kind"] == "p":
            runs = block["runs"]
            text = "".join(t for _, t in runs)  # type: ignore[attr-defined]
            name, sep, rest = text.partition(":")
            if not sep:
                continue
            name = " ".join(name.split())
            if re.search(r"(5'|3')-", rest):
                line = _runs_after_colon(runs)  # type: ignore[arg-type]
                oligos.append({"name": name, "strands": [_oligo_strand(line, "")]})
            else:
                oligos.append({"name": name, "strands": []})
        elif block["kind"] == "pre" and oligos:
            variant = ""
            for line in _lines(block):
                text = _line_text(line)
                m = OLIGO_LINE.match(text)
                if m and _orientation(_strip_label(line)):
                    if m.group("label") and m.group("label").strip():
                        variant = " ".join(m.group("label").split())
                    oligos[-1]["strands"].append(  # type: ignore[attr-defined]
                        _oligo_strand(_strip_label(line), variant)
                    )
    return oligos


def _runs_after_colon(runs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    seen = False
    for seg, text in runs:
        if not seen and ":" in text and not seg:
            seen = True
            text = text.split(":", 1)[1]
        if seen:
            out.append((seg, text))
    return out


def _strip_label(line: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The strand part of a variant line `V2: 5'- ... -3'` (the label before the colon)."""
    text = _line_text(line)
    m = re.search(r"(\|--)?\s*(5'|3')-", text)
    if not m:
        return line
    cut = m.start()
    out: list[tuple[str, str]] = []
    pos = 0
    for seg, run in line:
        a, b = pos, pos + len(run)
        pos = b
        if b <= cut:
            continue
        out.append((seg, run[max(0, cut - a) :]))
    return out


def _oligo_strand(line: list[tuple[str, str]], variant: str) -> dict[str, object]:
    strand = _strand(line)
    text = _line_text(line).strip()
    return {
        "variant": variant,
        "orientation": "5'->3'" if text.lstrip("|-").lstrip().startswith("5'") else "3'->5'",
        "bead": text.startswith("|--"),
        **strand,
    }


def reads_in(blocks: list[dict[str, object]]) -> list[dict[str, object]]:
    """The reads: each `h3` under "Library sequencing", with its template strand and cycles."""
    reads: list[dict[str, object]] = []
    for block in blocks:
        if block["kind"] != "h3":
            continue
        title = _text(block)
        strand = re.search(r"(top|bottom) strand as (?:the )?template", title)
        cycles = re.findall(r"(\d+)(?:-(\d+))? cycles", title)
        reads.append(
            {
                "title": title,
                "template_strand": strand.group(1) if strand else None,
                "cycles": [int(c[0]) for c in cycles],
            }
        )
    return reads


SECTION_OLIGOS = re.compile(r"adapter and primer sequences", re.I)
SECTION_STEPS = re.compile(r"step-by-step library generation", re.I)
SECTION_READS = re.compile(r"library sequencing", re.I)
FINAL = re.compile(r"final library structure", re.I)


def extract_page(path: Path) -> dict[str, object]:
    """One page's methods, each with its oligos, steps, final libraries and reads."""
    parser = _Events()
    parser.feed(path.read_text(encoding="utf-8"))
    blocks = _blocks(parser.events)
    title = " ".join(html.unescape(parser.title).split())
    methods: list[dict[str, object]] = []
    not_extracted: list[str] = []
    last_h1 = title
    section = ""
    final_heading: str | None = None
    h4 = ""
    for block in blocks:
        kind = block["kind"]
        text = _text(block) if kind != "pre" else ""
        if kind == "h1":
            # `<h1>Name<h1>` (a heading "closed" by a second opening tag) leaves an empty
            # heading after the named one: it does not rename the method
            last_h1 = text or last_h1
            continue
        if kind == "h2":
            if SECTION_OLIGOS.search(text):
                methods.append(
                    {"name": last_h1, "oligo_blocks": [], "steps": [], "libraries": [],
                     "read_blocks": [], "drawn": []}
                )  # fmt: skip
                section = "oligos"
            elif SECTION_STEPS.search(text) or re.search(r"step-by-step", text, re.I):
                section = "steps"
            elif SECTION_READS.search(text):
                section = "reads"
            else:
                section = "other"
            final_heading = None
            continue
        if not methods:
            continue
        method = methods[-1]
        if section == "oligos" and kind == "h3" and re.match(r"\(?\d+[.)]", text):
            section = "steps"  # a page whose steps have no heading of their own
        if section == "oligos":
            method["oligo_blocks"].append(block)  # type: ignore[attr-defined]
        elif section == "steps":
            if kind == "h3":
                method["steps"].append(text)  # type: ignore[attr-defined]
                final_heading = text if FINAL.search(text) else None
                h4 = ""
            elif kind == "h4":
                h4 = text.rstrip(":")
            elif kind == "pre" and final_heading is not None:
                found = libraries_in(block, h4 or method["name"])  # type: ignore[arg-type]
                method["libraries"].extend(found)  # type: ignore[attr-defined]
            elif kind == "pre":
                found = libraries_in(block, h4 or method["name"])  # type: ignore[arg-type]
                method["drawn"].extend(  # type: ignore[attr-defined]
                    lib for lib in found if _sequencer_ready(lib)
                )
        elif section == "reads":
            method["read_blocks"].append(block)  # type: ignore[attr-defined]
    out_methods = []
    for method in methods:
        # libraries drawn under the same label (Drop-ChIP's four orientations) are numbered
        labels = [lib["label"] for lib in method["libraries"]]  # type: ignore[attr-defined]
        seen: dict[str, int] = {}
        for lib in method["libraries"]:  # type: ignore[attr-defined]
            label = lib["label"]
            if labels.count(label) > 1:
                seen[label] = seen.get(label, 0) + 1
                lib["label"] = f"{label} ({seen[label]})"

        oligos = oligos_in(method.pop("oligo_blocks"))  # type: ignore[arg-type]
        reads = reads_in(method.pop("read_blocks"))  # type: ignore[arg-type]
        drawn = method.pop("drawn")
        if not method["libraries"] and drawn:
            method["libraries"] = drawn
            not_extracted.append(
                f"{method['name']}: no final-structure heading; the libraries with P5 and P7 "
                "drawn in the last steps are taken as final"
            )
        entry = {**method, "oligos": oligos, "reads": reads}
        if not method["libraries"]:
            not_extracted.append(f"{method['name']}: no final library structure drawn")
        for oligo in oligos:
            if not oligo["strands"]:
                not_extracted.append(f"{method['name']}: oligo {oligo['name']!r} has no sequence")
        for lib in method["libraries"]:  # type: ignore[attr-defined]
            top, bottom = lib["top"]["sequence"], lib["bottom"]["sequence"]
            if len(_bases(top)) != len(_bases(bottom)):
                not_extracted.append(
                    f"{method['name']}: library {lib['label']!r}: the strands are drawn "
                    "with different lengths (a ragged end or a drawing shortcut)"
                )
        out_methods.append(entry)
    if not methods:
        not_extracted.append("no method: the page describes its library in words only")
    summary = [_text(b) for b in blocks if b["kind"] == "p" and not methods][:3]
    return {
        "schema": "lablang.atlas.page.v1",
        "page": path.stem,
        "source": f"scg_lib_structs:{path.stem}",
        "title": title,
        "methods": out_methods,
        "summary": summary,
        "not_extracted": not_extracted,
    }


def _sequencer_ready(lib: dict[str, object]) -> bool:
    segments = lib["top"]["segments"]  # type: ignore[index]
    return bool(segments) and segments[0]["tag"] == "p5" and segments[-1]["tag"] == "p7"


def _bases(text: str) -> str:
    """Positions a drawn strand occupies (for comparing the lengths of the two strands)."""
    return re.sub(r"\[[^\]]*\]|\([a-zA-Z]+\)\d*|\.\.\.", "", text)


def _write(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("pages", nargs="?", type=Path, default=DEFAULT_PAGES)
    parser.add_argument("-o", "--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    if not args.pages.is_dir():
        print(f"no pages directory {args.pages}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    for path in sorted(args.pages.glob("*.html")):
        if path.stem == INTRODUCTION:
            continue
        page = extract_page(path)
        _write(args.out / f"{path.stem}.json", json.dumps(page, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
