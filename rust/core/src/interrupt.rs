//! Cooperative cancellation. Long-running kernels call `check()` between steps on the
//! calling thread (never inside rayon workers); the Python binding answers it with
//! `check_signals`, so Ctrl-C stops a fit cleanly with `Error::Interrupted`.

use crate::error::{Error, Result};

pub trait Interrupt {
    /// `Err(Error::Interrupted)` when the caller wants the computation to stop.
    fn check(&self) -> Result<()>;
}

/// Never interrupts (Rust callers, tests, benches).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoInterrupt;

impl Interrupt for NoInterrupt {
    #[inline]
    fn check(&self) -> Result<()> {
        Ok(())
    }
}

/// Any `Fn() -> bool` is an interrupt: `true` means "stop".
impl<F: Fn() -> bool> Interrupt for F {
    #[inline]
    fn check(&self) -> Result<()> {
        if self() {
            Err(Error::Interrupted)
        } else {
            Ok(())
        }
    }
}

/// How often [`run_interruptible`] asks its interrupt while the work runs.
pub const POLL_INTERVAL: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `work` — one long call that cannot check for interrupts itself, such as faer's
/// eigendecomposition — on a helper thread while the calling thread asks `interrupt` every
/// [`POLL_INTERVAL`]. On an interrupt it returns `Err(Error::Interrupted)` at once; the helper
/// thread then finishes in the background and its result is dropped (CPU is wasted for the
/// rest of that call, never memory beyond it). Runs `work` inline when the helper thread cannot
/// start (thread limits). A panic in `work` becomes `Error::InvalidInput`, never a panic of
/// the caller. The helper thread first reserves faer's matrix-product workspace
/// ([`crate::alloc::reserve_gemm_workspace`]): `Error::OutOfMemory` when it cannot.
pub fn run_interruptible<T, F>(interrupt: &dyn Interrupt, what: &str, work: F) -> Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    use std::sync::mpsc;
    interrupt.check()?;
    // `None`: the helper thread could not reserve the workspace (its error is built here: a
    // fresh thread under a memory limit may lack room even for the message)
    let (tx, rx) = mpsc::sync_channel::<Option<std::thread::Result<T>>>(1);
    // The closure sits in a shared slot so that it can still run inline when the thread
    // cannot be spawned.
    let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(work)));
    let slot2 = std::sync::Arc::clone(&slot);
    let spawned = std::thread::Builder::new().name(format!("rankselect-{what}")).spawn(move || {
        let f = slot2.lock().ok().and_then(|mut s| s.take());
        if let Some(f) = f {
            let out = crate::alloc::try_reserve_gemm_workspace()
                .then(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)));
            let _ = tx.send(out);
        }
    });
    let panicked = |p: Box<dyn std::any::Any + Send>| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Error::InvalidInput(format!("{what} failed: {msg}"))
    };
    if spawned.is_err() {
        let f = slot.lock().ok().and_then(|mut s| s.take());
        return match f {
            Some(f) => {
                crate::alloc::reserve_gemm_workspace()?;
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(panicked)
            }
            None => Err(Error::InvalidInput(format!("{what}: the helper thread failed"))),
        };
    }
    loop {
        match rx.recv_timeout(POLL_INTERVAL) {
            Ok(r) => return r.ok_or_else(crate::alloc::gemm_workspace_error)?.map_err(panicked),
            Err(mpsc::RecvTimeoutError::Timeout) => interrupt.check()?,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(Error::InvalidInput(format!("{what}: the helper thread stopped without a result")))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn result_comes_back() {
        assert_eq!(run_interruptible(&NoInterrupt, "t", || 6 * 7).unwrap(), 42);
    }

    #[test]
    fn interrupt_returns_before_the_work_ends() {
        // No wall-clock bound (a loaded machine stretches it): the call must return while the
        // work is still running, which it would not if it waited for the work.
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let done = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&done);
        let t0 = Instant::now();
        let stop = move || t0.elapsed() > Duration::from_millis(100);
        let r = run_interruptible(&stop, "t", move || {
            std::thread::sleep(Duration::from_secs(60));
            flag.store(true, Ordering::SeqCst);
        });
        assert!(matches!(r, Err(Error::Interrupted)));
        assert!(!done.load(Ordering::SeqCst), "returned only after the work ended");
    }

    #[test]
    fn a_panic_becomes_an_error() {
        let r: Result<()> = run_interruptible(&NoInterrupt, "t", || panic!("boom"));
        assert!(matches!(&r, Err(Error::InvalidInput(m)) if m.contains("boom")), "{r:?}");
    }
}
