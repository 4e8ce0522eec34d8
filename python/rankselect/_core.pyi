"""Type stubs of the Rust extension module ``rankselect._core``."""
import numpy as np
import numpy.typing as npt

__version__: str

def group_queries(
    qid: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.uintp], npt.NDArray[np.uintp], npt.NDArray[np.int64]]: ...

# sparse solvers (rust/py/src/sparse.rs); x rows grouped by query (offsets)
def sparse_ranksvm(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp],
    c: float, penalty: str, p: float, epsilon: float, gamma: float,
    weights: npt.NDArray[np.float64] | None, w0: npt.NDArray[np.float64] | None,
    max_iter: int, max_reweightings: int, tol: float,
) -> tuple[npt.NDArray[np.float64], int, npt.NDArray[np.float64], int, bool, float]: ...
def sparse_loss_grad(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp],
    w: npt.NDArray[np.float64],
) -> tuple[float, npt.NDArray[np.float64]]: ...
def fsmrank(
    x: npt.NDArray[np.float64], y: npt.NDArray[np.float64], offsets: npt.NDArray[np.uintp],
    similarity: npt.NDArray[np.float64], importance: npt.NDArray[np.float64],
    lambda1: float, lambda2: float, w0: npt.NDArray[np.float64] | None,
    max_iter: int, tol: float, accelerate: bool = True,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64], int, npt.NDArray[np.float64], bool, int]: ...
