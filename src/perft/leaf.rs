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
//! squares. The rest, its *king zone* (the king area; per kind of piece,
//! the squares that kind attacks it from; the squares between the area and
//! a slider of `S` that attacks it, and the one piece in front of a slider
//! that would; the pins of `O`'s pieces; castling paths; en passant), is
//! what a move must avoid for `O`'s check status, pins, king moves and
//! castling to stay as they are. A quiet move outside the king zone but
//! inside the footprint changes only the moves of `O`'s unpinned sliders
//! whose attack sets hold its origin or target, and of `O`'s unpinned
//! pawns; [`Mobility`] recounts just those from the changed occupancy (one
//! slider lookup per touched slider, a few shifts for the pawns) and the
//! move counts `base` plus that delta, unmade. A capture outside the king
//! zone (not of a castling rook) is counted the same way
//! ([`Mobility::capture_delta`]: the victim's moves go, the knights that
//! attack its square gain it). Measured, against making those moves:
//! Kiwipete perft 5 1.47x, CPW position 4 perft 6 1.30x, CPW 5 perft 5
//! 1.06x faster. Narrowing the king zone from every line into the area to
//! the lines a slider of `S` actually uses: CPW 5 1.27x, CPW 3 perft 7
//! 1.10x, but CPW 4 0.89x (its black king, free to castle both ways, has
//! a wide area and white has four sliders aligned with it).
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
//! *king tier* ([`Children::tier`]) counts most of them without a make
//! either, when `O` has no castling right: for a move on `O`'s king lines
//! it looks at the pieces between `O`'s king and each slider of `S` on
//! those lines in the child, and gives up on a check or on any change in
//! the sliders of `S` that `O`'s king sees through one of its pieces (a
//! pin gained, lost or moved); otherwise `O`'s pins, and so
//! the moves of its pinned pieces, are those of `P`, and its count is the
//! passed position's count of its other pieces plus the mobility delta,
//! plus its king's squares that `S` does not attack after the move (one
//! attack map of `S`'s pieces on the child's occupancy). Measured on the
//! speed set three plies below the timed depth: instructions -7 % in the
//! three lower bins, -3.6 % in the top one.
//!
//! On a [`Sparse`](crate::chess::cpu::Sparse) path (the BMI2 path's twin,
//! for a root with at most 14 men: `perft::count`) the tier also counts a move that checks `O`'s king
//! with `O`'s pins unchanged: `O`'s king squares against the same attack
//! map, plus, for a single check, the moves of `O`'s unpinned pieces onto
//! the checker or between it and the king ([`Mobility::evasions`]). In
//! queen and rook endings many of `S`'s moves next to `O`'s king check.
//! Counted on every path, the same code cost the positions with more men
//! 2-3 % of their time in code that did not change (the compiler
//! allocated the registers of the whole leaf-parent function differently);
//! as a path of its own, chosen at the root, it leaves their code as it
//! was (the same instruction counts). On that path the promotions that
//! [`Children::promotion_unmade`] leaves go through the tier too, with the
//! promoted kind on `to` (a queen next to `O`'s king mostly checks):
//! instructions -1.6 % in the speed set's first bin and -1.2 % in the
//! second.
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
//! has exactly one slider and no knight: that slider is then the only
//! piece that can pin a piece of `O` or uncover a check, and each child's
//! count is one lookup of it more (the speed set's first bin 0.961 of the
//! instructions, CPW 3 0.80 of the time).

use std::marker::PhantomData;

mod leapers;

use crate::chess::attacks::{
    between, bishop_attacks_from_set, bishop_rays, king_attacks, knight_attacks, pawn_attacks,
    rook_attacks_from_set, rook_rays,
};
use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::{self, MoveSink, NodeInfo, Side};
use crate::chess::moves::{PROMOTION_PIECES, PieceMoves};
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::chess::side::{NOT_A, NOT_H};
use crate::chess::square::Square;

/// Squares a move of `S` must not start or end on, by kind of piece (the
/// moving one), indexed by [`Piece::index`].
#[derive(Clone, Copy)]
struct Zone([Bitboard; 6]);

impl Zone {
    /// The zone for a move of `piece`.
    #[inline(always)]
    fn of(&self, piece: Piece) -> Bitboard {
        self.0[piece.index()]
    }
}

/// Where a quiet move of `S` must not start or end for `O`'s reply count to
/// stay the passed position's (`base`), and where it must not for the
/// count to be `base` plus a mobility delta (`king`).
struct Footprint {
    /// The whole footprint.
    base: Zone,
    /// The part that concerns `O`'s king (its area and the lines, knights
    /// and pawns that reach it, the pins of `O`'s pieces, the castling
    /// paths and en passant). A quiet move outside it changes only the
    /// mobility of `O`'s unpinned sliders and pawns: [`Mobility`].
    king: Zone,
    /// The squares next to `O`'s pawns: a double push of `S` there may
    /// give `O` an en-passant capture (part of both zones for double
    /// pushes only).
    ep: Bitboard,
    /// By kind of piece, the squares from which it checks `O`'s king (with
    /// the occupancy of `P`): a move there is made, not tried in
    /// [`Children::tier`] (which would find the check and give up).
    checks: Zone,
    /// The sliders of `S` that `O`'s king sees through one piece of `O`
    /// on its lines (its pinners; the same set after a move means the same
    /// pins and pin lines).
    xray: Bitboard,
    /// The squares from `O`'s king up to and with each pinner: a move there
    /// changes the pins or a pinned piece's moves, and the tier gives it
    /// up at once (an early exit: the xray test would find it; without it
    /// the speed set took 0.6-3.7 % more instructions per bin).
    pin_lines: Bitboard,
    /// The kinds whose zones are complete, indexed by [`Piece::index`]: a
    /// slider kind's lines into `O`'s king area are looked up only when `S`
    /// has such a slider, so a promotion to a kind `S` lacks looks at the
    /// new piece's own lines instead ([`Children::promotion_unmade`]).
    complete: [bool; 6],
    /// The lines from `O`'s king, for the slider kinds `S` has, up to the
    /// second piece: a move that neither starts nor ends on them gives no
    /// check from a slider and leaves [`Footprint::xray`] as it is.
    lines: Bitboard,
    /// `O`'s king area: its king's square, the squares next to it that its
    /// pieces leave free, and the squares a possible castling crosses.
    area: Bitboard,
}

