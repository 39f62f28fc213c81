//! A slow reference move generator, written for obviousness, not speed: the
//! yardstick of the property tests and of the `play` fuzz target.
//!
//! It shares nothing with the fast generator but the square, piece and move
//! types: the board is a plain `[Option<(Color, Piece)>; 64]` mailbox, attacks
//! are found by walking rays square by square, and legality is the textbook
//! rule: generate every pseudo-legal move, make it on a copy of the mailbox,
//! and keep it if the mover's king is then not attacked. Castling adds the
//! Chess960 rule (FIDE Laws, Guidelines II): the squares between the king and
//! its destination and between the rook and its destination are empty
//! (but for those two pieces), and the king is not attacked on its square, on
//! any square it crosses, or on its destination.
//!
//! The en-passant target of a [`RefBoard`] is the square passed over by any
//! double push, possible capture or not (as FEN writes it), so the board does
//! not depend on the fast code's rule that keeps the square only when a
//! capture is legal. It is some thousand times slower than
//! [`Position::legal_moves`](crate::Position::legal_moves): tests and fuzzing
//! only.

use crate::chess::bitboard::Bitboard;
use crate::chess::moves::{Move, MoveKind};
use crate::chess::piece::{Color, Piece};
use crate::chess::position::Position;
use crate::chess::square::{File, Rank, Square};

const ROOK_DIRECTIONS: [(i8, i8); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
const BISHOP_DIRECTIONS: [(i8, i8); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];
const KNIGHT_JUMPS: [(i8, i8); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];
const KING_STEPS: [(i8, i8); 8] = [
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
    (0, -1),
    (1, -1),
];
const PROMOTIONS: [Piece; 4] = [Piece::Knight, Piece::Bishop, Piece::Rook, Piece::Queen];

/// A mailbox board for the reference generator.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RefBoard {
    /// What stands on each square, indexed by [`Square::index`].
    pub squares: [Option<(Color, Piece)>; 64],
    /// The side to move.
    pub side: Color,
    /// The rooks that may still castle (standard and Chess960 alike).
    pub castle_rooks: Bitboard,
    /// The square passed over by the last move if it was a double pawn push.
    pub ep: Option<Square>,
}

impl RefBoard {
    /// The board of `pos` (its en-passant square as the position keeps it).
    pub fn from_position(pos: &Position) -> RefBoard {
        let mut squares = [None; 64];
        for sq in Square::ALL {
            squares[sq.index()] = pos.piece_on(sq);
        }
        RefBoard {
            squares,
            side: pos.side_to_move(),
            castle_rooks: pos.castle_rooks(),
            ep: pos.ep_square(),
        }
    }

    fn at(&self, sq: Square) -> Option<(Color, Piece)> {
        self.squares[sq.index()]
    }

    fn king_square(&self, color: Color) -> Option<Square> {
        Square::ALL
            .into_iter()
            .find(|&sq| self.at(sq) == Some((color, Piece::King)))
    }

    /// Is `sq` attacked by a piece of colour `by`? Walks every ray and jump
    /// outwards from `sq` and looks at what it meets.
    pub fn is_attacked(&self, sq: Square, by: Color) -> bool {
        let slides = |directions: &[(i8, i8)], sliders: [Piece; 2]| {
            directions.iter().any(|&(df, dr)| {
                let mut cur = sq;
                while let Some(next) = cur.offset(df, dr) {
                    match self.at(next) {
                        None => cur = next,
                        Some((color, piece)) => return color == by && sliders.contains(&piece),
                    }
                }
                false
            })
        };
        let jumps = |offsets: &[(i8, i8)], piece: Piece| {
            offsets
                .iter()
                .filter_map(|&(df, dr)| sq.offset(df, dr))
                .any(|from| self.at(from) == Some((by, piece)))
        };
        // A pawn of `by` attacks `sq` from one rank behind it (from `by`'s view).
        let behind: i8 = if by == Color::White { -1 } else { 1 };
        slides(&ROOK_DIRECTIONS, [Piece::Rook, Piece::Queen])
            || slides(&BISHOP_DIRECTIONS, [Piece::Bishop, Piece::Queen])
            || jumps(&KNIGHT_JUMPS, Piece::Knight)
            || jumps(&KING_STEPS, Piece::King)
            || jumps(&[(-1, behind), (1, behind)], Piece::Pawn)
    }

    /// Is the king of `color` attacked? (A board without that king: no.)
    pub fn king_attacked(&self, color: Color) -> bool {
        self.king_square(color)
            .is_some_and(|king| self.is_attacked(king, !color))
    }

