"""The resolve stage: `use` imports, module loading and symbol tables.

Modules are found under the bundled standard library and the roots the user passes
(`--path`). A module path is made of names only (the grammar allows no `/` or `..`),
and a found file must lie inside its root after symlinks are followed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from attrs import define, field, frozen

from lablang import ast
from lablang.diagnostics import Report
from lablang.limits import DEFAULT_LIMITS, Limits
from lablang.records import Compared
from lablang.source import Source

if TYPE_CHECKING:
    from lablang.guarded import Refused

__all__ = ["Loader", "ModuleInfo", "Program", "Symbol", "resolve", "stdlib_root"]


def stdlib_root() -> Path:
    """The bundled standard library: package data in a wheel, `stdlib/` in a checkout."""
    # the package's folder, not `importlib.resources` (a zipped package could not be
    # read as a folder anyway; importing it is a tenth of a small check's start-up)
    package = Path(__file__).resolve().parents[1]
    packaged = package / "_data" / "stdlib"
    if packaged.is_dir():
        return packaged
    return package.parent / "stdlib"


@frozen(repr=False, eq=False)
class Symbol(Compared):
    """A declaration visible in a module, and the module that declares it."""

    name: str
    decl: ast.Decl
    module: ModuleInfo


@define(eq=False)
class ModuleInfo:
    path: tuple[str, ...]
    source: Source
    module: ast.Module
    file: Path | None = None
    decls: dict[str, ast.Decl] = field(factory=dict)
    # name -> symbol imported with `use x.{name}` or `use x.name`
    imported: dict[str, Symbol] = field(factory=dict)
    # alias -> module imported whole with `use x.y` (members reached as `y.name`)
    modules: dict[str, ModuleInfo] = field(factory=dict)
    # names (and module aliases) whose import failed: already reported, not reported again
    broken: set[str] = field(factory=set)
    # kinds -> names visible with those kinds ("did you mean" candidates), filled lazily
    candidates: dict[tuple[str, ...], list[str]] = field(factory=dict, repr=False)

    def lookup(self, path: Sequence[str]) -> Symbol | None:
        """Find `name` or `module.name` as seen from this module."""
        if len(path) == 1:
            name = path[0]
            if name in self.decls:
                return Symbol(name, self.decls[name], self)
            return self.imported.get(name)
        head, *rest = path
        if head in self.modules:
            return self.modules[head].lookup(rest)
        return None

    def visible(self) -> Iterator[Symbol]:
        """Every name this module can refer to without a qualifier."""
        for name, decl in self.decls.items():
            yield Symbol(name, decl, self)
        yield from self.imported.values()
        for alias, module in self.modules.items():
            for name, decl in module.decls.items():
                yield Symbol(f"{alias}.{name}", decl, module)


@define(eq=False)
class Program:
    """A root module and every module it imports, resolved."""

    root: ModuleInfo
    modules: dict[tuple[str, ...], ModuleInfo]

    def decls(self, kind: str | None = None) -> Iterator[ast.Decl]:
        """The root module's declarations, optionally of one kind."""
        for decl in self.root.module.decls:
            if kind is None or decl.kind == kind:
                yield decl


@define
class Loader:
    roots: list[Path]
    limits: Limits = DEFAULT_LIMITS
    cache: dict[tuple[str, ...], ModuleInfo] = field(factory=dict)
    _available: list[str] | None = field(default=None, init=False, repr=False)

    @classmethod
    def with_roots(
        cls, roots: Sequence[str | Path] = (), limits: Limits = DEFAULT_LIMITS
    ) -> Loader:
        return cls([stdlib_root(), *(Path(r) for r in roots)], limits)

    def locate(self, path: Sequence[str]) -> tuple[Path, Path] | Refused | None:
        """(the module's file, its root) for the first root that holds it; the refusal when
        a root holds it only as a symlink leading outside that root; None when no root does."""
        from lablang.guarded import Refused, confine

        refused: Refused | None = None
        for root in self.roots:
            candidate = root.joinpath(*path[:-1], path[-1] + ".lab")
            if not os.path.lexists(candidate):
                continue
            try:
                real = confine(candidate, [root])
            except Refused as error:
                if error.reason == "outside" and refused is None:
                    refused = Refused(
                        "outside",
                        f"module `{'.'.join(path)}` is a symlink leading outside its root "
                        f"`{root}` (to `{Path(os.path.realpath(candidate))}`)",
                    )
                continue
            return real, root
        return refused

    def find(self, path: Sequence[str]) -> Path | None:
        """The module's file inside its root, or None."""
        found = self.locate(path)
        return found[0] if isinstance(found, tuple) else None

    def read(self, found: tuple[Path, Path]) -> bytes:
        """The bytes of a located module, by the guarded opener: inside its root, a regular
        file, at most `max_file_bytes` (raises `lablang.guarded.Refused`)."""
        from lablang.guarded import read_guarded

        file, root = found
        return read_guarded(
            file, [root], max_bytes=self.limits.max_file_bytes, limit="max_file_bytes"
        )

    def available(self) -> list[str]:
        """Module names under the roots, for "did you mean" hints: each root is walked
        once per loader, and at most `max_index_entries` entries of it (a hint is cheap,
        never a walk of a whole home folder per unresolved `use`)."""
        if self._available is None:
            names: set[str] = set()
            for root in self.roots:
                names.update(_module_names(root, self.limits.max_index_entries))
            self._available = sorted(names)
        return self._available