impl Footprint {
    /// Writes into `shortcut` the footprint of `O`'s reply count in `pos`
    /// (side `S` to move, not in check) and the [`Mobility`] of `O`'s
    /// unpinned pieces. In place: returning the two (656 bytes) and moving
    /// them into a [`Shortcut`] cost a `memcpy` call per leaf parent in a
    /// build without AVX-512.
    ///
    /// Returns `O`'s pinned pieces.
    #[inline(always)]
    fn fill<C: Cpu, S: Side>(cpu: C, pos: &Position, shortcut: &mut Shortcut) -> Bitboard {
        let o = <S::Other as Side>::COLOR;
        let own = pos.colors(o);
        let enemy = pos.colors(S::COLOR);
        let occ = own | enemy;
        let king = pos.king(o);
        // Pins of O's pieces: the lines from O's king through its own first
        // piece up to the next one; a slider of S there pins that piece.
        let (diagonal_sliders, orthogonal_sliders) = (
            pos.diagonal_sliders() & enemy,
            pos.orthogonal_sliders() & enemy,
        );
        let (has_diagonal, has_orthogonal) =
            (diagonal_sliders.nonempty(), orthogonal_sliders.nonempty());
        // The king's lines of the slider kinds S has (no other can pin).
        let lines_from_king = |occ| {
            let diagonal = if has_diagonal {
                cpu.bishop_attacks(king, occ)
            } else {
                Bitboard::EMPTY
            };
            let orthogonal = if has_orthogonal {
                cpu.rook_attacks(king, occ)
            } else {
                Bitboard::EMPTY
            };
            (diagonal, orthogonal)
        };
        let (diagonal_line, orthogonal_line) = lines_from_king(occ);
        let first = (diagonal_line | orthogonal_line) & own;
        let (xray_diagonal, xray_orthogonal) = lines_from_king(occ ^ first);
        // The king's neighbours, its own pieces included: capturing one
        // gives the king a target.
        let mut all = xray_diagonal | xray_orthogonal | king_attacks(king);
        let mut pinned = Bitboard::EMPTY;
        let mut pin_lines = Bitboard::EMPTY;
        for sniper in (xray_diagonal & diagonal_sliders) | (xray_orthogonal & orthogonal_sliders) {
            let line = between(king, sniper);
            pinned |= line & first;
            pin_lines |= line | sniper.bitboard();
        }
        // The sliders of S seen through one piece of O, pins or not (a
        // sniper behind a piece of S pins nothing): the made-move tier
        // compares them with the child's.
        shortcut.footprint.xray = (xray_diagonal & !diagonal_line & diagonal_sliders)
            | (xray_orthogonal & !orthogonal_line & orthogonal_sliders);
        shortcut.footprint.pin_lines = pin_lines;
        shortcut.footprint.lines = xray_diagonal | xray_orthogonal;
        shortcut.footprint.checks = Zone([
            pawn_attacks(o, king),
            knight_attacks(king),
            diagonal_line,
            orthogonal_line,
            diagonal_line | orthogonal_line,
            Bitboard::EMPTY,
        ]);
        // The slider array keeps `Shortcut::EMPTY`'s entries: only the
        // first `len` are read.
        let free = &mut shortcut.mobility;
        free.len = 0;
        free.complete = true;
        free.slider_touch = Bitboard::EMPTY;
        free.pawns = pos.pieces(Piece::Pawn) & own & !pinned;
        free.pawn_touch = Bitboard::EMPTY;
        free.pawn_count = 0;
        free.knights = pos.pieces(Piece::Knight) & own & !pinned;
        free.castle_rooks = pos.castle_rooks() & own;
        free.occ = occ;
        free.own = own;
        free.enemy = enemy;
        // O's sliders.
        let mut mobility = Bitboard::EMPTY;
        for sq in pos.diagonal_sliders() & own {
            let attacks = cpu.bishop_attacks(sq, occ);
            mobility |= attacks;
            if !pinned.contains(sq) {
                free.push(sq, false, attacks);
            }
        }
        for sq in pos.orthogonal_sliders() & own {
            let attacks = cpu.rook_attacks(sq, occ);
            mobility |= attacks;
            if !pinned.contains(sq) {
                free.push(sq, true, attacks);
            }
        }
        // O's pawns: pushes (both squares of a double push) and captures.
        let pawns = pos.pieces(Piece::Pawn) & own;
        let push = <S::Other as Side>::up(pawns);
        mobility |= push | <S::Other as Side>::up(push & <S::Other as Side>::RANK_3);
        mobility |= <S::Other as Side>::up_west(pawns) | <S::Other as Side>::up_east(pawns);
        let push = <S::Other as Side>::up(free.pawns);
        free.pawn_touch = push
            | <S::Other as Side>::up(push & <S::Other as Side>::RANK_3)
            | <S::Other as Side>::up_west(free.pawns)
            | <S::Other as Side>::up_east(free.pawns);
        free.pawn_count = pawn_count::<S::Other>(free.pawns, occ, enemy);
        // O's king: the squares whose attack status matters.
        let mut area = (king_attacks(king) & !own) | king.bitboard();
        let mut beyond_rooks = Bitboard::EMPTY;
        for rook in pos.castle_rooks() & own {
            let (must_be_empty, king_path) = Position::castling_path(king, rook);
            all |= must_be_empty;
            if (must_be_empty & occ & !king.bitboard() & !rook.bitboard()).is_empty() {
                area |= king_path;
                beyond_rooks |= rook.bitboard();
            }
        }
        // Whether S attacks an area square changes only when a piece of S
        // starts or ends where its kind attacks it from, or a slider of S
        // is uncovered or blocked on its way to it. Lines into the area,
        // with O's king (and a castling rook that moves out of the way)
        // taken off the board, give the squares each kind attacks the area
        // from; the slider lines give the squares between an area square
        // and a slider of S that attacks it (a piece landing there blocks
        // it), and the first piece in front of a slider of S that would
        // attack it but for that piece (moving it uncovers the slider).
        let lines_occ = occ & !king.bitboard() & !beyond_rooks;
        // Set-wise fills over the whole area, not a lookup per area square
        // (up to 18 lookups, each its own cache line of the tables).
        let diagonal = if has_diagonal {
            bishop_attacks_from_set(area, lines_occ)
        } else {
            Bitboard::EMPTY
        };
        let orthogonal = if has_orthogonal {
            rook_attacks_from_set(area, lines_occ)
        } else {
            Bitboard::EMPTY
        };
        // The leapers' squares, set-wise: the squares a knight, pawn or
        // king of S attacks an area square from. (For `next`, the area
        // itself too: every area square but a lone king's is next to
        // another, and the king's own square is no move's target.)
        let a = area.0;
        let (west, east) = ((a & NOT_A) >> 1, (a & NOT_H) << 1);
        let (west2, east2) = ((west & NOT_A) >> 1, (east & NOT_H) << 1);
        let (one, two) = (west | east, west2 | east2);
        let knight = Bitboard(one << 16 | one >> 16 | two << 8 | two >> 8);
        let pawn = <S::Other as Side>::up_west(area) | <S::Other as Side>::up_east(area);
        let row = a | west | east;
        let next = Bitboard(row | row << 8 | row >> 8);
        // From each slider of S that is aligned with the area (fewer than
        // the area's squares): what it attacks there directly, and through
        // one piece.
        let lines = slider_lines(diagonal_sliders, area, lines_occ, bishop_rays, |sq, occ| {
            cpu.bishop_attacks(sq, occ)
        }) | slider_lines(orthogonal_sliders, area, lines_occ, rook_rays, |sq, occ| {
            cpu.rook_attacks(sq, occ)
        });
        // Double pushes next to O's pawns may create an en-passant capture.
        let ep = Bitboard((pawns.0 & NOT_A) >> 1) | Bitboard((pawns.0 & NOT_H) << 1);
        let all = all | area | lines;
        let king_zone = Zone([
            all | pawn,
            all | knight,
            all | diagonal,
            all | orthogonal,
            all | diagonal | orthogonal,
            all | next,
        ]);
        shortcut.footprint.base = Zone(king_zone.0.map(|zone| zone | mobility));
        shortcut.footprint.king = king_zone;
        shortcut.footprint.ep = ep;
        shortcut.footprint.area = area;
        shortcut.footprint.complete = [
            true,
            true,
            has_diagonal,
            has_orthogonal,
            has_diagonal && has_orthogonal,
            true,
        ];
        pinned
    }
}

