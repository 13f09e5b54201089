"""The formatter: one canonical layout, every comment kept, meaning never changed.

`format_source` prints the tree back, re-inserting comments before the member they
precede (or after it, on its line), then parses its own output and refuses to return
it unless the tree (without positions) and the comments are the same.

>>> from lablang.diagnostics import Report
>>> from lablang.source import Source
>>> print(format_source(Source("oligo X{seq:5'-ACGT-3' # primer\\nrole:primer}"), Report()), end="")
oligo X {
  seq: 5'-ACGT-3'  # primer
  role: primer
}
"""

from __future__ import annotations

import re
from typing import Any, assert_never

from attrs import fields, has

from lablang import ast
from lablang.diagnostics import Report
from lablang.source import Source, Span
from lablang.syntax import parse

__all__ = ["canonical_text", "format_module", "format_source", "strip_spans"]

INDENT = "  "
# A block or record stays on one line when it was written on one line (or is printed from
# a tree alone), holds no comment and fits in LINE_LENGTH; otherwise one member a line.
LINE_LENGTH = 100
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# binding power of each binary operator (higher binds tighter)
_BINARY = {
    "|>": 1,
    "->": 2,
    "or": 4,
    "and": 5,
    "==": 7,
    "!=": 7,
    "<": 7,
    "<=": 7,
    ">": 7,
    ">=": 7,
    "in": 7,
    "~": 7,
    "of": 8,
    "..": 9,
    "+": 10,
    "-": 10,
    "*": 11,
    "/": 11,
    "%": 11,
}
_NON_ASSOC = {"==", "!=", "<", "<=", ">", ">=", "in", "~", "of", ".."}
_QUANTIFIER, _NOT, _UNARY, _POSTFIX, _PRIMARY = 2, 6, 12, 13, 14


def format_source(source: Source, report: Report) -> str | None:
    """The canonical text of `source`, or None (with diagnostics) if it cannot be formatted."""
    module = parse(source, report)
    if report.has_errors:
        return None
    text = format_module(module, source.text)
    check = Report()
    again = parse(Source(text, source.name), check)
    same_tree = not check.has_errors and strip_spans(again) == strip_spans(module)
    same_comments = sorted(c.text.rstrip() for c in again.comments) == sorted(
        c.text.rstrip() for c in module.comments
    )
    same_diagnostics = (
        same_tree and same_comments and _codes(source) == _codes(Source(text, source.name))
    )
    if not (same_tree and same_comments and same_diagnostics):
        what = (
            "the tree"
            if not same_tree
            else "the comments"
            if not same_comments
            else "what `check` reports"
        )
        report.add(
            "E0010",
            f"formatting would change {what}; the file is left as it is",
            source,
            Span(0, 0),
            help="this is a formatter bug: please report it with the file",
        )
        return None
    return text


def _codes(source: Source) -> list[str]:
    # The check's verdict must not depend on layout: compared by code (messages may
    # quote line numbers, which formatting moves).
    from lablang.driver import check_source

    return sorted(d.code for d in check_source(source).report)


def canonical_text(text: str, name: str = "<generated>") -> str:
    """Generated `.lab` text (a drafted task, an import) in the canonical layout.

    Text that cannot be formatted is returned as it is: the generator's own tests catch it.

    >>> canonical_text("oligo X{seq:5'-ACGT-3'}")
    "oligo X {\\n  seq: 5'-ACGT-3'\\n}\\n"
    """
    formatted = format_source(Source(text, name), Report())
    return text if formatted is None else formatted


def strip_spans(node: Any) -> Any:
    """A tree without positions and comments, for comparing meaning."""
    if isinstance(node, tuple):
        return tuple(strip_spans(item) for item in node)
    if isinstance(node, Span):
        return None
    if has(type(node)):
        values: dict[str, Any] = {}
        for field in fields(type(node)):
            if field.name == "comments":
                values[field.name] = ()
            elif field.name == "text" and isinstance(node, ast.Sequence):
                values[field.name] = re.sub(r"\s+", " ", node.text)
            else:
                values[field.name] = strip_spans(getattr(node, field.name))
        return type(node)(**values)
    return node