def _module_names(root: Path, budget: int) -> Iterator[str]:
    if not root.is_dir():
        return
    seen = 0
    for folder, subfolders, files in os.walk(root):
        seen += len(subfolders) + len(files)
        if seen > budget:
            return
        subfolders[:] = sorted(d for d in subfolders if d.isidentifier())  # module names only
        relative = Path(folder).relative_to(root).parts
        for file in files:
            if file.endswith(".lab"):
                yield ".".join((*relative, file[:-4]))


def resolve(
    module: ast.Module, source: Source, loader: Loader, report: Report, file: Path | None = None
) -> Program:
    """Resolve the imports of `module` (loading the modules it uses) into a Program."""
    root = ModuleInfo(path=("__main__",), source=source, module=module, file=file)
    modules: dict[tuple[str, ...], ModuleInfo] = {}
    _bind(root, loader, report, modules, stack=[root.path])
    return Program(root=root, modules=modules)


def _declare(info: ModuleInfo, report: Report) -> None:
    for decl in info.module.decls:
        previous = info.decls.get(decl.name)
        if previous is not None:
            line = info.source.position(previous.name_span.start)[0]
            report.add(
                "E0204",
                f"`{decl.name}` is declared twice",
                info.source,
                decl.name_span,
                label="declared again here",
                labels=[_label(previous.name_span, "first declared here")],
                help=f"rename one of them, or remove the copy (the first is on line {line})",
            )
            continue
        info.decls[decl.name] = decl


def _label(span: Any, message: str) -> Any:
    from lablang.diagnostics import Label

    return Label(span, message)


def _load(
    path: tuple[str, ...],
    use: ast.Use,
    importer: ModuleInfo,
    loader: Loader,
    report: Report,
    modules: dict[tuple[str, ...], ModuleInfo],
    stack: list[tuple[str, ...]],
) -> ModuleInfo | None:
    if path in stack:
        chain = " -> ".join(".".join(p) for p in [*stack[stack.index(path) :], path])
        report.add(
            "E0205",
            f"modules import each other in a cycle: {chain}",
            importer.source,
            use.span,
            label="this import closes the cycle",
            help="move the shared declarations into a third module that both use",
        )
        return None
    if path in loader.cache:
        modules[path] = loader.cache[path]
        return loader.cache[path]
    if len(loader.cache) >= loader.limits.max_modules:
        report.add(
            "E0004",
            f"more than {loader.limits.max_modules} modules are imported",
            importer.source,
            use.span,
            help="import fewer modules",
        )
        return None
    found = loader.locate(path)
    if found is None:
        return None
    from lablang.guarded import Refused

    if isinstance(found, Refused):
        _unreadable(path, use, importer, report, found.message, "outside")
        return None
    from lablang.output import remember_input
    from lablang.syntax import parse

    file = found[0]
    try:
        text = loader.read(found).decode("utf-8")
    except Refused as refused:
        if refused.reason == "too-big":
            report.add(
                "E0001",
                f"module `{'.'.join(path)}` is more than {loader.limits.max_file_bytes} bytes",
                importer.source,
                use.span,
                label="imported here",
                help="split it into smaller modules (the limit is `max_file_bytes`)",
            )
        else:
            _unreadable(path, use, importer, report, refused.message, refused.reason)
        return None
    except UnicodeDecodeError as error:
        _unreadable(path, use, importer, report, error.__class__.__name__, "unreadable")
        return None
    remember_input(file)
    source = Source(text, _display_path(file))
    parsed = parse(source, report, loader.limits)
    info = ModuleInfo(path=path, source=source, module=parsed, file=file)
    loader.cache[path] = info
    modules[path] = info
    _bind(info, loader, report, modules, [*stack, path])
    return info


