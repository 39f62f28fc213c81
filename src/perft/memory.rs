//! Memory for the lockless perft table: zero-filled, mapped lazily, backed
//! by huge pages where the OS allows.
//!
//! * **Lazy**: on Linux the buckets are an anonymous `mmap`; the kernel maps
//!   a zero page on first touch, so creating a 2 GiB table costs nothing and
//!   only the buckets a run reaches are ever backed by memory. (Elsewhere:
//!   `alloc_zeroed`, which the platform allocator usually serves the same way
//!   for large sizes.) An all-zero bucket is an empty bucket, so no
//!   initialisation pass is needed.
//! * **Populated in the background**: a thread prefaults the mapping with
//!   `madvise(MADV_POPULATE_WRITE)`, 2 MiB at a time, starting 2 ms after
//!   the table is made (so a run that short never commits it): the kernel
//!   fills whole ranges at once instead of taking a fault per page on the
//!   counting thread.
//! * **Used as it is populated**: [`ZeroedSlice::ready`] is the prefix the
//!   thread has populated so far (at least the first [`FIRST_READY`] bytes,
//!   which the counting faults in itself); the table treats buckets beyond
//!   it as absent, so the counting threads never wait on a first-touch
//!   fault. On a virtual machine whose host hands memory out lazily a fault
//!   costs milliseconds (touching 512 MiB took 0.36-1.0 s on the development
//!   machine). Measured there (interleaved, medians): start perft 7, one
//!   thread, 512 MiB, 0.80 s -> 0.49 s wall (the no-table run: 1.82 s);
//!   start perft 5 with 2 GiB, 1.49 s and 2.1 GB resident -> 0.01 s and
//!   160 MB; start perft 8, two threads, 512 MiB, 2.64 s -> 2.61 s.
//! * **Huge pages**: the mapping is aligned to 2 MiB and advised
//!   `MADV_HUGEPAGE`, so transparent huge pages back it when the system
//!   allows (`/sys/kernel/mm/transparent_hugepage/enabled` = `always` or
//!   `madvise`): fewer TLB misses on random probes. Whether the advice took
//!   is kept ([`HugePages`]) and reported.

use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Whether the table asked for, and got, huge pages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HugePages {
    /// `madvise(MADV_HUGEPAGE)` accepted the table's memory.
    Advised,
    /// `madvise` refused (the reason).
    Refused(String),
    /// Not available on this platform, or no table memory.
    Unsupported,
}

impl std::fmt::Display for HugePages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HugePages::Advised => f.write_str("madvise(MADV_HUGEPAGE) accepted"),
            HugePages::Refused(why) => write!(f, "madvise(MADV_HUGEPAGE) refused: {why}"),
            HugePages::Unsupported => f.write_str("not available"),
        }
    }
}

/// `len` zero-filled values of `T` (for `T` whose all-zero bytes are a valid
/// value: the table's atomic buckets), owned, freed on drop.
pub(crate) struct ZeroedSlice<T> {
    ptr: NonNull<T>,
    len: usize,
    /// The mapping to release (Linux) or the allocation's layout.
    raw: Raw,
    huge_pages: HugePages,
    /// The background thread faulting the mapping in ahead of the counting
    /// (Linux), stopped and joined before the mapping is released.
    populate: Option<Populate>,
    /// Bytes from the start known to be backed (or allowed to fault): the
    /// whole slice unless a [`Populate`] thread is still at work.
    ready: Arc<AtomicUsize>,
}

/// Bytes at the start of a populated mapping that the counting may fault in
/// itself before the populating thread reaches them (32 huge pages), so a
/// run has a usable table from its start. Measured against 16 MiB and
/// 4 MiB: start perft 7, one thread, 512 MiB, 3.71x the no-table time
/// against 3.19x and 3.68x.
// Only the populating thread (Linux) and the tests read it.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const FIRST_READY: usize = 64 << 20;

