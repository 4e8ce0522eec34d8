//! Parallel maps in which the calling thread works too.
//!
//! A kernel called from outside rayon's pool (a fit's Python thread) hands each parallel
//! section to the pool and sleeps until it ends. On a host with as many cores as pool threads
//! the caller's core then idles while the pool's threads may share another one: on a 2-core
//! VM, after a second of other single-threaded work, both workers had been placed on one core
//! and a 2-thread greedy fit ran no faster than a 1-thread one (benches/RESULTS.md, issue #46
//! item 7). [`map_tasks`] lets the caller take tasks like the pool's threads: `threads - 1`
//! helpers from the pool and the caller each take the next task from a shared counter. Task
//! `t`'s result goes to slot `t` whatever thread ran it, so the results are the same for any
//! number of threads and any schedule (given that `f`'s result does not depend on what its
//! scratch held before).

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use rayon::prelude::*;

/// `f(scratch, t, items[t])` for every task `t`, in parallel, the results in task order; each
/// thread's `scratch` from `init` (as rayon's `map_init`). Called from a pool thread, rayon's
/// own parallel map; from any other thread, the caller and `threads - 1` of the pool's threads
/// share the tasks (module docs), except inside a task that thread runs for an outer map, where
/// it runs them alone (the other threads have the outer tasks).
pub fn map_tasks<T, S, R>(
    items: Vec<T>,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(&mut S, usize, T) -> R + Sync + Send,
) -> Vec<R>
where
    T: Send,
    R: Send,
{
    let n = items.len();
    if rayon::current_thread_index().is_some() {
        return items.into_par_iter().enumerate().map_init(init, |s, (t, item)| f(s, t, item)).collect();
    }
    let helpers = rayon::current_num_threads().saturating_sub(1).min(n.saturating_sub(1));
    // nested in a task this thread runs for an outer map: the other threads are busy with the
    // outer tasks, so this one works alone (no section handed out per inner call)
    if helpers == 0 || CALLER_BUSY.with(Cell::get) {
        let mut s = init();
        return items.into_iter().enumerate().map(|(t, item)| f(&mut s, t, item)).collect();
    }
    let inputs: Vec<Mutex<Option<T>>> = items.into_iter().map(|v| Mutex::new(Some(v))).collect();
    let outputs: Vec<Mutex<Option<R>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let mut s = None;
        loop {
            let t = next.fetch_add(1, Ordering::Relaxed);
            if t >= n {
                break;
            }
            // each task is taken once (the counter), so its slots are never contended
            let item = inputs[t].lock().unwrap_or_else(|p| p.into_inner()).take();
            if let Some(item) = item {
                let r = f(s.get_or_insert_with(&init), t, item);
                *outputs[t].lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
            }
        }
    };
    rayon::in_place_scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(|_| work());
        }
        let _busy = BusyGuard::enter();
        work();
    });
    outputs
        .into_iter()
        .map(|o| o.into_inner().unwrap_or_else(|p| p.into_inner()).expect("every task ran (the scope waits for all)"))
        .collect()
}

thread_local! {
    /// Set while this (non-pool) thread runs tasks of a [`map_tasks`].
    static CALLER_BUSY: Cell<bool> = const { Cell::new(false) };
}

/// Sets [`CALLER_BUSY`] until dropped (a panic in a task included).
struct BusyGuard;

impl BusyGuard {
    fn enter() -> Self {
        CALLER_BUSY.with(|b| b.set(true));
        BusyGuard
    }
}

impl Drop for BusyGuard {
    fn drop(&mut self) {
        CALLER_BUSY.with(|b| b.set(false));
    }
}

/// `f(t)` for `t = 0..n`, in parallel ([`map_tasks`]), the results in order.
pub fn map_range<R: Send>(n: usize, f: impl Fn(usize) -> R + Sync + Send) -> Vec<R> {
    map_tasks((0..n).map(|_| ()).collect(), || (), |_, t, ()| f(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results in task order, every task run once, each thread's scratch its own: from a
    /// thread outside every pool (the global pool's threads help) and from inside pools of 1
    /// to 4 threads (rayon's own map).
    #[test]
    fn every_task_once_in_order() {
        for n in [0usize, 1, 2, 3, 17, 100] {
            let items: Vec<usize> = (0..n).map(|t| 3 * t).collect();
            let want: Vec<(usize, usize)> = (0..n).map(|t| (t, 3 * t + 1)).collect();
            let runs = AtomicUsize::new(0);
            let f = |seen: &mut Vec<usize>, t: usize, v: usize| {
                runs.fetch_add(1, Ordering::Relaxed);
                assert!(seen.iter().all(|&s| s != t), "task {t} twice on one thread");
                seen.push(t);
                (t, v + 1)
            };
            assert_eq!(map_tasks(items.clone(), Vec::new, f), want, "outside, {n} tasks");
            for threads in 1..=4 {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                let inside = pool.install(|| map_tasks(items.clone(), Vec::new, f));
                assert_eq!(inside, want, "inside a pool of {threads}, {n} tasks");
            }
            assert_eq!(runs.load(Ordering::Relaxed), 5 * n);
            assert_eq!(map_range(n, |t| 2 * t), (0..n).map(|t| 2 * t).collect::<Vec<_>>());
        }
    }

    /// Called from outside the pool, the calling thread takes tasks itself (the reason for
    /// this module): with tasks of a millisecond, it has taken one long before a helper could
    /// have taken all of them.
    #[test]
    fn the_caller_works_too() {
        let caller = std::thread::current().id();
        let ran_here = AtomicUsize::new(0);
        let out = map_range(20, |t| {
            if std::thread::current().id() == caller {
                ran_here.fetch_add(1, Ordering::Relaxed);
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
            t
        });
        assert_eq!(out, (0..20).collect::<Vec<_>>());
        assert!(ran_here.load(Ordering::Relaxed) >= 1, "the caller ran no task");
    }

    /// A map inside a task (the caller's tasks run it alone, the pool's with rayon) gives
    /// the same results, and the caller is free for a new map after a panic.
    #[test]
    fn nested_maps() {
        let out = map_range(12, |t| map_range(30, |u| t * 100 + u).into_iter().sum::<usize>());
        let want: Vec<usize> = (0..12).map(|t| (0..30).map(|u| t * 100 + u).sum()).collect();
        assert_eq!(out, want);
        let _ = std::panic::catch_unwind(|| map_range(4, |t| assert!(t != 0, "task 0")));
        assert!(!CALLER_BUSY.with(Cell::get), "the flag outlived the panic");
    }

    /// A panic in a task reaches the caller, whichever thread ran it.
    #[test]
    fn a_panic_reaches_the_caller() {
        for bad in [0usize, 37] {
            let r = std::panic::catch_unwind(|| {
                map_range(50, |t| {
                    assert!(t != bad, "task {bad}");
                    t
                })
            });
            assert!(r.is_err(), "task {bad}'s panic was lost");
        }
    }
}
