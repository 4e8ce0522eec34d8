//! Error type shared by every kernel. Bindings map it to Python exceptions:
//! `InvalidInput` and `Parse` -> `ValueError`, `Io` -> `OSError`,
//! `Memory` and `OutOfMemory` -> `MemoryError`, `Interrupted` -> `KeyboardInterrupt`; `Callback`: the binding
//! re-raises the exception of the caller-supplied data source as is.

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
    /// An allocation that grows with the data would exceed the memory limit: `what` needs
    /// `bytes`, more than `max_memory`; `remedy` tells the user what to change.
    #[error("{what} needs {} but the memory limit is {}; {remedy}", fmt_bytes(*.bytes), fmt_bytes(*.max_memory))]
    Memory { what: String, bytes: u128, max_memory: u128, remedy: String },
    /// The operating system refused an allocation of `bytes` for `what` (a memory limit such as
    /// `ulimit -v` or a container's cgroup, or memory taken by others since the memory rule's
    /// check); see [`crate::alloc`].
    #[error("out of memory: {what} needs {} that could not be allocated; use less data (fewer rows, features or pairs) or raise the process's memory limit", fmt_bytes(*.bytes))]
    OutOfMemory { what: String, bytes: u128 },
    /// The caller asked the computation to stop (Ctrl-C in Python).
    #[error("interrupted")]
    Interrupted,
    /// A caller-supplied data source (a callback answering a solver's requests, e.g. sums over
    /// Dask shards) failed; the caller holds its own error and reports it.
    #[error("the data source failed: {0}")]
    Callback(String),
}

pub type Result<T> = std::result::Result<T, Error>;

/// Human-readable byte count (powers of 1024), e.g. `32.0 GiB`.
pub fn fmt_bytes(bytes: u128) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u < UNITS.len() - 1 {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// The memory rule of the library: before an allocation that grows with the data, compute its
/// size (`bytes`, exact, in u128 so that it cannot overflow) and refuse when it exceeds `max_memory`
/// (bytes; the Python layer passes `rankselect.get_config()["max_memory"]` resolved to bytes).
pub fn check_memory(what: &str, bytes: u128, max_memory: u64, remedy: &str) -> Result<()> {
    if bytes > max_memory as u128 {
        return Err(Error::Memory {
            what: what.to_string(),
            bytes,
            max_memory: max_memory as u128,
            remedy: remedy.to_string(),
        });
    }
    Ok(())
}

/// Shorthand for `Err(Error::InvalidInput(format!(...)))`.
#[macro_export]
macro_rules! invalid {
    ($($arg:tt)*) => {
        Err($crate::error::Error::InvalidInput(format!($($arg)*)))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_rule_refuses_and_names_sizes() {
        assert!(check_memory("x", 10, 10, "r").is_ok());
        let e =
            check_memory("a dense 4294967295 x 2 matrix", 34_359_738_360, 1 << 30, "use fewer features").unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("32.0 GiB") && msg.contains("1.0 GiB") && msg.contains("use fewer features"), "{msg}");
    }
}
