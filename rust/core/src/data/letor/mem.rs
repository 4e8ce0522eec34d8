//! Transparent huge pages for the large buffers (the matrix, the read blocks).
//!
//! A fresh buffer costs a page fault per 4 KiB page on first touch; on a virtual machine
//! that costs as much as parsing the text. `MADV_HUGEPAGE` lets Linux back the buffer with
//! 2 MiB pages where the system allows it (`transparent_hugepage` in `madvise` or `always`
//! mode); the advice never changes the buffer's contents.

/// Below this size the advice is not worth a system call.
const MIN_BYTES: usize = 4 << 20;

/// Advises huge pages for the whole capacity of `v` (a no-op off Linux).
pub(super) fn advise_huge<T>(v: &Vec<T>) {
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes < MIN_BYTES {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let p = v.as_ptr() as usize;
        let (start, end) = ((p + PAGE - 1) & !(PAGE - 1), (p + bytes) & !(PAGE - 1));
        if end > start {
            // SAFETY: the range lies inside the vector's own allocation, and MADV_HUGEPAGE is
            // advice on how to back it, which leaves its contents as they are.
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
}