def format_module(module: ast.Module, text: str = "") -> str:
    """Print a module in the canonical layout (comments taken from the tree)."""
    printer = _Printer(text, sorted(module.comments, key=lambda c: c.span.start))
    return printer.module(module)


class _Printer:
    def __init__(self, text: str, comments: list[ast.Comment], wrap: bool = True) -> None:
        self.text = text
        self.comments = comments
        self.next_comment = 0
        self.lines: list[str] = []
        self.wrap = wrap  # False inside a record printed on one line

    # ------------------------------------------------------------ comments
    def _flush(self, before: int, indent: str) -> None:
        while (
            self.next_comment < len(self.comments)
            and self.comments[self.next_comment].span.start < before
        ):
            self.lines.append(indent + self.comments[self.next_comment].text.rstrip())
            self.next_comment += 1

    def _comment_before(self, position: int) -> bool:
        return (
            self.next_comment < len(self.comments)
            and self.comments[self.next_comment].span.start < position
        )

    def _trailing(self, end: int, limit: int | None = None) -> None:
        """Append a comment that sits on the same source line just after `end`."""
        if self.next_comment >= len(self.comments):
            return
        comment = self.comments[self.next_comment]
        if limit is not None and comment.span.start >= limit:
            return
        gap = self.text[end : comment.span.start]
        if comment.span.start >= end and "\n" not in gap:
            self.lines[-1] += "  " + comment.text.rstrip()
            self.next_comment += 1

    def _blank_before(self, previous_end: int | None, start: int) -> bool:
        if previous_end is None:
            return False
        between = self.text[previous_end:start]
        return bool(re.search(r"\n[ \t]*\n", between))

    # ------------------------------------------------------------ top level
    def module(self, module: ast.Module) -> str:
        if module.name is not None:
            self._flush(self._header_start(), "")
            header = f"module {module.name}" + (
                f" {_string(module.title)}" if module.title is not None else ""
            )
            self.lines.append(header)
            self._trailing(self._header_end(module))
        if module.uses:
            if self.lines:
                self.lines.append("")
            for use in module.uses:
                self._flush(use.span.start, "")
                self.lines.append(_use(use))
                self._trailing(use.span.end)
        for decl in module.decls:
            if self._comment_before(decl.span.start) and self.lines and self.lines[-1] != "":
                self.lines.append("")  # a comment above a declaration starts a paragraph
            self._flush(decl.span.start, "")
            if self.lines and self.lines[-1] != "" and not self.lines[-1].startswith("#"):
                self.lines.append("")
            self._decl(decl)
        self._flush(len(self.text) + 1, "")
        while self.lines and self.lines[-1] == "":
            self.lines.pop()
        return "\n".join(self.lines) + "\n" if self.lines else ""

    def _header_match(self) -> re.Match[str] | None:
        # comments are skipped: the header is the first `module` outside a comment
        for match in re.finditer(
            r"#[^\n]*|module\s+[A-Za-z_][\w.]*(\s*\"(?:[^\"\\\n]|\\.)*\")?", self.text
        ):
            if not match.group().startswith("#"):
                return match
        return None

    def _header_start(self) -> int:
        match = self._header_match()
        return match.start() if match else 0

    def _header_end(self, module: ast.Module) -> int:
        match = self._header_match()
        return match.end() if match else 0

    def _decl(self, decl: ast.Decl) -> None:
        head = [decl.kind, decl.name]
        text = " ".join(head)
        if decl.params is not None:
            text += _params(decl.params)
        if decl.scope is not None:
            text += " in " + ".".join(decl.scope)
        if decl.title is not None:
            text += " " + _string(decl.title)
        if decl.type is not None:
            text += " : " + expr(decl.type)
        text += "".join(" " + _clause(c) for c in decl.clauses)
        if decl.value is not None:
            self.lines.append(f"{text} = {expr(decl.value)}")
            self._trailing(decl.span.end)
        elif decl.body is not None:
            self._block(text, decl.body, "", (), one_line=False)
        else:
            self.lines.append(text)
            self._trailing(decl.span.end)

    def _block(
        self,
        head: str,
        block: ast.Block,
        indent: str,
        after: tuple[ast.Clause, ...],
        one_line: bool = True,
    ) -> None:
        """A block: a declaration's body one member a line; a nested block may stay on one line."""
        tail = "".join(" " + _clause(c) for c in after)
        if after and not self._comments_inside(block.span):
            # `pair p {a = 2} vs {a = 3} at op`: a body between clauses reads best inline
            self.lines.append(f"{head} {expr(block)}{tail}")
            return
        if not block.members and not self._comments_inside(block.span):
            self.lines.append(f"{head} {{}}{tail}")
            return
        line = self._one_line(head, block, tail) if one_line else None
        if line is not None:
            self.lines.append(line)
            self._skip_comments(block.span.end)
            return
        self.lines.append(f"{head} {{")
        first = block.members[0].span.start if block.members else block.span.end
        self._trailing(block.span.start + 1, limit=first)
        inner = indent + INDENT
        previous_end: int | None = None
        for position, member in enumerate(block.members):
            self._flush(member.span.start, inner)
            if (
                self._blank_before(previous_end, member.span.start)
                and self.lines[-1].strip() != "{"
            ) and not self.lines[-1].endswith("{"):
                self.lines.append("")
            self._member(member, inner)
            following = block.members[position + 1] if position + 1 < len(block.members) else None
            if following is not None and _needs_separator(member, following):
                self.lines[-1] += ";"
            self._trailing(member.span.end)
            previous_end = member.span.end
        self._flush(block.span.end - 1, inner)
        self.lines.append(f"{indent}}}{tail}")

    def _written_on_one_line(self, span: Span) -> bool:
        return "\n" not in self.text[span.start : span.end] and not self._comments_inside(span)

    def _one_line(self, head: str, block: ast.Block, tail: str) -> str | None:
        """`head { a: 1  b: 2 }` when the block may stay on one line, else None."""
        if self.wrap and not self._written_on_one_line(block.span):
            return None
        inline = _Printer(self.text, [], self.wrap)
        texts = []
        for member in block.members:
            inline.lines = []
            inline._member(member, "")
            if len(inline.lines) != 1:
                return None
            texts.append(inline.lines[0])
        line = f"{head} {{ {_joined(block.members, texts)} }}{tail}"
        return line if len(line) <= LINE_LENGTH or not self.wrap else None

    def _skip_comments(self, end: int) -> None:
        while (
            self.next_comment < len(self.comments)
            and self.comments[self.next_comment].span.start < end
        ):
            self.next_comment += 1

    def _wraps(self, field: ast.Field, line: str) -> bool:
        """Whether a record value is printed one member a line (see LINE_LENGTH)."""
        record = field.value
        if not (self.wrap and isinstance(record, ast.Block) and record.members) or field.clauses:
            return False
        return len(line) > LINE_LENGTH or not self._written_on_one_line(record.span)

    def _comments_inside(self, span: Span) -> bool:
        return any(span.start < c.span.start < span.end for c in self.comments[self.next_comment :])

    def _member(self, member: ast.Member, indent: str) -> None:
        match member:
            case ast.Field():
                key = (
                    member.key
                    if _NAME.match(member.key) or member.key.isdigit()
                    else _string(member.key)
                )
                text = f"{key}: {expr(member.value)}" + "".join(
                    " " + _clause(c) for c in member.clauses
                )
                if self._wraps(member, indent + text):
                    assert isinstance(member.value, ast.Block)
                    self._block(f"{indent}{key}:", member.value, indent, ())
                elif self.wrap and len(indent + text) > LINE_LENGTH and not member.clauses:
                    self.lines += _wrapped_chain(f"{indent}{key}: ", member.value)
                else:
                    self.lines.append(indent + text)
            case ast.Binding():
                self.lines.append(f"{indent}{member.name} = {expr(member.value)}")
            case ast.Entry():
                text = member.keyword
                if member.name is not None:
                    text += " " + member.name
                if member.params is not None:
                    text += _params(member.params)
                if member.title is not None:
                    text += " " + _string(member.title)
                if member.type is not None:
                    text += ": " + expr(member.type)
                before, after = _split_clauses(member.clauses, member.body)
                text += "".join(" " + _clause(c) for c in before)
                if member.body is not None:
                    self._block(indent + text, member.body, indent, after)
                else:
                    self.lines.append(indent + text)
            case ast.ExprEntry():
                text = f"{member.keyword} {expr(member.value)}"
                before, after = _split_clauses(member.clauses, member.body)
                text += "".join(" " + _clause(c) for c in before)
                if member.body is not None:
                    self._block(indent + text, member.body, indent, after)
                else:
                    self.lines.append(indent + text)
            case ast.ExprStmt():
                text = expr(member.value) + "".join(" " + _clause(c) for c in member.clauses)
                self.lines.append(indent + text)
            case _:
                assert_never(member)


