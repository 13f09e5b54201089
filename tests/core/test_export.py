"""`lablang export --to json` and `lablang schema`: one converter, a schema that validates it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

from lablang.cli import main
from lablang.diagnostics import Report
from lablang.export import json_schema, module_from_json, module_to_json
from lablang.source import Source
from lablang.syntax import parse
from tests.core.strategies import modules

# a test extra: the core tests' environment (`test-core`) lacks it, and skips this module
jsonschema = pytest.importorskip("jsonschema")

TOUR = Path(__file__).resolve().parents[1] / "data" / "tour.lab"


def test_export_json_validates_against_the_published_schema(tmp_path: Path) -> None:
    """The exported program is valid under the JSON Schema that `lablang schema` prints."""
    path = tmp_path / "a.lab"
    path.write_text(
        "oligo P5 {\n  seq: 5'-AATGATACGGCGACCACCGAGATCTACAC-3'\n"
        '  source: doc("Illumina 1000000002694", page: 4)\n  support: explicit\n}\n'
    )
    runner = CliRunner()
    exported = runner.invoke(main, ["export", str(path), "--to", "json"])
    assert exported.exit_code == 0, exported.output
    schema = json.loads(runner.invoke(main, ["schema"]).output)
    data = json.loads(exported.output)
    jsonschema.validate(data, schema)
    fields = {m["key"]: m for m in data["module"]["decls"][0]["body"]["members"]}
    assert fields["support"]["value"] == {
        "node": "Name",
        "id": "explicit",
        "span": fields["support"]["value"]["span"],
    }


def test_json_round_trip_preserves_the_tree_including_provenance() -> None:
    """module -> JSON -> module gives back the identical tree (spans included)."""
    report = Report()
    module = parse(Source(TOUR.read_text()), report)
    assert module_from_json(json.loads(json.dumps(module_to_json(module)))) == module


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules)
def test_any_tree_round_trips_through_json(module) -> None:  # type: ignore[no-untyped-def]
    """Generated trees survive the JSON converter unchanged and validate under the schema."""
    data = module_to_json(module)
    jsonschema.validate(
        {
            "format": "lablang.program.v1",
            "lablang": "0",
            "file": "x",
            "module": data,
            "imports": [],
        },
        json_schema(),
    )
    assert module_from_json(data) == module


def test_export_refuses_a_program_with_errors(tmp_path: Path) -> None:
    """A file with errors is not exported: diagnostics go to stderr and the exit code is 1."""
    path = tmp_path / "a.lab"
    path.write_text("oligo X { seq: 5'-ACGTx-3' }")
    out = tmp_path / "out.json"
    result = CliRunner().invoke(main, ["export", str(path), "-o", str(out)])
    assert result.exit_code == 1
    assert not out.exists()
