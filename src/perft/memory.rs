//! Memory for the perft table, the same for every synchronisation mode:
//! zero-filled, backed by huge pages where the OS allows, and populated
//! before the count by as many threads as will count.
//!
//! * **Zero-filled, mapped once**: on Linux the buckets are one anonymous
//!   `mmap`, aligned to 2 MiB and advised `MADV_HUGEPAGE`, so transparent
//!   huge pages back it when the system allows
//!   (`/sys/kernel/mm/transparent_hugepage/enabled` = `always` or
//!   `madvise`): fewer TLB misses on random probes. An all-zero bucket is an
//!   empty bucket, so no initialisation pass writes anything. Elsewhere:
//!   `alloc_zeroed`.
//! * **Populated in parallel, before counting** (`for_each_chunk`,
//!   `ZeroedSlice::prefault`): the mapping is split into 2 MiB chunks
//!   that the populating threads take from a shared counter; each chunk is
//!   faulted in with `madvise(MADV_POPULATE_WRITE)` (Linux 5.14 and later)
//!   or, where that is refused, by writing one value per 4 KiB page. A
//!   count then never waits on a first-touch fault and never finds a bucket
//!   it cannot use. The time this takes is the table's set-up, which every
//!   report gives as a figure of its own. Overlapping it with the count
//!   (a background thread populating while the counting threads skip the
//!   part not yet populated) was measured against it: see
//!   docs/performance.md, "Threads and the perft table".

use std::ops::Range;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// One x86-64 huge page: the mapping's alignment and the population's unit.
pub(crate) const CHUNK_BYTES: usize = 2 << 20;

impl<T> ZeroedSlice<T> {
    /// `len` zeroed values, or `None` if the memory cannot be had. Nothing
    /// is touched: see [`ZeroedSlice::prefault`].
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
            });
        }
        #[cfg(target_os = "linux")]
        {
            assert!(std::mem::align_of::<T>() <= CHUNK_BYTES);
            let map_bytes = bytes.checked_add(CHUNK_BYTES)?;
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
            let start = (addr as usize).next_multiple_of(CHUNK_BYTES);
            let advised_len = bytes.next_multiple_of(CHUNK_BYTES);
            // SAFETY: [start, start + advised_len) lies inside the mapping
            // (start - addr < CHUNK_BYTES, and the mapping has CHUNK_BYTES
            // bytes beyond `bytes`); madvise only changes the kernel's
            // paging policy.
            let advised = unsafe {
                libc::madvise(start as *mut libc::c_void, advised_len, libc::MADV_HUGEPAGE)
            };
            let huge_pages = if advised == 0 {
                HugePages::Advised
            } else {
                HugePages::Refused(std::io::Error::last_os_error().to_string())
            };
            Some(ZeroedSlice {
                // SAFETY: start is inside a successful mapping, so non-null.
                ptr: unsafe { NonNull::new_unchecked(start as *mut T) },
                len,
                raw: Raw::Mapped {
                    addr,
                    bytes: map_bytes,
                },
                huge_pages,
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
            })
        }
    }

    /// Whether huge pages were advised.
    pub(crate) fn huge_pages(&self) -> &HugePages {
        &self.huge_pages
    }

    /// Asks the kernel to back the values `range` with memory now
    /// (`madvise(MADV_POPULATE_WRITE)`: whole ranges filled at once, contents
    /// unchanged). False where that is not available (a kernel before 5.14,
    /// or not Linux): the caller then touches the pages itself.
    #[allow(unsafe_code)]
    pub(crate) fn prefault(&self, range: Range<usize>) -> bool {
        assert!(range.start <= range.end && range.end <= self.len);
        if range.is_empty() {
            return true;
        }
        #[cfg(target_os = "linux")]
        {
            let size = std::mem::size_of::<T>();
            let start = self.ptr.as_ptr() as usize + range.start * size;
            let page = 4096;
            let aligned = start - start % page;
            let len = range.end * size + self.ptr.as_ptr() as usize - aligned;
            // SAFETY: [aligned, aligned + len rounded up to a page) lies
            // inside the mapping: `aligned` is at or after the mapping's
            // start (the slice starts on a 2 MiB boundary, so rounding down
            // to 4 KiB stays inside it), and the mapping extends CHUNK_BYTES
            // beyond the slice's end. MADV_POPULATE_WRITE changes no memory
            // contents.
            let r = unsafe {
                libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_POPULATE_WRITE)
            };
            r == 0
        }
        #[cfg(not(target_os = "linux"))]
        {
            false
        }
    }
}

