//! Bindings of `rankselect_core::models::kernel_approx` (Nyström and random Fourier features).
//! Arrays are validated (shapes, dtype float64) by the Python layer; shape mismatches
//! still come back as `ValueError` from the core.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::models::kernel_approx::{self, Kernel};

use crate::arrays::PyMat;
use crate::errors::{opt_count_arg, python_interrupt, IntoPyResult};

/// kernel_matrix(X, Y, kernel, gamma, coef0, degree) -> K (n, c), K[i, j] = k(X[i], Y[j])
#[pyfunction]
#[pyo3(signature = (x, y, kernel, gamma, coef0, degree))]
fn kernel_matrix<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray2<'py, f64>,
    kernel: &str,
    gamma: f64,
    coef0: f64,
    degree: f64,
) -> PyResult<PyMat<'py, f64>> {
    let kernel = Kernel::from_name(kernel, gamma, coef0, degree).py()?;
    let (x, y) = (x.as_array(), y.as_array());
    let out = crate::errors::run_detached(py, || {
        let interrupt = python_interrupt();
        kernel_approx::kernel_block(x, y, kernel, &interrupt)
    })?;
    Ok(out.into_pyarray(py))
}

/// nystroem_normalization(landmarks, kernel, gamma, coef0, degree, rank) -> N
///
/// (c, c) scikit-learn-compatible W^{-1/2} when rank is None, else (rank, c) = Σ_k^{-1/2} U_kᵀ.
#[pyfunction]
#[pyo3(signature = (landmarks, kernel, gamma, coef0, degree, rank=None))]
fn nystroem_normalization<'py>(
    py: Python<'py>,
    landmarks: PyReadonlyArray2<'py, f64>,
    kernel: &str,
    gamma: f64,
    coef0: f64,
    degree: f64,
    rank: Option<Bound<'py, PyAny>>,
) -> PyResult<PyMat<'py, f64>> {
    let kernel = Kernel::from_name(kernel, gamma, coef0, degree).py()?;
    let rank = opt_count_arg(rank.as_ref(), "rank")?;
    let z = landmarks.as_array();
    let out = crate::errors::run_detached(py, || {
        let interrupt = python_interrupt();
        kernel_approx::nystroem_normalization(z, kernel, rank, &interrupt)
    })?;
    Ok(out.into_pyarray(py))
}

/// nystroem_transform(X, landmarks, normalization, kernel, gamma, coef0, degree) -> K(X, L) Nᵀ
#[pyfunction]
#[pyo3(signature = (x, landmarks, normalization, kernel, gamma, coef0, degree))]
// A binding takes its Python signature as is: one argument per parameter.
#[allow(clippy::too_many_arguments)]
fn nystroem_transform<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    landmarks: PyReadonlyArray2<'py, f64>,
    normalization: PyReadonlyArray2<'py, f64>,
    kernel: &str,
    gamma: f64,
    coef0: f64,
    degree: f64,
) -> PyResult<PyMat<'py, f64>> {
    let kernel = Kernel::from_name(kernel, gamma, coef0, degree).py()?;
    let (x, z, n) = (x.as_array(), landmarks.as_array(), normalization.as_array());
    let out = crate::errors::run_detached(py, || {
        let interrupt = python_interrupt();
        kernel_approx::nystroem_transform(x, z, n, kernel, &interrupt)
    })?;
    Ok(out.into_pyarray(py))
}

/// random_fourier_transform(X, weights, offset) -> sqrt(2/D) cos(X weights + offset)
#[pyfunction]
fn random_fourier_transform<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    weights: PyReadonlyArray2<'py, f64>,
    offset: PyReadonlyArray1<'py, f64>,
) -> PyResult<PyMat<'py, f64>> {
    let (x, w, b) = (x.as_array(), weights.as_array(), offset.as_array());
    let out = crate::errors::run_detached(py, || {
        let interrupt = python_interrupt();
        kernel_approx::random_fourier_transform(x, w, b, &interrupt)
    })?;
    Ok(out.into_pyarray(py))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(kernel_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(nystroem_normalization, m)?)?;
    m.add_function(wrap_pyfunction!(nystroem_transform, m)?)?;
    m.add_function(wrap_pyfunction!(random_fourier_transform, m)?)?;
    Ok(())
}