/// For the sliders of one kind (`rays`: their empty-board lines, `attacks`:
/// their lookup) that are aligned with `area`: the squares between each and
/// an area square it attacks, and the one piece in front of it that alone
/// keeps it from attacking an area square.
#[inline(always)]
fn slider_lines(
    sliders: Bitboard,
    area: Bitboard,
    occ: Bitboard,
    rays: impl Fn(Square) -> Bitboard,
    attacks: impl Fn(Square, Bitboard) -> Bitboard,
) -> Bitboard {
    let mut lines = Bitboard::EMPTY;
    for slider in sliders {
        if (rays(slider) & area).is_empty() {
            continue;
        }
        let seen = attacks(slider, occ);
        for sq in seen & area {
            lines |= between(slider, sq);
        }
        if (rays(slider) & area & !seen).nonempty() {
            let first = seen & occ;
            for sq in attacks(slider, occ ^ first) & !seen & area {
                lines |= between(slider, sq) & first;
            }
        }
    }
    lines
}

/// Room for `O`'s unpinned sliders, a queen counted twice (diagonal and
/// orthogonal): 9 queens, 2 rooks and 2 bishops make 22.
const MAX_SLIDERS: usize = 24;

/// How `O`'s reply count changes under a quiet move of `S` outside the
/// king zone of the [`Footprint`]. Such a move leaves `O` out of check, its
/// pins, king moves, castling and knight moves as they are (no en-passant
/// square either): only the moves of `O`'s unpinned sliders whose attack
/// sets hold the move's origin or target, and of `O`'s unpinned pawns,
/// change, and both are recounted here from the changed occupancy.
struct Mobility {
    /// `O`'s unpinned sliders (a pinned one moves on its pin line only, and
    /// that line is in the king zone): square, orthogonal, attack set.
    sliders: [(Square, bool, Bitboard); MAX_SLIDERS],
    len: usize,
    /// False if some did not fit (a position with more sliders than a game
    /// can have): then no delta is used.
    complete: bool,
    /// The union of their attack sets: a move elsewhere changes none.
    slider_touch: Bitboard,
    /// `O`'s unpinned pawns.
    pawns: Bitboard,
    /// The squares their moves depend on (pushes, both squares of a double
    /// push, captures).
    pawn_touch: Bitboard,
    /// Their move count in `P`.
    pawn_count: u32,
    /// `O`'s unpinned knights.
    knights: Bitboard,
    /// `O`'s castling rooks (capturing one changes `O`'s castling).
    castle_rooks: Bitboard,
    /// Occupancy of `P`, `O`'s pieces and `S`'s pieces.
    occ: Bitboard,
    own: Bitboard,
    enemy: Bitboard,
}

impl Mobility {
    #[inline(always)]
    fn push(&mut self, sq: Square, orthogonal: bool, attacks: Bitboard) {
        if self.len < MAX_SLIDERS {
            self.sliders[self.len] = (sq, orthogonal, attacks);
            self.len += 1;
            self.slider_touch |= attacks;
        } else {
            self.complete = false;
        }
    }

    /// `O`'s reply count after `S` moves a piece from one square of `moved`
    /// to the other (an empty square), minus the count in `P`.
    #[inline(always)]
    fn delta<C: Cpu, S: Side>(&self, cpu: C, moved: Bitboard) -> i64 {
        let occ = self.occ ^ moved;
        let mut delta = 0i64;
        if (self.slider_touch & moved).nonempty() {
            for &(sq, orthogonal, attacks) in &self.sliders[..self.len] {
                if (attacks & moved).nonempty() {
                    let now = if orthogonal {
                        cpu.rook_attacks(sq, occ)
                    } else {
                        cpu.bishop_attacks(sq, occ)
                    };
                    delta +=
                        i64::from((now & !self.own).len()) - i64::from((attacks & !self.own).len());
                }
            }
        }
        if (self.pawn_touch & moved).nonempty() {
            delta += i64::from(pawn_count::<S::Other>(self.pawns, occ, self.enemy ^ moved))
                - i64::from(self.pawn_count);
        }
        delta
    }
}

impl Mobility {
    /// The moves of `O`'s unpinned pieces in `pos` with the turn passed,
    /// when every slider fits: its king moves and castlings (`king_moves`)
    /// given, the rest from what [`Footprint::fill`] already looked up (slider attack
    /// sets, the pawns' count). A queen's two attack sets are disjoint, so
    /// their counts add. With the pinned pieces' moves added (counted
    /// along their pin lines), saves the generator's pin scan and slider
    /// lookups of [`passed_count`] once per leaf parent.
    #[inline(always)]
    fn passed_count(&self, king_moves: u32) -> u64 {
        let mut n = king_moves + self.pawn_count;
        for &(_, _, attacks) in &self.sliders[..self.len] {
            n += (attacks & !self.own).len();
        }
        for sq in self.knights {
            n += (knight_attacks(sq) & !self.own).len();
        }
        u64::from(n)
    }

    /// The moves of `O`'s unpinned pieces other than its king onto
    /// `answers` (a checker's square and the squares between it and `O`'s
    /// king) after `S` moves a piece from `from` to `to` (taking what
    /// stands there), when `O`'s pins are those of `P`. Sliders whose
    /// attack sets hold neither square keep them; no en-passant capture
    /// exists (not after a double push).
    #[inline(always)]
    fn evasions<C: Cpu, S: Side>(
        &self,
        cpu: C,
        from: Bitboard,
        to: Bitboard,
        answers: Bitboard,
    ) -> u32 {
        let occ = (self.occ ^ from) | to;
        let moved = from | to;
        let mut n = 0;
        for &(sq, orthogonal, attacks) in &self.sliders[..self.len] {
            if to.contains(sq) {
                continue;
            }
            let attacks = if (attacks & moved).nonempty() {
                if orthogonal {
                    cpu.rook_attacks(sq, occ)
                } else {
                    cpu.bishop_attacks(sq, occ)
                }
            } else {
                attacks
            };
            n += (attacks & answers).len();
        }
        for sq in self.knights & !to {
            n += (knight_attacks(sq) & answers).len();
        }
        n + pawn_evasions::<S::Other>(self.pawns & !to, occ, answers)
    }