    /// Every pseudo-legal move: each piece's moves by the movement rules,
    /// ignoring whether the mover's own king is left attacked. Castling is
    /// included only when its own conditions (empty path, king not attacked
    /// on its way) hold.
    pub fn pseudo_legal_moves(&self) -> Vec<Move> {
        let us = self.side;
        let mut moves = Vec::new();
        for from in Square::ALL {
            let Some((color, piece)) = self.at(from) else {
                continue;
            };
            if color != us {
                continue;
            }
            match piece {
                Piece::Pawn => self.pawn_moves(from, &mut moves),
                Piece::Knight => self.step_moves(from, &KNIGHT_JUMPS, &mut moves),
                Piece::King => self.step_moves(from, &KING_STEPS, &mut moves),
                Piece::Bishop => self.slide_moves(from, &BISHOP_DIRECTIONS, &mut moves),
                Piece::Rook => self.slide_moves(from, &ROOK_DIRECTIONS, &mut moves),
                Piece::Queen => {
                    self.slide_moves(from, &BISHOP_DIRECTIONS, &mut moves);
                    self.slide_moves(from, &ROOK_DIRECTIONS, &mut moves);
                }
            }
        }
        self.castling_moves(&mut moves);
        moves
    }

    /// The legal moves: the pseudo-legal ones after which the mover's king is
    /// not attacked.
    pub fn legal_moves(&self) -> Vec<Move> {
        self.pseudo_legal_moves()
            .into_iter()
            .filter(|&mv| !self.make(mv).king_attacked(self.side))
            .collect()
    }

    fn target_ok(&self, to: Square) -> bool {
        self.at(to).is_none_or(|(color, _)| color != self.side)
    }

    fn step_moves(&self, from: Square, offsets: &[(i8, i8)], moves: &mut Vec<Move>) {
        for &(df, dr) in offsets {
            if let Some(to) = from.offset(df, dr)
                && self.target_ok(to)
            {
                moves.push(Move::normal(from, to));
            }
        }
    }

    fn slide_moves(&self, from: Square, directions: &[(i8, i8)], moves: &mut Vec<Move>) {
        for &(df, dr) in directions {
            let mut cur = from;
            while let Some(to) = cur.offset(df, dr) {
                match self.at(to) {
                    None => moves.push(Move::normal(from, to)),
                    Some((color, _)) => {
                        if color != self.side {
                            moves.push(Move::normal(from, to));
                        }
                        break;
                    }
                }
                cur = to;
            }
        }
    }

    fn pawn_moves(&self, from: Square, moves: &mut Vec<Move>) {
        let white = self.side == Color::White;
        let forward: i8 = if white { 1 } else { -1 };
        let start_rank = Rank::Second.relative(white);
        let last_rank = Rank::Eighth.relative(white);
        let push = |to: Square, moves: &mut Vec<Move>| {
            if to.rank() == last_rank {
                for promo in PROMOTIONS {
                    moves.push(Move::new(from, to, MoveKind::Promotion, promo));
                }
            } else {
                moves.push(Move::normal(from, to));
            }
        };
        if let Some(one) = from.offset(0, forward)
            && self.at(one).is_none()
        {
            push(one, moves);
            if from.rank() == start_rank
                && let Some(two) = one.offset(0, forward)
                && self.at(two).is_none()
            {
                moves.push(Move::normal(from, two));
            }
        }
        for df in [-1, 1] {
            let Some(to) = from.offset(df, forward) else {
                continue;
            };
            match self.at(to) {
                Some((color, _)) if color != self.side => push(to, moves),
                None if self.ep == Some(to) => {
                    // The pawn that made the double push stands beside us.
                    let victim = Square::new(to.file(), from.rank());
                    if self.at(victim) == Some((!self.side, Piece::Pawn)) {
                        moves.push(Move::new(from, to, MoveKind::EnPassant, Piece::Knight));
                    }
                }
                _ => {}
            }
        }
    }

    fn castling_moves(&self, moves: &mut Vec<Move>) {
        let us = self.side;
        let Some(king) = self.king_square(us) else {
            return;
        };
        let home = Rank::First.relative(us == Color::White);
        if king.rank() != home || self.is_attacked(king, !us) {
            return;
        }
        for rook in self.castle_rooks {
            if rook.rank() != home || self.at(rook) != Some((us, Piece::Rook)) {
                continue;
            }
            let king_side = rook.file() as usize > king.file() as usize;
            let (king_to, rook_to) = if king_side {
                (Square::new(File::G, home), Square::new(File::F, home))
            } else {
                (Square::new(File::C, home), Square::new(File::D, home))
            };
            let path_clear = squares_between_inclusive(king, king_to)
                .chain(squares_between_inclusive(rook, rook_to))
                .all(|sq| sq == king || sq == rook || self.at(sq).is_none());
            let king_safe = squares_between_inclusive(king, king_to)
                .all(|sq| sq == king || !self.is_attacked(sq, !us));
            if path_clear && king_safe {
                moves.push(Move::new(king, rook, MoveKind::Castling, Piece::Knight));
            }
        }
    }

