"""Records: lablang's classes of named fields, frozen or mutable, declared by annotations.

>>> @frozen
... class Point:
...     x: int
...     y: int = 0
>>> Point(1)
Point(x=1, y=0)
>>> evolve(Point(1), y=2) == Point(1, 2)
True

`@frozen` declares an immutable, hashable, slotted record; `@define` a mutable slotted one
(equal by fields, so unhashable). Options: `slots`, `kw_only`, `eq`, `repr`; per field,
`field(default=, factory=, eq=, repr=, init=, kw_only=, metadata=)`. After `__init__` sets
the fields, a `__post_init__(self)` method of the class runs if there is one.
`fields(cls)`, `has(cls)`, `evolve(record, **changes)` and `asdict(record)` complete the set.

Declaring a record is cheap and compiles nothing: `__init__`, `__eq__`, `__hash__` and
`__repr__` are copies of template code objects (`lablang/record_code.py`, one per number
of fields, with placeholder names) with the class's field names swapped in
(`CodeType.replace`). So the methods are the ones a code generator would write
(`self.a == other.a and self.b == other.b`, attrs' text for repr) at the cost of a copy.
"""

from __future__ import annotations

import builtins
import functools
import itertools
import types
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, TypeVar, dataclass_transform, overload

__all__ = [
    "NOTHING",
    "Field",
    "FrozenError",
    "asdict",
    "define",
    "evolve",
    "field",
    "fields",
    "frozen",
    "has",
]

T = TypeVar("T")
C = TypeVar("C", bound=type)