    /// `O`'s reply count after `S` captures on `to` (an unpinned piece of
    /// `O` that is not a castling rook) from `from`, minus the count in
    /// `P`: the victim's moves go, `O`'s sliders that saw `from` or `to`
    /// are looked up again (the victim's square is now a target, `from` is
    /// empty), each unpinned knight of `O` that attacks `to` gains it, and
    /// the pawns are recounted.
    #[inline(always)]
    fn capture_delta<C: Cpu, S: Side>(&self, cpu: C, from: Bitboard, to: Bitboard) -> i64 {
        let occ = self.occ ^ from;
        let own = self.own ^ to;
        let moved = from | to;
        let mut delta = 0i64;
        for &(sq, orthogonal, attacks) in &self.sliders[..self.len] {
            let before = i64::from((attacks & !self.own).len());
            if to.contains(sq) {
                delta -= before;
            } else if (attacks & moved).nonempty() {
                let now = if orthogonal {
                    cpu.rook_attacks(sq, occ)
                } else {
                    cpu.bishop_attacks(sq, occ)
                };
                delta += i64::from((now & !own).len()) - before;
            }
        }
        let victim = to.lsb();
        let knight_reach = knight_attacks(victim);
        if (self.knights & to).nonempty() {
            delta -= i64::from((knight_reach & !self.own).len());
        }
        delta += i64::from((knight_reach & self.knights).len());
        if ((self.pawn_touch | self.pawns) & moved).nonempty() {
            delta += i64::from(pawn_count::<S::Other>(
                self.pawns & !to,
                occ,
                self.enemy ^ moved,
            )) - i64::from(self.pawn_count);
        }
        delta
    }
}

/// The moves of the pawns `pawns` of side `T` (not in check), given the
/// occupancy and `T`'s opponents: the generator's bulk pawn count.
#[inline(always)]
fn pawn_count<T: Side>(pawns: Bitboard, occ: Bitboard, enemy: Bitboard) -> u32 {
    let empty = !occ;
    let single = T::up(pawns) & empty;
    let double = T::up(single & T::RANK_3) & empty;
    let west = T::up_west(pawns) & enemy;
    let east = T::up_east(pawns) & enemy;
    let last = T::RANK_8;
    let promotions = (single & last).len() + (west & last).len() + (east & last).len();
    single.len() + double.len() + west.len() + east.len() + 3 * promotions
}

/// The moves of the pawns `pawns` of side `T` onto `answers` (the square of
/// a piece that checks `T`'s king, the only occupied one, and the squares
/// between the two), given the occupancy: pushes that block, captures of
/// the checker (a promotion counts four).
#[inline(always)]
fn pawn_evasions<T: Side>(pawns: Bitboard, occ: Bitboard, answers: Bitboard) -> u32 {
    let empty = !occ;
    let single = T::up(pawns) & empty;
    let double = T::up(single & T::RANK_3) & empty & answers;
    let single = single & answers;
    let captures = answers & occ;
    let west = T::up_west(pawns) & captures;
    let east = T::up_east(pawns) & captures;
    let last = T::RANK_8;
    let promotions = (single & last).len() + (west & last).len() + (east & last).len();
    single.len() + double.len() + west.len() + east.len() + 3 * promotions
}

/// `S`'s pieces of kind `k` after `S` moves a `piece` from `from` to `to`,
/// where it stands as a `new` (`piece`, or the promoted kind). `to` holds
/// none of `S`'s pieces, so adding it is an xor.
#[inline(always)]
fn moved_kind<S: Side>(
    pos: &Position,
    k: Piece,
    piece: Piece,
    new: Piece,
    from: Bitboard,
    to: Bitboard,
) -> Bitboard {
    let mut bb = pos.pieces(k) & pos.colors(S::COLOR);
    if k == piece {
        bb ^= from;
    }
    if k == new {
        bb ^= to;
    }
    bb
}

/// Perft 2 below `pos` (side `S` to move), out of line.
#[inline(always)]
pub(crate) fn perft2<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    perft2_with::<C, S>(cpu, pos, &mut Scratch::new())
}

/// Room for the footprint and mobility of one leaf parent, reused by the
/// caller across leaf parents: making a fresh one per leaf parent copied its
/// 568 bytes from a constant (a `memcpy` call) every time, though
/// [`Shortcut::fill`] writes every field it reads. Its contents between
/// calls mean nothing.
pub(crate) struct Scratch(Shortcut);

impl Scratch {
    #[inline(always)]
    pub(crate) fn new() -> Scratch {
        Scratch(Shortcut::EMPTY)
    }
}

/// [`perft2`] with the caller's [`Scratch`] (a node two plies above the
/// leaves keeps one for all its children).
#[inline(always)]
pub(crate) fn perft2_with<C: Cpu, S: Side>(cpu: C, pos: &Position, scratch: &mut Scratch) -> u64 {
    // The side to move has no slider (kings and pawns only, or the other
    // side has a slider) or one and no knight, and no promotion, the other
    // side no castling right: every child counted from a few sets, unmade
    // ([`leapers`]), in a function of its own. On the `Sparse` paths only,
    // so that the richer positions' code stays as it was; tested here, not in
    // `perft2_inline`, whose code a test there changed (1-3 % more
    // instructions in the other endings).
    if C::CHECK_TIER {
        match leapers::copy::<S>(pos) {
            Some(leapers::Which::Pawns) => {
                return cpu.outlined(
                    #[inline(always)]
                    || leapers::perft2::<C, S, false, false>(cpu, pos),
                );
            }
            Some(leapers::Which::Leapers) => {
                return cpu.outlined(
                    #[inline(always)]
                    || leapers::perft2::<C, S, true, false>(cpu, pos),
                );
            }
            Some(leapers::Which::Slider) => {
                return cpu.outlined(
                    #[inline(always)]
                    || leapers::perft2::<C, S, true, true>(cpu, pos),
                );
            }
            None => {}
        }
    }
    cpu.outlined(
        #[inline(always)]
        || perft2_inline::<C, S>(cpu, pos, &mut scratch.0),
    )
}

#[inline(always)]
fn perft2_inline<C: Cpu, S: Side>(cpu: C, pos: &Position, shortcut: &mut Shortcut) -> u64 {
    let info = NodeInfo::new::<S>(pos);
    let mut nodes = 0;
    // In check every move is made (see the module notes). One call site for
    // both cases: the generator and the children's code inlined once, not
    // a second time for the in-check case. Off the `Sparse` paths the
    // shortcut is always there, marked unusable in check (`mobility.complete`
    // unset, no `pieces`, which every way of counting a move unmade tests
    // anyway), so that no move tests an `Option`: instructions -0.7 % and
    // -1.1 % in the speed set's two rich bins. On the `Sparse` paths the
    // same change ran 1.7 % and 2.9 % more (the compiler's choices differ
    // there), so they keep `None` in check.
    let shortcut = if info.checkers.nonempty() {
        if C::CHECK_TIER {
            None
        } else {
            shortcut.mobility.complete = false;
            shortcut.pieces = None;
            Some(&*shortcut)
        }
    } else {
        shortcut.fill::<C, S>(cpu, pos);
        Some(&*shortcut)
    };
    movegen::generate_with_info::<C, S, _>(
        cpu,
        pos,
        &info,
        &mut Children::<C, S> {
            cpu,
            pos,
            shortcut,
            nodes: &mut nodes,
            side: PhantomData,
        },
    );
    nodes
}

/// The reply count of the other side in `pos` (side `S` to move, not in
/// check) with the turn passed: no en-passant square, everything else as is.
#[inline(always)]
fn passed_count<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    let mut passed = *pos;
    passed.side = <S::Other as Side>::COLOR;
    passed.ep = None;
    movegen::count::<C, S::Other>(cpu, &passed)
}

