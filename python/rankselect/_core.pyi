"""Type stubs of the Rust extension module ``rankselect._core``."""
import numpy as np
import numpy.typing as npt

__version__: str

def group_queries(
    qid: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.uintp], npt.NDArray[np.uintp], npt.NDArray[np.int64]]: ...

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
