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
//! steps, when every step so far falls on the same side of the choice: all
//! slower than the plain loop by more than `MARGIN`, or all faster
//! (`SHORTCUT_AGREES`). Otherwise it stops once it has cost `BUDGET_SHARE` of
//! that estimate (`OPEN_BUDGET_SHARE` while the choice is open; spread over
//! the run's threads), or after `MAX_STEPS` steps; a count too short to pay
//! for `MIN_STEPS` steps keeps the shortcut. The plain loop is chosen only
//! when it was faster by more than `MARGIN`; a count too short to be worth
//! measuring keeps the shortcut.
//!
//! A step's timing can be disturbed: the thread preempted, or an interrupt
//! taken, during one counter's batch. On a 2-core machine about one step in
//! thirty came out several times too slow for one counter (ratios of 0.23,
//! 2.3 and 5.3 where the others read 0.95-1.05). Such a step must not decide
//! the choice, so a step beyond `DISTURBED` is dropped, and once there are
//! `MIN_STEPS` steps the pooled times leave out those beyond `OUTLIER` of the
//! median step (the median itself is robust).

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
/// loop's, on the pooled samples so far and in the median step, ends the
/// sampling: the shortcut runs.
const CLEAR: f64 = 0.88;
/// Once [`MIN_STEPS`] steps have each timed the shortcut below this share
/// of the plain loop's time, the shortcut runs without spending the rest of
/// the open budget: the samples overstate the shortcut's time (see
/// [`MARGIN`]), so each such step put it ahead. The mirror rule for the
/// plain loop is every step above `1 + MARGIN`, the margin of the final
/// choice. Where every step agrees, the steps left could at most swap two
/// counters that close, and they cost 0.5-0.7 % of a count of 0.5 s
/// (speed-41, speed-42 of `positions/speed.epd`, AMD Zen 5).
const SHORTCUT_AGREES: f64 = 1.0;
/// Two counters that count the same samples are never this many times
/// apart (the widest measured over both sets of positions: 1.86x). A step
/// timed beyond it, either way, was disturbed, and is dropped.
const DISTURBED: f64 = 2.5;
/// Once there are [`MIN_STEPS`] steps, a step whose ratio is more than this
/// factor from the median step's is left out of the pooled times. Undisturbed
/// steps of one count varied by up to 1.27x around their median (endings-40,
/// speed-29, speed-41; AMD Zen 5).
const OUTLIER: f64 = 1.5;
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
    /// Steps the choice was made on (not counting disturbed ones).
    pub steps: usize,
    /// The shortcut's time over the plain loop's on the samples of those
    /// steps, outliers left out (above 1: the plain loop was faster).
    pub shortcut_over_plain: f64,
    /// Wall-clock seconds the measurement took (part of the count's time).
    pub seconds: f64,
}

impl CounterChoice {
    /// The choice `plain`, made on `steps` of `samples` samples, measured
    /// since `began`.
    fn new(plain: bool, samples: usize, steps: &Steps, began: Instant) -> CounterChoice {
        CounterChoice {
            plain,
            samples,
            steps: steps.0.len(),
            shortcut_over_plain: steps.pooled(),
            seconds: began.elapsed().as_secs_f64(),
        }
    }
}

/// The weighted times of each step kept: the shortcut's, the plain loop's.
#[derive(Default)]
struct Steps(Vec<(f64, f64)>);

/// The shortcut's time over the plain loop's.
fn ratio((shortcut, plain): (f64, f64)) -> f64 {
    shortcut / plain.max(1e-12)
}

impl Steps {
    /// The median step's ratio (the upper one of an even number; 1 with
    /// no step).
    fn median(&self) -> f64 {
        let mut sorted: Vec<f64> = self.0.iter().map(|&step| ratio(step)).collect();
        sorted.sort_by(f64::total_cmp);
        sorted.get(sorted.len() / 2).copied().unwrap_or(1.0)
    }

    /// The steps the pooled ratio is taken over: all of them while there
    /// are fewer than [`MIN_STEPS`], then those within [`OUTLIER`] of the
    /// median step.
    fn agreeing(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        let median = self.median();
        let all = self.0.len() < MIN_STEPS;
        self.0.iter().copied().filter(move |&step| {
            let r = ratio(step);
            all || (r <= median * OUTLIER && r * OUTLIER >= median)
        })
    }

    /// The shortcut's time over the plain loop's on the agreeing steps'
    /// samples together (weighted sums: the whole count's ratio).
    fn pooled(&self) -> f64 {
        let (s, p) = self
            .agreeing()
            .fold((0.0, 0.0), |(s, p), (a, b)| (s + a, p + b));
        ratio((s, p))
    }

    /// The choice once the steps so far settle it (`Some(true)`: the
    /// plain loop): the shortcut clearly faster, or after [`MIN_STEPS`]
    /// steps every agreeing one on the same side of the choice.
    fn early(&self) -> Option<bool> {
        let pooled = self.pooled();
        if pooled < CLEAR && self.median() < CLEAR {
            return Some(false);
        }
        // The pooled ratio is the agreeing steps' mean, weighted by the
        // plain loop's times: beyond a bound when every one of them is.
        if self.agreeing().count() < MIN_STEPS {
            return None;
        }
        let slower = 1.0 + MARGIN;
        if self.agreeing().all(|step| ratio(step) > slower) {
            return Some(true);
        }
        if self.agreeing().all(|step| ratio(step) < SHORTCUT_AGREES) {
            return Some(false);
        }
        None
    }