/// What a leaf parent not in check counts its quiet moves with.
struct Shortcut {
    footprint: Footprint,
    mobility: Mobility,
    /// `O`'s reply count in `P` with the turn passed.
    base: u64,
    /// The part of `base` that is not king moves or castlings, when
    /// [`Shortcut::tier`] may be used (`O` has no castling right and every
    /// slider fits in [`Mobility`]); `None` otherwise.
    pieces: Option<u64>,
}

impl Shortcut {
    /// Sets up the shortcut of `pos` (side `S` to move, not in check): its
    /// footprint, mobility and passed-position count.
    #[inline(always)]
    fn fill<C: Cpu, S: Side>(&mut self, cpu: C, pos: &Position) {
        let pinned = Footprint::fill::<C, S>(cpu, pos, self);
        self.pieces = None;
        self.base = if self.mobility.complete {
            let king = movegen::king_move_count::<C, S::Other>(cpu, pos);
            let mut free = self.mobility.passed_count(king);
            if pinned.nonempty() {
                free += movegen::pinned_move_count::<C, S::Other>(cpu, pos, pinned);
            }
            if self.mobility.castle_rooks.is_empty() {
                self.pieces = Some(free - u64::from(king));
            }
            free
        } else {
            passed_count::<C, S>(cpu, pos)
        };
        debug_assert_eq!(
            self.base,
            passed_count::<C, S>(cpu, pos),
            "{}",
            pos.to_fen()
        );
    }

    /// The starting value [`Shortcut::fill`] writes into.
    const EMPTY: Shortcut = Shortcut {
        footprint: Footprint {
            base: Zone([Bitboard::EMPTY; 6]),
            king: Zone([Bitboard::EMPTY; 6]),
            ep: Bitboard::EMPTY,
            checks: Zone([Bitboard::EMPTY; 6]),
            xray: Bitboard::EMPTY,
            pin_lines: Bitboard::EMPTY,
            complete: [false; 6],
            lines: Bitboard::EMPTY,
            area: Bitboard::EMPTY,
        },
        mobility: Mobility {
            sliders: [(Square::from_index(0), false, Bitboard::EMPTY); MAX_SLIDERS],
            len: 0,
            complete: true,
            slider_touch: Bitboard::EMPTY,
            pawns: Bitboard::EMPTY,
            pawn_touch: Bitboard::EMPTY,
            pawn_count: 0,
            knights: Bitboard::EMPTY,
            castle_rooks: Bitboard::EMPTY,
            occ: Bitboard::EMPTY,
            own: Bitboard::EMPTY,
            enemy: Bitboard::EMPTY,
        },
        base: 0,
        pieces: None,
    };
}

/// The leaf parent's moves: counted as `base` when outside the footprint,
/// as `base` plus a mobility delta when outside its king zone, made and
/// counted otherwise.
struct Children<'a, C, S> {
    cpu: C,
    pos: &'a Position,
    /// `None` or, off the `Sparse` paths, an unusable shortcut
    /// (`mobility.complete` unset, `pieces` `None`) when `S` is in check
    /// (see `perft2_inline`): the helpers below test those fields, not only
    /// the `Option`, before counting a move unmade.
    shortcut: Option<&'a Shortcut>,
    nodes: &'a mut u64,
    side: PhantomData<S>,
}

