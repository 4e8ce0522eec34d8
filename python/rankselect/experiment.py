"""The LETOR experiment protocol (kept name): see :mod:`rankselect.protocol`.

``rankselect.experiment.run`` and the names below are the protocol package's, re-exported
for the scripts and tests that import them from here.
"""
from .protocol import (  # noqa: F401
    METHODS,
    SELECTION_METRICS,
    Candidate,
    ExperimentResult,
    MethodFold,
    MethodSpec,
    default_grid,
    load_folds,
    parse_method,
    run,
    single_feature_scores,
)
from .protocol.runner import _parse_value  # noqa: F401  (the CLI's --grid values)

__all__ = [
    "run",
    "ExperimentResult",
    "MethodFold",
    "METHODS",
    "default_grid",
    "parse_method",
    "load_folds",
    "single_feature_scores",
    "SELECTION_METRICS",
]
