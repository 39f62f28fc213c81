//! Validation against published counts and other engines: EPD suites
//! ([`suite`]), external engines speaking UCI or the perftree script
//! protocol ([`engine`]), bisection of a disagreement down to the first
//! differing position ([`bisect`]), and seeded random positions for
//! differential fuzzing ([`random`]); timing against other perft
//! programs ([`versus`]).
//!
//! Uses the `chess` and `perft` layers.

pub mod bisect;
pub mod engine;
pub mod random;
pub mod suite;
pub mod versus;
