"""Deploying a selection: the selected features, and the ranker trained on them, as the exact
files a search engine takes (:func:`export_engine`).

One module per engine: :mod:`~rankselect.deploy.opensearch` (OpenSearch LTR and the o19s
Elasticsearch LTR plugin), :mod:`~rankselect.deploy.solr`,
:mod:`~rankselect.deploy.elasticsearch` (native learning to rank, 8.12+),
:mod:`~rankselect.deploy.vespa`, :mod:`~rankselect.deploy.ranklib` (``model/ranklib``: the
subset renumbered 1..k, :func:`write_letor_subset`), each registered once in
:data:`REGISTRY` (:mod:`~rankselect.deploy.engines`). The model is read once into one IR
(:mod:`~rankselect.deploy.forest`: every split ``x <= threshold``, converted from LightGBM's,
XGBoost's or CatBoost's own test by :mod:`~rankselect.deploy.trees`;
:mod:`~rankselect.deploy.ranker`: tied to the subset), and each engine's thresholds are
computed from the IR alone so that the engine's test goes the way of the ranker's
(:mod:`~rankselect.deploy.floats`). :func:`handoff_files` gives the report the feature sets
of a subset for every engine. :mod:`~rankselect.deploy.formats` gives the selection in the
form a ranking library takes (:func:`export_selection`; formerly ``analysis.export``).
"""
from .engines import ENGINES, REGISTRY, Engine
from .export import EngineExport, export_engine
from .formats import FORMATS, export_selection, write_selection
from .handoff import NON_MATCH
from .handoff_files import handoff_files, load_model
from .ranklib import write_letor_subset

__all__ = ["ENGINES", "FORMATS", "NON_MATCH", "REGISTRY", "Engine", "EngineExport", "export_engine", "export_selection",
           "handoff_files", "load_model", "write_letor_subset", "write_selection"]