impl<C: Cpu, S: Side> Children<'_, C, S> {
    /// `O`'s king square, the same in every child (`S` moves).
    #[inline(always)]
    fn o_king(&self) -> Square {
        self.pos.king(<S::Other as Side>::COLOR)
    }

    /// The targets of `piece` from `from` counted without a make.
    #[inline(always)]
    fn untouched(&self, piece: Piece, from: Square, to: Bitboard) -> Unmade {
        match self.shortcut {
            Some(s) => {
                let king = s.footprint.king.of(piece);
                if king.contains(from) || !s.mobility.complete {
                    return Unmade::NONE;
                }
                let them = self.pos.colors(<S::Other as Side>::COLOR);
                let outside = to & !king;
                let quiet = outside & !them;
                let captures = outside & them & !s.mobility.castle_rooks;
                let zone = s.footprint.base.of(piece);
                if zone.contains(from) {
                    Unmade {
                        base: Bitboard::EMPTY,
                        quiet,
                        captures,
                    }
                } else {
                    Unmade {
                        base: quiet & !zone,
                        quiet: quiet & zone,
                        captures,
                    }
                }
            }
            None => Unmade::NONE,
        }
    }

    /// The pawn targets (each reached from `target - delta`) counted
    /// without a make (never promotions).
    #[inline(always)]
    fn untouched_pawns(&self, to: Bitboard, delta: i32, promotion: bool) -> Unmade {
        match self.shortcut {
            Some(s) if !promotion && s.mobility.complete => {
                // Origins outside a zone, shifted onto their targets.
                let outside = |zone: Bitboard| {
                    let origins = if delta > 0 {
                        Bitboard(!zone.0 << delta)
                    } else {
                        Bitboard(!zone.0 >> -delta)
                    };
                    origins & !zone
                };
                let them = self.pos.colors(<S::Other as Side>::COLOR);
                let ep = if delta == 2 * S::UP {
                    s.footprint.ep
                } else {
                    Bitboard::EMPTY
                };
                let away = to & outside(s.footprint.king.of(Piece::Pawn) | ep);
                let quiet = away & !them;
                let base = quiet & outside(s.footprint.base.of(Piece::Pawn) | ep);
                Unmade {
                    base,
                    quiet: quiet & !base,
                    captures: away & them & !s.mobility.castle_rooks,
                }
            }
            _ => Unmade::NONE,
        }
    }

    /// The reply count after the promotion of the pawn on `from` to
    /// `piece` on `to`, counted without a make when the move stays outside
    /// the king zones of a pawn (which leaves `from`) and of `piece` (which
    /// arrives on `to`, and may see through `from`): `base` plus the
    /// mobility delta of the pawn leaving `from` and a piece of `S` standing
    /// on `to` (the new piece's kind does not matter to `O`'s mobility).
    /// When `S` has no slider of the promoted kind, whose lines into `O`'s
    /// king area were not looked up, the new piece's own lines are: it
    /// must attack no square of the area (with `O`'s king and castling
    /// rooks off the board, as the zones are built) and pin no piece of
    /// `O`. `None`: the move must be made.
    #[inline(always)]
    fn promotion_unmade(&self, from: Square, to: Square, piece: Piece) -> Option<u64> {
        let s = self.shortcut?;
        let moved = from.bitboard() | to.bitboard();
        let zone = s.footprint.king.of(Piece::Pawn) | s.footprint.king.of(piece);
        if !s.mobility.complete || (zone & moved).nonempty() {
            return None;
        }
        if !s.footprint.complete[piece.index()] {
            let (cpu, pos) = (self.cpu, self.pos);
            let o = <S::Other as Side>::COLOR;
            let reach = |occ: Bitboard| match piece {
                Piece::Bishop => cpu.bishop_attacks(to, occ),
                Piece::Rook => cpu.rook_attacks(to, occ),
                _ => cpu.bishop_attacks(to, occ) | cpu.rook_attacks(to, occ),
            };
            let occ = (pos.occupied() ^ from.bitboard()) | to.bitboard();
            let king = pos.king(o);
            let off = king.bitboard() | s.mobility.castle_rooks;
            if (reach(occ & !off) & s.footprint.area).nonempty() {
                return None;
            }
            // A pin: O's king seen through one piece of O.
            let first = reach(occ) & pos.colors(o);
            if reach(occ ^ first).contains(king) {
                return None;
            }
        }
        let delta = if self.pos.colors(<S::Other as Side>::COLOR).contains(to) {
            if s.mobility.castle_rooks.contains(to) {
                return None;
            }
            s.mobility
                .capture_delta::<C, S>(self.cpu, from.bitboard(), to.bitboard())
        } else {
            s.mobility.delta::<C, S>(self.cpu, moved)
        };
        Some((s.base as i64 + delta) as u64)
    }

    /// The reply count after a move of `piece` from `from` to `to` that
    /// must otherwise be made (it is in the king zone), counted without a
    /// make when it leaves `O`'s pins as they are (no pinner moved or
    /// taken, no pin line entered or left, no new pin) and `O` has no
    /// castling right: `O`'s king moves are counted against `S`'s attacks
    /// after the move. Without a check, the rest is the passed position's
    /// count of `O`'s other pieces plus the mobility delta. A check is
    /// counted only on a path that sets `Cpu::CHECK_TIER` (and made on the
    /// others): with a single check, the rest is the moves of `O`'s
    /// unpinned pieces onto the checker or between it and the king
    /// ([`Mobility::evasions`]; a pinned piece cannot answer a check, its
    /// pin line and the check's meet only at the king); with a double
    /// check, nothing else. Not for double pushes, castling or en passant.
    /// `None`: make it.
    ///
    /// `new` is the kind that stands on `to` after the move: `piece`, or
    /// for a promotion the promoted kind (tried here only on a
    /// `Cpu::CHECK_TIER` path: a promoted piece next to `O`'s king often
    /// checks).
    #[inline(always)]
    fn tier(&self, piece: Piece, new: Piece, from: Square, to: Square) -> Option<u64> {
        let s = self.shortcut?;
        let pieces = s.pieces?;
        let fp = &s.footprint;
        let (from_bb, to_bb) = (from.bitboard(), to.bitboard());
        let moved = from_bb | to_bb;
        // A move to a square that checks O's king: counted here only on a
        // path that counts checks (`Cpu::CHECK_TIER`, see `check_replies`).
        if (moved & fp.pin_lines).nonempty() || (!C::CHECK_TIER && fp.checks.of(new).contains(to)) {
            return None;
        }
        let pos = self.pos;
        let cpu = self.cpu;
        let o = <S::Other as Side>::COLOR;
        let them = pos.colors(o);
        let capture = them.contains(to);
        let occ = (pos.occupied() ^ from_bb) | to_bb;
        let them = them & !to_bb;
        let kind = |k: Piece| moved_kind::<S>(pos, k, piece, new, from_bb, to_bb);
        let pawns = kind(Piece::Pawn);
        let knights = kind(Piece::Knight);
        let (bishops, rooks, queens) = (kind(Piece::Bishop), kind(Piece::Rook), kind(Piece::Queen));
        let (diagonal, orthogonal) = (bishops | queens, rooks | queens);
        let king = pos.king(o);
        // A knight's or pawn's check on `to`; a slider's is found on the
        // lines (the squares it checks from lie on them).
        let leaper_check = if C::CHECK_TIER
            && matches!(new, Piece::Knight | Piece::Pawn)
            && fp.checks.of(new).contains(to)
        {
            to_bb
        } else {
            Bitboard::EMPTY
        };
        // Off the king's lines, a move gives no check from a slider and
        // leaves the xray as it is. The lines are those of the slider kinds
        // `S` has: a promotion to another kind is looked at on all of them.
        if (moved & fp.lines).nonempty() || (piece != new && !fp.complete[new.index()]) {
            // A slider's check, from the moved piece or uncovered. Pins:
            // the sliders seen through one piece of O must be the same. Per
            // slider of S on the king's lines, from the pieces between them:
            // none is a check, one of O's is that xray (no chain of two
            // lookups).
            let snipers = (rook_rays(king) & orthogonal) | (bishop_rays(king) & diagonal);
            let mut checkers = Bitboard::EMPTY;
            let mut xray = Bitboard::EMPTY;
            for sniper in snipers {
                let b = (between(king, sniper) & occ).0;
                let one = u64::from((b & b.wrapping_sub(1) == 0) & (b & them.0 != 0));
                checkers.0 |= sniper.bitboard().0 & u64::from(b == 0).wrapping_neg();
                xray.0 |= sniper.bitboard().0 & one.wrapping_neg();
            }
            if C::CHECK_TIER {
                if xray != fp.xray {
                    return None;
                }
                let checkers = checkers | leaper_check;
                if checkers.nonempty() {
                    return Some(self.check_replies(s, piece, new, from, to, checkers));
                }
            } else if checkers.nonempty() || xray != fp.xray {
                return None;
            }
        } else if C::CHECK_TIER && leaper_check.nonempty() {
            return Some(self.check_replies(s, piece, new, from, to, leaper_check));
        }
        // O's king: its squares against S's attacks after the move.
        let occ = occ ^ king.bitboard();
        let mut attacked = S::up_west(pawns) | S::up_east(pawns);
        let s_king = if piece == Piece::King {
            to
        } else {
            pos.king(S::COLOR)
        };
        attacked |= king_attacks(s_king);
        for sq in knights {
            attacked |= knight_attacks(sq);
        }
        for sq in diagonal {
            attacked |= cpu.bishop_attacks(sq, occ);
        }
        for sq in orthogonal {
            attacked |= cpu.rook_attacks(sq, occ);
        }
        let king_moves = (king_attacks(king) & !them & !attacked).len();
        // A pinned piece cannot be taken here: by its pinner the move
        // checks, by another piece it blocks the pin (the xray differs).
        let delta = if capture {
            s.mobility.capture_delta::<C, S>(cpu, from_bb, to_bb)
        } else {
            s.mobility.delta::<C, S>(cpu, moved)
        };
        Some((pieces as i64 + delta) as u64 + u64::from(king_moves))
    }

    /// [`Children::tier`]'s count for a move that checks `O`'s king
    /// (`checkers`, in the child), `O`'s pins unchanged: `O`'s king moves
    /// against `S`'s attacks after the move and, for a single check, the
    /// moves of `O`'s unpinned pieces onto the checker or between it and
    /// the king ([`Mobility::evasions`]).
    #[inline(always)]
    fn check_replies(
        &self,
        s: &Shortcut,
        piece: Piece,
        new: Piece,
        from: Square,
        to: Square,
        checkers: Bitboard,
    ) -> u64 {
        let (pos, cpu) = (self.pos, self.cpu);
        let (from_bb, to_bb) = (from.bitboard(), to.bitboard());
        let o = <S::Other as Side>::COLOR;
        let king = pos.king(o);
        let them = pos.colors(o) & !to_bb;
        let kind = |k: Piece| moved_kind::<S>(pos, k, piece, new, from_bb, to_bb);
        let pawns = kind(Piece::Pawn);
        let (diagonal, orthogonal) = (
            kind(Piece::Bishop) | kind(Piece::Queen),
            kind(Piece::Rook) | kind(Piece::Queen),
        );
        let occ = ((pos.occupied() ^ from_bb) | to_bb) ^ king.bitboard();
        let s_king = if piece == Piece::King {
            to
        } else {
            pos.king(S::COLOR)
        };
        let mut attacked = S::up_west(pawns) | S::up_east(pawns) | king_attacks(s_king);
        for sq in kind(Piece::Knight) {
            attacked |= knight_attacks(sq);
        }
        for sq in diagonal {
            attacked |= cpu.bishop_attacks(sq, occ);
        }
        for sq in orthogonal {
            attacked |= cpu.rook_attacks(sq, occ);
        }
        let mut replies = (king_attacks(king) & !them & !attacked).len();
        if !checkers.has_many() {
            let answers = between(king, checkers.lsb()) | checkers;
            replies += s.mobility.evasions::<C, S>(cpu, from_bb, to_bb, answers);
        }
        debug_assert_eq!(
            u64::from(replies),
            movegen::count::<C, S::Other>(
                cpu,
                &if piece == new {
                    pos.make_normal::<C, S, false>(cpu, piece, from, to)
                } else {
                    pos.make_promotion::<S, false>(from, to, new)
                }
            ),
            "{} {piece:?} {new:?} {from:?} {to:?}",
            pos.to_fen()
        );
        u64::from(replies)
    }

    /// Adds the reply counts of the moves in `unmade` (each target reached
    /// from `from(target)`).
    #[inline(always)]
    fn add_unmade(&mut self, unmade: Unmade, from: impl Fn(Square) -> Square) {
        if let Some(s) = self.shortcut {
            let moves = unmade.base.len() + unmade.quiet.len() + unmade.captures.len();
            let mut n = s.base as i64 * i64::from(moves);
            for to in unmade.quiet {
                n += s
                    .mobility
                    .delta::<C, S>(self.cpu, from(to).bitboard() | to.bitboard());
            }
            for to in unmade.captures {
                n += s
                    .mobility
                    .capture_delta::<C, S>(self.cpu, from(to).bitboard(), to.bitboard());
            }
            *self.nodes += n as u64;
        }
    }
}

