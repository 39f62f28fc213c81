//! `split`: the unique positions at the split ply, sharded into unit files.
//!
//! The positions are enumerated one ply at a time: each level holds only its
//! unique positions (a hash map from the normalised key to the position),
//! so the cost is the unique positions times their moves, not the number of
//! paths. Memory peaks at the last level: measured 286 MB for the 822,518
//! unique positions 5 plies deep (about 350 bytes each, with their root
//! moves; docs/deep-perft.md), so a split at ply 6 needs about 3.3 GB.
//!
//! The normalised key is the board, the side to move, the castling rights
//! and the en-passant square, which [`Position`] keeps only when an
//! en-passant capture is legal; the clocks are left out (they never change
//! a count).

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::Write;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{
    JOB_KIND, JOB_SCHEMA_VERSION, JobError, MANIFEST_FILE, Manifest, RootShare, UnitEntry,
    UnitRecord, hex, io_err, sha256_hex, tool_version, unit_file_name,
};
use crate::chess::position::Position;
use crate::perft::serial::perft;

/// What to split.
#[derive(Clone, Debug)]
pub struct SplitSpec {
    /// The root position.
    pub root: Position,
    /// Total perft depth.
    pub depth: u32,
    /// Ply of the split, 1 to `depth`.
    pub split_ply: u32,
    /// Number of units (at most the number of unique positions).
    pub units: usize,
}

/// The normalised key: pieces, colours, castling rooks, en passant, side.
type Key = ([u64; 9], u8, u8);

fn key(pos: &Position) -> Key {
    let mut bb = [0u64; 9];
    for (i, b) in pos.pieces.iter().chain(&pos.colors).enumerate() {
        bb[i] = b.0;
    }
    bb[8] = pos.castle_rooks.0;
    let ep = pos.ep.map_or(0, |sq| sq.index() as u8 + 1);
    (bb, ep, pos.side as u8)
}

/// A unique position and the paths reaching it, by root move index.
struct Node {
    pos: Position,
    roots: Vec<(u16, u128)>,
}

/// Adds `more` into `into`; both sorted by root index.
fn merge_roots(into: &mut Vec<(u16, u128)>, more: &[(u16, u128)]) {
    for &(root, paths) in more {
        match into.binary_search_by_key(&root, |&(r, _)| r) {
            Ok(i) => into[i].1 += paths,
            Err(i) => into.insert(i, (root, paths)),
        }
    }
}

/// The unique positions `ply` plies below `root`, in first-found order;
/// `on_level(ply, positions)` after each ply.
fn enumerate(root: &Position, ply: u32, on_level: &dyn Fn(u32, usize)) -> Vec<Node> {
    let mut level = vec![Node {
        pos: *root,
        roots: Vec::new(),
    }];
    for p in 1..=ply {
        let mut next: Vec<Node> = Vec::new();
        let mut index: HashMap<Key, usize> = HashMap::new();
        for node in level.drain(..) {
            for (i, &mv) in node.pos.legal_moves().iter().enumerate() {
                let child = node.pos.play_unchecked(mv);
                let own;
                let roots: &[(u16, u128)] = if p == 1 {
                    own = [(i as u16, 1u128)];
                    &own
                } else {
                    &node.roots
                };
                match index.entry(key(&child)) {
                    Entry::Occupied(e) => merge_roots(&mut next[*e.get()].roots, roots),
                    Entry::Vacant(e) => {
                        e.insert(next.len());
                        next.push(Node {
                            pos: child,
                            roots: roots.to_vec(),
                        });
                    }
                }
            }
        }
        level = next;
        on_level(p, level.len());
    }
    level
}

/// Estimated cost of counting `pos` to `depth`: perft 2 (exact below 3)
/// raised to `depth / 2`, as the tree grows by about sqrt(perft 2) a ply.
fn estimate(pos: &Position, depth: u32) -> u64 {
    if depth <= 2 {
        return perft(pos, depth).max(1);
    }
    let p2 = perft(pos, 2).max(1) as f64;
    let e = p2.powf(f64::from(depth) / 2.0);
    if e >= u64::MAX as f64 {
        u64::MAX
    } else {
        e as u64
    }
}