class _Nothing:
    """The marker of a field without a default (`NOTHING`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "NOTHING"

    def __reduce__(self) -> str:
        return "NOTHING"


NOTHING: Any = _Nothing()


class FrozenError(AttributeError):
    """Assigning to or deleting a field of a frozen record."""


class Field:
    """One field of a record: what `fields(cls)` lists and `field(...)` declares."""

    __slots__ = (
        "alias",
        "default",
        "eq",
        "factory",
        "init",
        "kw_only",
        "metadata",
        "name",
        "repr",
        "type",
    )

    def __init__(
        self,
        name: str,
        default: Any = NOTHING,
        factory: Callable[[], Any] | None = None,
        eq: bool = True,
        repr: bool = True,
        init: bool = True,
        kw_only: bool = False,
        metadata: Mapping[str, Any] | None = None,
        type: Any = None,
    ) -> None:
        self.name = name
        self.alias = name.lstrip("_")  # the `__init__` argument, as attrs names it
        self.default = default
        self.factory = factory
        self.eq = eq
        self.repr = repr
        self.init = init
        self.kw_only = kw_only
        self.metadata: Mapping[str, Any] = types.MappingProxyType(dict(metadata or {}))
        self.type = type

    def __repr__(self) -> str:
        return f"Field(name={self.name!r}, default={self.default!r}, eq={self.eq!r})"


class _Spec:
    """What `field(...)` leaves in a class body until the decorator reads it."""

    __slots__ = ("options",)

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options


# mypy reads `default`, `factory`, `init` and `kw_only` from each call (PEP 681)
@overload
def field(*, default: T, **options: Any) -> T: ...
@overload
def field(*, factory: Callable[[], T], **options: Any) -> T: ...
@overload
def field(**options: Any) -> Any: ...
def field(**options: Any) -> Any:
    """Declare a field: `default=` or `factory=` (not both), `eq=`, `repr=`, `init=`,
    `kw_only=`, `metadata=` (what `Field` holds)."""
    unknown = set(options) - _FIELD_OPTIONS
    if unknown:
        raise TypeError(f"unknown field option(s): {', '.join(sorted(unknown))}")
    if options.get("default", NOTHING) is not NOTHING and options.get("factory") is not None:
        raise TypeError("a field takes `default` or `factory`, not both")
    return _Spec(options)


_FIELD_OPTIONS = {"default", "factory", "eq", "repr", "init", "kw_only", "metadata"}


# ------------------------------------------------------------------ the decorators
# Options of both: slots (default True), kw_only (False), eq (True), repr (True).
_OPTIONS = {"slots": True, "kw_only": False, "eq": True, "repr": True}


@overload
def frozen(maybe_cls: C, /) -> C: ...
@overload
def frozen(
    *, slots: bool = ..., kw_only: bool = ..., eq: bool = ..., repr: bool = ...
) -> Callable[[C], C]: ...
@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen(maybe_cls: Any = None, /, **options: bool) -> Any:
    """Declare an immutable record: assignment raises `FrozenError`; hashable when `eq`."""
    return _decorate(maybe_cls, True, options)


@overload
def define(maybe_cls: C, /) -> C: ...
@overload
def define(
    *, slots: bool = ..., kw_only: bool = ..., eq: bool = ..., repr: bool = ...
) -> Callable[[C], C]: ...
@dataclass_transform(field_specifiers=(field,))
def define(maybe_cls: Any = None, /, **options: bool) -> Any:
    """Declare a mutable record; equal by its fields when `eq` (and then unhashable)."""
    return _decorate(maybe_cls, False, options)


def _decorate(maybe_cls: Any, frozen: bool, options: dict[str, bool]) -> Any:
    unknown = set(options) - set(_OPTIONS)
    if unknown:
        raise TypeError(f"unknown record option(s): {', '.join(sorted(unknown))}")
    chosen = {**_OPTIONS, **options}

    def wrap(cls: type) -> type:
        return _build(cls, frozen=frozen, **chosen)

    return wrap if maybe_cls is None else wrap(maybe_cls)


# ------------------------------------------------------------------ the functions
def has(cls: Any) -> bool:
    """Whether `cls` is a record class (an instance is not)."""
    return isinstance(cls, type) and getattr(cls, "__record_fields__", None) is not None


def fields(cls: type) -> tuple[Field, ...]:
    """The fields of a record class, in declaration order (inherited ones first)."""
    found = getattr(cls, "__record_fields__", None)
    if found is None:
        raise TypeError(f"{cls!r} is not a record class")
    return found


def evolve(inst: T, /, **changes: Any) -> T:
    """A copy of a record with some fields replaced (through `__init__`, like a new one)."""
    cls = inst.__class__
    try:
        init = cls.__record_init__  # type: ignore[attr-defined]
    except AttributeError:
        raise TypeError(f"{inst!r} is not a record") from None
    for name, alias in init:
        if alias not in changes:
            changes[alias] = getattr(inst, name)
    return cls(**changes)


def asdict(inst: Any, *, recurse: bool = True) -> dict[str, Any]:
    """A record's fields as a dict; with `recurse`, records inside it (also inside lists,
    tuples, sets and dicts) become dicts and those collections become lists and dicts."""
    if recurse:
        return {f.name: _plain(getattr(inst, f.name)) for f in fields(type(inst))}
    return {f.name: getattr(inst, f.name) for f in fields(type(inst))}


def _plain(value: Any) -> Any:
    if has(type(value)):
        return asdict(value)
    if isinstance(value, tuple | list | set | frozenset):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    return value


# ------------------------------------------------------------------ building a class
_ANNOTATION_CLASSVARS = ("ClassVar", "typing.ClassVar", "t.ClassVar")


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):
        return annotation.startswith(_ANNOTATION_CLASSVARS)
    return annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar


def _collect(cls: type, kw_only: bool) -> tuple[list[Field], list[str]]:
    """The record's fields (inherited ones first) and the names of its own."""
    inherited: dict[str, Field] = {}
    for base in reversed(cls.__mro__[1:-1]):
        for f in base.__dict__.get("__record_fields__", ()):
            inherited[f.name] = f
    own: list[Field] = []
    body = cls.__dict__
    for name, annotation in body.get("__annotations__", {}).items():
        if _is_classvar(annotation):
            continue
        if name == "self":
            raise TypeError(f"{cls.__qualname__}: a record field cannot be named `self`")
        value = body.get(name, NOTHING)
        if isinstance(value, _Spec):
            options = dict(value.options)
            options["kw_only"] = options.get("kw_only", False) or kw_only  # as attrs
            own.append(Field(name, type=annotation, **options))
        else:
            own.append(Field(name, default=value, kw_only=kw_only, type=annotation))
        inherited.pop(name, None)
    for name, value in body.items():
        if isinstance(value, _Spec) and name not in {f.name for f in own}:
            raise TypeError(f"{cls.__qualname__}.{name}: `field()` without an annotation")
    return [*inherited.values(), *own], [f.name for f in own]


