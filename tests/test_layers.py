"""The code's layering, checked from the source: no import cycle under ``pbem``,
between modules or between packages; packages in layers (email formatting below
the services, the inbound side and the entry points above them); service domains
that depend one way only, and ``pbem`` never importing ``worker`` (nor
``engines`` anything of the server).  Imports inside functions count too:
an import hidden in a function is still a dependency (only names imported for
annotations under ``if TYPE_CHECKING:`` are left out: they never load)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: Service domains, lowest first: each may import only from itself and those before it.
DOMAINS = ("people", "mailout", "play", "ops")
#: Packages of ``pbem``, lowest first: each may import only from its own layer and those before
#: it.  Every other module (models, runtime, config, db...) is the core below them all.
LAYERS = (
    ("pbem.mail",),  # email as text and bytes: parsing, quoting, rendering, MIME
    ("pbem.services",),  # what the server does, in domains (see DOMAINS)
    ("pbem.inbound",),  # mail in: listeners, the pipeline, the server address's commands
    ("pbem.web", "pbem.commands", "pbem.app", "pbem.webserver"),  # entry points: the web app, its server, the CLI
)
#: Modules that belong to a package's layer: the CLI's root group, which its command groups join.
JOINED = {"pbem.cli": "pbem.commands"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: str) -> dict[str, Path]:
    found = {}
    for path in (ROOT / package).rglob("*.py"):
        if "versions" not in path.parts:
            found[module_name(path)] = path
    return found


def type_checking_blocks(tree: ast.AST) -> set[ast.AST]:
    """Nodes under ``if TYPE_CHECKING:``: names for annotations only, never imported at run time."""
    inside: set[ast.AST] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", getattr(node.test, "attr", "")) == "TYPE_CHECKING":
            for child in node.body:
                inside.update(ast.walk(child))
    return inside


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Every module of the project ``name`` imports (``from a import b`` names ``a.b`` when it is a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    skip = type_checking_blocks(tree)
    for node in ast.walk(tree):
        if node in skip:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names if f"{target}.{alias.name}" in known)
    return found


@functools.cache
def graph(package: str) -> dict[str, set[str]]:
    """Each module's imports of the package's own modules (read once per run: the tests only read it)."""
    known = modules(package)
    return {name: {m for m in imports_of(name, path, known) if m in known} for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def domain_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[:2] == ["pbem", "services"] and parts[2] in DOMAINS else None


def test_no_import_cycle_under_pbem():
    assert cycles(graph("pbem")) == []


def package_of(module: str) -> str:
    """``pbem.services.play.orders`` is in ``pbem.services``; a top-level module is its own package."""
    top = ".".join(module.split(".")[:2])
    return JOINED.get(top, top)


def package_graph(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The imports between packages (the root package ``pbem`` itself imports nothing and is left out)."""
    packages: dict[str, set[str]] = {}
    for module, targets in edges.items():
        if module == "pbem":
            continue
        mine = packages.setdefault(package_of(module), set())
        mine.update(package_of(t) for t in targets if t != "pbem" and package_of(t) != package_of(module))
    return packages


def layer_of(package: str) -> int:
    return next((i for i, layer in enumerate(LAYERS) if package in layer), -1)


def test_no_import_cycle_between_packages():
    assert cycles(package_graph(graph("pbem"))) == []


def test_packages_import_their_own_layer_and_those_below_only():
    wrong = [
        f"{package} -> {target}"
        for package, targets in package_graph(graph("pbem")).items()
        for target in sorted(targets)
        if layer_of(target) > layer_of(package)
    ]
    assert wrong == []
    assert sorted(package_graph(graph("pbem"))["pbem.mail"]) == ["pbem.config", "pbem.tokens"], "pure formatting"


def test_the_layer_check_sees_an_upward_import():
    edges = {"pbem.mail.compose": {"pbem.services.play.orders"}, "pbem.services.play.orders": set()}
    packages = package_graph(edges)
    assert [f"{p} -> {t}" for p, ts in packages.items() for t in ts if layer_of(t) > layer_of(p)] == [
        "pbem.mail -> pbem.services"
    ]
    assert cycles(package_graph({**edges, "pbem.services.play.orders": {"pbem.mail.text"}, "pbem.mail.text": set()}))


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_service_domains_depend_one_way():
    wrong = []
    for module, targets in graph("pbem").items():
        mine = domain_of(module)
        for target in targets:
            theirs = domain_of(target)
            if mine and theirs and DOMAINS.index(theirs) > DOMAINS.index(mine):
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_every_service_module_belongs_to_a_domain():
    loose = [m for m in modules("pbem") if m.startswith("pbem.services.") and domain_of(m) is None]
    assert loose == []


def test_pbem_never_imports_worker_and_engines_never_import_the_server():
    def reaches(package: str, forbidden: tuple[str, ...]) -> list[str]:
        known = modules(package)
        return [
            f"{name} -> {target}"
            for name, path in known.items()
            for target in imports_of(name, path, known)
            if target.split(".")[0] in forbidden
        ]

    assert reaches("pbem", ("worker",)) == []
    assert reaches("engines", ("pbem", "worker", "flask", "sqlalchemy")) == []


def test_the_classical_engine_stands_alone():
    """Classical could ship as a package of its own: it imports only the engine contract, its kit and itself."""
    known = modules("engines")
    classical = {name: path for name, path in known.items() if name.startswith("engines.classical")}
    assert "engines.classical.resolver" in classical and "engines.classical.position" in classical
    allowed = ("engines.classical", "engines.base", "engines.rng", "engines.render_kit")
    outside = sorted(
        f"{name} -> {target}"
        for name, path in classical.items()
        for target in imports_of(name, path, known)
        if target.split(".")[0] in ("pbem", "worker", "engines")
        and not target.startswith(allowed)
        and target != "engines"
    )
    assert outside == []
