"""Figures without pyplot (headless): matplotlib, an optional extra, imported on first use."""
from __future__ import annotations

__all__ = ["require_matplotlib", "new_axes", "new_figure"]


def require_matplotlib():
    """Import matplotlib or raise an ImportError that says how to install it.

    Examples
    --------
    >>> from rankselect.plotting import require_matplotlib
    >>> mpl = require_matplotlib()  # matplotlib, or an ImportError that says how to install it
    >>> mpl.__name__
    'matplotlib'
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            "plotting needs matplotlib, an optional extra: pip install \"rankselect[plot]\"") from exc
    return matplotlib


def new_axes(figsize):
    """A new figure's only Axes (``figsize`` in inches); ImportError without matplotlib.

    Examples
    --------
    >>> from rankselect.plotting.backend import new_axes
    >>> ax = new_axes((4, 3))
    >>> type(ax).__name__, ax.figure.get_size_inches().tolist()
    ('Axes', [4.0, 3.0])
    """
    require_matplotlib()
    from matplotlib.figure import Figure

    return Figure(figsize=figsize, layout="constrained").add_subplot()


def new_figure(figsize=(6.4, 4.4)):
    """A new constrained-layout Figure (``figsize`` in inches); ImportError without matplotlib.

    Examples
    --------
    >>> from rankselect.plotting.backend import new_figure
    >>> fig = new_figure()
    >>> type(fig).__name__
    'Figure'
    """
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - exercised only without matplotlib
        raise ImportError(
            "rankselect's plots need matplotlib: pip install 'rankselect[plot]' (or pip install matplotlib)"
        ) from exc
    return Figure(figsize=figsize, layout="constrained")