def _build(cls: type, *, frozen: bool, slots: bool, kw_only: bool, eq: bool, repr: bool) -> type:
    all_fields, own = _collect(cls, kw_only)
    body = cls.__dict__
    if slots:
        if "__slots__" in body:
            raise TypeError(f"{cls.__qualname__}: a slotted record declares no `__slots__`")
        if any(isinstance(v, functools.cached_property) for v in body.values()):
            raise TypeError(f"{cls.__qualname__}: `cached_property` needs `slots=False`")
        taken: set[str] = set()
        for base in cls.__mro__[1:]:
            declared = base.__dict__.get("__slots__", ())
            taken.update((declared,) if isinstance(declared, str) else declared)
        namespace = {
            k: v for k, v in body.items() if k not in own and k not in ("__dict__", "__weakref__")
        }
        namespace["__slots__"] = tuple(n for n in own if n not in taken)
        namespace["__qualname__"] = cls.__qualname__
        new = type(cls)(cls.__name__, cls.__bases__, namespace)
        _fix_class_cells(new, cls)
    else:
        new = cls
        for name in own:
            if name in body:
                delattr(cls, name)
    target: Any = new  # a record class gets its methods
    target.__record_fields__ = tuple(all_fields)
    init_fields = [f for f in all_fields if f.init]
    target.__record_init__ = tuple((f.name, f.alias) for f in init_fields)
    if "__match_args__" not in body:
        match_args = tuple(f.alias for f in init_fields if not f.kw_only)
        setattr(target, "__match_args__", match_args)  # noqa: B010 (mypy: read-only name)
    if "__init__" not in body:
        target.__init__ = _make_init(target, all_fields, frozen, slots)
    if repr and "__repr__" not in body:
        target.__repr__ = _method("repr", [f.name for f in all_fields if f.repr], target, {})
    if eq:
        names = [f.name for f in all_fields if f.eq]
        if "__eq__" not in body:
            target.__eq__ = _method("eq", names, target, {})
        if "__hash__" not in body or body["__hash__"] is None:
            if frozen:
                salt = hash(f"{new.__module__}.{new.__qualname__}")
                target.__hash__ = _method("hash", names, target, {"_H": salt})
            else:
                target.__hash__ = None
    if frozen:
        target.__setattr__ = _frozen_setattr
        target.__delattr__ = _frozen_delattr
    if slots:
        state = tuple(f.name for f in all_fields)
        target.__getstate__, target.__setstate__ = _state_methods(state)
    return new


def _fix_class_cells(new: type, old: type) -> None:
    """Point the `__class__` cells of methods (zero-argument `super()`) at the new class."""
    for value in new.__dict__.values():
        if isinstance(value, classmethod | staticmethod):
            functions: tuple[Any, ...] = (value.__func__,)
        elif isinstance(value, property):
            functions = (value.fget, value.fset, value.fdel)
        else:
            functions = (value,)
        for function in functions:
            closure = getattr(function, "__closure__", None)
            if not closure:
                continue
            for name, cell in zip(function.__code__.co_freevars, closure, strict=True):
                if name == "__class__" and cell.cell_contents is old:
                    cell.cell_contents = new


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenError(
        f"cannot assign `{name}`: {type(self).__qualname__} is a frozen record (use `evolve`)"
    )


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenError(f"cannot delete `{name}`: {type(self).__qualname__} is a frozen record")


def _state_methods(names: tuple[str, ...]) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """Pickling, copy and deepcopy of slotted records (frozen ones refuse `setattr`)."""
    set_field = object.__setattr__

    def __getstate__(self: Any) -> dict[str, Any]:
        return {name: getattr(self, name) for name in names}

    def __setstate__(self: Any, state: dict[str, Any]) -> None:
        for name, value in state.items():
            set_field(self, name, value)

    return __getstate__, __setstate__


