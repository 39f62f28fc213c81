//! Perft 2 (leaf parents): moves that cannot change the opponent's reply
//! count are counted without being made.
//!
//! A leaf parent `P` has side `S` to move; perft 2 is the sum, over the legal
//! moves of `S`, of the number of legal replies of the other side `O`. That
//! number depends on a limited part of the board, its *footprint*:
//!
//! * the squares `O`'s sliders attack (their rays end at the first piece,
//!   and a piece of `S` there is a target);
//! * the squares in front of `O`'s pawns (pushes) and diagonally in front
//!   (captures);
//! * the squares around `O`'s king, its own square and, when `O` could castle
//!   but for attacks, the squares its king crosses; whether `S` attacks them
//!   depends on the lines from them to the first piece (and, for a piece
//!   of `S` standing on such a line, on where it stands), on the knights,
//!   pawns and king of `S` that reach them, and on the pieces that pin
//!   `O`'s pieces (the lines from `O`'s king up to the second piece);
//! * the squares a castling path of `O` needs empty.
//!
//! `O`'s knights do not appear: their targets depend only on where `O`'s own
//! pieces stand. A quiet move of `S` (not a capture, promotion, castling or
//! en-passant capture, and no double push `O` could take en passant) whose
//! origin and target both lie outside the footprint, widened by the squares
//! from which a piece of that kind would attack `O`'s king area, leaves `O`
//! with exactly the replies it would have if `S` passed. So [`perft2`]
//! counts `O`'s replies in `P` with the turn passed ("base") once, adds
//! `base` for each such move, and makes and counts the others.
//!
//! Most of the footprint is mobility: `O`'s slider attack sets and pawn
//! squares. The rest, its *king zone* (the king area; per kind of piece, the
//! squares that kind attacks it from; the squares between the area and a slider
//! of `S` that attacks it, and the one piece in front of a slider that would;
//! the pins of `O`'s pieces; castling paths; en passant), is what a move must
//! avoid for `O`'s check status, pins, king moves and castling to stay as they
//! are. A quiet move outside the king zone but inside the footprint changes
//! only the moves of `O`'s unpinned sliders whose attack sets hold its origin
//! or target, and of `O`'s unpinned pawns; [`Mobility`](mobility::Mobility)
//! recounts just those from the changed occupancy (one slider lookup per
//! touched slider, a few shifts for the pawns; on a `Sparse` path every
//! slider once any is touched, which mispredicts less) and the move counts
//! `base` plus that delta, unmade. A capture outside the king zone (not of
//! a castling rook) is counted the same way
//! ([`Mobility::capture_delta`](mobility::Mobility::capture_delta): the
//! victim's moves go, the knights that attack its square gain it). Measured,
//! against making those moves: Kiwipete perft 5 1.47x, CPW position 4 perft 6
//! 1.30x, CPW 5 perft 5 1.06x faster. Narrowing the king zone from every line
//! into the area to the lines a slider of `S` actually uses: CPW 5 1.27x, CPW 3
//! perft 7 1.10x, but CPW 4 0.89x (its black king, free to castle both ways,
//! has a wide area and white has four sliders aligned with it).
//!
//! A promotion whose origin lies outside the pawn's king zone and whose
//! origin and target lie outside the king zone of the promoted kind is
//! counted the same way (the new piece's kind does not matter to `O`'s
//! mobility). When `S` has no slider of the promoted kind, whose lines
//! into the area were not looked up, the new piece's own lines are: it is
//! counted so only if it attacks no square of `O`'s king area and pins
//! nothing.
//!
//! The moves left, those inside the king zone, are the bulk of an ending's
//! (in the speed set's bin of up to 10 men, 62 % of the moves were made,
//! and their children's counts took 63 % of the time of `speed-01`). The
//! *king tier* ([`Children::tier`](children::Children::tier)) counts most of them without a make
//! either, when `O` has no castling right: for a move from `O`'s king lines
//! it looks at the pieces between `O`'s king and each slider of `S` on
//! those lines in the child, and gives up on a check or on any change in
//! the sliders of `S` that `O`'s king sees through one of its pieces (a
//! pin gained, lost or moved); a move onto them is judged from the squares
//! where its piece would check or pin. Otherwise `O`'s pins, and so
//! the moves of its pinned pieces, are those of `P`, and its count is the
//! passed position's count of its other pieces plus the mobility delta,
//! plus its king's squares that `S` does not attack after the move (one
//! attack map of `S`'s pieces on the child's occupancy). Measured on the
//! speed set three plies below the timed depth: instructions -7 % in the
//! three lower bins, -3.6 % in the top one.
//!
//! On a [`Sparse`](crate::chess::cpu::Sparse) path (the BMI2 path's twin, for
//! a root with at most 14 men: `perft::count`) the tier also counts a move that
//! checks `O`'s king with `O`'s pins unchanged: `O`'s king squares against the
//! same attack map, plus, for a single check, the moves of `O`'s unpinned
//! pieces onto the checker or between it and the king
//! ([`Mobility::evasions`](mobility::Mobility::evasions)). In queen and rook
//! endings many of `S`'s moves next to `O`'s king check. Counted on every path,
//! the same code cost the positions with more men 2-3 % of their time in code
//! that did not change (the compiler allocated the registers of the whole
//! leaf-parent function differently); as a path of its own, chosen at the root,
//! it leaves their code as it was (the same instruction counts). On that path
//! the promotions that
//! [`Children::promotion_unmade`](children::Children::promotion_unmade) leaves
//! go through the tier too, with the promoted kind on `to` (a queen next to
//! `O`'s king mostly checks): instructions -1.6 % in the speed set's first bin
//! and -1.2 % in the second. There too the attack map of a piece's move is
//! built from the piece's [`Fellows`](tier::Fellows), `S`'s other pieces'
//! attacks with its origin empty, found once for all its targets: a queen's
//! target then costs the queen's own two lookups, not one per slider of `S`
//! (queens on both sides 1.05-1.07x faster; on the richer paths, where checks
//! are made and `S` has more sliders to set up, 0.93-0.95x).
//!
//! When `S` is in check, every legal move deals with the check and touches
//! the footprint, and the passed position would leave `S`'s king en prise:
//! those leaf parents are counted the plain way.
//!
//! On a `Sparse` path, a leaf parent whose side to move has no slider (no
//! pawn of its one step from promotion, `O` no castling right), with kings
//! and pawns only on the board or a slider of `O`'s, is counted by
//! [`leapers`] instead, in or out of check: with no slider of `S` nothing
//! of `O`'s is pinned and only the moved piece checks, so each child's count
//! is a few sets, with none of the footprint's set-up. Measured: the pawn
//! endings of 13 men run 0.68-0.71 of the instructions, the queen and rook
//! endings with one side's slider 0.91-0.92. So is one whose side to move
//! has exactly one slider and no knight, or a queen and knights: that
//! slider is then the only piece that can pin a piece of `O` or uncover a
//! check, and each child's count is one lookup of it more (the speed set's
//! first bin 0.961 of the instructions, CPW 3 0.80 of the time); with a
//! queen as that slider its promotions, if any, are made.
//!
//! # Where each part lives
//!
//! * `footprint`: the footprint and its king zone;
//! * `mobility`: `O`'s unpinned sliders and pawns, their counts and the
//!   deltas of moves outside the king zone;
//! * `shortcut`: the entry points ([`perft2`], [`perft2_with`]) and the
//!   shortcut's set-up once per leaf parent;
//! * `children`: how one move of the leaf parent is counted without a make
//!   outside the king zone; `tier`: the king tier, inside it;
//! * `sink`: the leaf parent's moves as the generator delivers them, each
//!   group added up by the cheapest way that holds, the rest made and
//!   bulk-counted;
//! * `leapers`: the copies for a side to move with no slider, or with one
//!   (and no knight, unless the slider is a queen).

mod footprint;
mod mobility;
mod shortcut;

mod children;
mod tier;

mod sink;

mod leapers;

pub(crate) use shortcut::{Scratch, perft2, perft2_with};
pub(crate) use sink::count_leaves;

#[cfg(test)]
pub(crate) mod tests;
