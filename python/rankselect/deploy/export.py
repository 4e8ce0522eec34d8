"""``export_engine``: a selection, and the ranker trained on it, as the files a search engine takes."""
from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from .cascade_export import cascade_files, read_cascade
from .engines import ENGINES, REGISTRY
from .finite import check_files
from .handoff import NON_MATCH, Handoff
from .names import check_set_name
from .ranker import ranker_of
from .scripts import CURL_OPTS, markdown_code
from .subset import subset_of, templates_for

__all__ = ["ENGINES", "EngineExport", "export_engine"]


@dataclass
class EngineExport:
    """What :func:`export_engine` returns.

    Attributes
    ----------
    engine : str
    name : str
        The feature set's / model's name in the engine.
    feature_names : list of str
        The set's features in selection order (the model's feature names).
    files : dict of str to str
        File name (``/`` for a sub-folder) -> exact text, the bodies the engine's API or
        configuration takes; ``README.md`` says what each is.
    notes : list of str
        What the reader must know (a skeleton without templates, a minimum engine version, ...).

    Examples
    --------
    >>> import tempfile
    >>> from rankselect import export_engine
    >>> out = export_engine("elasticsearch", [7, 3], n_features=22)
    >>> out
    EngineExport(engine='elasticsearch', name='rankselect', files=['README.md', 'load.sh', 'logging_query.json', \
'model.json'])
    >>> [p.name for p in out.write(tempfile.mkdtemp())]
    ['README.md', 'load.sh', 'logging_query.json', 'model.json']
    """

    engine: str
    name: str
    feature_names: list[str]
    files: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def write(self, directory: Union[str, os.PathLike[str]], force: bool = False) -> list[Path]:
        """Write every file under ``directory`` (created if needed); returns the paths.

        A file that exists there is replaced only with ``force=True``: otherwise a
        ValueError lists the files that exist, and nothing is written.
        """
        root = Path(directory)
        if root.exists() and not root.is_dir():
            raise ValueError(f"{str(root)!r} is a file: the engine's files go in a folder")
        existing = [name for name in self.files if (root / name).exists() or (root / name).is_symlink()]
        if existing and not force:
            raise ValueError(f"{str(root)!r} holds {len(existing)} of the files already: {', '.join(existing)}; "
                             "pass force=True (rankselect export --force) to replace them, or choose another folder")
        paths = []
        for name, text in self.files.items():
            p = root / name
            p.parent.mkdir(parents=True, exist_ok=True)
            if p.is_symlink():
                p.unlink()  # replace the link, not the file it points to
            with open(p, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            if name.endswith(".sh"):
                p.chmod(0o755)
            paths.append(p)
        return paths

    def __repr__(self) -> str:
        return f"EngineExport(engine={self.engine!r}, name={self.name!r}, files={sorted(self.files)})"


#: a template of each engine, for the README's example of a templates file
_QUERY = {"match": {"title": "{{keywords}}"}}
_TEMPLATE_EXAMPLE = {"opensearch": _QUERY, "ranklib": _QUERY, "elasticsearch": _QUERY,
                     "solr": "{!dismax qf=title}${keywords}", "vespa": "bm25(title)"}


def _readme(h: Handoff, files: Mapping[str, str], notes: list[str], model: str) -> str:
    lines = [f"# {h.name}: {REGISTRY[h.engine].title}", "",
             f"Written by rankselect for {len(h.subset.columns)} selected features, in selection order:", ""]
    lines += [f"{i + 1}. {markdown_code(s)} (feature {j} of the data file)" for i, (s, j)
              in enumerate(zip(h.subset.names, h.subset.numbers))]
    lines += ["", f"Model: {model}.", "", "Files: " + ", ".join(f"`{n}`" for n in sorted(files)) + "."]
    if "load.sh" in files:
        lines += ["", f"`load.sh` sends them with `curl --fail` (it stops at the first HTTP error); set the server's "
                  f"address and, for authentication and TLS, `{CURL_OPTS}` (see its first lines)."]
    if "search.json" in files:
        lines += ["", "`search.json`: replace its first query (`<field>`, `<keywords>`: a placeholder) by the query "
                  "that finds your candidates; the model re-ranks its top `window_size`."]
        if h.engine == "opensearch":
            lines[-1] += (" Keep `from + size` at most `window_size`: the query rescorer gives a hit beyond the "
                          "window its first score times `query_weight` (0) and sorts it with the re-ranked ones.")
    if h.templates is None:
        lines += ["", "The feature set is a skeleton: give each feature's query in a JSON file, by name or 1-based "
                  "number, and pass it as `rankselect export ... --templates templates.json` "
                  "(`templates=` in Python), e.g.:", ""]
        example = json.dumps({s: _TEMPLATE_EXAMPLE[h.engine] for s in h.subset.names[:2]}, indent=2, ensure_ascii=False)
        fence = "`" * max(3, 1 + max((len(r) for r in re.findall("`+", example)), default=0))
        lines += [fence + "json", example, fence]
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    lines += ["", "See the user guide, 'Deploying the subset', for what the engine computes per document.", ""]
    return "\n".join(lines)


def export_engine(engine: str, selection, model=None, *, templates: Optional[Mapping[Any, Any]] = None,
                  feature_names: Optional[Sequence[str]] = None, name: str = "rankselect",
                  n_features: Optional[int] = None, non_match: str = "zero") -> EngineExport:
    """The selected features, and optionally the ranker trained on them, as files for a search engine.

    Parameters
    ----------
    engine : {"opensearch", "solr", "elasticsearch", "vespa", "ranklib"}
        ``"opensearch"`` also serves the o19s Elasticsearch LTR plugin (the same format);
        ``"elasticsearch"`` is Elasticsearch's native learning to rank (8.12+).
    selection : fitted selector, dict, str or sequence of int
        A rankselect selector (``selected_features_``, ``feature_names_in_``), the JSON that
        ``rankselect select --json`` prints (a dict, its text, or a path to it), or 0-based
        columns in selection order. A fitted ``CascadeSelection`` (or the JSON of ``rankselect
        cascade --json``) exports its phases with their models (``model`` None: linear, or a
        LightGBM phase 2): one phase as one subset; two phases as Vespa's ``first-phase`` and
        ``second-phase { rerank-count: N }`` (other engines: a ValueError that says why; see
        :mod:`rankselect.deploy.cascade_export`).
    model : optional
        None (the feature set alone); a fitted LightGBM ``LGBMRanker`` / ``Booster``, XGBoost
        ``XGBRanker`` / ``Booster`` or CatBoost ``CatBoostRanker`` / ``CatBoost`` trained on
        exactly the selected columns (under the set's names, or the library's positional
        default names in selection order); or a
        linear model: a rankselect ``RankRLS``, ``SparseRankSVM``, a selector with ``coef_``,
        or a coefficient vector (a step of ``GreedyRankRLS.coef_path_``), as wide as the
        selection (selection order) or as the data (no weight outside the selection).
    templates : mapping, optional
        A feature's name or 1-based number -> its query template: OpenSearch / RankLib a
        query (or ``{"template": ..., "params": [...], "template_language": ...}``), Solr a
        ``q`` string or ``{"class": ..., "params": ...}``, Elasticsearch a query (or
        ``{"query": ..., "default_score": ...}``), Vespa a rank feature expression
        (``"bm25(title)"``); or one such mapping per engine name. None writes skeletons.
    feature_names : sequence of str, optional
        Names of all the data's columns (default: the selector's ``feature_names_in_``, else
        ``feature_<number>``).
    name : str
        The feature set's and the model's name in the engine.
    n_features : int, optional
        The data's width, when ``selection`` is a list of columns without names.
    non_match : {"zero", "missing"}
        Where a feature whose query does not match the document goes at each split of a tree
        model (the engine's missing value: NaN in OpenSearch LTR 3.2+, a NaN or infinite value
        in Elasticsearch, a null in Solr 9.2+): ``"zero"`` (the training data held 0 there,
        as LETOR data does: it goes the way of 0; Elasticsearch's extractors get
        ``default_score`` 0) or ``"missing"`` (the training data held NaN there: it goes the
        model's own missing-value way; Solr's features get ``defaultValue`` NaN). See the user
        guide, 'Deploying the subset'.

    Returns
    -------
    EngineExport
        ``.files`` (file name -> exact text) and ``.write(directory)``.

    Examples
    --------
    >>> import rankselect as rs
    >>> X, y, qid = rs.data.datasets.load_example("train")
    >>> sel = rs.GreedyRankRLS(n_features_to_select=3).fit(X, y, qid=qid)
    >>> out = rs.export_engine("solr", sel, sel.coef_path_[-1],
    ...                        templates={8: "{!func}tf(title,${keywords})", 4: "title:${keywords}",
    ...                                   12: "{!func}pagerank"})
    >>> sorted(out.files)
    ['README.md', 'features.json', 'load.sh', 'model.json', 'query.txt']
    >>> out.feature_names
    ['feature_8', 'feature_4', 'feature_12']
    """
    if engine not in REGISTRY:
        raise ValueError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")
    check_set_name(name)
    if non_match not in NON_MATCH:
        raise ValueError(f"non_match must be one of {', '.join(map(repr, NON_MATCH))}, got {non_match!r}")
    cascade = read_cascade(selection)
    if cascade is not None:
        if model is not None:
            raise ValueError("a cascade carries its phases' models: pass model=None (no --model / --linear)")
        if feature_names is None:
            feature_names = cascade.names
        if n_features is None:
            n_features = cascade.n_features
        if len(cascade.phases) == 2:
            subset, (files, notes) = cascade_files(engine, cascade, templates, feature_names, name, n_features,
                                                   non_match)
            h = Handoff(engine, name, subset, templates_for(engine, templates, subset), None, non_match)
            files = dict(files)
            check_files(files)
            files["README.md"] = _readme(h, files, notes, "a linear cascade of two phases (phase 1 on every "
                                         "candidate, phase 2 on its top N)" if cascade.trees is None else "a "
                                         "cascade of two phases: a linear first-phase and LightGBM trees in "
                                         "second-phase (models/)")
            return EngineExport(engine, name, subset.names, dict(sorted(files.items())), list(notes))
        selection, model = cascade.phases[0][0], cascade.phases[0][1]  # one phase: a subset and its weights
    subset = subset_of(selection, feature_names, n_features)
    h = Handoff(engine, name, subset, templates_for(engine, templates, subset), ranker_of(model, subset), non_match)
    files, notes = REGISTRY[engine].write(h)
    files = dict(files)
    check_files(files)
    kind = ("none (the feature set alone)" if h.ranker is None else
            f"{h.trees.source} trees ({h.trees.forest.n_trees})" if h.trees is not None else "linear")
    files["README.md"] = _readme(h, files, notes, kind)
    return EngineExport(engine, name, subset.names, dict(sorted(files.items())), list(notes))
