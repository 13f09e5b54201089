"""Exporting a checked program: JSON from the AST's records, and the backends' formats.

>>> from lablang.driver import check_text
>>> text, _ = export(check_text("oligo X { seq: 5'-ACGT-3' }"), "json")
>>> import json; json.loads(text)["module"]["decls"][0]["name"]
'X'
"""

from __future__ import annotations

import importlib
import json
import types
import typing
from typing import Any

from attrs import fields, has

from lablang import __version__, ast
from lablang.diagnostics import Report
from lablang.export_targets import EXPORTERS, PROTOCOL_ID_TARGETS
from lablang.source import Span

__all__ = ["EXPORTERS", "export", "json_schema", "module_from_json", "module_to_json"]

FORMAT = "lablang.program.v1"

_NODES: dict[str, type] = {
    name: cls for name, cls in vars(ast).items() if isinstance(cls, type) and has(cls)
}


def _unstructure(value: Any) -> Any:
    """A node as a dict naming its class under `node`, a span as `{start, end}`, a tuple
    as a list; strings, numbers, booleans and None as they are."""
    kind = type(value)
    if kind is Span:
        return {"start": value.start, "end": value.end}
    if kind is tuple:
        return [_unstructure(v) for v in value]
    if has(kind):
        data: dict[str, Any] = {"node": kind.__name__}
        for field in fields(kind):
            data[field.name] = _unstructure(getattr(value, field.name))
        return data
    return value


def _structure_value(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_structure_value(v) for v in value)
    if isinstance(value, dict):
        if "node" in value:
            cls = _NODES.get(value["node"])
            if cls is None:
                raise ValueError(f"unknown node `{value['node']}`")
            names = {f.name for f in fields(cls)}
            return cls(**{k: _structure_value(v) for k, v in value.items() if k in names})
        if set(value) == {"start", "end"}:
            return Span(int(value["start"]), int(value["end"]))
    return value


def module_to_json(module: ast.Module) -> dict[str, Any]:
    """The AST as plain JSON data; every node carries its class name under `node`."""
    data = _unstructure(module)
    assert isinstance(data, dict)
    return data


def module_from_json(data: dict[str, Any]) -> ast.Module:
    """The inverse of `module_to_json`."""
    module = _structure_value(data)
    if not isinstance(module, ast.Module):
        raise ValueError("the JSON is not a lablang module (`node` is not `Module`)")
    return module


def export(
    result: Any, target: str, *, protocol_id: str | None = None
) -> tuple[str | None, Report]:
    """Export a `CheckResult` to a target format; returns the text (or None) and diagnostics.

    `protocol_id` names the benchmark protocol a LibStructBench document answers (the
    targets of `PROTOCOL_ID_TARGETS`; the default is the module's name).
    """
    if protocol_id is not None and target not in PROTOCOL_ID_TARGETS:
        raise ValueError(
            f"`{target}` takes no protocol id (only {', '.join(sorted(PROTOCOL_ID_TARGETS))})"
        )
    module_name, function_name = EXPORTERS[target].split(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:
        report = Report()
        report.add(
            "E0007",
            f"export to `{target}` is not available in this build (partial)",
            result.source,
            help="`lablang export --to json` is always available",
        )
        return None, report
    if protocol_id is not None:
        text, report = getattr(module, function_name)(result, protocol_id)
    else:
        text, report = getattr(module, function_name)(result)
    return text, report


def _export_json(result: Any) -> tuple[str, Report]:
    payload = {
        "format": FORMAT,
        "lablang": __version__,
        "file": result.source.name,
        "module": module_to_json(result.program.root.module),
        "imports": sorted(".".join(path) for path in result.program.modules),
    }
    from lablang.molecular.interchange import provenance

    molecular = provenance(result)
    if molecular is not None:
        payload["molecular"] = molecular  # what the interpreter derived, per state/library
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n", Report()


# ---------------------------------------------------------------- JSON Schema
_STATUS = {"enum": ["derived", "declared", "unknown", "partial"]}
_MOLECULAR_SCHEMA: dict[str, Any] = {
    "description": "what the molecular interpreter derived: per state and library, its status "
    "(derived, declared, unknown after a failed step, partial as marked) and the reason",
    "type": "object",
    "properties": {
        "graphs": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "derived": {"type": "boolean"},
                    "unknown_steps": {"type": "array", "items": {"type": "string"}},
                    "states": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string"},
                                "status": _STATUS,
                                "reason": {"type": "string"},
                                "strands": {
                                    "description": "each strand 5'->3' in lablang notation "
                                    "(empty for an unknown state)",
                                    "type": "array",
                                    "items": {
                                        "type": "object",
                                        "properties": {
                                            "name": {"type": "string"},
                                            "moltype": {"enum": ["DNA", "RNA", "chimera"]},
                                            "seq": {"type": "string"},
                                        },
                                        "required": ["name", "moltype", "seq"],
                                    },
                                },
                                "circular": {
                                    "description": "a closed circle: each strand goes on "
                                    "from its last base to its first",
                                    "type": "boolean",
                                },
                            },
                            "required": ["name", "status", "reason", "strands"],
                        },
                    },
                },
                "required": ["name", "derived", "unknown_steps", "states"],
            },
        },
        "libraries": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "status": _STATUS,
                    "reason": {"type": "string"},
                    "source": {"type": ["string", "null"]},
                    "circular": {"type": "boolean"},
                },
                "required": ["name", "status", "reason", "source"],
            },
        },
    },
    "required": ["graphs", "libraries"],
}


def json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of `lablang export --to json`."""
    defs: dict[str, Any] = {
        "Span": {
            "type": "object",
            "properties": {"start": {"type": "integer"}, "end": {"type": "integer"}},
            "required": ["start", "end"],
            "additionalProperties": False,
        }
    }
    namespace = {**vars(ast), **vars(typing)}
    for name, cls in _NODES.items():
        if cls is Span:
            continue
        hints = typing.get_type_hints(cls, globalns=namespace)
        properties: dict[str, Any] = {"node": {"const": name}}
        for field in fields(cls):
            properties[field.name] = _type_schema(hints[field.name])
        defs[name] = {
            "type": "object",
            "properties": properties,
            "required": ["node", *(f.name for f in fields(cls))],
            "additionalProperties": False,
        }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "lablang program",
        "type": "object",
        "properties": {
            "format": {"const": FORMAT},
            "lablang": {"type": "string"},
            "file": {"type": "string"},
            "module": {"$ref": "#/$defs/Module"},
            "imports": {"type": "array", "items": {"type": "string"}},
            "molecular": _MOLECULAR_SCHEMA,
        },
        "required": ["format", "lablang", "file", "module", "imports"],
        "$defs": defs,
    }


def _type_schema(hint: Any) -> dict[str, Any]:
    origin = typing.get_origin(hint)
    if hint is str:
        return {"type": "string"}
    if hint is int:
        return {"type": "integer"}
    if hint is bool:
        return {"type": "boolean"}
    if hint is type(None):
        return {"type": "null"}
    if isinstance(hint, type) and has(hint):
        return {"$ref": f"#/$defs/{hint.__name__}"}
    if origin is tuple:
        args = typing.get_args(hint)
        return {"type": "array", "items": _type_schema(args[0])}
    if origin in (typing.Union, types.UnionType):
        return {"anyOf": [_type_schema(a) for a in typing.get_args(hint)]}
    raise TypeError(f"no JSON Schema for {hint!r}")
