//! Which counter a run uses, chosen by timing both on samples of its tree.
//!
//! The leaf-parent shortcut (`perft::leaf`) is faster than the plain loop
//! on most positions, but not on all, and not on the same ones on every
//! CPU: where most moves of a leaf parent must be made anyway (both sides
//! with queens, kings in the open), its set-up is work the plain loop does
//! not do. So before a long count the driver times both counters on the
//! same random samples of the tree and runs the faster one. The counts are
//! the same either way; only the time differs.
//!
//! A sample is the subtree [`SAMPLE_DEPTH`] plies deep below a node reached
//! by a random walk from the root (a seeded generator, so a run is
//! repeatable). Both counters count each batch of samples, in alternating
//! order, on the calling thread, each after an untimed warm-up count of
//! the batch's first sample. Without the warm-up the counter that had not
//! just run started with cold code and branch history, which cost the
//! larger shortcut more: the samples overstated its time by up to a
//! quarter, and the margin that made up for it let the shortcut run where
//! the plain loop was 4 % faster. Each sample's times are weighted by the
//! product of the move counts along its walk (Knuth's estimator): the
//! weighted sums estimate each counter's time over the whole tree, so their
//! ratio is the whole count's, not the average sample's. Sampling stops as
//! soon as the shortcut is clearly faster (`CLEAR`) or, after `MIN_STEPS`
//! steps, clearly slower in every one of them (`PLAIN_CLEAR`), once it has cost
//! `BUDGET_SHARE` of that estimate (`OPEN_BUDGET_SHARE` while the choice is
//! open; spread over the run's threads), or after `MAX_STEPS` steps; a
//! count too short to pay for `MIN_STEPS` steps keeps the shortcut. The
//! plain loop is chosen only when it was faster by more than `MARGIN`; a
//! count too short to be worth measuring keeps the shortcut.

use std::time::Instant;

use crate::chess::cpu::CpuPath;
use crate::chess::position::Position;
use crate::perft::serial::{perft_on, perft_plain_on};

/// Plies each sample counts below its node: the node's moves made, each
/// child a leaf parent, where the two counters differ.
pub const SAMPLE_DEPTH: u32 = 3;
/// Counts shallower than this are not measured (they keep the shortcut).
pub const MIN_DEPTH: u32 = SAMPLE_DEPTH + 3;
/// Samples of the first step, which estimates the count's time and the
/// cost of a sample: a count too short to pay for `MIN_STEPS` steps
/// within the budget stops there, with the shortcut.
const PROBE: usize = 4;
/// A step ends once each counter has spent this long on its samples (and
/// there are at least [`PROBE`] of them): timings shorter than this were
/// dominated by noise (CPW 3 perft 7, 36 samples of 3 µs: the plain loop
/// timed 1.18x faster, where the whole count gives it 0.77x).
const STEP_SECONDS: f64 = 250e-6;
/// Steps needed before deciding; the decision takes the median of the
/// steps' ratios, so one disturbed step cannot flip it.
const MIN_STEPS: usize = 3;
/// The most steps of one count.
const MAX_STEPS: usize = 9;
/// The share of the estimated count time (per thread) sampling may take.
const BUDGET_SHARE: f64 = 0.005;
/// The share sampling may take while the choice is open (the shortcut not
/// timed faster than [`CLEAR`] times the plain loop's time).
const OPEN_BUDGET_SHARE: f64 = 0.01;
/// A step that leaves the shortcut's time below this share of the plain
/// loop's (all samples so far) ends the sampling: the shortcut runs.
const CLEAR: f64 = 0.88;
/// Once [`MIN_STEPS`] steps have each timed the shortcut above this many
/// times the plain loop's time (and all samples together too), the plain
/// loop runs without spending the rest of the open budget. A margin this
/// wide is several times the samples' error (see [`MARGIN`]); where the
/// plain loop wins that clearly (by up to 1.29x on the endings set), the
/// rest of the budget cost a count of 0.5 s about 1 %.
const PLAIN_CLEAR: f64 = 1.12;
/// The plain loop must be timed faster by more than this share to be
/// chosen. With the warm-up the samples' ratio still runs a little above
/// the whole count's: on the 14 endings of `positions/endings.epd` where
/// the two counters are within 14 % of each other (AMD Zen 5), by -0.02 to
/// +0.09 (mean of three runs), 0.04 in the median. A wrong choice of the
/// plain loop costs only the shortcut's gain, which is small where the
/// samples err that way; a wrong choice of the shortcut is the loss to
/// avoid.
const MARGIN: f64 = 0.04;

/// What the measurement found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CounterChoice {
    /// True when the plain loop was chosen.
    pub plain: bool,
    /// Samples counted by both counters.
    pub samples: usize,
    /// The shortcut's time over the plain loop's on them (above 1: the
    /// plain loop was faster).
    pub shortcut_over_plain: f64,
    /// Wall-clock seconds the measurement took (part of the count's time).
    pub seconds: f64,
}

