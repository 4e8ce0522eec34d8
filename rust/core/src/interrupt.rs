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
