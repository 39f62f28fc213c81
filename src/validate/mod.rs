//! Validation against published counts and other engines: EPD suites
//! ([`suite`]), external engines speaking UCI or the perftree script
//! protocol ([`engine`]), and bisection of a disagreement down to the first
//! differing position ([`bisect`]).
//!
//! Uses the `chess` and `perft` layers.

pub mod bisect;
pub mod engine;
pub mod suite;