def _joined(members: tuple[ast.Member, ...], texts: list[str]) -> str:
    """Members on one line: `add: 5 uL  to: pcr`, `do { ... }  success: ...`, `a = 1; b = 2`."""
    joined = texts[0]
    for previous, member, text in zip(members[:-1], members[1:], texts[1:], strict=True):
        keyed = isinstance(previous, ast.Field) or (
            isinstance(previous, ast.Entry) and previous.body is not None
        )
        keyed = keyed and isinstance(member, ast.Field | ast.Entry)
        joined += ("  " if keyed and not _needs_separator(previous, member) else "; ") + text
    return joined


def _wrapped_chain(head: str, value: ast.Expr) -> list[str]:
    """A long `a and b and c` (or `or`) broken before its operators, aligned under `a`."""
    if not (isinstance(value, ast.Binary) and value.op in ("and", "or")):
        return [head + expr(value)]
    op, operands = value.op, []
    node: ast.Expr = value
    while isinstance(node, ast.Binary) and node.op == op:
        operands.append(node.right)
        node = node.left
    operands.append(node)
    operands.reverse()
    power = _BINARY[op]
    texts = [expr(operands[0], power)] + [f"{op} {expr(o, power + 1)}" for o in operands[1:]]
    lines = [head + texts[0]]
    margin = " " * len(head)
    for text in texts[1:]:
        if len(lines[-1]) + 1 + len(text) <= LINE_LENGTH:
            lines[-1] += " " + text
        else:
            lines.append(margin + text)
    return lines


