//! Bindings of `rankselect_core::selection::importance`.

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use rankselect_core::metrics::{Convention, Measure, MetricSpec};
use rankselect_core::selection::importance;

use crate::arrays::PyVec;
use crate::data::groups::query_offsets;
use crate::errors::{opt_count_arg, python_interrupt, IntoPyResult};
use crate::results::fields_repr;

/// PairwiseAccuracy: the pairwise accuracy of every feature (read-only): `ascending` and
/// `descending` (n,), by `x` and by `-x` as the score, and `n_pairs`, the preference pairs.
#[pyclass(frozen, module = "rankselect._core", name = "PairwiseAccuracy")]
pub struct PairwiseAccuracy {
    #[pyo3(get)]
    ascending: Py<PyArray1<f64>>,
    #[pyo3(get)]
    descending: Py<PyArray1<f64>>,
    #[pyo3(get)]
    n_pairs: u64,
}

#[pymethods]
impl PairwiseAccuracy {
    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        fields_repr(slf.as_any(), &["ascending", "descending", "n_pairs"])
    }
}

/// pairwise_accuracy(x, y, offsets, short_max=None) -> PairwiseAccuracy
///
/// Pairwise accuracy of every feature of `x` (grouped, (m, n)) as the score for `y`, by
/// `x` and by `-x`; a tied score counts as half a misordered pair.
#[pyfunction]
#[pyo3(signature = (x, y, offsets, short_max=None))]
fn pairwise_accuracy<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    short_max: Option<Bound<'py, PyAny>>,
) -> PyResult<PairwiseAccuracy> {
    let short_max = opt_count_arg(short_max.as_ref(), "short_max")?;
    let x = x.as_array();
    let y = y.as_array();
    let offsets = query_offsets(&offsets)?;
    let r = crate::errors::run_detached(py, || {
        let interrupt = python_interrupt();
        importance::pairwise_accuracy(x, y, &offsets, short_max, &interrupt)
    })?;
    Ok(PairwiseAccuracy {
        ascending: r.ascending.into_pyarray(py).unbind(),
        descending: r.descending.into_pyarray(py).unbind(),
        n_pairs: r.preference_pairs,
    })
}

/// metric_importance(x, y, offsets, measure, convention) -> (ascending, descending)
///
/// Mean metric of every feature of `x` (grouped, (m, n)) used as the score, by `x` and by
/// `-x`, with pessimistic ties.
#[pyfunction]
fn metric_importance<'py>(
    py: Python<'py>,
    x: PyReadonlyArray2<'py, f64>,
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    measure: &str,
    convention: &str,
) -> PyResult<(PyVec<'py, f64>, PyVec<'py, f64>)> {
    let measure: Measure = measure.parse().py()?;
    let convention: Convention = convention.parse().py()?;
    let spec = MetricSpec::new(measure).with_convention(convention);
    let x = x.as_array();
    let y = y.as_array();
    let offsets = query_offsets(&offsets)?;
    let (asc, desc) = crate::errors::run_detached(py, || {
        let interrupt = python_interrupt();
        importance::metric_importance(x, y, &offsets, &spec, &interrupt)
    })?;
    Ok((asc.into_pyarray(py), desc.into_pyarray(py)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PairwiseAccuracy>()?;
    m.add_function(wrap_pyfunction!(pairwise_accuracy, m)?)?;
    m.add_function(wrap_pyfunction!(metric_importance, m)?)?;
    Ok(())
}
