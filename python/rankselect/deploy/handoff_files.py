"""Entry points around :func:`~rankselect.deploy.export_engine`: the feature-set files of
every engine for one subset (what the report's hand-off box offers), and a model file read
back (what ``rankselect export --model FILE`` takes)."""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Optional, Union

from .export import ENGINES, export_engine
from .model_files import check_lightgbm_text, check_xgboost_json

__all__ = ["handoff_files", "load_model"]


def handoff_files(columns: Sequence[int], n_features: int, feature_names: Optional[Sequence[str]] = None,
                  *, templates: Optional[Mapping[Any, Any]] = None, model=None, name: str = "rankselect",
                  engines: Sequence[str] = ENGINES) -> dict[str, dict[str, str]]:
    """Engine -> {file name: text} for the subset ``columns`` (0-based, in selection order):
    feature-set skeletons when ``templates`` is None; an engine that cannot take ``model``
    (Elasticsearch with a linear model, RankLib with trees) is left out.

    Examples
    --------
    >>> from rankselect.deploy import handoff_files
    >>> files = handoff_files([7, 3], n_features=22)
    >>> sorted(files), sorted(files["solr"])
    (['elasticsearch', 'opensearch', 'ranklib', 'solr', 'vespa'], ['README.md', 'features.json', 'load.sh', \
'query.txt'])
    """
    out = {}
    for engine in engines:
        try:
            out[engine] = export_engine(engine, list(columns), model, templates=templates, feature_names=feature_names,
                                        name=name, n_features=n_features).files
        except ValueError:
            if model is None:
                raise
    return out


def load_model(path: Union[str, os.PathLike[str]]):
    """A LightGBM model text file or an XGBoost JSON model file, as the library's ``Booster``.

    Raises ValueError for a file that is neither (naming it), ModuleNotFoundError when the
    library is not installed.

    Examples
    --------
    >>> import os, tempfile
    >>> import lightgbm as lgb
    >>> import numpy as np
    >>> from rankselect.deploy import export_engine, load_model
    >>> X, y = np.random.default_rng(0).random((200, 2)), np.arange(200) % 3
    >>> ranker = lgb.LGBMRanker(n_estimators=3, min_child_samples=5, verbose=-1).fit(X, y, group=[100, 100])
    >>> path = os.path.join(tempfile.mkdtemp(), "model.txt")
    >>> _ = ranker.booster_.save_model(path)
    >>> booster = load_model(path)
    >>> booster.num_trees()
    3
    >>> sorted(export_engine("vespa", [0, 1], booster).files)
    ['README.md', 'models/rankselect.json', 'rankselect.profile']
    """
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"model file {str(p)!r} is a folder: give the model file")
    try:
        with open(p, "rb") as f:
            raw = f.read()
    except OSError as exc:
        raise ValueError(f"model file {str(p)!r}: cannot read it ({exc.strerror})") from None
    head = raw[:4096].lstrip()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and (head.startswith(b"tree\n") or head.startswith(b"tree\r\n")
                             or b"\nversion=v" in head[:200]):
        try:
            import lightgbm
        except ImportError:
            raise ModuleNotFoundError(f"{p}: a LightGBM model; reading it needs lightgbm (pip install lightgbm)",
                                      name="lightgbm") from None
        trees = check_lightgbm_text(text, str(p))  # LightGBM's own loader aborts the process on a damaged file
        try:
            return lightgbm.Booster(model_str=trees)
        except Exception as exc:  # LightGBMError, or its Python side on a damaged tail
            raise ValueError(f"model file {str(p)!r}: LightGBM cannot read it ({exc})") from None
    if text is not None and head.startswith(b"{") and b'"learner"' in head:
        try:
            import xgboost
        except ImportError:
            raise ModuleNotFoundError(f"{p}: an XGBoost model; reading it needs xgboost (pip install xgboost)",
                                      name="xgboost") from None
        check_xgboost_json(text, str(p))  # XGBoost's loader stops on a C++ exception (map::at)
        booster = xgboost.Booster()
        try:
            booster.load_model(bytearray(raw))
        except xgboost.core.XGBoostError as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise ValueError(f"model file {str(p)!r}: XGBoost cannot read it ({first})") from None
        return booster
    raise ValueError(f"model file {str(p)!r} is neither a LightGBM model text file nor an XGBoost JSON model")
