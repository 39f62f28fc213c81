//! The search below the root: negamax alpha-beta (principal variation
//! search unless switched off), capture quiescence that does not stand pat
//! in check, repetition and fifty-move draws, TT probes and stores (a TT
//! move used only if `is_legal` accepts it), and the triangular PV table.
//! A node aborted by a limit leaves its frame; a resuming search follows
//! the frames back in.

use crate::chess::moves::Move;
use crate::chess::position::Position;
use crate::search::eval::evaluate;
use crate::search::score::{INFINITY, MATE, MAX_PLY, score_from_tt, score_to_tt};
use crate::search::tt::{Bound, TtData};

use super::deepen::Searcher;
use super::ordering::{captures, is_quiet, pick};
use super::state::Phase;

impl<'a> Searcher<'a> {
    /// A repetition of an earlier position (since the last irreversible
    /// move), or the fifty-move rule. A position repeated once counts as a
    /// draw. Checkmate takes precedence over the fifty-move rule.
    fn is_draw(&self, pos: &Position) -> bool {
        let clock = usize::from(pos.halfmove_clock());
        if clock >= 100 {
            return !pos.in_check() || pos.has_legal_moves();
        }
        let key = pos.hash();
        let n = self.keys.len();
        (4..=clock.min(n))
            .step_by(2)
            .any(|back| self.keys[n - back] == key)
    }

    pub(super) fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        alpha_in: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        if depth <= 0 {
            return self.quiesce(pos, alpha_in, beta, ply, true);
        }
        // Initialised below, on the resume path or after the early returns
        // of the normal one (so a node cut off early pays nothing for them).
        let mut moves;
        let mut order: [i32; crate::chess::moves::MAX_MOVES];
        let (mut alpha, alpha_orig, mut best, mut best_move, key, first);
        let mut resume_phase = None;
        let mut nodes_before = 0;
        // A PV node: its window is wider than a null window.
        let pv_node = beta - alpha_in > 1;
        if self.resume_left > 0 {
            // A resumed search: this node continues where it was aborted.
            self.resume_left -= 1;
            let f = &self.st.frames[ply];
            debug_assert!(!f.quiesce && f.depth == depth && f.beta == beta);
            debug_assert_eq!(f.alpha_orig, alpha_in);
            moves = f.moves.clone();
            order = f.order;
            (alpha, alpha_orig, best, best_move, key) =
                (f.alpha, f.alpha_orig, f.best, f.best_move, f.key);
            first = f.next;
            resume_phase = Some(f.phase);
            nodes_before = f.nodes_before;
        } else {
            self.st.frames[ply].pv_len = 0;
            if self.enter_node() {
                return 0;
            }
            if ply > 0 && self.is_draw(pos) {
                return 0;
            }
            if ply >= MAX_PLY {
                return evaluate(pos);
            }

            key = pos.hash();
            let mut tt_move = Move::NONE;
            if let Some(tt) = self.tt.as_deref()
                && let Some(hit) = tt.probe(key)
            {
                if !hit.mv.is_none() && !pos.is_legal(hit.mv) {
                    // Another position's entry: a key collision. Ignore it.
                    self.stats.tt_collisions += 1;
                } else {
                    tt_move = hit.mv;
                    let depth_ok = if self.exact_depth {
                        i32::from(hit.depth) == depth
                    } else {
                        i32::from(hit.depth) >= depth
                    };
                    // In PVS, exact scores do not cut at PV nodes, so the PV
                    // stays whole; bounds cut only outside the window anyway.
                    if ply > 0 && depth_ok {
                        let score = score_from_tt(hit.score, ply);
                        let cut = match hit.bound {
                            Bound::Exact => !(self.pvs && pv_node),
                            Bound::Lower => score >= beta,
                            Bound::Upper => score <= alpha_in,
                        };
                        if cut {
                            self.stats.tt_cutoffs += 1;
                            return score;
                        }
                    }
                }
            }
            if ply == 0 && tt_move.is_none() {
                tt_move = self.st.root_hint;
            }

            moves = pos.legal_moves();
            if moves.is_empty() {
                return if pos.in_check() {
                    -MATE + ply as i32
                } else {
                    0
                };
            }
            order = [0; crate::chess::moves::MAX_MOVES];
            self.score_moves(pos, &moves, &mut order, tt_move, ply, Some(key));
            (alpha, alpha_orig, best, best_move) = (alpha_in, alpha_in, -INFINITY, Move::NONE);
            first = 0;
        }