# ------------------------------------------------------------------ code templates
# `lablang/record_code.py` (generated by `template_source`) holds, per number of fields,
# methods with placeholder names: arguments `a0, a1, ...`, attributes `f0, f1, ...`,
# setters `_S0, _S1, ...`, the rest of `__init__` `_T`, the hash's salt `_H`. A class gets
# copies of their code with its names swapped in; nothing is compiled at run time.
MAX_FIELDS = 40  # the widest records: AssetInfo 29, Limits 25; templates cost start-up
MAX_FACTORY_FIELDS = 16  # beyond, a field's factory runs in its setter (a call more)
_GLOBALS = {"__builtins__": builtins, "NOTHING": NOTHING}


def template_source() -> str:
    """The text of `lablang/record_code.py` (`python -m lablang.record` prints it)."""
    lines = [
        "# Generated by `python -m lablang.record > lablang/record_code.py` (a test keeps it",
        "# current): the code templates of records' methods, one line each (see record.py).",
        "# ruff: noqa",
        "# mypy: ignore-errors",
        "# fmt: off",
    ]
    for n in range(MAX_FIELDS + 1):
        args = "".join(f", a{i}" for i in range(n))
        same = " and ".join(f"self.f{i} == other.f{i}" for i in range(n)) or "True"
        lines.append(
            f"def eq_{n}(self, other): return NotImplemented "
            f"if other.__class__ is not self.__class__ else {same}"
        )
        lines.append(
            f"def hash_{n}(self): return hash((_H,{''.join(f' self.f{i},' for i in range(n))}))"
        )
        shown = ", ".join(f"f{i}={{self.f{i}!r}}" for i in range(n))
        name = '{self.__class__.__qualname__.rsplit(">.", 1)[-1]}'
        lines.append(f"def repr_{n}(self): return f'{name}({shown})'")
        for fact, tail in itertools.product(("", "_fact"), ("", "_tail")):
            if fact and n > MAX_FACTORY_FIELDS:
                continue
            end = ["_T(self)"] if tail else []
            values = [
                f"_F{i}() if a{i} is NOTHING else a{i}" if fact else f"a{i}" for i in range(n)
            ]
            setters = [f"_S{i}(self, {v})" for i, v in enumerate(values)] + end
            assigns = [f"self.f{i} = {v}" for i, v in enumerate(values)] + end
            for kind, body in (("set", setters), ("attr", assigns)):
                lines.append(
                    f"def init_{kind}{fact}{tail}_{n}(self{args}): {'; '.join(body) or 'pass'}"
                )
    return "\n".join(lines) + "\n"


def _template(kind: str, n: int, cls: type) -> types.CodeType:
    from lablang import record_code

    if n > MAX_FIELDS:
        raise TypeError(
            f"{cls.__qualname__}: a record has at most {MAX_FIELDS} fields (raise "
            "`lablang.record.MAX_FIELDS` and regenerate `lablang/record_code.py`)"
        )
    code: types.CodeType = getattr(record_code, f"{kind}_{n}").__code__
    return code


def _renamed(
    code: types.CodeType, cls: type, name: str, attributes: list[str], arguments: list[str]
) -> types.CodeType:
    names = {f"f{i}": n for i, n in enumerate(attributes)}
    args = {f"a{i}": n for i, n in enumerate(arguments)}
    return code.replace(
        co_names=tuple([names.get(n, n) for n in code.co_names]),
        co_varnames=tuple([args.get(n, n) for n in code.co_varnames]),
        co_name=name,
        co_qualname=f"{cls.__qualname__}.{name}",
        co_filename=f"<record {cls.__module__}.{cls.__qualname__}>",
    )


def _method(kind: str, names: list[str], cls: type, extra: dict[str, Any]) -> Any:
    """`__eq__` (attrs' chain of `==`), `__hash__` or `__repr__` (attrs' text) of a class."""
    n = len(names)
    code = _renamed(_template(kind, n, cls), cls, f"__{kind}__", names, [])
    if kind == "repr" and n:  # the text between the fields is constants: "(f0=", ", f1="
        texts = {"(f0=": f"({names[0]}=", **{f", f{i}=": f", {names[i]}=" for i in range(n)}}
        code = code.replace(co_consts=tuple([_swap(c, texts) for c in code.co_consts]))
    return types.FunctionType(code, {**_GLOBALS, **extra} if extra else _GLOBALS)


