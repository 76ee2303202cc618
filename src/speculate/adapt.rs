//! How many tokens to draft: from the measured cost of a verify batch and the recent acceptance.
//!
//! A verify step of `1 + k` rows costs `cost(1 + k)`; with a per-token acceptance rate `p` it
//! yields `1 + p + p² + … + pᵏ` tokens on average (the drafts accepted in a row, and one token
//! sampled after them). Plain decoding yields 1 token per `cost(1)`. The planner picks the `k`
//! that maximises tokens per second, and `k = 0` (plain decoding) when no draft length pays.
//! The cost curve is measured as the engine runs (kernels change with the batch size, so the
//! curve is not smooth and a constant would be wrong on some machine); until a size is
//! measured it is estimated from its neighbours or a prior.
//!
//! A drafter whose drafts keep failing is paused for a number of steps that doubles each time,
//! so that speculation never costs an episode much more than plain decoding. A pause ends with
//! a probe: one draft of at least one token, whatever the plan says, so that one slow
//! measurement (a busy machine) or a bad stretch can't switch drafting off for the rest of an
//! episode; the probe refreshes both the cost curve and the acceptance.

/// The prior relative cost of one extra row in a verify batch, before anything is measured
/// (two x86 cores: 0.24 to 0.5 of a single step for the models here; docs/measurements.md).
const PRIOR_ROW_COST: f64 = 0.35;

/// Weight of a new measurement in the running averages.
const EMA: f64 = 0.2;

/// Measurements of one batch size averaged plainly before the running average takes over.
const MEAN_SAMPLES: u32 = 5;

/// Seconds per decode step by number of rows, measured as the engine runs.
#[derive(Debug, Clone)]
pub struct CostCurve {
    /// `seconds[n - 1]`: the running mean for `n` rows, when measured.
    seconds: Vec<Option<f64>>,
    /// `samples[n - 1]`: how many measurements `seconds[n - 1]` holds (capped).
    samples: Vec<u32>,
    /// A batch of several rows timed by [`CostCurve::record_step`], held until the next step.
    held: Option<(usize, f64)>,
}

impl CostCurve {
    /// An empty curve for batches of up to `max_rows` rows.
    pub fn new(max_rows: usize) -> Self {
        let n = max_rows.max(1);
        CostCurve { seconds: vec![None; n], samples: vec![0; n], held: None }
    }

    /// Records a decode step of `rows` rows that took `seconds`, in the order the steps ran.
    /// llama.cpp builds its graph again whenever the batch's shape changes, so a one-row step
    /// right after a batch of several rows pays the way back: what it took beyond a one-row
    /// step's usual time is charged to that batch (a verify batch costs its own rebuild and the
    /// next plain step's), and the one-row mean keeps the time of steps that reused the graph.
    pub fn record_step(&mut self, rows: usize, seconds: f64) {
        match self.held.take() {
            Some((batch, took)) if rows == 1 => match self.seconds[0] {
                Some(one) => {
                    self.record(batch, took + (seconds - one).max(0.0));
                    return;
                }
                None => self.record(batch, took),
            },
            Some((batch, took)) => self.record(batch, took),
            None => {}
        }
        if rows > 1 {
            self.held = Some((rows, seconds));
        } else {
            self.record(rows, seconds);
        }
    }

    /// Records that a decode of `rows` rows took `seconds`: a plain mean of the first few
    /// measurements of a size (so that one slow first step doesn't stand for the size), then a
    /// running average.
    pub fn record(&mut self, rows: usize, seconds: f64) {
        if rows == 0 || rows > self.seconds.len() || !seconds.is_finite() || seconds <= 0.0 {
            return;
        }
        let count = &mut self.samples[rows - 1];
        *count = (*count + 1).min(MEAN_SAMPLES);
        let weight = (1.0 / f64::from(*count)).max(EMA);
        let slot = &mut self.seconds[rows - 1];
        *slot = Some(match *slot {
            Some(old) => old + weight * (seconds - old),
            None => seconds,
        });
    }

