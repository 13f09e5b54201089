"""`serve` never fails on encoding: a lone surrogate in a request's `.lab` text is E0005 at
its character, one in a path or name is -32602 naming the parameter, and a reply the
output cannot encode is written with JSON escapes (it was `-32603 internal error:
UnicodeEncodeError`, or a traceback that ended the server)."""

from __future__ import annotations

import json

from tests.hostile.bounded import ROOT, run_bounded

TEXT = "oligo a \"\\ud800\" { seq: 5'-ACGT-3' }"
TRUTH = str(ROOT / "tests" / "agents" / "tasks" / "mini_smart" / "truth.lab")


def _serve(lines: list[str], env: dict[str, str] | None = None) -> dict[int, dict]:
    stdin = "".join(line + "\n" for line in lines).encode("ascii")
    run = run_bounded(["serve"], stdin=stdin, env=env, cpu_seconds=60, memory_mb=1024)
    run.assert_clean()
    assert run.returncode == 0, run.output
    replies = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(replies) == len(lines)
    return {reply["id"]: reply for reply in replies}


def _request(ident: int, method: str, params: str) -> str:
    # written by hand: json.dumps cannot produce the lone `\ud800` escape from a str safely
    return f'{{"id": {ident}, "method": "{method}", "params": {params}}}'


def test_a_lone_surrogate_in_lab_text_is_a_located_e0005() -> None:
    """`check` and `fix` of text holding `\\ud800` report E0005 at column 10, and `fix`
    returns the text unchanged (escaped in the JSON line)."""
    text = json.dumps(TEXT)[1:-1].replace("\\\\ud800", "\\ud800")
    replies = _serve([
        _request(1, "check", f'{{"text": "{text}"}}'),
        _request(2, "fix", f'{{"text": "{text}"}}'),
    ])  # fmt: skip
    for ident in (1, 2):
        result = replies[ident]["result"]
        (diagnostic,) = result["diagnostics"]
        assert diagnostic["code"] == "E0005"
        assert diagnostic["message"] == "text is not valid UTF-8: a lone surrogate `\\ud800`"
        assert (diagnostic["line"], diagnostic["column"]) == (1, 10)
    assert replies[2]["result"]["text"] == "oligo a \"\ud800\" { seq: 5'-ACGT-3' }"


def test_a_lone_surrogate_in_a_path_or_name_is_invalid_params() -> None:
    """A surrogate in `path`, `truth`, `name` or `score`'s `text` is -32602 naming it."""
    replies = _serve([
        _request(1, "check", '{"path": "\\ud800.lab"}'),
        _request(2, "score", f'{{"text": "x\\ud800", "truth": {json.dumps(TRUTH)}}}'),
        _request(3, "check", '{"text": "oligo a {}", "name": "n\\udcff"}'),
        _request(4, "score", '{"prediction": "p", "truth": "\\udfff"}'),
    ])  # fmt: skip
    expected = {
        1: "`path` is not UTF-8 text: a lone surrogate `\\ud800` at character 0",
        2: "`text` is not UTF-8 text: a lone surrogate `\\ud800` at character 1",
        3: "`name` is not UTF-8 text: a lone surrogate `\\udcff` at character 1",
        4: "`truth` is not UTF-8 text: a lone surrogate `\\udfff` at character 0",
    }
    for ident, message in expected.items():
        assert replies[ident]["error"] == {"code": -32602, "message": message}


def test_replies_survive_an_ascii_output_encoding() -> None:
    """With an ASCII stdout, a reply holding `é` is written with JSON escapes, same value."""
    replies = _serve(
        [_request(1, "fix", '{"text": "oligo a \\"caf\\u00e9\\" { seq: 5\'-ACGT-3\' }"}')],
        env={"PYTHONIOENCODING": "ascii"},
    )
    assert replies[1]["result"]["text"] == "oligo a \"café\" { seq: 5'-ACGT-3' }"
