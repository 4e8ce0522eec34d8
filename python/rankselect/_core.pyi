"""Type stubs of the Rust extension module ``rankselect._core``."""
import numpy as np
import numpy.typing as npt

__version__: str

def group_queries(
    qid: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.uintp], npt.NDArray[np.uintp], npt.NDArray[np.int64]]: ...