impl<T> ZeroedSlice<T> {
    /// Gives the memory of the values `range` back to the kernel
    /// (`madvise(MADV_DONTNEED)`: they read as zero afterwards), so that
    /// several threads can free a large table at once before it is
    /// unmapped. False where that is not available; the unmapping then
    /// frees everything.
    ///
    /// # Safety
    /// Nothing may read or write the values `range` while this runs or
    /// afterwards, except to find them zero (the owner is about to drop the
    /// slice; disjoint ranges may be discarded from several threads).
    #[allow(unsafe_code)]
    pub(crate) unsafe fn discard(&self, range: Range<usize>) -> bool {
        assert!(range.start <= range.end && range.end <= self.len);
        #[cfg(target_os = "linux")]
        {
            let size = std::mem::size_of::<T>();
            let page = 4096;
            // Whole pages only: a partial page at either end is left to the
            // unmapping.
            let first = (self.ptr.as_ptr() as usize + range.start * size).next_multiple_of(page);
            let end = (self.ptr.as_ptr() as usize + range.end * size) / page * page;
            if end <= first {
                return true;
            }
            // SAFETY: [first, end) lies inside the slice's mapping, and the
            // caller guarantees nothing uses those values any more; they
            // become zero, which is a valid T (`new`'s contract).
            unsafe {
                libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_DONTNEED) == 0
            }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = range;
            false
        }
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

/// Calls `f` exactly once for each chunk of `chunk` values of `0..len` (the
/// last one may be shorter), from `threads` threads at once (scoped; the
/// calling thread is one of them). The threads take the next chunk from a
/// shared counter, so a slow chunk (a fault the host is slow to serve) does
/// not hold the others up. Returns how many threads took part: no more than
/// there are chunks.
pub(crate) fn for_each_chunk(
    len: usize,
    chunk: usize,
    threads: usize,
    f: impl Fn(Range<usize>) + Sync,
) -> usize {
    let chunk = chunk.max(1);
    let chunks = len.div_ceil(chunk);
    let threads = threads.clamp(1, chunks.max(1));
    let next = AtomicUsize::new(0);
    let work = || {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= chunks {
                break;
            }
            f(i * chunk..((i + 1) * chunk).min(len));
        }
    };
    if threads == 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 1..threads {
                s.spawn(work);
            }
            work();
        });
    }
    threads
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
    use std::sync::atomic::AtomicU8;

    #[test]
    fn every_chunk_is_handed_out_exactly_once_whatever_the_thread_count() {
        for (len, chunk) in [(0, 8), (1, 8), (8, 8), (1000, 7), (4096, 64), (65, 64)] {
            for threads in [1, 2, 3, 16, 64] {
                let seen: Vec<AtomicU8> = (0..len).map(|_| AtomicU8::new(0)).collect();
                let used = for_each_chunk(len, chunk, threads, |range| {
                    assert!(range.len() <= chunk && !range.is_empty());
                    for i in range {
                        seen[i].fetch_add(1, Ordering::Relaxed);
                    }
                });
                assert!(used >= 1 && used <= threads.max(1));
                assert!(
                    seen.iter().all(|s| s.load(Ordering::Relaxed) == 1),
                    "len {len}, chunk {chunk}, {threads} threads"
                );
            }
        }
    }

    #[test]
    fn prefaulted_memory_is_still_zero_and_every_range_is_accepted() {
        // 5 MiB + 8 KiB: not a whole number of chunks.
        let len = ((5 << 20) + 8192) / 8;
        // SAFETY: all-zero bytes are a valid u64.
        #[allow(unsafe_code)]
        let slice = unsafe { ZeroedSlice::<u64>::new(len) }.expect("5 MiB of memory");
        let advised = std::sync::atomic::AtomicBool::new(true);
        for_each_chunk(len, CHUNK_BYTES / 8, 3, |range| {
            if !slice.prefault(range) {
                advised.store(false, Ordering::Relaxed);
            }
        });
        if cfg!(target_os = "linux") && kernel_at_least(5, 14) {
            assert!(advised.load(Ordering::Relaxed));
        }
        assert!(slice.prefault(len - 1..len) || !advised.load(Ordering::Relaxed));
        assert!(slice.iter().all(|&v| v == 0));
    }

    /// Whether the running kernel's release is at least `major.minor`.
    fn kernel_at_least(major: u32, minor: u32) -> bool {
        let Ok(release) = std::fs::read_to_string("/proc/sys/kernel/osrelease") else {
            return false;
        };
        let mut parts = release.trim().split(['.', '-']);
        let ma: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        let mi: u32 = parts.next().and_then(|p| p.parse().ok()).unwrap_or(0);
        (ma, mi) >= (major, minor)
    }

    #[test]
    fn an_empty_slice_needs_no_memory() {
        // SAFETY: all-zero bytes are a valid u64.
        #[allow(unsafe_code)]
        let slice = unsafe { ZeroedSlice::<u64>::new(0) }.expect("no memory needed");
        assert!(slice.is_empty());
        assert!(slice.prefault(0..0));
    }
}