        self.keys.push(key);
        for i in first..moves.len() {
            let (mv, mut phase) = match resume_phase.take() {
                Some(phase) => (moves.as_slice()[i], phase),
                None => {
                    nodes_before = self.stats.nodes;
                    let phase = if i == 0 || !self.pvs {
                        Phase::Full
                    } else {
                        Phase::Null
                    };
                    (pick(&mut moves, &mut order, i), phase)
                }
            };
            let child = pos.play_unchecked(mv);
            let score = loop {
                let s = if phase == Phase::Null {
                    -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1)
                } else {
                    -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1)
                };
                if self.stopped {
                    break None;
                }
                if phase == Phase::Null && s > alpha && s < beta {
                    phase = Phase::Research;
                    continue;
                }
                break Some(s);
            };
            let Some(score) = score else {
                self.keys.pop();
                if self.keep {
                    // Aborted: leave this node's state on the stack.
                    let f = &mut self.st.frames[ply];
                    f.quiesce = false;
                    f.depth = depth;
                    (f.alpha, f.alpha_orig, f.beta) = (alpha, alpha_orig, beta);
                    (f.best, f.best_move, f.key) = (best, best_move, key);
                    f.moves.clone_from(&moves);
                    f.order = order;
                    (f.next, f.phase, f.nodes_before) = (i, phase, nodes_before);
                    if self.st.path == 0 {
                        self.st.path = ply + 1;
                    }
                }
                return 0;
            };
            if pv_node {
                self.st.counts_now[ply * crate::chess::moves::MAX_MOVES + i] =
                    self.stats.nodes - nodes_before;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = mv;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        if is_quiet(pos, mv) {
                            let k = &mut self.st.killers[ply];
                            if k[0] != mv {
                                k[1] = k[0];
                                k[0] = mv;
                            }
                        }
                        break;
                    }
                }
            }
        }
        self.keys.pop();
        if pv_node && best > alpha_orig && best < beta {
            // A PV node (the root among them) completed inside its window
            // searched every move: their node counts order the next
            // iteration's node of this position, most nodes first.
            let at = ply * crate::chess::moves::MAX_MOVES;
            let counts = &self.st.counts_now[at..at + moves.len()];
            let kept = &mut self.st.pv_counts[ply];
            kept.key = key;
            kept.counts.clear();
            kept.counts
                .extend(moves.iter().copied().zip(counts.iter().copied()));
            kept.counts.sort_by_key(|c| std::cmp::Reverse(c.1));
        }

        if let (Some(tt), Some(txn)) = (self.tt.as_deref_mut(), self.st.txn) {
            let bound = if best >= beta {
                Bound::Lower
            } else if best > alpha_orig {
                Bound::Exact
            } else {
                Bound::Upper
            };
            let data = TtData {
                mv: best_move,
                score: score_to_tt(best, ply),
                depth: depth.clamp(0, i32::from(u8::MAX)) as u8,
                bound,
            };
            let stored = tt.store(txn, key, data);
            debug_assert!(stored.is_ok(), "the search's own transaction is active");
        }
        best
    }

    /// Captures (and queen promotions) only, standing pat on the static
    /// evaluation, except in check: then every evasion is searched and no
    /// legal move means checkmate.
    ///
    /// `horizon`: this is the depth-0 node of the main search (not a
    /// quiescence child), where draws are checked as in the main search.
    pub(super) fn quiesce(
        &mut self,
        pos: &Position,
        alpha_in: i32,
        beta: i32,
        ply: usize,
        horizon: bool,
    ) -> i32 {
        // Initialised below (see negamax).
        let mut moves;
        let mut order: [i32; crate::chess::moves::MAX_MOVES];
        let (mut alpha, mut best, first);
        let mut resumed = false;
        if self.resume_left > 0 {
            // A resumed search: this node continues where it was aborted.
            self.resume_left -= 1;
            let f = &self.st.frames[ply];
            debug_assert!(f.quiesce && f.beta == beta);
            moves = f.moves.clone();
            order = f.order;
            (alpha, best, first) = (f.alpha, f.best, f.next);
            resumed = true;
        } else {
            self.st.frames[ply].pv_len = 0;
            if self.enter_node() {
                return 0;
            }
            self.stats.qnodes += 1;
            // At the horizon draws count as in the main search, so that a move
            // into a repetition or onto the 100th half-move is a draw even in a
            // depth-1 search. Not deeper: only check evasions could repeat there,
            // and stopping at the horizon keeps every repetition within `depth`
            // plies of the root (see the reference mode in the module docs).
            // The horizon is never the root.
            debug_assert!(ply > 0 || !horizon);
            if horizon && self.is_draw(pos) {
                return 0;
            }
            if ply >= MAX_PLY {
                return evaluate(pos);
            }
            alpha = alpha_in;
            if pos.in_check() {
                moves = pos.legal_moves();
                if moves.is_empty() {
                    return -MATE + ply as i32;
                }
                best = -INFINITY;
            } else {
                let stand_pat = evaluate(pos);
                if stand_pat >= beta {
                    return stand_pat;
                }
                alpha = alpha.max(stand_pat);
                best = stand_pat;
                moves = captures(pos);
            }
            order = [0; crate::chess::moves::MAX_MOVES];
            self.score_moves(pos, &moves, &mut order, Move::NONE, ply, None);
            first = 0;
        }
        for i in first..moves.len() {
            let mv = if resumed {
                resumed = false;
                moves.as_slice()[i]
            } else {
                pick(&mut moves, &mut order, i)
            };
            let child = pos.play_unchecked(mv);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, false);
            if self.stopped {
                if self.keep {
                    // Aborted: leave this node's state on the stack.
                    let f = &mut self.st.frames[ply];
                    f.quiesce = true;
                    (f.alpha, f.beta, f.best, f.next) = (alpha, beta, best, i);
                    f.moves.clone_from(&moves);
                    f.order = order;
                    if self.st.path == 0 {
                        self.st.path = ply + 1;
                    }
                }
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.st.frames.split_at_mut(ply + 1);
        let child_len = if ply < MAX_PLY { tail[0].pv_len } else { 0 };
        let row = &mut head[ply];
        row.pv[0] = mv;
        if child_len > 0 {
            row.pv[1..=child_len].copy_from_slice(&tail[0].pv[..child_len]);
        }
        row.pv_len = child_len + 1;
    }
}
