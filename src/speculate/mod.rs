//! Speculative decoding: drafters propose the next tokens, the target model checks them all in
//! one batch, and every token kept is one the target itself sampled.
//!
//! Decoding one token reads every weight once; checking several proposed tokens in one batch
//! costs much less than decoding them one by one. The verifier lives on the decode core
//! ([`crate::engine`]): it decodes `[last token, drafts…]` in one batch, samples each position
//! with the conversation's own sampler in order, keeps drafts while they equal the sampled
//! token, and rolls the rest back. The sampler sees the same logits and draws its random numbers
//! in the same order as plain decoding, so speculation changes speed, never which answers are
//! possible (where llama.cpp's logits for a row do not depend on its batch: docs/speculative-decoding.md).
//!
//! This module holds what is independent of llama.cpp: the drafting modes, prompt lookup
//! ([`lookup`]), the draft-length planner ([`adapt`]) and the counters an episode reports.

pub mod adapt;
pub mod lookup;

use std::fmt;
use std::str::FromStr;

/// Which drafters run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speculate {
    /// Every drafter the file has (the model's multi-token-prediction head when it has one, plus
    /// prompt lookup) where drafts cannot change an answer: when generating on a build whose
    /// kernels are batch-invariant, and when replaying known text. Plain decoding when
    /// generating on any other build (see [`crate::engine::EngineOptions::speculation`]).
    #[default]
    Auto,
    /// Plain decoding: one token per step.
    Off,
    /// Prompt lookup only.
    Lookup,
    /// The MTP head only (an error when the file has none).
    Mtp,
    /// Both drafters (an error when the file has no MTP head).
    Both,
}

impl Speculate {
    /// Every mode, as written on the command line.
    pub const NAMES: &'static [&'static str] = &["auto", "off", "lookup", "mtp", "both"];

    /// Whether prompt lookup drafts in this mode.
    pub fn lookup(self) -> bool {
        matches!(self, Speculate::Auto | Speculate::Lookup | Speculate::Both)
    }

    /// Whether the MTP head drafts, given whether the model has one.
    pub fn mtp(self, model_has_head: bool) -> bool {
        match self {
            Speculate::Auto => model_has_head,
            Speculate::Mtp | Speculate::Both => true,
            Speculate::Off | Speculate::Lookup => false,
        }
    }

    /// Whether any drafter may run.
    pub fn any(self) -> bool {
        self != Speculate::Off
    }
}

impl fmt::Display for Speculate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = [Speculate::Auto, Speculate::Off, Speculate::Lookup, Speculate::Mtp, Speculate::Both]
            .iter()
            .position(|m| m == self)
            .unwrap_or(0);
        f.write_str(Self::NAMES[i])
    }
}

impl FromStr for Speculate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Speculate::Auto),
            "off" => Ok(Speculate::Off),
            "lookup" => Ok(Speculate::Lookup),
            "mtp" => Ok(Speculate::Mtp),
            "both" => Ok(Speculate::Both),
            _ => Err(format!("unknown speculation mode {s:?}; use one of {}", Self::NAMES.join(", "))),
        }
    }
}

/// Which drafter proposed a draft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drafter {
    /// Prompt lookup.
    Lookup,
    /// The multi-token-prediction head.
    Mtp,
    /// Drafts given by the caller (an oracle in a benchmark, a test).
    Given,
}

/// One drafter's counts over a conversation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DraftCounts {
    /// Verify steps that checked this drafter's drafts.
    pub steps: usize,
    /// Draft tokens proposed and checked.
    pub drafted: usize,
    /// Draft tokens the target sampled too (kept).
    pub accepted: usize,
    /// Tokens sampled from a verify batch after the accepted drafts and kept (the token a plain
    /// step would have produced, got for free).
    pub bonus: usize,
    /// Longest draft checked in one verify step.
    #[serde(default)]
    pub longest: usize,
}

impl DraftCounts {
    /// True when no verify step checked a draft.
    pub fn is_empty(&self) -> bool {
        self.steps == 0
    }

