"""The type stubs (_core.pyi) describe every function the extension exports."""
import ast
from pathlib import Path

import rankselect
from rankselect import _core


def test_every_core_function_has_a_stub():
    pyi = Path(rankselect.__file__).with_name("_core.pyi")
    tree = ast.parse(pyi.read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    stubbed |= {n.target.id for n in tree.body if isinstance(n, ast.AnnAssign)}
    stubbed |= {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    exported = {name for name in dir(_core) if not name.startswith("_")} | {"__version__"}
    assert exported - stubbed == set()
    assert stubbed - exported == set()


def test_public_api_is_importable():
    for name in rankselect.__all__:
        assert hasattr(rankselect, name), name
