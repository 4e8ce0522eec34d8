"""Type stubs of the Rust extension module ``rankselect._core``."""
import numpy as np
import numpy.typing as npt

__version__: str

def group_queries(
    qid: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.uintp], npt.NDArray[np.uintp], npt.NDArray[np.int64]]: ...

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
