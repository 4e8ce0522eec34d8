"""Type stubs of the Rust extension module ``rankselect._core``."""
from typing import Callable

import numpy as np
import numpy.typing as npt

__version__: str

def group_queries(
    qid: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.uintp], npt.NDArray[np.uintp], npt.NDArray[np.int64]]: ...

# rankrls
def rankrls_fit(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.int64], alpha: float
) -> npt.NDArray[np.float64]: ...
def rankrls_lqo(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.int64], alpha: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], npt.NDArray[np.float64], float]: ...
def rankrls_alpha_path(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.int64],
    alphas: npt.NDArray[np.float64],
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...

# greedy_rls
def greedy_rankrls(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.int64],
    k: int,
    alpha: float,
    criterion: str = "squared",
    tol: float | None = None,
    progress: Callable[[int, int, float], object] | None = None,
) -> tuple[npt.NDArray[np.uintp], npt.NDArray[np.float64], npt.NDArray[np.float64]]: ...
def metrics_per_query(
    specs: list[tuple[str, str, str]],
    y: npt.NDArray[np.float64],
    scores: npt.NDArray[np.float64],
    offsets: npt.NDArray[np.int64],
    max_grade: float | None = None,
) -> npt.NDArray[np.float64]:
    """Per-query metrics, shape (len(specs), n_queries); each spec is
    (measure, convention, ties), e.g. ("ndcg@10", "letor", "stable"). Rows grouped
    contiguously by ``offsets``; GIL released, parallel over queries."""
    ...
def load_letor(
    path: str,
    n_features: int | None = None,
    float32: bool = False,
    comments: bool = False,
    allow_nonfinite: bool = False,
) -> tuple[
    npt.NDArray[np.float64] | npt.NDArray[np.float32],
    npt.NDArray[np.float64],
    npt.NDArray[np.int64],
    list[str] | None,
]: ...