    /// Cost of `rows` rows relative to one row: measured where both are, else interpolated
    /// between measured neighbours, else the prior.
    pub fn relative(&self, rows: usize) -> f64 {
        let rows = rows.clamp(1, self.seconds.len());
        let prior = |n: usize| 1.0 + PRIOR_ROW_COST * (n as f64 - 1.0);
        let Some(one) = self.seconds[0] else { return prior(rows) };
        if let Some(s) = self.seconds[rows - 1] {
            return s / one;
        }
        let below = (1..rows).rev().find_map(|n| self.seconds[n - 1].map(|s| (n, s / one)));
        let above = (rows + 1..=self.seconds.len()).find_map(|n| self.seconds[n - 1].map(|s| (n, s / one)));
        match (below, above) {
            (Some((a, ca)), Some((b, cb))) => ca + (cb - ca) * (rows - a) as f64 / (b - a) as f64,
            // Beyond the last measurement: the prior's slope from there.
            (Some((a, ca)), None) => ca + PRIOR_ROW_COST * (rows - a) as f64,
            _ => prior(rows),
        }
    }

    /// Largest batch the curve covers.
    pub fn max_rows(&self) -> usize {
        self.seconds.len()
    }
}

/// One drafter's acceptance and pause state.
#[derive(Debug, Clone)]
pub struct Planner {
    /// Running sums of accepted drafts and tries (a try is a draft token that was checked).
    accepted: f64,
    tried: f64,
    /// The acceptance the planner starts from, and goes back to after a pause.
    prior: f64,
    /// Longest draft allowed.
    max_draft: usize,
    /// Verify steps planned so far (the planner's clock).
    clock: u64,
    /// No drafting before this step.
    paused_until: u64,
    /// Length of the next pause.
    backoff: u64,
    /// Drafts in a row with nothing accepted.
    misses: u32,
    /// A pause has ended: the next draft is at least one token, and stays owed until a draft
    /// is checked (the drafter may have nothing to propose at the step it is offered).
    probe: bool,
    /// The last checked draft was kept whole: the next draft is at least one token too. A run
    /// of kept drafts is how the estimate climbs back from a pause's hopeful one half (each
    /// kept draft moves it a fifth of the way), and stopping it at the first step the estimate
    /// is still too low to pay by the curve paused a drafter whose drafts were all kept.
    kept_whole: bool,
}

/// Fully failed drafts in a row before a drafter is paused.
const MISSES_BEFORE_PAUSE: u32 = 3;
/// First pause, in steps; it doubles on each pause up to [`MAX_PAUSE`].
const FIRST_PAUSE: u64 = 8;
/// Longest pause, in steps.
const MAX_PAUSE: u64 = 256;

impl Planner {
    /// A planner for drafts of up to `max_draft` tokens, starting from a hopeful acceptance
    /// of one half.
    pub fn new(max_draft: usize) -> Self {
        Planner::hopeful(max_draft, 0.5)
    }

    /// A planner for drafts of up to `max_draft` tokens, starting from an acceptance of
    /// `prior` (weighted as two tries), for drafters whose drafts are known to be kept often.
    pub fn hopeful(max_draft: usize, prior: f64) -> Self {
        let prior = prior.clamp(0.0, 1.0);
        Planner {
            accepted: 2.0 * prior,
            tried: 2.0,
            prior,
            max_draft,
            clock: 0,
            paused_until: 0,
            backoff: FIRST_PAUSE,
            misses: 0,
            probe: false,
            kept_whole: false,
        }
    }

    /// Longest draft this planner proposes.
    pub fn max_draft(&self) -> usize {
        self.max_draft
    }

    /// Recent per-token acceptance rate.
    pub fn acceptance(&self) -> f64 {
        if self.tried <= 0.0 {
            0.0
        } else {
            self.accepted / self.tried
        }
    }

    /// Draft length for the next step (0: decode plainly), given the verify cost curve and at
    /// most `room` tokens.
    pub fn plan(&mut self, cost: &CostCurve, room: usize) -> usize {
        self.clock += 1;
        if self.clock < self.paused_until {
            return 0;
        }
        let limit = self.max_draft.min(room).min(cost.max_rows().saturating_sub(1));
        let k = best_draft(self.acceptance(), cost, limit);
        if (self.probe || self.kept_whole) && limit > 0 {
            return k.max(1);
        }
        if k == 0 && limit > 0 {
            // Acceptance too low to pay: rest, then try again from a hopeful estimate.
            self.pause();
        }
        k
    }

