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

Declaring a record is cheap: nothing is compiled per class. `__init__`, `__eq__` and
`__hash__` are compiled once per *shape* (how many fields, which are keyword-only, which
have factories) with placeholder names; each class gets a copy of the code object with its
own field names (`CodeType.replace`), so the methods are the ones a code generator would
write (`(self.a, self.b) == (other.a, other.b)`) without a `compile` per class.
"""

from __future__ import annotations

import builtins
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
            options = {"kw_only": kw_only, **value.options}
            options["kw_only"] = options["kw_only"] or kw_only
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
# One template per shape, with placeholder names: arguments `a0, a1, ...`, attributes
# `f0, f1, ...`; a class gets the code with its names swapped in.
_TEMPLATES: dict[tuple[Any, ...], types.CodeType] = {}
_SHARED_GLOBALS = {"__builtins__": builtins, "NOTHING": NOTHING}


def _template(key: tuple[Any, ...], source: Callable[[], str]) -> types.CodeType:
    """The template of a shape, compiled on the first class of that shape."""
    code = _TEMPLATES.get(key)
    if code is None:
        namespace: dict[str, Any] = {}
        exec(compile(source(), "<record template>", "exec"), _SHARED_GLOBALS, namespace)
        (function,) = namespace.values()
        code = _TEMPLATES[key] = function.__code__
    return code


def _renamed(
    code: types.CodeType, cls: type, attributes: list[str], arguments: tuple[str, ...] = ()
) -> types.CodeType:
    names = {f"f{i}": n for i, n in enumerate(attributes)}
    args = {f"a{i}": n for i, n in enumerate(arguments)}
    return code.replace(
        co_names=tuple([names.get(n, n) for n in code.co_names]),
        co_varnames=tuple([args.get(n, n) for n in code.co_varnames]),
        co_qualname=f"{cls.__qualname__}.{code.co_name}",
        co_filename=f"<record {cls.__module__}.{cls.__qualname__}>",
    )


def _method(kind: str, names: list[str], cls: type, extra: dict[str, Any]) -> Any:
    """`__eq__` (attrs' chain of `==`), `__hash__` or `__repr__` (attrs' text) of a class."""
    n = len(names)
    code = _renamed(_template((kind, n), lambda: _METHOD_SOURCES[kind](n)), cls, names)
    if kind == "repr" and n:  # the text between the fields is constants: "(f0=", ", f1="
        texts = {"(f0=": f"({names[0]}=", **{f", f{i}=": f", {names[i]}=" for i in range(n)}}
        code = code.replace(co_consts=tuple([_swap(c, texts) for c in code.co_consts]))
    return types.FunctionType(code, {**_SHARED_GLOBALS, **extra} if extra else _SHARED_GLOBALS)


def _eq_source(n: int) -> str:
    same = " and ".join(f"self.f{i} == other.f{i}" for i in range(n)) or "True"
    return (
        "def __eq__(self, other):\n"
        "    if other.__class__ is not self.__class__:\n"
        "        return NotImplemented\n"
        f"    return {same}\n"
    )


def _hash_source(n: int) -> str:
    mine = "".join(f"self.f{i}, " for i in range(n))
    return f"def __hash__(self):\n    return hash((_H, {mine}))\n"


def _repr_source(n: int) -> str:
    shown = ", ".join(f"f{i}={{self.f{i}!r}}" for i in range(n))
    name = '{self.__class__.__qualname__.rsplit(">.", 1)[-1]}'
    return f"def __repr__(self):\n    return f'{name}({shown})'\n"


_METHOD_SOURCES = {"eq": _eq_source, "hash": _hash_source, "repr": _repr_source}


def _swap(constant: Any, texts: dict[str, str]) -> Any:
    return texts.get(constant, constant) if isinstance(constant, str) else constant


def _make_init(cls: type, all_fields: list[Field], frozen: bool, slots: bool) -> Any:
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
    index = {id(f): i for i, f in enumerate(arguments)}
    globals_: dict[str, Any] = {**_SHARED_GLOBALS}
    shape: list[tuple[Any, ...]] = []  # per field: ("arg", argument, factory?) or how it is set
    for i, f in enumerate(all_fields):
        if f.init:
            shape.append(("arg", index[id(f)], f.factory is not None))
        else:
            shape.append(("factory",) if f.factory is not None else ("default",))
        if f.factory is not None:
            globals_[f"_F{i}"] = f.factory
        elif not f.init:
            globals_[f"_D{i}"] = f.default
        if frozen:
            globals_[f"_S{i}"] = _setter(cls, f.name, slots)
    post_init = hasattr(cls, "__post_init__")
    key = ("init", frozen, len(positional), len(keyword), tuple(shape), post_init)
    code = _renamed(
        _template(key, lambda: _init_source(*key[1:])),
        cls,
        [f.name for f in all_fields],
        tuple(f.alias for f in arguments),
    )
    function = types.FunctionType(code, globals_)
    function.__defaults__ = tuple(_default(f) for f in positional if _default(f) is not _REQUIRED)
    function.__kwdefaults__ = {
        f.alias: _default(f) for f in keyword if _default(f) is not _REQUIRED
    } or None
    return function


def _init_source(
    frozen: bool, n_positional: int, n_keyword: int, shape: tuple[Any, ...], post_init: bool
) -> str:
    lines = []
    for i, how in enumerate(shape):
        if how[0] == "arg":
            value = f"a{how[1]}"
            if how[2]:
                lines.append(f"    if {value} is NOTHING:\n        {value} = _F{i}()")
        else:
            value = f"_F{i}()" if how[0] == "factory" else f"_D{i}"
        lines.append(f"    _S{i}(self, {value})" if frozen else f"    self.f{i} = {value}")
    if post_init:
        lines.append("    self.__post_init__()")
    arguments = ["self", *(f"a{i}" for i in range(n_positional))]
    if n_keyword:
        arguments += ["*", *(f"a{i}" for i in range(n_positional, n_positional + n_keyword))]
    return f"def __init__({', '.join(arguments)}):\n" + ("\n".join(lines) or "    pass") + "\n"


_REQUIRED = object()


def _default(f: Field) -> Any:
    if f.factory is not None:
        return NOTHING
    return _REQUIRED if f.default is NOTHING else f.default


def _setter(cls: type, name: str, slots: bool) -> Callable[[Any, Any], None]:
    """How a frozen record's `__init__` sets one field: the slot's own setter."""
    if slots:
        for klass in cls.__mro__:
            descriptor = klass.__dict__.get(name)
            if descriptor is not None and hasattr(descriptor, "__set__"):
                setter: Callable[[Any, Any], None] = descriptor.__set__
                return setter
    set_field = object.__setattr__

    def set_attribute(self: Any, value: Any) -> None:
        set_field(self, name, value)

    return set_attribute
