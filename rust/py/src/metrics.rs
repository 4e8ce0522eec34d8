//! Bindings of `rankselect_core::metrics`.

use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rankselect_core::metrics::{per_query_many, Convention, Measure, MetricSpec, Ties};

use crate::arrays::PyMat;
use crate::data::groups::query_offsets;
use crate::errors::IntoPyResult;

/// metrics_per_query(specs, y, scores, offsets, max_grade=None) -> ndarray (n_specs, n_queries)
///
/// `specs` is a list of (measure, convention, ties) strings, e.g. ("ndcg@10", "letor",
/// "stable"). Rows are grouped contiguously by `offsets` (length n_queries + 1). Each query
/// is ranked once per tie mode; parallel over queries with the GIL released.
#[pyfunction]
#[pyo3(signature = (specs, y, scores, offsets, max_grade=None))]
fn metrics_per_query<'py>(
    py: Python<'py>,
    specs: Vec<(String, String, String)>,
    y: PyReadonlyArray1<'py, f64>,
    scores: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    max_grade: Option<f64>,
) -> PyResult<PyMat<'py, f64>> {
    let specs = specs
        .iter()
        .map(|(m, c, t)| {
            Ok(MetricSpec {
                measure: m.parse::<Measure>().py()?,
                convention: c.parse::<Convention>().py()?,
                ties: t.parse::<Ties>().py()?,
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let offsets = query_offsets(&offsets)?;
    let (y, scores) = (crate::arrays::finite(&y, "y")?, crate::arrays::finite(&scores, "scores")?);
    let n_q = offsets.len().saturating_sub(1);
    let out = crate::errors::run_detached(py, || per_query_many(&specs, y, scores, &offsets, max_grade))?;
    let flat: Vec<f64> = out.into_iter().flatten().collect();
    let arr = numpy::ndarray::Array2::from_shape_vec((specs.len(), n_q), flat)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(arr.into_pyarray(py))
}

/// parse_measure(name) -> (kind, k): the one parser of measure names (case-insensitive):
/// kind is "ndcg", "p", "map", "meanndcg" or "err"; k the cut-off or None.
#[pyfunction]
fn parse_measure(name: &str) -> PyResult<(&'static str, Option<usize>)> {
    Ok(match name.parse::<Measure>().py()? {
        Measure::Ndcg(k) => ("ndcg", k),
        Measure::Precision(k) => ("p", Some(k)),
        Measure::AveragePrecision => ("map", None),
        Measure::MeanNdcg => ("meanndcg", None),
        Measure::Err(k) => ("err", k),
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The one list of each: CONVENTIONS = ("standard", "exponential", "trec", "lightgbm", "letor")
    // ("standard": the old name of "exponential"), TIES = ("stable", "pessimistic");
    // the first is the default.
    let py = m.py();
    m.add("CONVENTIONS", PyTuple::new(py, Convention::NAMES)?)?;
    m.add("TIES", PyTuple::new(py, Ties::ALL.map(Ties::name))?)?;
    m.add_function(wrap_pyfunction!(metrics_per_query, m)?)?;
    m.add_function(wrap_pyfunction!(parse_measure, m)?)?;
    Ok(())
}