/// Splits `spec` into a new job in `out` (created; it must not exist or be
/// empty). `on_level(ply, positions)` reports the enumeration. Returns the
/// manifest written.
pub fn split(
    spec: &SplitSpec,
    out: &Path,
    on_level: &dyn Fn(u32, usize),
) -> Result<Manifest, JobError> {
    let SplitSpec {
        root,
        depth,
        split_ply,
        units,
    } = spec.clone();
    if split_ply == 0 || split_ply > depth {
        return Err(JobError::Split(format!(
            "--split-ply must be 1 to DEPTH ({depth}), found {split_ply}"
        )));
    }
    if units == 0 {
        return Err(JobError::Split("--units must be at least 1".into()));
    }
    if out.exists() {
        let empty = out.is_dir()
            && std::fs::read_dir(out)
                .map_err(io_err(out))?
                .next()
                .is_none();
        if !empty {
            return Err(JobError::Split(format!(
                "--out {}: exists and is not an empty directory (a new job needs its own directory)",
                out.display()
            )));
        }
    }
    let chess960 = root.is_chess960();
    let root_moves: Vec<String> = root
        .legal_moves()
        .iter()
        .map(|m| m.to_uci(chess960).to_string())
        .collect();
    if root_moves.is_empty() {
        return Err(JobError::Split(format!(
            "{}: no legal move (checkmate or stalemate): nothing to split",
            root.to_fen()
        )));
    }
    let nodes = enumerate(&root, split_ply, on_level);
    let paths: u128 = nodes.iter().flat_map(|n| n.roots.iter().map(|r| r.1)).sum();
    let expected = u128::from(perft(&root, split_ply));
    if paths != expected {
        return Err(JobError::Split(format!(
            "internal error: the multiplicities add up to {paths}, but perft {split_ply} is {expected}"
        )));
    }
    if nodes.len() < units {
        return Err(JobError::Split(format!(
            "--units {units} is more than the {} unique positions at ply {split_ply}; use at most that many units or a deeper --split-ply",
            nodes.len()
        )));
    }
    let left = depth - split_ply;
    let estimates: Vec<u64> = nodes.iter().map(|n| estimate(&n.pos, left)).collect();

    // Longest processing time first: the biggest record goes to the least
    // loaded unit. Within a unit records keep their enumeration order.
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(estimates[i]), i));
    let mut heap: std::collections::BinaryHeap<std::cmp::Reverse<(u128, usize)>> =
        (0..units).map(|u| std::cmp::Reverse((0, u))).collect();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); units];
    for i in order {
        let std::cmp::Reverse((load, u)) = heap.pop().expect("units > 0");
        members[u].push(i);
        heap.push(std::cmp::Reverse((load + u128::from(estimates[i]), u)));
    }
    for m in &mut members {
        m.sort_unstable();
    }

    let record = |job: &str, u: usize, index: usize, i: usize| {
        let n = &nodes[i];
        UnitRecord {
            job: job.to_string(),
            unit: u,
            index,
            fen: n.pos.to_fen(),
            depth: left,
            multiplicity: n.roots.iter().map(|r| r.1).sum(),
            roots: n
                .roots
                .iter()
                .map(|&(r, p)| RootShare {
                    mv: root_moves[usize::from(r)].clone(),
                    paths: p,
                })
                .collect(),
            estimate: estimates[i],
        }
    };
    // The job id hashes the parameters and every record (written with an
    // empty id), so the same split always gets the same id.
    let mut hasher = Sha256::new();
    hasher.update(
        format!(
            "{JOB_KIND} {JOB_SCHEMA_VERSION}\n{}\n{chess960} {depth} {split_ply} {units}\n",
            root.to_fen()
        )
        .as_bytes(),
    );
    for (u, m) in members.iter().enumerate() {
        for (index, &i) in m.iter().enumerate() {
            let line = serde_json::to_string(&record("", u, index, i)).expect("serialisable");
            hasher.update(line.as_bytes());
            hasher.update(b"\n");
        }
    }
    let job_id = hex(&hasher.finalize())[..16].to_string();

    std::fs::create_dir_all(out).map_err(io_err(out))?;
    let mut entries = Vec::with_capacity(units);
    for (u, m) in members.iter().enumerate() {
        let mut text = String::new();
        for (index, &i) in m.iter().enumerate() {
            text.push_str(&serde_json::to_string(&record(&job_id, u, index, i)).expect("json"));
            text.push('\n');
        }
        let file = unit_file_name(u);
        write_synced(&out.join(&file), text.as_bytes())?;
        entries.push(UnitEntry {
            file,
            records: m.len() as u64,
            estimate: m.iter().map(|&i| u128::from(estimates[i])).sum(),
            sha256: sha256_hex(text.as_bytes()),
        });
    }
    let manifest = Manifest {
        schema_version: JOB_SCHEMA_VERSION,
        kind: JOB_KIND.to_string(),
        job_id,
        tool_version: tool_version(),
        root_fen: root.to_fen(),
        chess960,
        depth,
        split_ply,
        positions: nodes.len() as u64,
        paths,
        root_moves,
        units: entries,
    };
    // The manifest last, by rename: a directory with a manifest is a whole job.
    let mut text = serde_json::to_string_pretty(&manifest).expect("serialisable");
    text.push('\n');
    let tmp = out.join(format!("{MANIFEST_FILE}.tmp"));
    write_synced(&tmp, text.as_bytes())?;
    let path = out.join(MANIFEST_FILE);
    std::fs::rename(&tmp, &path).map_err(io_err(&path))?;
    sync_dir(out);
    Ok(manifest)
}