/// A leaf parent's targets counted without a make: quiet moves outside the
/// footprint (`base` replies), quiet moves and captures outside its king
/// zone (`base` plus a delta).
#[derive(Clone, Copy)]
struct Unmade {
    base: Bitboard,
    quiet: Bitboard,
    captures: Bitboard,
}

impl Unmade {
    const NONE: Unmade = Unmade {
        base: Bitboard::EMPTY,
        quiet: Bitboard::EMPTY,
        captures: Bitboard::EMPTY,
    };

    /// All of them.
    #[inline(always)]
    fn all(&self) -> Bitboard {
        self.base | self.quiet | self.captures
    }
}

impl<C: Cpu, S: Side> MoveSink for Children<'_, C, S> {
    #[inline(always)]
    fn piece_moves(&mut self, piece: Piece, from: Square, to: Bitboard) -> bool {
        let unmade = self.untouched(piece, from, to);
        self.add_unmade(unmade, |_| from);
        for to in to & !unmade.all() {
            if let Some(replies) = self.tier(piece, piece, from, to) {
                *self.nodes += replies;
                continue;
            }
            let child = self
                .pos
                .make_normal::<C, S, false>(self.cpu, piece, from, to);
            *self.nodes += count_leaves_at::<C, S::Other>(self.cpu, &child, self.o_king());
        }
        false
    }

    #[inline(always)]
    fn pawn_moves(&mut self, to: Bitboard, delta: i32, promotion: bool) -> bool {
        let origin = |to: Square| Square::from_index((to.index() as i32 - delta) as usize);
        let unmade = self.untouched_pawns(to, delta, promotion);
        self.add_unmade(unmade, origin);
        for to in to & !unmade.all() {
            let from = origin(to);
            if promotion {
                for piece in PROMOTION_PIECES {
                    if let Some(replies) = self.promotion_unmade(from, to, piece) {
                        *self.nodes += replies;
                        continue;
                    }
                    // On a path that counts checks (the promoted piece
                    // often checks): the king tier.
                    if C::CHECK_TIER
                        && let Some(replies) = self.tier(Piece::Pawn, piece, from, to)
                    {
                        *self.nodes += replies;
                        continue;
                    }
                    let child = self.pos.make_promotion::<S, false>(from, to, piece);
                    *self.nodes += count_leaves_at::<C, S::Other>(self.cpu, &child, self.o_king());
                }
            } else {
                if delta != 2 * S::UP
                    && let Some(replies) = self.tier(Piece::Pawn, Piece::Pawn, from, to)
                {
                    *self.nodes += replies;
                    continue;
                }
                let child = self
                    .pos
                    .make_normal::<C, S, false>(self.cpu, Piece::Pawn, from, to);
                *self.nodes += count_leaves_at::<C, S::Other>(self.cpu, &child, self.o_king());
            }
        }
        false
    }

    /// En passant and castling: always made.
    #[inline(always)]
    fn special(&mut self, moves: PieceMoves) -> bool {
        for mv in moves {
            *self.nodes +=
                count_leaves::<C, S::Other>(self.cpu, &self.pos.play_piece(moves.piece, mv));
        }
        false
    }
}

/// [`count_leaves`] with the side to move's king square given.
#[inline(always)]
pub(crate) fn count_leaves_at<C: Cpu, S: Side>(cpu: C, pos: &Position, king: Square) -> u64 {
    cpu.outlined(
        #[inline(always)]
        || movegen::count_at::<C, S>(cpu, pos, king),
    )
}

