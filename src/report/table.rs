//! The perft table in reports: its set-up (the time to allocate and
//! populate its memory, a figure of its own beside a count's time) and its
//! counters.

use serde::Serialize;

use super::thousands;
use crate::perft::PerftStats;
use crate::perft::hash::{PerftTable, human_bytes};

/// How a run's perft table was made, and what that took.
#[derive(Clone, Debug, Serialize)]
pub struct TableSetupReport {
    /// Table size in bytes.
    pub hash_bytes: u128,
    /// Synchronisation: `lockless`, `mutex` or `striped:N`.
    pub hash_sync: String,
    /// Wall-clock seconds to allocate the table and populate its memory,
    /// spent before the count starts: not part of the count's `seconds`.
    pub setup_seconds: f64,
    /// Threads that populated the memory (the run's worker count; one for
    /// a table under 16 MiB).
    pub setup_threads: usize,
    /// How its pages were faulted in: `madvise(MADV_POPULATE_WRITE)`, `a
    /// write per page` or `nothing to populate`.
    pub populated: String,
    /// Huge pages: `madvise(MADV_HUGEPAGE) accepted`, `... refused:
    /// <reason>` or `not available`.
    pub huge_pages: String,
}

impl TableSetupReport {
    /// The set-up of `table`.
    pub fn of(table: &PerftTable) -> TableSetupReport {
        let setup = table.setup();
        TableSetupReport {
            hash_bytes: table.bytes(),
            hash_sync: table.sync().to_string(),
            setup_seconds: setup.seconds,
            setup_threads: setup.threads,
            populated: setup.populated.to_string(),
            huge_pages: setup.huge_pages.to_string(),
        }
    }

    /// One text line: `table     8 GiB lockless, ready in 0.270 s (...)`.
    pub fn to_text(&self) -> String {
        format!(
            "table     {} {}, ready in {:.3} s before the count (populated by {} with {}; huge pages: {})\n",
            human_bytes(self.hash_bytes),
            self.hash_sync,
            self.setup_seconds,
            super::plural(self.setup_threads as u128, "thread"),
            self.populated,
            self.huge_pages
        )
    }
}

/// Perft table counters of a run, with the table's set-up.
#[derive(Clone, Debug, Serialize)]
pub struct TableStats {
    /// Size, mode and set-up time.
    #[serde(flatten)]
    pub setup: TableSetupReport,
    /// Probes.
    pub probes: u64,
    /// Probes that found their count.
    pub hits: u64,
    /// `hits / probes`.
    pub hit_rate: f64,
    /// Counts stored in empty entries or over the same position.
    pub stores: u64,
    /// Counts stored over another position's smaller count.
    pub replacements: u64,
    /// Counts not stored (every entry of the bucket held a larger count).
    pub rejected: u64,
    /// Probes that found the bucket's lock still taken after a short wait
    /// (a miss: the subtree was counted; mutex modes).
    pub busy_probes: u64,
    /// Counts not stored because the bucket's lock stayed taken through a
    /// short wait (mutex modes).
    pub busy_stores: u64,
    /// Probes and stores that found the bucket's lock taken and had it
    /// after a short wait (mutex modes).
    pub lock_waits: u64,
    /// The smallest hashed depth at the end of the run: the configured one,
    /// or more where busy locks raised it.
    pub min_hash_depth: u32,
}

impl TableStats {
    /// From the driver's counters, for `table`; `min_hash_depth` as the run
    /// ended.
    pub fn of(table: &PerftTable, stats: &PerftStats, min_hash_depth: u32) -> TableStats {
        TableStats {
            setup: TableSetupReport::of(table),
            probes: stats.probes,
            hits: stats.hits,
            hit_rate: stats.hit_rate(),
            stores: stats.stores,
            replacements: stats.replacements,
            rejected: stats.rejected,
            busy_probes: stats.busy_probes,
            busy_stores: stats.busy_stores,
            lock_waits: stats.lock_waits,
            min_hash_depth,
        }
    }

    /// The counters as one text line (busy figures only for a mutex mode,
    /// the raised depth only when it rose above `configured`).
    pub fn counters_text(&self, configured: u32) -> String {
        let mut s = format!(
            "table     {} probes, {} hits ({:.1} %), {} stores, {} replacements, {} rejected",
            thousands(self.probes.into()),
            thousands(self.hits.into()),
            100.0 * self.hit_rate,
            thousands(self.stores.into()),
            thousands(self.replacements.into()),
            thousands(self.rejected.into())
        );
        if self.setup.hash_sync != "lockless" {
            s.push_str(&format!(
                "; locks: {} waits, {} probes missed and {} stores skipped when one stayed taken",
                thousands(self.lock_waits.into()),
                thousands(self.busy_probes.into()),
                thousands(self.busy_stores.into())
            ));
        }
        if self.min_hash_depth > configured {
            s.push_str(&format!(
                "; hashed from depth {} (raised from {configured}: contended locks)",
                self.min_hash_depth
            ));
        }
        s.push('\n');
        s
    }
}
