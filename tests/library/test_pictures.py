"""The committed pictures under examples/pictures/ are current and well formed."""

from __future__ import annotations

import importlib.util
import xml.etree.ElementTree as ET
from types import ModuleType

from ._data import ROOT

SCRIPT = ROOT / "scripts" / "render_pictures.py"


def render_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("render_pictures", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_pictures_are_what_the_script_renders_now() -> None:
    """Every example's library and workflow SVG equals a fresh rendering, byte for byte
    (run `python scripts/render_pictures.py` after changing an example or the drawing)."""
    fresh = render_module().pictures()
    assert len(fresh) == 15  # 7 workflows, 8 libraries
    for name, text in fresh.items():
        path = ROOT / "examples" / "pictures" / name
        assert path.is_file(), f"{name} is missing"
        assert path.read_text(encoding="utf-8") == text, f"{name} is stale"


def test_library_pictures_are_svg_with_every_read_and_both_strands() -> None:
    """Each library picture parses as SVG, marks 5' and 3' on both strands and has a lane
    (primer bar and arrow) for every read of the library."""
    module = render_module()
    for name, text in module.pictures().items():
        root = ET.fromstring(text)
        assert root.tag.endswith("svg")
        if not name.endswith(".library.svg"):
            continue
        texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
        assert texts.count("5'") == 2 and texts.count("3'") == 2, name
        reads = [t for t in texts if t.startswith(("R1:", "R2:", "I1:", "I2:"))]
        assert len(reads) >= 3 and all("nt" in t for t in reads), name
        assert "has no site" not in text, name