def _split_clauses(
    clauses: tuple[ast.Clause, ...], body: ast.Block | None
) -> tuple[tuple[ast.Clause, ...], tuple[ast.Clause, ...]]:
    if body is None:
        return clauses, ()
    before = tuple(c for c in clauses if c.span.start < body.span.start)
    after = tuple(c for c in clauses if c.span.start >= body.span.start)
    return before, after


def _needs_separator(member: ast.Member, following: ast.Member) -> bool:
    """Whether two members would run together without a `;` between them."""
    if isinstance(member, ast.Entry) and member.body is not None and not member.clauses:
        return False
    first = _member_text_start(following)
    return first[:1] in ("(", "[", "-", "+", "±", "{") or first.startswith("5'")


def _member_text_start(member: ast.Member) -> str:
    match member:
        case ast.ExprStmt():
            return expr(member.value)
        case _:
            return "x"


def _use(use: ast.Use) -> str:
    text = "use " + ".".join(use.path)
    if use.names:
        text += ".{" + ", ".join(use.names) + "}"
    if use.alias:
        text += " as " + use.alias
    return text


def _params(params: tuple[ast.Param, ...]) -> str:
    parts = []
    for param in params:
        text = param.name
        if param.type is not None:
            text += ": " + expr(param.type)
        if param.default is not None:
            text += " = " + expr(param.default)
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


def _clause(clause: ast.Clause) -> str:
    value = clause.value
    if isinstance(value, ast.Assignment):
        return f"{clause.keyword} {value.name} = {expr(value.value)}"
    return f"{clause.keyword} {expr(value)}"


def _string(value: str) -> str:
    escaped = (
        value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    )
    return f'"{escaped}"'