    /// The choice from all the steps (at least [`MIN_STEPS`] of them, or
    /// none is made): the plain loop when the median step and the pooled
    /// samples both timed it faster by more than [`MARGIN`].
    fn decide(&self) -> Option<bool> {
        (self.0.len() >= MIN_STEPS)
            .then(|| self.median() > 1.0 + MARGIN && self.pooled() > 1.0 + MARGIN)
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
    let mut steps = Steps::default();
    let mut samples = 0;
    let mut walks = 0;
    let mut probe: Vec<(Position, f64)> = Vec::new();
    while steps.0.len() < MAX_STEPS && walks < 64 * (MAX_STEPS + 1) * PROBE {
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
            let needed = 2.0 * STEP_SECONDS * (MIN_STEPS - steps.0.len().min(MIN_STEPS)) as f64;
            if spent + needed > share * per_thread {
                // Not enough left for what a decision needs: decide on what
                // there is, or not at all.
                return steps
                    .decide()
                    .map(|p| CounterChoice::new(p, samples, &steps, began));
            }
        }
        if in_step == 0 {
            break;
        }
        // A step timed beyond any real difference between the counters was
        // disturbed (see the module notes): dropped, though its samples
        // still count towards the budget's estimate.
        let step = (s_step, p_step);
        if ratio(step) > DISTURBED || ratio(step) * DISTURBED < 1.0 {
            continue;
        }
        steps.0.push(step);
        if let Some(p) = steps.early() {
            return Some(CounterChoice::new(p, samples, &steps, began));
        }
    }
    steps
        .decide()
        .map(|p| CounterChoice::new(p, samples, &steps, began))
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
        assert!(choice.samples >= PROBE * choice.steps, "{choice:?}");
        assert!((1..=MAX_STEPS).contains(&choice.steps), "{choice:?}");
        assert!(choice.shortcut_over_plain > 0.0);
        if choice.plain {
            assert!(choice.shortcut_over_plain > 1.0 + MARGIN, "{choice:?}");
            assert!(choice.steps >= MIN_STEPS, "{choice:?}");
        } else if choice.steps < MIN_STEPS {
            // Stopped early: only when the shortcut was clearly faster.
            assert!(choice.shortcut_over_plain < CLEAR, "{choice:?}");
        }
        if (SHORTCUT_AGREES..=1.0 + MARGIN).contains(&choice.shortcut_over_plain) {
            // No early stop can end it (each needs the pooled ratio beyond
            // one of those bounds): every step was paid.
            assert_eq!(choice.steps, MAX_STEPS, "{choice:?}");
        }
        // CPW 3 perft 6: about 15 ms, far too short to pay for the steps.
        let cpw3 = Position::from_fen("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1").unwrap();
        assert_eq!(measure(CpuPath::selected(), &cpw3, 6, 1), None);
    }

    /// Steps of equal weight (plain loop time 1) with these ratios.
    fn steps(ratios: &[f64]) -> Steps {
        Steps(ratios.iter().map(|&r| (r, 1.0)).collect())
    }

    #[test]
    fn sampling_stops_early_only_when_every_step_agrees() {
        // The shortcut clearly faster: one step is enough.
        assert_eq!(steps(&[0.8]).early(), Some(false));
        // Three steps, each timing the shortcut beyond the margin: the
        // plain loop.
        assert_eq!(steps(&[1.07, 1.075, 1.066]).early(), Some(true));
        // Two steps are not enough, however clear.
        assert_eq!(steps(&[1.5, 1.5]).early(), None);
        // One step inside the margin keeps the sampling going.
        assert_eq!(steps(&[1.3, 1.02, 1.3]).early(), None);
        // Every step timing the shortcut ahead, though not clearly: the
        // shortcut.
        assert_eq!(steps(&[0.95, 0.97, 0.99]).early(), Some(false));
        // One step against it keeps the sampling going.
        assert_eq!(steps(&[1.02, 0.95, 0.9]).early(), None);
    }

    #[test]
    fn a_disturbed_step_does_not_decide_the_choice() {
        // The plain loop's batch of the third step took 2.2x its time: on
        // the pooled times alone the shortcut would look clearly faster.
        let disturbed = Steps(vec![(1.02, 1.0), (1.015, 1.0), (1.0, 2.2)]);
        assert!(ratio((2.035 + 1.0, 2.0 + 2.2)) < CLEAR);
        assert!((disturbed.pooled() - 1.0175).abs() < 1e-9);
        assert_eq!(disturbed.early(), None);
        // Before there are enough steps to find the outlier, the median
        // (the upper of two) keeps the clear stop from firing.
        assert_eq!(Steps(vec![(1.02, 1.0), (1.0, 2.2)]).early(), None);
        // At the end, the plain loop wins on the median and on the pooled
        // times without the outlier.
        let end = Steps(vec![(1.1, 1.0), (1.08, 1.0), (1.0, 2.2), (1.09, 1.0)]);
        assert_eq!(end.decide(), Some(true));
        // A step inside the outlier band stays in the pooled times.
        let close = steps(&[1.0, 1.3, 1.05]);
        assert!((close.pooled() - 3.35 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn the_final_choice_needs_the_median_and_the_pooled_times_beyond_the_margin() {
        assert_eq!(steps(&[1.1, 1.1]).decide(), None);
        assert_eq!(steps(&[1.1, 1.02, 1.08]).decide(), Some(true));
        assert_eq!(steps(&[1.1, 1.02, 1.03]).decide(), Some(false));
        // The median beyond the margin, the pooled times not.
        let heavy = Steps(vec![(1.05, 1.0), (1.06, 1.0), (2.7, 3.0)]);
        assert_eq!(heavy.decide(), Some(false));
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
