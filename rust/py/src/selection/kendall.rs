//! Bindings of `rankselect_core::selection::kendall`.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::selection::kendall::{self, KendallOptions, Variant};

use crate::arrays::PyMat;
use crate::data::groups::query_offsets;
use crate::errors::{opt_count_arg, python_interrupt, IntoPyResult};

/// kendall_similarity(x, offsets, variant, absolute, short_max=None) -> (n, n)
///
/// `x` grouped by query (m, n) float64, `offsets` (n_queries + 1,). `short_max`: longest
/// query handled by the bitset scheme (None: the default threshold; 0: always merge sort).
#[pyfunction]
#[pyo3(signature = (x, offsets, variant, absolute, short_max=None))]
fn kendall_similarity<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    variant: &str,
    absolute: bool,
    short_max: Option<Bound<'py, PyAny>>,
) -> PyResult<PyMat<'py, f64>> {
    let short_max = opt_count_arg(short_max.as_ref(), "short_max")?;
    let opts = KendallOptions {
        variant: Variant::parse(variant).py()?,
        absolute,
        short_max: short_max.unwrap_or(kendall::DEFAULT_SHORT_MAX),
    };
    let x = x.as_array();
    let offsets = query_offsets(&offsets)?;
    let out = crate::errors::run_detached(py, || {
        let interrupt = python_interrupt();
        kendall::kendall_similarity(x, &offsets, &opts, &interrupt)
    })?;
    Ok(out.into_pyarray(py))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(kendall_similarity, m)?)?;
    m.add("KENDALL_SHORT_MAX", kendall::DEFAULT_SHORT_MAX)?;
    Ok(())
}
