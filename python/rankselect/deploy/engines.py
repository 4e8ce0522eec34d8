"""The one registry of the engines :func:`~rankselect.deploy.export_engine` writes for: each
:class:`Engine` is registered once, with its writer (a hand-off in, files and notes out),
what its files are for (the README's title), the file of its feature set and the label of
the report's hand-off menu. A new engine is one module with a ``files(Handoff) ->
EngineFiles`` function and one entry of :data:`REGISTRY`.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Optional

from . import elasticsearch, opensearch, ranklib, solr, vespa
from .handoff import EngineFiles, Handoff

__all__ = ["Engine", "REGISTRY", "ENGINES"]


@dataclass(frozen=True)
class Engine:
    """One engine: ``name`` (what ``export_engine(engine=...)`` takes), ``title`` (what its
    files are), ``write`` (its writer), ``feature_set`` (the file of its feature set, for the
    export's name) and ``menu`` (the label of its item in the report's hand-off menu; None:
    not offered there).

    Examples
    --------
    >>> from rankselect.deploy.engines import REGISTRY
    >>> REGISTRY["vespa"].feature_set("my-set"), REGISTRY["solr"].feature_set("my-set")
    ('my_set.profile', 'features.json')
    """

    name: str
    title: str
    write: Callable[[Handoff], EngineFiles]
    feature_set: Callable[[str], str]
    menu: Optional[str]


def _fixed(file: str) -> Callable[[str], str]:
    return lambda name: file


#: engine name -> :class:`Engine`; ``"opensearch"`` also serves the o19s Elasticsearch LTR plugin
REGISTRY: dict[str, Engine] = {e.name: e for e in (
    Engine("opensearch", "OpenSearch LTR / o19s Elasticsearch LTR plugin: feature set, model (_createmodel), "
           "requests", opensearch.files, _fixed("featureset.json"),
           "OpenSearch / Elasticsearch LTR plugin: featureset.json"),
    Engine("solr", "Solr LTR: feature store and model store", solr.files, _fixed("features.json"),
           "Solr LTR: features.json (the feature store)"),
    Engine("elasticsearch", "Elasticsearch learning_to_rank (8.12+): trained model with its query extractors",
           elasticsearch.files, _fixed("model.json"), "Elasticsearch learning_to_rank (8.12+): model.json"),
    Engine("vespa", "Vespa: rank profile (functions = the features) and the model file(s) for lightgbm(...)",
           vespa.files, lambda name: f"{vespa.identifier(name)}.profile",
           "Vespa: rankselect.profile (the rank profile)"),
    Engine("ranklib", "RankLib (model/ranklib): the subset renumbered 1..k, its feature set", ranklib.files,
           _fixed("featureset.json"), None),
)}

#: the engines :func:`~rankselect.deploy.export_engine` writes for
ENGINES = tuple(REGISTRY)
