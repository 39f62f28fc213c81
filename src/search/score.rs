//! Score types and constants shared by the searcher and the TT: mate
//! scores, their UCI form, and the node-relative form the TT stores.

/// Deepest ply the search reaches (main search plus quiescence).
pub const MAX_PLY: usize = 128;
/// The score of being checkmated now is `-MATE`; mate in `p` plies is
/// `MATE - p`.
pub const MATE: i32 = 32_000;
/// Bigger than any score.
pub const INFINITY: i32 = 32_001;
/// Scores at or beyond this magnitude are mate scores and are adjusted by
/// the ply when stored and loaded.
pub const MATE_THRESHOLD: i32 = MATE - MAX_PLY as i32;

/// A root score as UCI reports it.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Score {
    /// Centipawns from the side to move's point of view.
    Cp(i32),
    /// Mate in this many moves; negative when the side to move gets mated
    /// (`Mate(0)`: checkmated now).
    Mate(i32),
}

impl Score {
    /// The UCI form of an internal score.
    pub fn from_internal(value: i32) -> Score {
        let threshold = MATE_THRESHOLD;
        if value >= threshold {
            Score::Mate((MATE - value + 1) / 2)
        } else if value <= -threshold {
            Score::Mate(-(MATE + value) / 2)
        } else {
            Score::Cp(value)
        }
    }
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(cp) => write!(f, "cp {cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// A search score made node-relative for the TT: a mate `k` plies from the
/// root, found at `ply`, is stored as a mate `k - ply` plies from the node.
pub fn score_to_tt(score: i32, ply: usize) -> i16 {
    let ply = ply as i32;
    let s = if score >= MATE_THRESHOLD {
        score + ply
    } else if score <= -MATE_THRESHOLD {
        score - ply
    } else {
        score
    };
    s.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
}

/// The inverse of [`score_to_tt`]: a node-relative score read at `ply`.
pub fn score_from_tt(score: i16, ply: usize) -> i32 {
    let (s, ply) = (i32::from(score), ply as i32);
    if s >= MATE_THRESHOLD {
        s - ply
    } else if s <= -MATE_THRESHOLD {
        s + ply
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_round_trip_through_node_relative_form() {
        let mate_in_5_plies = MATE - 5;
        // Found 3 plies below the root: 2 plies from that node.
        assert_eq!(i32::from(score_to_tt(mate_in_5_plies, 3)), MATE - 2);
        assert_eq!(
            score_from_tt(score_to_tt(mate_in_5_plies, 3), 3),
            mate_in_5_plies
        );
        // Read at ply 1 instead (a transposition): mate 3 plies from the root.
        assert_eq!(score_from_tt(score_to_tt(mate_in_5_plies, 3), 1), MATE - 3);
        assert_eq!(
            score_from_tt(score_to_tt(-mate_in_5_plies, 3), 3),
            -mate_in_5_plies
        );
        assert_eq!(score_from_tt(score_to_tt(123, 7), 2), 123);
    }
}