    /// The board after `mv` (trusted to be pseudo-legal here): pieces moved,
    /// castling rights of moved or captured rooks and of a moved king gone,
    /// the en-passant target set by a double push, side flipped.
    pub fn make(&self, mv: Move) -> RefBoard {
        let mut next = *self;
        let us = self.side;
        let (from, to) = (mv.from(), mv.to());
        let moving = self.at(from);
        next.ep = None;
        match mv.kind() {
            MoveKind::Castling => {
                let home = from.rank();
                let king_side = to.file() as usize > from.file() as usize;
                let (king_to, rook_to) = if king_side {
                    (Square::new(File::G, home), Square::new(File::F, home))
                } else {
                    (Square::new(File::C, home), Square::new(File::D, home))
                };
                next.squares[from.index()] = None;
                next.squares[to.index()] = None;
                next.squares[king_to.index()] = Some((us, Piece::King));
                next.squares[rook_to.index()] = Some((us, Piece::Rook));
            }
            MoveKind::EnPassant => {
                next.squares[from.index()] = None;
                next.squares[Square::new(to.file(), from.rank()).index()] = None;
                next.squares[to.index()] = moving;
            }
            MoveKind::Promotion => {
                next.squares[from.index()] = None;
                next.squares[to.index()] = Some((us, mv.promotion().unwrap_or(Piece::Queen)));
            }
            MoveKind::Normal => {
                next.squares[from.index()] = None;
                next.squares[to.index()] = moving;
                if moving.is_some_and(|(_, p)| p == Piece::Pawn)
                    && (from.rank() as usize).abs_diff(to.rank() as usize) == 2
                {
                    next.ep = Some(Square::new(
                        from.file(),
                        Rank::from_index((from.rank() as usize + to.rank() as usize) / 2),
                    ));
                }
            }
        }
        next.castle_rooks = next.castle_rooks.without(from).without(to);
        if moving.is_some_and(|(_, p)| p == Piece::King) {
            // A king move gives up both castling rights of its side.
            let home = Rank::First.relative(us == Color::White);
            for sq in next.castle_rooks {
                if sq.rank() == home {
                    next.castle_rooks = next.castle_rooks.without(sq);
                }
            }
        }
        next.side = !us;
        next
    }

    /// Does the side to move have a legal en-passant capture? (The fast
    /// [`Position`] keeps its en-passant square exactly then.)
    pub fn has_legal_ep_capture(&self) -> bool {
        self.legal_moves()
            .iter()
            .any(|mv| mv.kind() == MoveKind::EnPassant)
    }

    /// Does `pos` describe this board? Pieces, side, castling rights, and the
    /// en-passant square, which `pos` keeps only when a capture is legal.
    pub fn matches(&self, pos: &Position) -> bool {
        let ep = if self.has_legal_ep_capture() {
            self.ep
        } else {
            None
        };
        Square::ALL
            .into_iter()
            .all(|sq| self.at(sq) == pos.piece_on(sq))
            && self.side == pos.side_to_move()
            && self.castle_rooks == pos.castle_rooks()
            && ep == pos.ep_square()
    }
}

/// The squares from `a` to `b` on one rank, both included.
fn squares_between_inclusive(a: Square, b: Square) -> impl Iterator<Item = Square> {
    let (lo, hi) = if a.file() as usize <= b.file() as usize {
        (a.file() as usize, b.file() as usize)
    } else {
        (b.file() as usize, a.file() as usize)
    };
    (lo..=hi).map(move |f| Square::new(File::from_index(f), a.rank()))
}

/// The legal moves of `pos` by the reference generator, sorted by their bits.
pub fn legal_moves(pos: &Position) -> Vec<Move> {
    let mut moves = RefBoard::from_position(pos).legal_moves();
    moves.sort_by_key(|mv| mv.to_bits());
    moves
}

/// Perft by the reference generator: leaves of the legal move tree to
/// `depth`, every node made on the mailbox (no bulk counting, no table).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    fn walk(board: &RefBoard, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        board
            .legal_moves()
            .into_iter()
            .map(|mv| walk(&board.make(mv), depth - 1))
            .sum()
    }
    walk(&RefBoard::from_position(pos), depth)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::fen::{KIWIPETE, STARTPOS};

    // Counts from positions/standard.epd (the Chess Programming Wiki's
    // "Perft Results" page).
    #[test]
    fn reference_perft_matches_published_counts() {
        let start = Position::from_fen(STARTPOS).unwrap();
        assert_eq!(perft(&start, 3), 8_902);
        let kiwipete = Position::from_fen(KIWIPETE).unwrap();
        assert_eq!(perft(&kiwipete, 2), 2_039);
        // CPW position 3 (en passant and rank pins).
        let cpw3 = Position::from_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1").unwrap();
        assert_eq!(perft(&cpw3, 4), 43_238);
    }

    #[test]
    fn reference_board_of_a_position_matches_it() {
        let kiwipete = Position::from_fen(KIWIPETE).unwrap();
        let board = RefBoard::from_position(&kiwipete);
        assert!(board.matches(&kiwipete));
        for mv in board.legal_moves() {
            assert!(
                board.make(mv).matches(&kiwipete.play_unchecked(mv)),
                "{mv:?}"
            );
        }
    }
}
