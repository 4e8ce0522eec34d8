//! Bindings of `rankselect_core::data`: query grouping and centring, the LETOR reader.

use pyo3::prelude::*;

pub mod groups;
mod letor;

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    groups::register(m)?;
    letor::register(m)
}