    /// Accepted share of drafted tokens (0 when nothing was drafted).
    pub fn acceptance(&self) -> f64 {
        if self.drafted == 0 {
            0.0
        } else {
            self.accepted as f64 / self.drafted as f64
        }
    }

    /// Generated tokens per verify step: the step's own token, the accepted drafts, the bonus.
    pub fn tokens_per_step(&self) -> f64 {
        if self.steps == 0 {
            0.0
        } else {
            (self.steps + self.accepted) as f64 / self.steps as f64
        }
    }

    fn add(&mut self, o: &DraftCounts) {
        self.steps += o.steps;
        self.drafted += o.drafted;
        self.accepted += o.accepted;
        self.bonus += o.bonus;
        self.longest = self.longest.max(o.longest);
    }
}

/// What speculation did in a conversation (all zero when it was off).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SpecCounts {
    /// Prompt lookup's drafts.
    #[serde(default)]
    pub lookup: DraftCounts,
    /// The MTP head's drafts.
    #[serde(default)]
    pub mtp: DraftCounts,
    /// Drafts given by the caller (benchmarks' oracle, tests); left out when there were none.
    #[serde(default, skip_serializing_if = "DraftCounts::is_empty")]
    pub given: DraftCounts,
    /// Rejected drafts that the cache could not drop in place, so the sequence was rebuilt from
    /// the prompt snapshot (hybrid models beyond their rollback depth).
    #[serde(default)]
    pub replays: usize,
}

impl SpecCounts {
    /// True when no draft was checked (what serialisation leaves out).
    pub fn is_empty(&self) -> bool {
        self.lookup.steps == 0 && self.mtp.steps == 0 && self.given.steps == 0 && self.replays == 0
    }

    /// One drafter's counts.
    pub fn of(&mut self, d: Drafter) -> &mut DraftCounts {
        match d {
            Drafter::Lookup => &mut self.lookup,
            Drafter::Mtp => &mut self.mtp,
            Drafter::Given => &mut self.given,
        }
    }

    /// Both drafters together.
    pub fn total(&self) -> DraftCounts {
        let mut t = self.lookup;
        t.add(&self.mtp);
        t.add(&self.given);
        t
    }

    /// Adds another conversation's counts.
    pub fn add(&mut self, o: &SpecCounts) {
        self.lookup.add(&o.lookup);
        self.mtp.add(&o.mtp);
        self.given.add(&o.given);
        self.replays += o.replays;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_print_and_pick_drafters() {
        for name in Speculate::NAMES {
            let m: Speculate = name.parse().unwrap();
            assert_eq!(m.to_string(), *name);
        }
        assert!("fast".parse::<Speculate>().unwrap_err().contains("auto, off, lookup, mtp, both"));
        assert!(Speculate::Auto.mtp(true) && !Speculate::Auto.mtp(false) && Speculate::Auto.lookup());
        assert!(!Speculate::Off.any() && !Speculate::Off.lookup() && !Speculate::Off.mtp(true));
        assert!(!Speculate::Mtp.lookup() && Speculate::Mtp.mtp(false));
    }

    #[test]
    fn counts_add_up() {
        let mut s = SpecCounts::default();
        assert!(s.is_empty());
        *s.of(Drafter::Lookup) = DraftCounts { steps: 2, drafted: 8, accepted: 6, bonus: 1, longest: 5 };
        s.of(Drafter::Mtp).steps = 1;
        s.of(Drafter::Mtp).drafted = 2;
        assert!(!s.is_empty());
        assert_eq!(s.total().drafted, 10);
        assert!((s.lookup.acceptance() - 0.75).abs() < 1e-12);
        assert!((s.lookup.tokens_per_step() - 4.0).abs() < 1e-12);
        let mut sum = SpecCounts::default();
        sum.add(&s);
        sum.add(&s);
        assert_eq!(sum.lookup.accepted, 12);
        assert_eq!(sum.lookup.longest, 5, "the longest draft is a maximum, not a sum");
        assert_eq!(sum.total().longest, 5);
    }
}