impl CounterChoice {
    /// The choice `plain`, with the weighted times `shortcut` and `plain_time`
    /// of `samples` samples, measured since `began`.
    fn new(
        plain: bool,
        samples: usize,
        shortcut: f64,
        plain_time: f64,
        began: Instant,
    ) -> CounterChoice {
        CounterChoice {
            plain,
            samples,
            shortcut_over_plain: shortcut / plain_time.max(1e-12),
            seconds: began.elapsed().as_secs_f64(),
        }
    }
}

/// A small seeded generator (xorshift64*), so a run's samples are the
/// same every time.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        ((self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 32) as usize * n) >> 32
    }
}

/// A random node `plies` plies below `root`, with the product of the move
/// counts along the way; `None` when the walk ends in a position without a
/// move.
fn walk(root: &Position, plies: u32, rng: &mut Rng) -> Option<(Position, f64)> {
    let mut pos = *root;
    let mut weight = 1.0;
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        weight *= moves.len() as f64;
        pos = pos.play_unchecked(moves.as_slice()[rng.below(moves.len())]);
    }
    Some((pos, weight))
}

/// Times both counters on samples of the `depth`-ply tree below `root` and
/// says which one to run (`threads`: the run's threads, which divide its
/// time and so the budget). `None` when the count is too shallow or too
/// short to be worth measuring: the shortcut then runs.
pub fn measure(cpu: CpuPath, root: &Position, depth: u32, threads: usize) -> Option<CounterChoice> {
    if depth < MIN_DEPTH {
        return None;
    }
    let began = Instant::now();
    let mut rng = Rng(root.hash() ^ u64::from(depth).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    // Each sample's times weighted by its walk's move counts: sums that
    // estimate each counter's time over the whole tree.
    let (mut shortcut, mut plain) = (0.0, 0.0);
    let mut ratios: Vec<f64> = Vec::new();
    let mut samples = 0;
    let mut walks = 0;
    let mut probe: Vec<(Position, f64)> = Vec::new();
    while ratios.len() < MAX_STEPS && walks < 64 * (MAX_STEPS + 1) * PROBE {
        // A step: samples until each counter has spent STEP_SECONDS on
        // them, taken PROBE at a time; each counter counts its batch in a
        // row (switching counters sample by sample favoured the plain loop's
        // smaller code), and which goes first alternates.
        let (mut s_step, mut p_step) = (0.0, 0.0);
        let (mut s_raw, mut p_raw) = (0.0_f64, 0.0_f64);
        let mut in_step = 0;
        while in_step < PROBE || s_raw.min(p_raw) < STEP_SECONDS {
            probe.clear();
            while probe.len() < PROBE && walks < 64 * (MAX_STEPS + 1) * PROBE {
                walks += 1;
                if let Some(sample) = walk(root, depth - SAMPLE_DEPTH, &mut rng) {
                    probe.push(sample);
                }
            }
            if probe.is_empty() {
                break;
            }
            let time = |plain_loop: bool| {
                let count = |pos: &Position| {
                    if plain_loop {
                        perft_plain_on(cpu, pos, SAMPLE_DEPTH)
                    } else {
                        perft_on(cpu, pos, SAMPLE_DEPTH)
                    }
                };
                // Untimed: the first sample again, so the counter's code
                // and branch history are warm when its batch is timed.
                std::hint::black_box(count(&probe[0].0));
                let mut weighted = 0.0;
                let start = Instant::now();
                for (pos, weight) in &probe {
                    let t = Instant::now();
                    std::hint::black_box(count(pos));
                    weighted += weight * t.elapsed().as_secs_f64();
                }
                (weighted, start.elapsed().as_secs_f64())
            };
            let ((sw, sr), (pw, pr)) = if (samples / PROBE).is_multiple_of(2) {
                let s = time(false);
                (s, time(true))
            } else {
                let p = time(true);
                (time(false), p)
            };
            s_step += sw;
            p_step += pw;
            s_raw += sr;
            p_raw += pr;
            in_step += probe.len();
            samples += probe.len();
            shortcut += sw;
            plain += pw;
            // The budget, from what the samples so far say the count
            // costs: larger while the choice is open.
            let per_thread = shortcut / samples as f64 / threads.max(1) as f64;
            let share = if shortcut < CLEAR * plain {
                BUDGET_SHARE
            } else {
                OPEN_BUDGET_SHARE
            };
            let spent = began.elapsed().as_secs_f64();
            let needed = 2.0 * STEP_SECONDS * (MIN_STEPS - ratios.len().min(MIN_STEPS)) as f64;
            if spent + needed > share * per_thread {
                // Not enough left for what a decision needs: decide on what
                // there is, or not at all.
                return decide(&ratios, shortcut, plain, samples, began);
            }
        }
        if in_step == 0 {
            break;
        }
        ratios.push(s_step / p_step.max(1e-12));
        if shortcut < CLEAR * plain {
            // The shortcut is clearly faster: no need for more steps.
            return Some(CounterChoice::new(false, samples, shortcut, plain, began));
        }
        if plain_is_clear(&ratios, shortcut, plain) {
            return Some(CounterChoice::new(true, samples, shortcut, plain, began));
        }
    }
    decide(&ratios, shortcut, plain, samples, began)
}

/// True when the plain loop is clearly faster: at least `MIN_STEPS` steps,
/// each of them and all samples together timing the shortcut above
/// `PLAIN_CLEAR` times the plain loop.
fn plain_is_clear(ratios: &[f64], shortcut: f64, plain: f64) -> bool {
    ratios.len() >= MIN_STEPS
        && shortcut > PLAIN_CLEAR * plain
        && ratios.iter().all(|&r| r > PLAIN_CLEAR)
}

/// The choice from the steps' ratios (at least `MIN_STEPS` of them, or
/// none is made): the plain loop when the median step and all the samples
/// together both timed it faster by more than `MARGIN`.
fn decide(
    ratios: &[f64],
    shortcut: f64,
    plain: f64,
    samples: usize,
    began: Instant,
) -> Option<CounterChoice> {
    if ratios.len() < MIN_STEPS {
        return None;
    }
    let mut sorted = ratios.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let pooled = shortcut / plain.max(1e-12);
    let plain_loop = median > 1.0 + MARGIN && pooled > 1.0 + MARGIN;
    Some(CounterChoice::new(
        plain_loop, samples, shortcut, plain, began,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shallow_counts_are_not_measured_and_deep_ones_are() {
        let pos = Position::from_fen(crate::chess::fen::KIWIPETE).unwrap();
        assert_eq!(measure(CpuPath::selected(), &pos, MIN_DEPTH - 1, 1), None);
        // Kiwipete 7: about 100 s on one thread, so its budget pays for
        // every step the choice needs.
        let choice = measure(CpuPath::selected(), &pos, 7, 1).expect("measured");
        assert!(choice.samples >= PROBE, "{choice:?}");
        assert!(choice.shortcut_over_plain > 0.0);
        if choice.plain {
            assert!(choice.shortcut_over_plain > 1.0 + MARGIN, "{choice:?}");
            assert!(choice.samples >= MIN_STEPS * PROBE, "{choice:?}");
        } else if choice.samples < MIN_STEPS * PROBE {
            // Stopped early: only when the shortcut was clearly faster.
            assert!(choice.shortcut_over_plain < CLEAR, "{choice:?}");
        }
        if choice.shortcut_over_plain >= CLEAR
            && (!choice.plain || choice.shortcut_over_plain <= PLAIN_CLEAR)
        {
            // Neither early stop could end it (the shortcut never clearly
            // faster, the plain loop not chosen clearly): every step was
            // paid.
            assert!(choice.samples >= MAX_STEPS * PROBE, "{choice:?}");
        }
        // CPW 3 perft 6: about 15 ms, far too short to pay for the steps.
        let cpw3 = Position::from_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1").unwrap();
        assert_eq!(measure(CpuPath::selected(), &cpw3, 6, 1), None);
    }

    #[test]
    fn sampling_stops_early_for_the_plain_loop_only_when_every_step_agrees() {
        // Three steps, each timing the shortcut 1.2x to 1.3x the plain loop.
        assert!(plain_is_clear(&[1.2, 1.3, 1.25], 1.25, 1.0));
        // Two steps are not enough, however clear.
        assert!(!plain_is_clear(&[1.5, 1.5], 1.5, 1.0));
        // One step inside the margin keeps the sampling going, though the
        // pooled ratio is clear.
        assert!(!plain_is_clear(&[1.3, 1.05, 1.3], 1.2, 1.0));
        // Every step clear but the pooled times not (one long sample).
        assert!(!plain_is_clear(&[1.2, 1.2, 1.2], 1.1, 1.0));
        // The shortcut faster: never.
        assert!(!plain_is_clear(&[0.8, 0.9, 0.85], 0.85, 1.0));
    }

    #[test]
    fn the_walks_are_repeatable_and_weighted_by_the_move_counts() {
        let pos = Position::startpos();
        let (a, wa) = walk(&pos, 3, &mut Rng(7)).unwrap();
        let (b, wb) = walk(&pos, 3, &mut Rng(7)).unwrap();
        assert_eq!((a.to_fen(), wa), (b.to_fen(), wb));
        // 20 moves, then 20 replies, then 20 to 30 moves for White.
        assert!((8_000.0..=12_000.0).contains(&wa), "{wa}");
        let mut rng = Rng(99);
        assert!((0..1000).all(|_| rng.below(5) < 5));
    }
}
