//! The one path for data-sized allocations: a buffer whose length grows with the data (rows,
//! features, pairs) is allocated here, fallibly, so that an operating-system limit
//! (`ulimit -v`, a container's cgroup) gives [`Error::OutOfMemory`] (Python's `MemoryError`,
//! naming the size and the operation) instead of aborting the process. The memory rule
//! ([`crate::check_memory`]) refuses sizes above the configured limit before the allocation;
//! this catches what the rule cannot see (other allocations, other processes).
//!
//! faer's matrix products keep a workspace per thread that they allocate infallibly: the
//! kernels that call faer reserve it first ([`reserve_gemm_workspaces`], `gemm`).
//!
//! `tests/test_alloc_lint.py` keeps `vec![..; n]`, `Array2::zeros`, `Mat::zeros` and
//! `MemBuffer::new` out of the core's non-test code (an allowlist names the exceptions).

mod gemm;

pub use gemm::{
    gemm_workspace_bytes, gemm_workspace_error, reserve_gemm_workspace, reserve_gemm_workspaces,
    try_reserve_gemm_workspace,
};

use faer::dyn_stack::{MemBuffer, StackReq};
use faer::Mat;
use ndarray::Array2;

use crate::error::{Error, Result};

fn oom(what: &str, bytes: u128) -> Error {
    Error::OutOfMemory { what: what.to_string(), bytes }
}

fn bytes_of<T>(len: usize) -> u128 {
    len as u128 * std::mem::size_of::<T>().max(1) as u128
}

/// An empty vector with room for `len` elements, or `OutOfMemory` naming `what`.
pub fn try_with_capacity<T>(len: usize, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| oom(what, bytes_of::<T>(len)))?;
    Ok(v)
}

/// `vec![value; len]`, fallibly.
pub fn try_filled<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut v = try_with_capacity(len, what)?;
    v.resize(len, value);
    Ok(v)
}

/// `vec![T::default(); len]` (zeros for numbers, `false` for bools), fallibly.
pub fn try_zeroed_vec<T: Clone + Default>(len: usize, what: &str) -> Result<Vec<T>> {
    try_filled(len, T::default(), what)
}

/// A copy of `src`, fallibly.
pub fn try_copy<T: Clone>(src: &[T], what: &str) -> Result<Vec<T>> {
    let mut v = try_with_capacity(src.len(), what)?;
    v.extend_from_slice(src);
    Ok(v)
}

/// `(0..len).map(f).collect()`, fallibly.
pub fn try_from_fn<T>(len: usize, f: impl FnMut(usize) -> T, what: &str) -> Result<Vec<T>> {
    let mut v = try_with_capacity(len, what)?;
    v.extend((0..len).map(f));
    Ok(v)
}

/// A zeroed row-major buffer of `rows x cols` numbers (the product checked for overflow).
pub fn try_zeroed_rows(rows: usize, cols: usize, what: &str) -> Result<Vec<f64>> {
    let len = rows.checked_mul(cols).ok_or_else(|| oom(what, rows as u128 * cols as u128 * 8))?;
    try_zeroed_vec(len, what)
}

/// A row-major `rows x cols` array of zeros, fallibly (`Array2::zeros`).
pub fn try_zeros2(rows: usize, cols: usize, what: &str) -> Result<Array2<f64>> {
    let v = try_zeroed_rows(rows, cols, what)?;
    Array2::from_shape_vec((rows, cols), v).map_err(|e| Error::InvalidInput(format!("{what}: {e}")))
}

/// A faer matrix `rows x cols` with entries `f(i, j)`, fallibly (`Mat::from_fn`).
pub fn try_mat(rows: usize, cols: usize, f: impl FnMut(usize, usize) -> f64, what: &str) -> Result<Mat<f64>> {
    let mut m = Mat::<f64>::new();
    m.try_reserve(rows, cols).map_err(|_| oom(what, rows as u128 * cols as u128 * 8))?;
    m.resize_with(rows, cols, f);
    Ok(m)
}

/// A faer matrix of zeros, fallibly (`Mat::zeros`).
pub fn try_mat_zeros(rows: usize, cols: usize, what: &str) -> Result<Mat<f64>> {
    try_mat(rows, cols, |_, _| 0.0, what)
}

/// A faer workspace for `req`, fallibly (`MemBuffer::new`).
pub fn try_workspace(req: StackReq, what: &str) -> Result<MemBuffer> {
    MemBuffer::try_new(req).map_err(|_| oom(what, req.size_bytes() as u128))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impossible_sizes_are_errors_not_aborts() {
        let e = try_zeroed_vec::<f64>(usize::MAX / 16, "a huge buffer").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("a huge buffer") && msg.contains("PiB"), "{msg}");
        assert!(try_zeros2(1 << 40, 1 << 40, "x").is_err());
        assert!(try_mat_zeros(1 << 31, 1 << 31, "m").is_err());
        assert_eq!(try_filled(3, 1.5, "v").unwrap(), vec![1.5; 3]);
        assert_eq!(try_mat(2, 2, |i, j| (i * 2 + j) as f64, "m").unwrap()[(1, 0)], 2.0);
        assert_eq!(try_zeros2(2, 3, "z").unwrap().dim(), (2, 3));
    }
}
