"""Model files checked before the library's own loader sees them.

LightGBM's loader aborts the process (``SIGABRT``, or reads out of bounds) on a damaged
model file, and XGBoost's stops on a C++ exception (``map::at``): :func:`check_lightgbm_text`
and :func:`check_xgboost_json` read the file first, as the project's reader does, and
refuse what is not a whole, consistent model with one line naming the file, the tree and
the key.
"""
from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["check_lightgbm_text", "check_xgboost_json", "read_json_text"]

#: a tree's arrays as LightGBM's ``Tree(const char*)`` reads them: key -> (type, length
#: "splits" = num_leaves - 1 or "leaves", required); a wrong count aborts its loader
_TREE_ARRAYS = {"split_feature": (int, "splits", True), "threshold": (float, "splits", True),
                "decision_type": (int, "splits", True), "left_child": (int, "splits", True),
                "right_child": (int, "splits", True), "split_gain": (float, "splits", False),
                "internal_value": (float, "splits", False), "internal_weight": (float, "splits", False),
                "internal_count": (int, "splits", False), "leaf_weight": (float, "leaves", False),
                "leaf_count": (int, "leaves", False)}


def read_json_text(text: str, what: str) -> Any:
    """``json.loads(text)``, a ValueError naming ``what`` for text that is not JSON or nests
    too deeply for Python's parser (a RecursionError otherwise).

    Examples
    --------
    >>> from rankselect.deploy.model_files import read_json_text
    >>> read_json_text("[" * 100000 + "]" * 100000, "sel.json")
    Traceback (most recent call last):
    ...
    ValueError: sel.json: the JSON nests too deeply to be read
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what} ({exc})" if "JSON" in what else f"{what}: not JSON ({exc})") from None
    except RecursionError:
        raise ValueError(f"{what}: the JSON nests too deeply to be read") from None


def _numbers(text: str, kind, where: str, key: str) -> list:
    try:
        return [kind(v) for v in text.split()]
    except ValueError:
        raise ValueError(f"{where}: {key}= holds a value that is not a number") from None


def _check_tree(tree: dict[str, str], where: str, n_features: int) -> None:
    if "num_leaves" not in tree or "leaf_value" not in tree:
        raise ValueError(f"{where}: no num_leaves= / leaf_value= (the file is cut or damaged)")
    (n_leaves,) = _numbers(tree["num_leaves"], int, where, "num_leaves") or [0]
    if n_leaves < 1:
        raise ValueError(f"{where}: num_leaves={tree['num_leaves']!r}")
    if int((_numbers(tree.get("num_cat", "0"), int, where, "num_cat") or [0])[0]) != 0:
        raise ValueError(f"{where}: categorical splits (num_cat > 0): the engines test numbers only; train with the "
                         "feature as a number")
    if len(_numbers(tree["leaf_value"], float, where, "leaf_value")) != n_leaves:
        raise ValueError(f"{where}: leaf_value= holds not num_leaves={n_leaves} values (the file is cut or damaged)")
    if "num_cat" not in tree:
        raise ValueError(f"{where}: no num_cat= (the file is cut or damaged)")
    if tree.get("is_linear", "0").strip() not in ("0", ""):
        raise ValueError(f"{where}: a linear tree (linear_tree=True): no engine evaluates its leaf models")
    _numbers(tree.get("shrinkage", "1"), float, where, "shrinkage")
    if n_leaves == 1:
        return
    n = n_leaves - 1
    cols = {}
    for key, (kind, length, required) in _TREE_ARRAYS.items():
        if key not in tree:
            if required:
                raise ValueError(f"{where}: no {key}= (the file is cut or damaged)")
            continue
        cols[key] = _numbers(tree[key], kind, where, key)
        want = n if length == "splits" else n_leaves
        if len(cols[key]) != want:
            raise ValueError(f"{where}: {key}= holds {len(cols[key])} values, not {want} (the file is damaged)")
    bad = [f for f in cols["split_feature"] if not 0 <= f < n_features]
    if bad:
        raise ValueError(f"{where}: split_feature {bad[0]} outside the model's {n_features} features")
    seen_nodes, seen_leaves = {0}, set()
    for child in cols["left_child"] + cols["right_child"]:
        if child >= 0:
            if child >= n or child in seen_nodes:
                raise ValueError(f"{where}: left_child / right_child do not form a tree (node {child})")
            seen_nodes.add(child)
        else:
            leaf = ~child
            if leaf >= n_leaves or leaf in seen_leaves:
                raise ValueError(f"{where}: left_child / right_child do not form a tree (leaf {leaf})")
            seen_leaves.add(leaf)
    if len(seen_leaves) != n_leaves:
        raise ValueError(f"{where}: left_child / right_child do not reach every leaf")


def check_lightgbm_text(text: str, path: str) -> str:
    """The model's text up to ``end of trees`` (what the trees need: LightGBM's loader also
    crashes on a cut ``parameters:`` section after it), or a ValueError unless ``text`` is a
    whole LightGBM model (header, each tree's keys and sizes, children forming a tree,
    features in range, ``tree_sizes`` matching).

    Examples
    --------
    >>> from rankselect.deploy.model_files import check_lightgbm_text
    >>> check_lightgbm_text("tree\\nversion=v4\\nmax_feature_idx=0\\nfeature_names=a\\n\\nTree=0\\n", "m.txt")
    Traceback (most recent call last):
    ...
    ValueError: model file 'm.txt': no 'end of trees' (the file is cut)
    """
    head, sep, rest = text.partition("\nTree=")
    header = dict(line.partition("=")[::2] for line in head.splitlines() if "=" in line)
    if "version" not in header or "feature_names" not in header or "max_feature_idx" not in header:
        raise ValueError(f"model file {path!r}: not a LightGBM model (no version= / feature_names= / "
                         "max_feature_idx= header)")
    names = header["feature_names"].split(" ")
    try:
        width = int(header["max_feature_idx"]) + 1
    except ValueError:
        raise ValueError(f"model file {path!r}: max_feature_idx= is not a number") from None
    if width != len(names):
        raise ValueError(f"model file {path!r}: max_feature_idx={width - 1} but {len(names)} feature_names")
    if not sep:
        raise ValueError(f"model file {path!r}: the model has no trees: it scores every document the same")
    data = text.encode("utf-8")
    starts = [m.start() + 1 for m in re.finditer(rb"\nTree=", data)]
    end = data.find(b"end of trees", starts[0])
    if end < 0:
        raise ValueError(f"model file {path!r}: no 'end of trees' (the file is cut)")
    starts = [p for p in starts if p < end]
    bounds = starts + [end]
    blocks = [data[a:b].decode("utf-8") for a, b in zip(bounds, bounds[1:])]
    sizes = header.get("tree_sizes")
    if sizes is not None:
        expected = _numbers(sizes, int, f"model file {path!r}", "tree_sizes")
        if expected != [b - a for a, b in zip(bounds, bounds[1:])]:
            raise ValueError(f"model file {path!r}: tree_sizes= does not match the trees (the file is damaged)")
    for i, block in enumerate(blocks):
        tree = dict(line.partition("=")[::2] for line in block.splitlines() if "=" in line)
        if tree.get("Tree") != str(i):
            raise ValueError(f"model file {path!r}: tree {i} is numbered {tree.get('Tree')!r}")
        if tree.get("num_leaves") is None:
            raise ValueError(f"model file {path!r}, tree {i}: no num_leaves= (the file is cut or damaged)")
        _check_tree(tree, f"model file {path!r}, tree {i}", width)
    return data[:end].decode("utf-8") + "end of trees\n"


def check_xgboost_json(text: str, path: str) -> None:
    """A ValueError unless ``text`` is XGBoost JSON with the keys XGBoost's loader reads
    (``learner`` with ``gradient_booster``, ``learner_model_param``, ``objective``).

    Examples
    --------
    >>> from rankselect.deploy.model_files import check_xgboost_json
    >>> check_xgboost_json('{"learner": {}}', "m.json")
    Traceback (most recent call last):
    ...
    ValueError: model file 'm.json': not a whole XGBoost JSON model (no learner.gradient_booster)
    """
    raw = read_json_text(text, f"model file {path!r}")
    learner = raw.get("learner") if isinstance(raw, dict) else None
    if not isinstance(learner, dict):
        raise ValueError(f"model file {path!r}: not an XGBoost JSON model (no learner object)")
    for key in ("gradient_booster", "learner_model_param", "objective"):
        if not isinstance(learner.get(key), dict):
            raise ValueError(f"model file {path!r}: not a whole XGBoost JSON model (no learner.{key})")
    if not isinstance(raw.get("version"), list):
        raise ValueError(f"model file {path!r}: not a whole XGBoost JSON model (no version)")
