"""`lablang serve`: one process answers every JSON-lines request, bad ones with an error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from lablang.agent.serve import handle, request_lines

ROOT = Path(__file__).resolve().parents[2]
TRUTH = ROOT / "tests" / "agents" / "tasks" / "mini_smart" / "truth.lab"
BROKEN = "protocol p { step b { incubate: 37 C for 20 sec } }"


def _serve(lines: str) -> list[dict]:
    done = subprocess.run(
        [sys.executable, "-m", "lablang", "serve"],
        input=lines,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        check=True,
    )
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_serve_answers_each_request_once_in_order_and_bad_requests_get_errors() -> None:
    """Over stdio, check/fix/export/score/spec requests get results and malformed lines,
    unknown methods and bad params get JSON-RPC error replies; the server survives each
    and stops at `shutdown` (later lines are not read)."""
    truth = TRUTH.read_text("utf-8")
    good = [
        {"id": 1, "method": "check", "params": {"text": "segment UMI = umi(12)"}},
        {"id": 2, "method": "check", "params": {"text": BROKEN, "name": "a.lab"}},
        {"id": 3, "method": "fix", "params": {"text": BROKEN}},
        {"id": 4, "method": "export", "params": {"text": truth, "to": "libstruct-t1"}},
        {"id": 5, "method": "score", "params": {"text": truth, "truth": str(TRUTH)}},
        {"id": 6, "method": "spec", "params": {"sections": ["rubrics"]}},
        {"id": 7, "method": "nope"},
        {"id": 8, "method": "check", "params": {"txt": "x"}},
        {"id": 9, "method": "export", "params": {"text": truth, "to": "pdf"}},
        {"id": "ten", "method": "check", "params": {"path": str(TRUTH)}},
    ]
    lines = request_lines(good[:6]) + "{not json\n" + "[1, 2]\n" + request_lines(good[6:])
    lines += request_lines([{"id": 11, "method": "shutdown"}, {"id": 12, "method": "check"}])
    replies = _serve(lines)
    assert [r["id"] for r in replies] == [1, 2, 3, 4, 5, 6, None, None, 7, 8, 9, "ten", 11]
    by_id = {r["id"]: r for r in replies if r["id"] is not None}
    assert by_id[1]["result"]["result"] == "ok"
    assert [d["code"] for d in by_id[2]["result"]["diagnostics"]] == ["E0104"]
    assert by_id[3]["result"]["text"] == BROKEN.replace("20 sec", "20 s")
    assert by_id[3]["result"]["applied"] == 1 and by_id[3]["result"]["result"] == "ok"
    assert json.loads(by_id[4]["result"]["text"])["libraries"][0]["library_id"] == "cdna_library"
    assert by_id[5]["result"]["metrics"]["reward"] > 0.999
    assert by_id[6]["result"]["text"].startswith("## Rubrics")
    assert [r["error"]["code"] for r in replies if r["id"] is None] == [-32700, -32600]
    assert by_id[7]["error"]["code"] == -32601
    assert by_id[8]["error"]["code"] == -32602 and by_id[9]["error"]["code"] == -32602
    assert by_id["ten"]["result"]["result"] == "ok"
    assert by_id[11]["result"] == {"shutdown": True}


def test_handle_never_raises_on_strange_requests() -> None:
    """Requests of every wrong shape are answered with an error, never an exception."""
    strange = [None, 3, "check", [], {"method": 3}, {"id": [1], "method": "check"},
               {"id": 1, "method": "check", "params": []},
               {"id": 1, "method": "check", "params": {"text": 5}},
               {"id": 1, "method": "check", "params": {"text": "", "roots": "x"}},
               {"id": 1, "method": "fix", "params": {"text": "", "rounds": 0}},
               {"id": 1, "method": "score", "params": {"text": "", "truth": "/nonexistent"}},
               {"id": 1, "method": "spec", "params": {"sections": ["nope"]}}]  # fmt: skip
    for request in strange:
        reply = handle(request)
        assert "error" in reply and reply["error"]["code"] in (-32600, -32601, -32602), request