def _precedence(node: ast.Expr) -> int:
    match node:
        case ast.Binary(op=op):
            return _BINARY[op]
        case ast.Quantifier():
            return _QUANTIFIER
        case ast.Unary(op="not"):
            return _NOT
        case ast.Unary():
            return _UNARY
        case ast.Call() | ast.Attribute() | ast.Index() | ast.Optional():
            return _POSTFIX
        case _:
            return _PRIMARY


def expr(node: ast.Expr, minimum: int = 0) -> str:
    """An expression as canonical text, with parentheses only where they are needed."""
    text = _expr(node)
    if _precedence(node) < minimum:
        return f"({text})"
    return text


def _expr(node: ast.Expr) -> str:
    match node:
        case ast.Number(text=text):
            return text
        case ast.Quantity(number=number, unit=unit):
            return f"{number} {unit}"
        case ast.String(value=value):
            return _string(value)
        case ast.Bool(value=value):
            return "true" if value else "false"
        case ast.NoneLit():
            return "none"
        case ast.End() as end:
            return ast.end_text(end)
        case ast.Name(id=name):
            return name
        case ast.Sequence(moltype=moltype, text=text):
            body = re.sub(r"\s+", " ", text)
            return f"{moltype} {body}" if moltype else body
        case ast.Call(func=func, args=args):
            return f"{expr(func, _POSTFIX)}({', '.join(_arg(a) for a in args)})"
        case ast.Attribute(value=value, name=name):
            return f"{expr(value, _POSTFIX)}.{name}"
        case ast.Index(value=value, index=index):
            return f"{expr(value, _POSTFIX)}[{expr(index)}]"
        case ast.Optional(value=value):
            return f"{expr(value, _POSTFIX)}?"
        case ast.Unary(op="not", operand=operand):
            # `not (w in pan)`: a negated comparison keeps its parentheses, for the reader
            compared = isinstance(operand, ast.Binary) and _BINARY[operand.op] == 7
            return f"not ({expr(operand)})" if compared else f"not {expr(operand, _NOT)}"
        case ast.Unary(op=op, operand=operand):
            inner = expr(operand, _UNARY)
            if op in "+-" and inner[:1] in "+-±":
                inner = f"({inner})"
            return f"{op}{inner}"
        case ast.Binary(op=op, left=left, right=right):
            power = _BINARY[op]
            if op == "->":
                return f"{expr(left, 4)} -> {expr(right, 2)}"
            tight = not isinstance(left, ast.Quantity) and not isinstance(right, ast.Quantity)
            if op == ".." and tight and min(_precedence(left), _precedence(right)) >= _POSTFIX:
                return f"{expr(left)}..{expr(right)}"  # `0..5`, `rack.slot[0..N]`
            if op in _NON_ASSOC:
                return f"{expr(left, power + 1)} {op} {expr(right, power + 1)}"
            if op == "|>":
                return f"{expr(left, 1)} |> {expr(right, 2)}"
            return f"{expr(left, power)} {op} {expr(right, power + 1)}"
        case ast.Quantifier(kind=kind, var=var, domain=domain, body=body):
            return f"{kind} {var} in {expr(domain, 4)}: {expr(body, 2)}"
        case ast.ListExpr(items=items):
            return "[" + ", ".join(expr(i) for i in items) + "]"
        case ast.TupleExpr(items=items):
            if len(items) == 1:
                return f"({expr(items[0])},)"
            return "(" + ", ".join(expr(i) for i in items) + ")"
        case ast.Block(members=members):
            if not members:
                return "{}"
            texts = [_inline_member(m) for m in members]
            if all(isinstance(m, ast.Field) for m in members):
                return "{" + ", ".join(texts) + "}"  # a record: `{pcr: 0 uL, final: 0 uL}`
            return "{ " + _joined(members, texts) + " }"  # statements: `{ a = 2; b = 3 }`
        case _:
            assert_never(node)


def _arg(arg: ast.Arg) -> str:
    return f"{arg.name}: {expr(arg.value)}" if arg.name else expr(arg.value)


def _inline_member(member: ast.Member) -> str:
    printer = _Printer("", [], wrap=False)
    printer._member(member, "")
    return " ".join(line.strip() for line in printer.lines)