/// A thread that prefaults a mapping chunk by chunk
/// (`madvise(MADV_POPULATE_WRITE)`), so the counting threads find most of
/// the table's pages already backed instead of taking the first-touch faults
/// themselves. It changes no memory contents, so it runs alongside the
/// counting; kernels before 5.14 refuse the advice and it just ends.
struct Populate {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

enum Raw {
    None,
    #[cfg(target_os = "linux")]
    Mapped {
        addr: *mut libc::c_void,
        bytes: usize,
    },
    #[cfg(not(target_os = "linux"))]
    Allocated(std::alloc::Layout),
}

/// Alignment of the mapping: one x86-64 huge page.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

impl<T> ZeroedSlice<T> {
    /// `len` zeroed values, or `None` if the memory cannot be had.
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T`.
    #[allow(unsafe_code)]
    pub(crate) unsafe fn new(len: usize) -> Option<ZeroedSlice<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        if bytes == 0 {
            return Some(ZeroedSlice {
                ptr: NonNull::dangling(),
                len,
                raw: Raw::None,
                huge_pages: HugePages::Unsupported,
                populate: None,
                ready: Arc::new(AtomicUsize::new(0)),
            });
        }
        #[cfg(target_os = "linux")]
        {
            assert!(std::mem::align_of::<T>() <= HUGE_PAGE);
            let map_bytes = bytes.checked_add(HUGE_PAGE)?;
            // SAFETY: an anonymous private mapping with no address hint has
            // no preconditions; failure is reported as MAP_FAILED.
            let addr = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    map_bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if addr == libc::MAP_FAILED {
                return None;
            }
            let start = (addr as usize).next_multiple_of(HUGE_PAGE);
            let advised_len = bytes.next_multiple_of(HUGE_PAGE);
            // SAFETY: [start, start + advised_len) lies inside the mapping
            // (start - addr < HUGE_PAGE, and the mapping has HUGE_PAGE bytes
            // beyond `bytes`); madvise only changes the kernel's paging policy.
            let advised = unsafe {
                libc::madvise(start as *mut libc::c_void, advised_len, libc::MADV_HUGEPAGE)
            };
            let huge_pages = if advised == 0 {
                HugePages::Advised
            } else {
                HugePages::Refused(std::io::Error::last_os_error().to_string())
            };
            let ready = Arc::new(AtomicUsize::new(bytes));
            let populate = populate_in_background(start, advised_len, &ready);
            Some(ZeroedSlice {
                // SAFETY: start is inside a successful mapping, so non-null.
                ptr: unsafe { NonNull::new_unchecked(start as *mut T) },
                len,
                raw: Raw::Mapped {
                    addr,
                    bytes: map_bytes,
                },
                huge_pages,
                populate,
                ready,
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let layout = std::alloc::Layout::array::<T>(len).ok()?;
            // SAFETY: the layout has a non-zero size (bytes > 0).
            let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
            Some(ZeroedSlice {
                ptr: NonNull::new(ptr)?,
                len,
                raw: Raw::Allocated(layout),
                huge_pages: HugePages::Unsupported,
                populate: None,
                ready: Arc::new(AtomicUsize::new(bytes)),
            })
        }
    }

    /// Whether huge pages were advised.
    pub(crate) fn huge_pages(&self) -> &HugePages {
        &self.huge_pages
    }

    /// How many values from the start are ready: backed by memory already,
    /// so touching them takes no page fault on the caller's thread (all of
    /// them once the populating thread is done, or if there is none).
    /// Values beyond it are still valid and zero; touching one is only slower.
    #[inline(always)]
    pub(crate) fn ready(&self) -> usize {
        let bytes = self.ready.load(Ordering::Relaxed);
        (bytes / std::mem::size_of::<T>().max(1)).min(self.len)
    }
}

impl<T> std::ops::Deref for ZeroedSlice<T> {
    type Target = [T];
    #[allow(unsafe_code)]
    fn deref(&self) -> &[T] {
        // SAFETY: ptr points to len zero-filled (valid, by `new`'s contract)
        // values of T, aligned (mapping aligned to 2 MiB, or an allocation
        // with T's layout), owned by self and alive until drop.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for ZeroedSlice<T> {
    #[allow(unsafe_code)]
    fn drop(&mut self) {
        // The populating thread must be done with the mapping before it goes.
        if let Some(p) = self.populate.take() {
            p.stop.store(true, Ordering::Relaxed);
            let _ = p.thread.join();
        }
        match self.raw {
            Raw::None => {}
            #[cfg(target_os = "linux")]
            // SAFETY: the exact mapping made in `new`, unmapped once.
            Raw::Mapped { addr, bytes } => unsafe {
                libc::munmap(addr, bytes);
            },
            #[cfg(not(target_os = "linux"))]
            // SAFETY: the allocation made in `new` with this layout.
            Raw::Allocated(layout) => unsafe {
                std::alloc::dealloc(self.ptr.as_ptr() as *mut u8, layout)
            },
        }
    }
}

// SAFETY: ZeroedSlice<T> owns its values like a Box<[T]>: sending it sends
// the values, sharing it shares `&[T]`.
#[allow(unsafe_code)]
unsafe impl<T: Send> Send for ZeroedSlice<T> {}
// SAFETY: as above: `&ZeroedSlice<T>` only gives `&[T]`.
#[allow(unsafe_code)]
unsafe impl<T: Sync> Sync for ZeroedSlice<T> {}

/// Starts a [`Populate`] thread over `[start, start + len)` (a live mapping
/// of this slice), unless the table is too small to be worth a thread.
#[cfg(target_os = "linux")]
fn populate_in_background(start: usize, len: usize, ready: &Arc<AtomicUsize>) -> Option<Populate> {
    const CHUNK: usize = HUGE_PAGE;
    const DELAY: std::time::Duration = std::time::Duration::from_millis(2);
    if len < 8 * CHUNK {
        return None;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let full = ready.load(Ordering::Relaxed);
    ready.store(FIRST_READY.min(full), Ordering::Relaxed);
    let progress = Arc::clone(ready);
    let spawned = std::thread::Builder::new()
        .name("perft-table-populate".into())
        .spawn(move || {
            // A run over within DELAY (`perft count 1 --hash 2GiB`) never
            // commits the table's memory: wait a little first.
            let waited = std::time::Instant::now();
            while waited.elapsed() < DELAY {
                if flag.load(Ordering::Relaxed) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            let mut offset = 0;
            while offset < len && !flag.load(Ordering::Relaxed) {
                let n = CHUNK.min(len - offset);
                // SAFETY: [start + offset, start + offset + n) lies inside
                // the mapping, which `Drop` keeps alive until this thread is
                // joined; MADV_POPULATE_WRITE only faults pages in (contents
                // unchanged), so concurrent atomic stores are unaffected.
                #[allow(unsafe_code)]
                let r = unsafe {
                    libc::madvise(
                        (start + offset) as *mut libc::c_void,
                        n,
                        libc::MADV_POPULATE_WRITE,
                    )
                };
                if r != 0 {
                    // An old kernel: the counting faults pages in itself.
                    progress.store(full, Ordering::Relaxed);
                    return;
                }
                offset += n;
                progress.fetch_max(offset.min(full), Ordering::Relaxed);
            }
            progress.store(full, Ordering::Relaxed);
        });
    match spawned {
        Ok(thread) => Some(Populate { stop, thread }),
        Err(_) => {
            ready.store(full, Ordering::Relaxed);
            None
        }
    }
}

/// Bytes of this process's memory in transparent huge pages
/// (`AnonHugePages` of `/proc/self/smaps_rollup`), if the OS says.
pub fn anon_huge_page_bytes() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/smaps_rollup").ok()?;
    let line = text.lines().find(|l| l.starts_with("AnonHugePages:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ready_prefix_starts_usable_and_grows_to_the_whole_slice() {
        // 64 MiB + 8 KiB: larger than FIRST_READY, and not a whole number
        // of huge pages.
        let len = ((64 << 20) + 8192) / 8;
        // SAFETY: all-zero bytes are a valid u64.
        #[allow(unsafe_code)]
        let slice = unsafe { ZeroedSlice::<u64>::new(len) }.expect("64 MiB of memory");
        assert!(slice.ready() >= (FIRST_READY / 8).min(len));
        let waited = std::time::Instant::now();
        while slice.ready() < len {
            assert!(
                waited.elapsed() < std::time::Duration::from_secs(60),
                "populated only {} of {len} values in 60 s",
                slice.ready()
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(slice.ready(), len);
        assert!(slice.iter().all(|&v| v == 0));
    }

    #[test]
    fn an_empty_slice_has_nothing_ready() {
        // SAFETY: all-zero bytes are a valid u64.
        #[allow(unsafe_code)]
        let slice = unsafe { ZeroedSlice::<u64>::new(0) }.expect("no memory needed");
        assert_eq!(slice.ready(), 0);
        assert!(slice.is_empty());
    }
}