def _swap(constant: Any, texts: dict[str, str]) -> Any:
    return texts.get(constant, constant) if isinstance(constant, str) else constant


def _make_init(cls: type, all_fields: list[Field], frozen: bool, slots: bool) -> Any:
    """`__init__`: positional arguments, then keyword-only ones, each set by a setter
    (frozen records, and fields with a factory) or assigned (mutable records)."""
    positional = [f for f in all_fields if f.init and not f.kw_only]
    keyword = [f for f in all_fields if f.init and f.kw_only]
    arguments = positional + keyword
    seen_default = None
    for f in positional:
        if f.default is NOTHING and f.factory is None:
            if seen_default is not None:
                raise ValueError(
                    f"{cls.__qualname__}: field `{f.name}` without a default follows "
                    f"`{seen_default}`, which has one (make it keyword-only or give it one)"
                )
        else:
            seen_default = f.name
    factories = any(f.factory is not None for f in arguments)
    inline = factories and len(arguments) <= MAX_FACTORY_FIELDS  # `_F0() if a0 is NOTHING`
    setting = frozen or (factories and not inline)
    globals_: dict[str, Any] = {**_GLOBALS}
    for i, f in enumerate(arguments):
        if setting:
            globals_[f"_S{i}"] = _setter(cls, f, slots, with_factory=not inline)
        if inline:
            globals_[f"_F{i}"] = f.factory or _no_factory
    rest = [f for f in all_fields if not f.init]
    tail = bool(rest) or hasattr(cls, "__post_init__")
    if tail:
        globals_["_T"] = _tail(cls, rest, slots)
    mode = "set" if setting else "attr"
    kind = f"init_{mode}{'_fact' if inline else ''}{'_tail' if tail else ''}"
    code = _template(kind, len(arguments), cls).replace(
        co_argcount=1 + len(positional), co_kwonlyargcount=len(keyword)
    )
    code = _renamed(
        code, cls, "__init__", [f.name for f in arguments], [f.alias for f in arguments]
    )
    function = types.FunctionType(code, globals_)
    function.__defaults__ = tuple(_default(f) for f in positional if _default(f) is not _REQUIRED)
    function.__kwdefaults__ = {
        f.alias: _default(f) for f in keyword if _default(f) is not _REQUIRED
    } or None
    return function


_REQUIRED = object()


def _default(f: Field) -> Any:
    if f.factory is not None:
        return NOTHING
    return _REQUIRED if f.default is NOTHING else f.default


def _no_factory() -> Any:
    return NOTHING  # a field without a factory keeps `NOTHING` if it is given that


def _setter(
    cls: type, f: Field, slots: bool, with_factory: bool = True
) -> Callable[[Any, Any], None]:
    """How `__init__` sets one field: the slot's own setter, unless the setter runs the
    field's factory for a missing argument (`NOTHING`) or the record has no slots."""
    set_field: Callable[[Any, Any], None] | None = None
    if slots:
        for klass in cls.__mro__:
            descriptor = klass.__dict__.get(f.name)
            if descriptor is not None and hasattr(descriptor, "__set__"):
                set_field = descriptor.__set__
                break
    factory = f.factory if with_factory else None
    if set_field is not None and factory is None:
        return set_field
    name, set_any = f.name, object.__setattr__

    def set_attribute(self: Any, value: Any) -> None:
        if factory is not None and value is NOTHING:
            value = factory()
        set_any(self, name, value)

    return set_attribute


def _tail(cls: type, rest: list[Field], slots: bool) -> Callable[[Any], None]:
    """The rest of `__init__`: fields without an argument, then `__post_init__`."""
    setters = [(_setter(cls, f, slots, with_factory=False), f) for f in rest]
    post_init = getattr(cls, "__post_init__", None)

    def finish(self: Any) -> None:
        for set_field, f in setters:
            set_field(self, f.factory() if f.factory is not None else f.default)
        if post_init is not None:
            post_init(self)

    return finish


if __name__ == "__main__":
    print(template_source(), end="")