    /// Records a checked draft of `drafted` tokens of which the first `accepted` were taken.
    pub fn record(&mut self, drafted: usize, accepted: usize) {
        if drafted == 0 {
            return;
        }
        self.probe = false;
        self.kept_whole = accepted == drafted;
        // A rejection is a try; a draft accepted to its end says nothing about the token after.
        let tries = accepted + usize::from(accepted < drafted);
        self.accepted = self.accepted * (1.0 - EMA) + EMA * accepted as f64;
        self.tried = self.tried * (1.0 - EMA) + EMA * tries as f64;
        if accepted == 0 {
            self.misses += 1;
            if self.misses >= MISSES_BEFORE_PAUSE {
                self.pause();
            }
        } else {
            self.misses = 0;
            self.backoff = FIRST_PAUSE;
        }
    }

    fn pause(&mut self) {
        self.probe = true;
        self.kept_whole = false;
        self.paused_until = self.clock + self.backoff;
        self.backoff = (self.backoff * 2).min(MAX_PAUSE);
        self.misses = 0;
        // After the pause, try again as if new.
        self.accepted = 2.0 * self.prior;
        self.tried = 2.0;
    }
}

/// Expected tokens per verify step for `k` drafts at per-token acceptance `p`.
pub fn expected_tokens(p: f64, k: usize) -> f64 {
    (0..=k).map(|i| p.powi(i as i32)).sum()
}

