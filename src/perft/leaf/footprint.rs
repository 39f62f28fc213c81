//! The footprint of `O`'s reply count in a leaf parent: the squares a quiet
//! move of `S` must avoid for the count to stay the passed position's, and
//! inside it the king zone, which a move must avoid for the count to be
//! that plus a mobility delta (see the module docs of `perft::leaf`).

use crate::chess::attacks::{
    between, bishop_attacks_from_set, bishop_rays, king_attacks, knight_attacks, pawn_attacks,
    rook_attacks_from_set, rook_rays,
};
use crate::chess::bitboard::Bitboard;
use crate::chess::cpu::Cpu;
use crate::chess::movegen::Side;
use crate::chess::piece::Piece;
use crate::chess::position::Position;
use crate::chess::side::{NOT_A, NOT_H};
use crate::chess::square::Square;

use super::mobility::pawn_count;
use super::shortcut::Shortcut;

/// Squares a move of `S` must not start or end on, by kind of piece (the
/// moving one), indexed by [`Piece::index`].
#[derive(Clone, Copy)]
pub(super) struct Zone(pub(super) [Bitboard; 6]);

impl Zone {
    /// The zone for a move of `piece`.
    #[inline(always)]
    pub(super) fn of(&self, piece: Piece) -> Bitboard {
        self.0[piece.index()]
    }
}

/// Where a quiet move of `S` must not start or end for `O`'s reply count to
/// stay the passed position's (`base`), and where it must not for the
/// count to be `base` plus a mobility delta (`king`).
pub(super) struct Footprint {
    /// The whole footprint.
    pub(super) base: Zone,
    /// The part that concerns `O`'s king (its area and the lines, knights
    /// and pawns that reach it, the pins of `O`'s pieces, the castling
    /// paths and en passant). A quiet move outside it changes only the
    /// mobility of `O`'s unpinned sliders and pawns: [`Mobility`](super::mobility::Mobility).
    pub(super) king: Zone,
    /// The squares next to `O`'s pawns: a double push of `S` there may
    /// give `O` an en-passant capture (part of both zones for double
    /// pushes only).
    pub(super) ep: Bitboard,
    /// By kind of piece, the squares from which it checks `O`'s king (with the
    /// occupancy of `P`): a move there is made, not tried in
    /// [`Children::tier`](super::children::Children::tier) (which would find
    /// the check and give up).
    pub(super) checks: Zone,
    /// By kind of piece, the squares from which it would pin a piece of `O`
    /// (the king's lines of `S`'s slider kinds past `O`'s first piece, up to
    /// and with the next): a slider of `S` arriving there changes
    /// [`Footprint::xray`], and the tier gives the move up. With it and
    /// [`Footprint::checks`], a move that does not start on
    /// [`Footprint::lines`] needs no look along them.
    pub(super) pins: Zone,
    /// The sliders of `S` that `O`'s king sees through one piece of `O`
    /// on its lines (its pinners; the same set after a move means the same
    /// pins and pin lines).
    pub(super) xray: Bitboard,
    /// The squares from `O`'s king up to and with each pinner: a move there
    /// changes the pins or a pinned piece's moves, and the tier gives it
    /// up at once (an early exit: the xray test would find it; without it
    /// the speed set took 0.6-3.7 % more instructions per bin). Counting
    /// such moves in the tier instead (a pinner's, one that pins or blocks a
    /// pin), with the pinned pieces' moves corrected, was slower with queens
    /// on both sides, where they are most of the moves made: 0.976x inside
    /// the tier, 0.956x in a function of its own (AMD Zen 5, `--shortcut`):
    /// a made child there costs no more than the tier's count of the move.
    pub(super) pin_lines: Bitboard,
    /// The kinds whose zones are complete, indexed by [`Piece::index`]: a
    /// slider kind's lines into `O`'s king area are looked up only when `S` has
    /// such a slider, so a promotion to a kind `S` lacks looks at the new
    /// piece's own lines instead
    /// ([`Children::promotion_unmade`](super::children::Children::promotion_unmade)).
    pub(super) complete: [bool; 6],
    /// The lines from `O`'s king, for the slider kinds `S` has, up to the
    /// second piece: a move that does not start on them uncovers no check
    /// from a slider, and what it does arriving on them is in
    /// [`Footprint::checks`] and [`Footprint::pins`].
    pub(super) lines: Bitboard,
    /// `O`'s king area: its king's square, the squares next to it that its
    /// pieces leave free, and the squares a possible castling crosses.
    pub(super) area: Bitboard,
}

impl Footprint {
    /// Writes into `shortcut` the footprint of `O`'s reply count in `pos`
    /// (side `S` to move, not in check) and the [`Mobility`](super::mobility::Mobility) of `O`'s
    /// unpinned pieces. In place: returning the two (656 bytes) and moving
    /// them into a [`Shortcut`] cost a `memcpy` call per leaf parent in a
    /// build without AVX-512.
    ///
    /// Returns `O`'s pinned pieces.
    #[inline(always)]
    pub(super) fn fill<C: Cpu, S: Side>(
        cpu: C,
        pos: &Position,
        shortcut: &mut Shortcut,
    ) -> Bitboard {
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
        let (pin_diagonal, pin_orthogonal) = (
            xray_diagonal & !diagonal_line,
            xray_orthogonal & !orthogonal_line,
        );
        shortcut.footprint.pins = Zone([
            Bitboard::EMPTY,
            Bitboard::EMPTY,
            pin_diagonal,
            pin_orthogonal,
            pin_diagonal | pin_orthogonal,
            Bitboard::EMPTY,
        ]);
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
