//! Bindings of `rankselect_core::metrics`.

use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use rankselect_core::metrics::{cascade_grid, per_query_many, CascadeGrid, Convention, Measure, MetricSpec, Ties};

use crate::arrays::PyMat;
use crate::data::groups::query_offsets;
use crate::errors::{opt_count_arg, python_interrupt, IntoPyResult};

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

/// cascade_grid_per_query(spec, y, offsets, scores1, scores2, phase1, windows, max_memory=None)
/// -> (single (n_queries, n1), cascade (n_queries, n2))
///
/// The measure of every phase-1 ranker (the rows of `scores1`, n1 x m) alone and of every
/// two-phase cascade (row `c` of `scores2`, n2 x m: phase 2 re-ranks the top `windows[c]`
/// documents of phase-1 ranker `phase1[c]` above the rest in phase-1 order), per query. `spec` is a (measure, convention, ties) triple as in `metrics_per_query`. Each
/// phase-1 column is sorted once per query for all its candidates; parallel over queries with
/// the GIL released, interruptible (Ctrl-C), the same values for any number of threads.
/// `max_memory`: bytes the two outputs may take (None: no limit).
#[pyfunction]
#[pyo3(signature = (spec, y, offsets, scores1, scores2, phase1, windows, max_memory=None))]
#[allow(clippy::too_many_arguments)]
fn cascade_grid_per_query<'py>(
    py: Python<'py>,
    spec: (String, String, String),
    y: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, usize>,
    scores1: PyReadonlyArray2<'py, f64>,
    scores2: PyReadonlyArray2<'py, f64>,
    phase1: PyReadonlyArray1<'py, usize>,
    windows: PyReadonlyArray1<'py, usize>,
    max_memory: Option<Bound<'py, PyAny>>,
) -> PyResult<(PyMat<'py, f64>, PyMat<'py, f64>)> {
    let spec = MetricSpec {
        measure: spec.0.parse::<Measure>().py()?,
        convention: spec.1.parse::<Convention>().py()?,
        ties: spec.2.parse::<Ties>().py()?,
    };
    let offsets = query_offsets(&offsets)?;
    let y = crate::arrays::finite(&y, "y")?;
    let max_memory = opt_count_arg(max_memory.as_ref(), "max_memory")?.map_or(u64::MAX, |v| v as u64);
    let (n1, n2) = (scores1.as_array().nrows(), scores2.as_array().nrows());
    for (name, a) in [("scores1", scores1.as_array()), ("scores2", scores2.as_array())] {
        if a.ncols() != y.len() {
            return Err(PyValueError::new_err(format!("{name} has {} columns but y has {} rows", a.ncols(), y.len())));
        }
        if !a.is_standard_layout() {
            return Err(PyValueError::new_err(format!("{name} must be C-contiguous (row-major)")));
        }
    }
    let grid = CascadeGrid {
        labels: y,
        offsets: &offsets,
        scores1: scores1.as_slice()?,
        n1,
        scores2: scores2.as_slice()?,
        n2,
        phase1: phase1.as_slice()?,
        windows: windows.as_slice()?,
    };
    let interrupt = python_interrupt();
    let v = crate::errors::run_detached(py, || cascade_grid(&spec, &grid, max_memory, &interrupt))?;
    let n_q = offsets.len().saturating_sub(1);
    let single = numpy::ndarray::Array2::from_shape_vec((n_q, n1), v.single)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let cascade = numpy::ndarray::Array2::from_shape_vec((n_q, n2), v.cascade)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok((single.into_pyarray(py), cascade.into_pyarray(py)))
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
    m.add_function(wrap_pyfunction!(cascade_grid_per_query, m)?)?;
    Ok(())
}
