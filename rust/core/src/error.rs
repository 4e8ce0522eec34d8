//! Error type shared by every kernel. Bindings map it to Python exceptions:
//! `InvalidInput` and `Parse` -> `ValueError`, `Io` -> `OSError`,
//! `Interrupted` -> `KeyboardInterrupt`.

use thiserror::Error;

#[derive(Debug, Error)]
pub enum Error {
    /// A parameter or an array does not satisfy the kernel's contract.
    #[error("{0}")]
    InvalidInput(String),
    /// A LETOR/SVMlight file is malformed; `line` is 1-based.
    #[error("line {line}: {msg}")]
    Parse { line: usize, msg: String },
    /// Reading a file failed.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The caller asked the computation to stop (Ctrl-C in Python).
    #[error("interrupted")]
    Interrupted,
}

pub type Result<T> = std::result::Result<T, Error>;

/// Shorthand for `Err(Error::InvalidInput(format!(...)))`.
#[macro_export]
macro_rules! invalid {
    ($($arg:tt)*) => {
        Err($crate::error::Error::InvalidInput(format!($($arg)*)))
    };
}
