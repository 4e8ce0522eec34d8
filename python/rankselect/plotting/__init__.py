"""Plots (optional extra: ``pip install "rankselect[plot]"``, matplotlib).

Figures are built without pyplot, so they work headless. ``plot_similarity`` takes an
optional ``ax`` and returns the Axes it drew on (save with ``ax.figure.savefig(path)``);
the experiment figures return a :class:`matplotlib.figure.Figure` (``fig.savefig(path)``).
"""
from .backend import require_matplotlib
from .curves import feature_curves, plot_feature_curves, plot_regularization_curves
from .figures import save_experiment_figures
from .redundancy import plot_redundancy
from .selection import plot_cost_quality, plot_selection_frequencies
from .similarity import SIMILARITY_LABELS, plot_similarity
from .single_feature import plot_single_feature_scores

__all__ = [
    "require_matplotlib",
    "SIMILARITY_LABELS",
    "plot_similarity",
    "feature_curves",
    "plot_feature_curves",
    "plot_regularization_curves",
    "plot_single_feature_scores",
    "save_experiment_figures",
    "plot_cost_quality",
    "plot_selection_frequencies",
    "plot_redundancy",
]