/// The bulk counter as one out-of-line function: the child loops call it
/// from a dozen places (one per move group), and inlining it into each made
/// the hot code several times larger than the instruction cache (measured).
#[inline(always)]
pub(crate) fn count_leaves<C: Cpu, S: Side>(cpu: C, pos: &Position) -> u64 {
    cpu.outlined(
        #[inline(always)]
        || movegen::count::<C, S>(cpu, pos),
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::chess::cpu::{Compiled, CpuFn, CpuPath, Sparse};
    use crate::chess::movegen::{Black, White};
    use crate::chess::moves::{Move, MoveKind};
    use crate::chess::piece::Color;
    use crate::perft::replies::perft2_plain;

    /// The moves of `pos` (side `S`, not in check) that [`perft2`] counts
    /// without making them, each with the reply count it counts for it
    /// (`base`, or `base` plus the mobility delta), and which way it was
    /// counted (an index into [`WAYS`]).
    fn shortcut<S: Side>(pos: &Position) -> Vec<(Move, u64, usize)> {
        let mut shortcut = Shortcut::EMPTY;
        shortcut.fill::<Sparse<Compiled>, S>(Sparse(Compiled), pos);
        let mut nodes = 0;
        let sink = Children::<Sparse<Compiled>, S> {
            cpu: Sparse(Compiled),
            pos,
            shortcut: Some(&shortcut),
            nodes: &mut nodes,
            side: PhantomData,
        };
        let mut moves = Vec::new();
        for mv in pos.legal_moves().iter().copied() {
            let to = mv.to().bitboard();
            let piece = pos.piece_on(mv.from()).unwrap().1;
            if mv.kind() == MoveKind::Promotion {
                let piece = mv.promotion().unwrap();
                if let Some(replies) = sink.promotion_unmade(mv.from(), mv.to(), piece) {
                    moves.push((mv, replies, 3));
                } else if let Some(replies) = sink.tier(Piece::Pawn, piece, mv.from(), mv.to()) {
                    moves.push((mv, replies, 5));
                }
                continue;
            }
            let unmade = match mv.kind() {
                MoveKind::Castling | MoveKind::EnPassant => Unmade::NONE,
                _ if piece == Piece::Pawn => sink.untouched_pawns(
                    to,
                    mv.to().index() as i32 - mv.from().index() as i32,
                    mv.kind() == MoveKind::Promotion,
                ),
                _ => sink.untouched(piece, mv.from(), to),
            };
            let from = mv.from().bitboard();
            let delta = if unmade.base.nonempty() {
                Some(0)
            } else if unmade.quiet.nonempty() {
                Some(
                    shortcut
                        .mobility
                        .delta::<Sparse<Compiled>, S>(Sparse(Compiled), from | to),
                )
            } else if unmade.captures.nonempty() {
                Some(shortcut.mobility.capture_delta::<Sparse<Compiled>, S>(
                    Sparse(Compiled),
                    from,
                    to,
                ))
            } else {
                None
            };
            if let Some(delta) = delta {
                let kind = if unmade.base.nonempty() {
                    0
                } else if unmade.quiet.nonempty() {
                    1
                } else {
                    2
                };
                moves.push((mv, (shortcut.base as i64 + delta) as u64, kind));
            } else if mv.kind() == MoveKind::Normal
                && (piece != Piece::Pawn || mv.from().index().abs_diff(mv.to().index()) != 16)
                && let Some(replies) = sink.tier(piece, piece, mv.from(), mv.to())
            {
                moves.push((mv, replies, 4));
            }
        }
        moves
    }

    /// Positions: every line of the suites, then seeded random play from each.
    pub(crate) fn positions() -> Vec<Position> {
        let mut out = Vec::new();
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/positions/");
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for file in [
            "standard.epd",
            "tricky.epd",
            "tricky960.epd",
            "perftsuite.epd",
            "chess960.epd",
            "speed.epd",
        ] {
            let text = std::fs::read_to_string(format!("{dir}{file}")).unwrap();
            let chess960 = file.contains("960");
            for line in text
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            {
                let fen = line.split(';').next().unwrap().trim();
                let mut pos =
                    Position::from_fen_with(fen, chess960, crate::Zobrist::DEFAULT).unwrap();
                for _ in 0..24 {
                    out.push(pos);
                    let moves = pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    pos = pos.play_unchecked(
                        moves
                            .iter()
                            .copied()
                            .nth((seed % moves.len() as u64) as usize)
                            .unwrap(),
                    );
                }
            }
        }
        // From CPW position 3 to a leaf parent whose side to move has no
        // slider and can take a piece next to the other king (`c5xb4`):
        // a king zone without the king's neighbours once missed that the
        // capture gives the king a target.
        let mut pos = Position::from_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1").unwrap();
        for mv in ["a5a4", "h5b5", "a4b5", "c7c5", "b5a5"] {
            pos = pos.play_unchecked(pos.parse_uci(mv).unwrap());
            out.push(pos);
        }
        out
    }

    /// The ways a move is counted without a make.
    const WAYS: [&str; 6] = [
        "base",
        "quiet delta",
        "capture delta",
        "promotion",
        "king tier",
        "promotion, king tier",
    ];

    /// The claims the shortcut rests on, move by move: a move outside the
    /// footprint leaves the opponent exactly `base` replies, and a quiet
    /// move or capture outside its king zone `base` plus its delta.
    #[test]
    fn a_move_outside_the_footprint_or_its_king_zone_leaves_the_counted_replies() {
        let (mut ways, mut moves) = ([0; 6], 0);
        for pos in positions() {
            if pos.in_check() {
                continue;
            }
            let counted = match pos.side_to_move() {
                Color::White => shortcut::<White>(&pos),
                Color::Black => shortcut::<Black>(&pos),
            };
            for &(mv, replies, way) in &counted {
                let child = pos.play_unchecked(mv);
                assert_eq!(
                    child.count_moves(),
                    replies,
                    "{} {} ({})",
                    pos.to_fen(),
                    mv.to_uci(true),
                    WAYS[way]
                );
                ways[way] += 1;
            }
            moves += pos.legal_moves().len();
        }
        // Each way must actually be taken, or this test proves nothing.
        assert!(ways[0] * 10 > moves, "{ways:?} of {moves}");
        assert!(ways[1] * 10 > moves, "{ways:?} of {moves}");
        assert!(ways[2] * 50 > moves, "{ways:?} of {moves}");
        assert!(ways[3] > 0, "{ways:?} of {moves}");
        assert!(ways[4] * 20 > moves, "{ways:?} of {moves}");
        assert!(ways[5] > 0, "{ways:?} of {moves}");
    }

    /// Perft 2 on one CPU path: with the shortcut, or (`.1`) the plain
    /// loop's, with replies handed down (`perft::replies`).
    struct Perft2<'a>(&'a Position, bool);

    impl CpuFn for Perft2<'_> {
        type Output = u64;
        fn call<C: Cpu>(self, cpu: C) -> u64 {
            // The shortcut on the path and on its `Sparse` twin (checks
            // counted in the king tier) must agree.
            let both = |a: u64, b: u64| {
                assert_eq!(a, b, "sparse, {}", self.0.to_fen());
                a
            };
            match (self.0.side_to_move(), self.1) {
                (Color::White, false) => both(
                    perft2::<C, White>(cpu, self.0),
                    perft2::<Sparse<C>, White>(Sparse(cpu), self.0),
                ),
                (Color::Black, false) => both(
                    perft2::<C, Black>(cpu, self.0),
                    perft2::<Sparse<C>, Black>(Sparse(cpu), self.0),
                ),
                (Color::White, true) => perft2_plain::<C, White>(cpu, self.0),
                (Color::Black, true) => perft2_plain::<C, Black>(cpu, self.0),
            }
        }
    }

    /// And perft 2 with the shortcut, and the plain loop's, equal the sum
    /// over made children, on every CPU path this machine supports.
    #[test]
    fn perft2_equals_the_sum_over_made_children() {
        let paths = CpuPath::supported();
        for pos in positions() {
            let made: u64 = pos
                .legal_moves()
                .iter()
                .map(|&mv| pos.play_unchecked(mv).count_moves())
                .sum();
            for &path in &paths {
                assert_eq!(
                    path.run(Perft2(&pos, false)),
                    made,
                    "{path} {}",
                    pos.to_fen()
                );
                let plain = path.run(Perft2(&pos, true));
                assert_eq!(plain, made, "plain, {path} {}", pos.to_fen());
            }
        }
    }
}
