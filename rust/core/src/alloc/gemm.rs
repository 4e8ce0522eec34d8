//! faer's matrix products, fallibly, and sized by a constant, not by the host. On x86-64 with
//! AVX2 and FMA (or AVX-512) every faer product larger than 16³ — ours and those inside faer's
//! Cholesky, triangular solves and eigendecompositions — runs in `private-gemm-x86`, which keeps
//! a packing workspace per thread, allocated on the thread's first such product **without a
//! fallback** (an abort, exit 134, when it cannot be allocated): two blocks of its L3 size.
//!
//! Its L3 size is a fixed default (2 MiB, so 4 MiB per thread) because private-gemm is built
//! without its `std` feature: the workspace's `Cargo.toml` leaves faer's `rayon` feature off
//! (the core calls faer with `Par::Seq` only and parallelises over queries itself), and that
//! feature is what would turn private-gemm's `std` on, and with it the cache sizes read from
//! sysfs: 2 x the L3 per core times the physical cores, 1 GiB per thread on a VM that reports a
//! 480 MiB L3, whatever the data's size (issue 46). `tests/reliability/test_gemm_workspace_host.py`
//! keeps the feature off (`cargo tree`) and measures the workspace.
//!
//! [`reserve_gemm_workspace`] makes that allocation fallible: on a thread whose workspace does
//! not exist yet it reserves the size (plus a margin) with a fallible allocation, releases it,
//! and at once runs one small product so that private-gemm takes the space;
//! [`Error::OutOfMemory`] (Python's `MemoryError`) otherwise. The threads reserve one at a time
//! (a process-wide lock), so the space one released is not taken by another's reservation.
//! [`reserve_gemm_workspaces`] does it on the calling thread and on every thread of the current
//! rayon pool: a kernel that uses faer calls it once at its entry.
//!
//! Not covered: x86-64 without AVX2/FMA and other architectures, where faer uses the `gemm`
//! crate, whose per-product packing buffers (bounded by its cache sizes and the product's
//! shape) are allocated infallibly on every product.

use std::cell::Cell;
use std::sync::Mutex;

use faer::linalg::matmul::matmul;
use faer::{Accum, Mat, Par};

use crate::error::{Error, Result};

const PAGE: usize = 4096;

thread_local! {
    /// Whether this thread's private-gemm workspace exists (it lives as long as the thread).
    static READY: Cell<bool> = const { Cell::new(false) };
}

/// One thread at a time reserves, releases and lets private-gemm take the space.
static RESERVING: Mutex<()> = Mutex::new(());

/// The bytes private-gemm allocates per thread on its first product (see the module docs):
/// two blocks of its L3 size in whole pages, with the cache sizes of private-gemm without `std`
/// (L1 32 KiB, L2 256 KiB, L3 2 MiB, after its floors: L2 >= 4 x L1, L3 >= 4 x L2), the same on
/// every host: 4 MiB. 0 where faer does not use private-gemm.
pub fn gemm_workspace_bytes() -> usize {
    if !uses_private_gemm() {
        return 0;
    }
    let (l1, l2, l3) = (32usize << 10, 256usize << 10, 2usize << 20);
    let l2 = l2.max(4 * l1);
    let l3 = l3.max(4 * l2);
    2 * l3.div_ceil(PAGE) * PAGE
}