/// Writes `bytes` to a new file at `path` and fsyncs it.
pub(super) fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), JobError> {
    let mut f = std::fs::File::create(path).map_err(io_err(path))?;
    f.write_all(bytes).map_err(io_err(path))?;
    f.sync_all().map_err(io_err(path))
}

/// Fsyncs a directory so a rename in it is durable (best effort: not every
/// platform can open a directory).
pub(super) fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpositions_merge_and_multiplicities_add_up_to_perft() {
        let root = Position::startpos();
        // Published: perft 2 = 400 paths reaching 400 positions; perft 3 =
        // 8,902 paths reaching 5,362 unique positions; perft 4 = 197,281
        // paths reaching 72,078 (OEIS A083276: 1, 20, 400, 5362, 72078).
        let counts: Vec<(usize, u128)> = (2..=4)
            .map(|ply| {
                let nodes = enumerate(&root, ply, &|_, _| {});
                (
                    nodes.len(),
                    nodes.iter().flat_map(|n| &n.roots).map(|r| r.1).sum(),
                )
            })
            .collect();
        assert_eq!(counts, vec![(400, 400), (5_362, 8_902), (72_078, 197_281)]);
    }

    #[test]
    fn en_passant_square_without_a_capture_does_not_split_a_position() {
        // 1. e4 Nf6 2. Nc3 and 1. Nc3 Nf6 2. e4 reach the same position; after
        // 2. e4 no black pawn can take en passant, so both paths are one record.
        let root = Position::startpos();
        let nodes = enumerate(&root, 3, &|_, _| {});
        let target = "rnbqkb1r/pppppppp/5n2/8/4P3/2N5/PPPP1PPP/R1BQKBNR b KQkq - ";
        let hits: Vec<&Node> = nodes
            .iter()
            .filter(|n| n.pos.to_fen().starts_with(target))
            .collect();
        assert_eq!(hits.len(), 1);
        let paths: u128 = hits[0].roots.iter().map(|r| r.1).sum();
        assert_eq!(paths, 2);
    }
}