def _unreadable(
    path: tuple[str, ...],
    use: ast.Use,
    importer: ModuleInfo,
    report: Report,
    why: str,
    reason: str,
) -> None:
    """E0201 for a module that exists but is refused: the reason, not "not found"."""
    wanted = ".".join(path)
    if reason == "outside":
        message, fix = why, "copy the module into the root, or pass its own folder with `--path`"
    else:
        message = f"module `{wanted}` cannot be read: {why}"
        fix = "make the module a regular UTF-8 text file"
    report.add("E0201", message, importer.source, use.span, label="imported here", help=fix)


def _bind(
    info: ModuleInfo,
    loader: Loader,
    report: Report,
    modules: dict[tuple[str, ...], ModuleInfo],
    stack: list[tuple[str, ...]],
) -> None:
    _declare(info, report)
    for use in info.module.uses:
        _bind_use(info, use, loader, report, modules, stack)


def _bind_use(
    info: ModuleInfo,
    use: ast.Use,
    loader: Loader,
    report: Report,
    modules: dict[tuple[str, ...], ModuleInfo],
    stack: list[tuple[str, ...]],
) -> None:
    path = use.path
    if use.names:
        target = _load(path, use, info, loader, report, modules, stack)
        if target is None:
            info.broken.update(use.names)
            _unknown_module(path, use, info, loader, report)
            return
        for name in use.names:
            _import_name(info, target, name, use, report)
        return
    # `use a.b`: the module a/b, or the member b of module a
    target = _load(path, use, info, loader, report, modules, stack)
    if target is not None:
        info.modules[use.alias or path[-1]] = target
        return
    if _refused_here(use, report):
        info.broken.add(use.alias or path[-1])
        return
    if len(path) > 1 and loader.find(path[:-1]) is not None:
        parent = _load(path[:-1], use, info, loader, report, modules, stack)
        if parent is not None:
            _import_name(info, parent, path[-1], use, report, alias=use.alias)
        return
    info.broken.add(use.alias or path[-1])
    _unknown_module(path, use, info, loader, report)


def _import_name(
    info: ModuleInfo,
    target: ModuleInfo,
    name: str,
    use: ast.Use,
    report: Report,
    alias: str | None = None,
) -> None:
    decl = target.decls.get(name)
    if decl is None:
        info.broken.add(alias or name)
        from lablang.check.names import did_you_mean

        guess = did_you_mean(name, list(target.decls))
        report.add(
            "E0207",
            f"module `{'.'.join(target.path)}` has no declaration `{name}`",
            info.source,
            use.span,
            label="not declared there",
            help=f"did you mean `{guess}`?"
            if guess
            else f"see what `{'.'.join(target.path)}` declares",
        )
        return
    local = alias or name
    existing = info.imported.get(local)
    if existing is not None and existing.decl is not decl:
        report.add(
            "E0206",
            f"`{local}` is imported from both `{'.'.join(existing.module.path)}` and "
            f"`{'.'.join(target.path)}`",
            info.source,
            use.span,
            label="second import of the same name",
            help=f"import one of them under another name: `use {'.'.join(target.path)}.{name} as "
            f"{name}_{target.path[-1]}`",
        )
        return
    if local in info.decls:
        report.add(
            "E0204",
            f"`{local}` is declared here and also imported",
            info.source,
            info.decls[local].name_span,
            label="this declaration hides the import",
            labels=[_label(use.span, "imported here")],
            help="rename the declaration or import the name under an alias with `as`",
        )
        return
    info.imported[local] = Symbol(name, decl, target)


def _unknown_module(
    path: tuple[str, ...], use: ast.Use, info: ModuleInfo, loader: Loader, report: Report
) -> None:
    from lablang.check.names import did_you_mean

    if _refused_here(use, report):
        return
    wanted = ".".join(path)
    guess = did_you_mean(wanted, loader.available())
    report.add(
        "E0201",
        f"module `{wanted}` is not found",
        info.source,
        use.span,
        label="no such module in the standard library or the given roots",
        help=f"did you mean `{guess}`?" if guess else "add its directory with `--path DIR`",
    )


def _refused_here(use: ast.Use, report: Report) -> bool:
    """A cycle, or a module found but refused: its reason is reported already."""
    return any(r.code in ("E0205", "E0201") and r.span == use.span for r in report.diagnostics)


def _display_path(file: Path) -> str:
    """A path relative to the working directory when it lies below it."""
    relative = os.path.relpath(file)
    return relative if not relative.startswith("..") else str(file)