/// The draft length in `0..=limit` with the most tokens per unit of time; 0 unless drafting
/// beats plain decoding by at least 5 %.
pub fn best_draft(p: f64, cost: &CostCurve, limit: usize) -> usize {
    let mut best = (0usize, 1.0f64);
    for k in 1..=limit {
        let rate = expected_tokens(p, k) / cost.relative(k + 1);
        if rate > best.1 {
            best = (k, rate);
        }
    }
    if best.1 < 1.05 {
        0
    } else {
        best.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(rel: &[f64]) -> CostCurve {
        let mut c = CostCurve::new(rel.len());
        for (i, r) in rel.iter().enumerate() {
            c.record(i + 1, r * 0.01);
        }
        c
    }

    #[test]
    fn the_cost_curve_interpolates_between_measurements_and_falls_back_to_the_prior() {
        let mut c = CostCurve::new(9);
        assert!((c.relative(3) - (1.0 + 2.0 * PRIOR_ROW_COST)).abs() < 1e-9);
        c.record(1, 0.1);
        c.record(5, 0.3);
        assert!((c.relative(5) - 3.0).abs() < 1e-9);
        assert!((c.relative(3) - 2.0).abs() < 1e-9, "halfway between 1 and 3: {}", c.relative(3));
        assert!((c.relative(7) - (3.0 + 2.0 * PRIOR_ROW_COST)).abs() < 1e-9);
        // Bad measurements are ignored.
        c.record(2, f64::NAN);
        c.record(0, 1.0);
        c.record(20, 1.0);
        assert!((c.relative(2) - 1.5).abs() < 1e-9);
    }

    /// A plain step after a verify batch pays llama.cpp's graph rebuild: that is the batch's
    /// cost, not a plain step's.
    #[test]
    fn the_rebuild_after_a_verify_batch_is_charged_to_the_batch() {
        let mut c = CostCurve::new(9);
        c.record_step(1, 0.010);
        c.record_step(1, 0.010);
        c.record_step(3, 0.020);
        // The plain step after it took 4 ms longer than plain steps do.
        c.record_step(1, 0.014);
        assert!((c.relative(3) - 2.4).abs() < 1e-9, "{}", c.relative(3));
        assert!((c.relative(1) - 1.0).abs() < 1e-9);
        c.record_step(1, 0.010);
        assert!((c.relative(3) - 2.4).abs() < 1e-9, "the plain steps' mean kept its reused-graph time");
        // Two batches in a row: the first counts as it was timed; the second waits.
        c.record_step(5, 0.030);
        c.record_step(5, 0.030);
        assert!((c.relative(5) - 3.0).abs() < 1e-9, "{}", c.relative(5));
        // A faster plain step after a batch charges it nothing extra.
        c.record_step(1, 0.008);
        assert!((c.relative(5) - 3.0).abs() < 1e-9, "{}", c.relative(5));
    }

    #[test]
    fn drafts_follow_the_cost_curve_and_the_acceptance() {
        // The synthetic 2B's measured curve (docs/measurements.md): 2 rows 1.24, 4 rows 2.06, 8 rows 4.3.
        let steep = measured(&[1.0, 1.24, 1.65, 2.06, 2.6, 3.1, 3.7, 4.3, 4.6]);
        // A GPU-like flat curve.
        let flat = measured(&[1.0, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.08]);
        assert_eq!(best_draft(0.1, &steep, 8), 0, "poor acceptance on a steep curve: plain decoding");
        assert!(best_draft(0.9, &steep, 8) >= 1);
        assert!(best_draft(0.9, &flat, 8) > best_draft(0.9, &steep, 8), "a flat curve drafts longer");
        assert!(best_draft(0.5, &flat, 8) >= 1);
        assert_eq!(best_draft(0.99, &flat, 3), 3, "the limit holds");
        assert!((expected_tokens(0.5, 2) - 1.75).abs() < 1e-12);
    }

    #[test]
    fn a_drafter_that_keeps_failing_is_paused_and_pauses_grow() {
        let flat = measured(&[1.0, 1.01, 1.02, 1.03, 1.04]);
        let mut p = Planner::new(4);
        assert!(p.plan(&flat, 100) > 0);
        for _ in 0..MISSES_BEFORE_PAUSE {
            p.record(4, 0);
        }
        let mut paused = 0;
        while p.plan(&flat, 100) == 0 {
            paused += 1;
            assert!(paused < 1000);
        }
        assert_eq!(paused, FIRST_PAUSE as usize - 1);
        for _ in 0..MISSES_BEFORE_PAUSE {
            p.record(4, 0);
        }
        let mut second = 0;
        while p.plan(&flat, 100) == 0 {
            second += 1;
        }
        assert!(second > paused, "the second pause is longer: {second} vs {paused}");
        // Success resets the backoff.
        p.record(4, 4);
        assert!(p.acceptance() > 0.5);
        assert_eq!(p.plan(&flat, 0), 0, "no room, no draft");
    }

    /// One slow measurement of a verify batch (a busy machine) must not switch drafting off
    /// for good: the pause it causes ends with a probe, which is owed until a draft is checked.
    #[test]
    fn a_pause_ends_with_a_probe_that_waits_for_a_draft() {
        let mut curve = CostCurve::new(5);
        curve.record(1, 0.01);
        curve.record(2, 0.03); // one outlier: a 2-row step "costs" three single steps
        let mut p = Planner::new(4);
        assert_eq!(p.plan(&curve, 100), 0, "the outlier makes drafting look worthless");
        let mut waited = 0;
        let k = loop {
            let k = p.plan(&curve, 100);
            if k > 0 {
                break k;
            }
            waited += 1;
            assert!(waited < 100, "drafting never came back");
        };
        assert_eq!(k, 1, "the probe drafts one token");
        // The drafter had nothing at that step: the probe is still owed.
        assert_eq!(p.plan(&curve, 100), 1);
        // The probe is checked and its step measured at its usual cost.
        curve.record(2, 0.012);
        p.record(1, 1);
        assert!(curve.relative(2) < 2.5, "the mean of the first samples: {}", curve.relative(2));
        // Kept whole: it drafts on while its drafts are kept, and the estimate climbs.
        let before = p.acceptance();
        assert_eq!(p.plan(&curve, 100), 1, "a kept draft is followed by another");
        p.record(1, 1);
        assert!(p.acceptance() > before);
        // A rejected one ends the run: still not worth it by the curve, so paused again.
        assert_eq!(p.plan(&curve, 100), 1);
        p.record(1, 0);
        assert_eq!(p.plan(&curve, 100), 0, "rejected and not worth it by the curve: paused again");
    }

    /// A drafter whose drafts are all kept, on a curve where the hopeful start does not pay
    /// (SmolLM2 on two cores: 2 rows cost 1.6 single steps), reaches long drafts instead of
    /// pausing after each success.
    #[test]
    fn drafts_that_are_all_kept_grow_to_long_drafts() {
        let curve = measured(&[1.0, 1.6, 1.9, 2.15, 2.63, 2.36, 2.56, 2.8, 3.85]);
        let mut p = Planner::new(8);
        let mut lengths = Vec::new();
        for _ in 0..40 {
            let k = p.plan(&curve, 100);
            lengths.push(k);
            if k > 0 {
                p.record(k, k);
            }
        }
        assert!(lengths.iter().rev().take(10).all(|&k| k >= 5), "{lengths:?}");
    }
}
