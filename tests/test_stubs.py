"""The type stubs (_core.pyi) describe every function the extension exports, with its
signature: parameter names, order, kinds and default values as the extension reports them
(``__text_signature__``)."""
import ast
import inspect
from pathlib import Path

import pytest

import rankselect
from rankselect import _core

PYI = Path(rankselect.__file__).with_name("_core.pyi")


def _stub_tree():
    return ast.parse(PYI.read_text())


def _stub_functions():
    return {n.name: n for n in _stub_tree().body if isinstance(n, ast.FunctionDef)}


def _exported_functions():
    return sorted(name for name in dir(_core) if not name.startswith("_") and callable(getattr(_core, name))
                  and not isinstance(getattr(_core, name), type))


def _exported_classes():
    return sorted(name for name in dir(_core) if not name.startswith("_") and isinstance(getattr(_core, name), type))


def test_every_core_function_has_a_stub():
    tree = _stub_tree()
    stubbed = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    stubbed |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    stubbed |= {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    exported = {name for name in dir(_core) if not name.startswith("_")} | {"__version__"}
    assert exported - stubbed == set()
    assert stubbed - exported == set()


def _stub_signature(node: ast.FunctionDef):
    """[(name, kind, default)] of a stub, default ``inspect.Parameter.empty`` when none."""
    a = node.args
    out = []
    positional = a.posonlyargs + a.args
    defaults = [inspect.Parameter.empty] * (len(positional) - len(a.defaults)) + [
        ast.literal_eval(d) for d in a.defaults]
    for i, (arg, default) in enumerate(zip(positional, defaults)):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append((arg.arg, kind, default))
    if a.vararg:
        out.append((a.vararg.arg, "VAR_POSITIONAL", inspect.Parameter.empty))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "KEYWORD_ONLY", inspect.Parameter.empty if d is None else ast.literal_eval(d)))
    if a.kwarg:
        out.append((a.kwarg.arg, "VAR_KEYWORD", inspect.Parameter.empty))
    return out


def _runtime_signature(func):
    sig = inspect.signature(func)  # from the extension's __text_signature__
    return [(p.name, p.kind.name, p.default) for p in sig.parameters.values()]


@pytest.mark.parametrize("name", _exported_functions())
def test_stub_signature_matches_the_extension(name):
    func = getattr(_core, name)
    assert getattr(func, "__text_signature__", None), f"_core.{name} has no __text_signature__"
    stub = _stub_functions()[name]
    assert _stub_signature(stub) == _runtime_signature(func), (
        f"_core.pyi's {name} does not match the extension's signature {inspect.signature(func)}")


@pytest.mark.parametrize("name", _exported_classes())
def test_stub_class_matches_the_extension(name):
    """A class's constructor and methods against its stub (``self`` dropped)."""
    cls = getattr(_core, name)
    stub = next(n for n in _stub_tree().body if isinstance(n, ast.ClassDef) and n.name == name)
    methods = {n.name: n for n in stub.body if isinstance(n, ast.FunctionDef)}
    if "__new__" in methods or "__init__" in methods:
        ctor = "__new__" if "__new__" in methods else "__init__"  # PyO3 classes construct in __new__
        assert _stub_signature(methods[ctor])[1:] == _runtime_signature(cls), (
            f"_core.pyi's {name}.{ctor} does not match {inspect.signature(cls)}")
    else:  # a result class: only its binding builds it
        with pytest.raises(TypeError, match="cannot create"):
            cls()
    properties = {n.name for n in stub.body if isinstance(n, ast.FunctionDef)
                  and any(isinstance(d, ast.Name) and d.id == "property" for d in n.decorator_list)}
    runtime = {k for k, v in vars(cls).items()
               if (inspect.isgetsetdescriptor(v) or inspect.ismemberdescriptor(v)) and not k.startswith("_")}
    assert properties == runtime, f"_core.pyi's {name} fields differ from the extension's"
    for mname, node in methods.items():
        if mname in ("__init__", "__new__"):
            continue
        assert hasattr(cls, mname), f"_core.{name} has no method {mname}"
        func = getattr(cls, mname)
        if getattr(func, "__text_signature__", None):
            assert _stub_signature(node)[1:] == _runtime_signature(func)[1:], f"{name}.{mname}"


def test_signature_comparison_can_fail():
    """A stub with a renamed or re-defaulted parameter is caught."""
    node = ast.parse("def f(x, y, k=1): ...").body[0]
    assert _stub_signature(node) == [("x", "POSITIONAL_OR_KEYWORD", inspect.Parameter.empty),
                                     ("y", "POSITIONAL_OR_KEYWORD", inspect.Parameter.empty),
                                     ("k", "POSITIONAL_OR_KEYWORD", 1)]
    assert _stub_signature(node) != _runtime_signature(_core.rankrls_fit)


def test_stub_all_is_the_extension_all():
    (node,) = [n for n in _stub_tree().body if isinstance(n, ast.Assign) and n.targets[0].id == "__all__"]
    stub = ast.literal_eval(node.value)
    assert sorted(stub) == sorted(_core.__all__)  # the same names (registration order is free)
    assert len(stub) == len(set(stub))


def test_public_api_is_importable():
    for name in rankselect.__all__:
        assert hasattr(rankselect, name), name