/// Whether faer's products run in private-gemm here (x86-64 with AVX-512F, or AVX2 and FMA).
fn uses_private_gemm() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            || (std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Makes sure the calling thread's private-gemm workspace exists, fallibly (module docs).
pub fn reserve_gemm_workspace() -> Result<()> {
    reserve_here().map_err(|()| gemm_workspace_error())
}

/// [`reserve_gemm_workspace`] for a fresh thread under a memory limit, which may lack room even
/// for an error's message: `false` (nothing allocated) when the space is not there; the
/// thread's caller then reports [`gemm_workspace_error`].
pub fn try_reserve_gemm_workspace() -> bool {
    reserve_here().is_ok()
}

/// The space asked for per thread: the workspace, and a margin for what other threads
/// allocate between the release and the product.
fn reservation_bytes() -> usize {
    let bytes = gemm_workspace_bytes();
    bytes + (bytes / 4).max(8 << 20)
}

/// [`reserve_gemm_workspace`] without its message: `Err(())` allocates nothing, so that a fresh
/// thread under a memory limit, which may lack room even for a message, reports the failure
/// instead of aborting; the caller builds the error ([`gemm_workspace_error`]).
fn reserve_here() -> std::result::Result<(), ()> {
    if READY.with(Cell::get) {
        return Ok(());
    }
    if gemm_workspace_bytes() > 0 {
        let _one_at_a_time = RESERVING.lock().unwrap_or_else(|p| p.into_inner());
        let mut probe: Vec<u8> = Vec::new();
        probe.try_reserve_exact(reservation_bytes()).map_err(|_| ())?;
        // An allocation nothing reads may be removed by the optimiser (an unused
        // allocation-and-free pair is not observable to LLVM): the probe must be seen, or no
        // space is ever asked for and the first product aborts under a memory limit.
        std::hint::black_box(probe.as_ptr());
        drop(probe);
        first_product();
    }
    READY.with(|r| r.set(true));
    Ok(())
}

/// The error of a failed reservation (`MemoryError` in Python).
pub fn gemm_workspace_error() -> Error {
    Error::OutOfMemory {
        what: format!(
            "a thread's matrix-product workspace (faer's private-gemm, {} per thread, and a margin; \
             fewer threads need less: set RAYON_NUM_THREADS, e.g. to 1, before the first fit)",
            crate::error::fmt_bytes(gemm_workspace_bytes() as u128)
        ),
        bytes: reservation_bytes() as u128,
    }
}

/// One product of 17³ > 16³ (below that faer calls nano-gemm, which allocates nothing): the
/// first on this thread, so private-gemm allocates its workspace now.
fn first_product() {
    let a = Mat::<f64>::from_fn(17, 17, |i, j| (i + j) as f64);
    let mut c = Mat::<f64>::zeros(17, 17);
    matmul(c.as_mut(), Accum::Replace, a.as_ref(), a.as_ref(), 1.0, Par::Seq);
}

/// [`reserve_gemm_workspace`] on the calling thread and on every thread of the current rayon
/// pool: the entry of every kernel whose faer calls may run on any of them.
pub fn reserve_gemm_workspaces() -> Result<()> {
    reserve_gemm_workspace()?;
    if gemm_workspace_bytes() == 0 {
        return Ok(());
    }
    // the workers say only whether they have it (a message is built here, on the caller)
    if rayon::broadcast(|_| reserve_here().is_ok()).into_iter().all(|ok| ok) {
        Ok(())
    } else {
        Err(gemm_workspace_error())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// VmSize (bytes) of this process.
    #[cfg(target_os = "linux")]
    fn vm_size() -> usize {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("VmSize:")).unwrap();
        line.split_whitespace().nth(1).unwrap().parse::<usize>().unwrap() * 1024
    }

    /// private-gemm allocates no more than the size computed here: a fresh thread's address
    /// space grows by at most that (and a page per block) on its first product, and by
    /// nothing after it (measured on 10 fresh threads). It may grow by less, or nothing: the
    /// reservation's freed probe raises glibc's mmap threshold, so the workspace can come
    /// from the thread's arena. A host-sized workspace (2 x the L3, 520 MiB on a 260 MiB-L3
    /// host) fails this on any host whose L3 is over 2 MiB.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_workspace_is_at_most_what_is_computed() {
        let bytes = gemm_workspace_bytes();
        if bytes == 0 {
            return; // faer uses the gemm crate here
        }
        let measure = || {
            std::thread::spawn(|| {
                let before = vm_size();
                first_product();
                let after_one = vm_size();
                first_product();
                (after_one as i64 - before as i64, vm_size() as i64 - after_one as i64)
            })
            .join()
            .unwrap()
        };
        let seen: Vec<(i64, i64)> = (0..10).map(|_| measure()).collect();
        // the other tests of this process allocate beside it: one thread that saw no more
        // suffices (a host-sized workspace grows every fresh thread by it)
        assert!(
            seen.iter().any(|&(first, again)| first <= (bytes + 2 * PAGE) as i64 && again <= 0),
            "private-gemm took {seen:?} bytes, computed at most {bytes}"
        );
    }

    /// Issue 46: the workspace is private-gemm's fixed 4 MiB on every host, whatever its L3
    /// (this needs private-gemm without `std`: faer's `rayon` feature stays off).
    #[test]
    fn the_workspace_does_not_depend_on_the_host() {
        let bytes = gemm_workspace_bytes();
        assert!(bytes == 0 || bytes == 4 << 20, "{bytes}");
    }

    #[test]
    fn reserving_twice_is_free_and_every_pool_thread_reserves() {
        reserve_gemm_workspaces().unwrap();
        assert!(READY.with(Cell::get));
        let ready: Vec<bool> = rayon::broadcast(|_| READY.with(Cell::get));
        assert!(ready.iter().all(|&r| r) || gemm_workspace_bytes() == 0, "{ready:?}");
        reserve_gemm_workspace().unwrap();
    }
}
