"""Type stubs of the Rust extension module ``rankselect._core``."""
import numpy as np
import numpy.typing as npt

__version__: str

def group_queries(
    qid: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.uintp], npt.NDArray[np.uintp], npt.NDArray[np.int64]]: ...

# kernel_approx: Nystroem and random Fourier feature maps (float64, C-contiguous inputs).
def kernel_matrix(
    x: npt.NDArray[np.float64],
    y: npt.NDArray[np.float64],
    kernel: str,
    gamma: float,
    coef0: float,
    degree: float,
) -> npt.NDArray[np.float64]: ...
def nystroem_normalization(
    landmarks: npt.NDArray[np.float64],
    kernel: str,
    gamma: float,
    coef0: float,
    degree: float,
    rank: int | None = None,
) -> npt.NDArray[np.float64]: ...
def nystroem_transform(
    x: npt.NDArray[np.float64],
    landmarks: npt.NDArray[np.float64],
    normalization: npt.NDArray[np.float64],
    kernel: str,
    gamma: float,
    coef0: float,
    degree: float,
) -> npt.NDArray[np.float64]: ...
def random_fourier_transform(
    x: npt.NDArray[np.float64],
    weights: npt.NDArray[np.float64],
    offset: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]: ...
