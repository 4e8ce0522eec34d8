//! Start of rayon's global thread pool, with a fallback to one thread.
//!
//! rayon starts its global pool on first use and panics when it cannot (thread or memory
//! limits, e.g. `RAYON_NUM_THREADS=3000` under `ulimit -v`); a failed start also poisons the
//! global pool for good. So at import we first try a private pool of the configured size
//! (whose threads we join afterwards), then build the global pool with that size, or with a
//! single thread when the trial failed. Results do not depend on the number of threads.

use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use rayon::ThreadPoolBuilder;

/// Outcome of [`start_global_pool`].
pub enum PoolStart {
    /// The global pool runs the configured number of threads (or was started by someone else).
    Configured,
    /// The configured pool could not start (`reason`); the global pool runs one thread.
    FellBack { reason: String },
}

/// Tries a private pool of rayon's default size; `Err(reason)` when its threads cannot start.
fn trial_pool() -> Result<usize, String> {
    let handles: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
    let h = Arc::clone(&handles);
    let pool = ThreadPoolBuilder::new()
        .thread_name(|i| format!("rankselect-trial-{i}"))
        .spawn_handler(move |t| {
            let mut b = std::thread::Builder::new();
            if let Some(name) = t.name() {
                b = b.name(name.to_owned());
            }
            if let Some(size) = t.stack_size() {
                b = b.stack_size(size);
            }
            let handle = b.spawn(|| t.run())?;
            h.lock().unwrap_or_else(|p| p.into_inner()).push(handle);
            Ok(())
        })
        .build();
    let out = pool.as_ref().map(|p| p.current_num_threads()).map_err(|e| e.to_string());
    drop(pool);
    // Dropping a pool only asks its threads to stop: wait until they are gone so that the
    // global pool gets their memory.
    let handles = std::mem::take(&mut *handles.lock().unwrap_or_else(|p| p.into_inner()));
    for handle in handles {
        let _ = handle.join();
    }
    out
}

/// Starts rayon's global pool (see the module docs). `Err` only when not even one worker
/// thread can start.
pub fn start_global_pool() -> Result<PoolStart, String> {
    match trial_pool() {
        Ok(n) => {
            // An error here means another library started the global pool first: fine.
            let _ = ThreadPoolBuilder::new().num_threads(n).build_global();
            Ok(PoolStart::Configured)
        }
        Err(reason) => match ThreadPoolBuilder::new().num_threads(1).build_global() {
            Ok(()) => Ok(PoolStart::FellBack { reason }),
            Err(e) => {
                let msg = e.to_string();
                if msg.contains("already been initialized") {
                    Ok(PoolStart::Configured)
                } else {
                    Err(format!("{reason}; a single worker thread could not start either: {msg}"))
                }
            }
        },
    }
}
