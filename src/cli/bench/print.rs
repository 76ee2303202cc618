//! How `sqale bench` prints its reports (`--json` prints them as they are).

use sqale::bench::{BusyReport, ParallelReport, SpeculationReport, SpeedReport};

/// Decode speed at each busy level.
pub(super) fn busy(r: &BusyReport) {
    let t = &r.threading;
    let settings = t.wait_settings();
    let policy = if settings.is_empty() { settings } else { format!(", {settings}") };
    println!("model        {}", r.model);
    println!("threads      {} of {} CPUs ({}{policy})", r.threads, r.cpus, t.pool);
    println!("{:>5} {:>12} {:>18} {:>10}", "busy", "pp tokens/s", "tg tokens/s", "tg / idle");
    for l in &r.levels {
        println!(
            "{:>5} {:>12.1} {:>11.1} ± {:<4.1} {:>10.2}",
            l.busy, l.pp_tps, l.tg_tps_mean, l.tg_tps_sd, l.tg_over_idle
        );
    }
}

/// Prefill and decode speed, with the episode replay and the speculation measurements when run.
pub(super) fn speed(r: &SpeedReport) -> anyhow::Result<()> {
    println!("model        {} (KV cache {})", r.model, r.kv_type);
    if r.depths.is_empty() {
        let at = if r.depth > 0 { format!(" @ d{}", r.depth) } else { String::new() };
        println!("pp{:<10} {:>8.1} ± {:.1} tokens/s{at}", r.pp_tokens, r.pp_tps_mean, r.pp_tps_sd);
        println!("tg{:<10} {:>8.1} ± {:.1} tokens/s{at}", r.tg_tokens, r.tg_tps_mean, r.tg_tps_sd);
    }
    for d in &r.depths {
        println!(
            "depth {:<6} pp{} {:>8.1} ± {:.1}   tg{} {:>8.1} ± {:.1} tokens/s",
            d.depth, r.pp_tokens, d.pp_tps_mean, d.pp_tps_sd, r.tg_tokens, d.tg_tps_mean, d.tg_tps_sd
        );
    }
    if let Some(e) = &r.episode {
        println!(
            "episode      {} tool turns + final, {} tokens in context ({} generated)",
            e.tool_turns, e.context_tokens, e.generated_tokens
        );
        // The token counts print unpadded, as they always have.
        println!("  cached: each token decoded once   {} tokens {:>8.2} s", e.cached_decoded_tokens, e.cached_seconds);
        println!(
            "  re-decoding every turn            {} tokens {:>8.2} s",
            e.redecode_decoded_tokens, e.redecode_seconds
        );
        println!("  re-decode / cached                {:>17.2}x", e.redecode_over_cached);
        if let Some(l) = &e.live {
            println!("  live episodes: {}", serde_json::to_value(l)?);
        }
        if let Some(s) = &e.speculation {
            println!(
                "  speculation off                   {} generated {:>8.2} s (generated tokens {:.2} s)",
                s.generated_tokens, s.off_seconds, s.generated_off_seconds
            );
            println!(
                "  speculation {:<8}              {} generated {:>8.2} s (generated tokens {:.2} s)",
                s.speculate.to_string(),
                s.generated_tokens,
                s.on_seconds,
                s.generated_on_seconds
            );
            println!("  off / on                          {:>17.2}x", s.off_over_on);
            let l = &s.counts.lookup;
            println!(
                "  lookup: {} steps, {} drafted, {} accepted ({:.1} %), {:.2} tokens per verify step",
                l.steps,
                l.drafted,
                l.accepted,
                100.0 * s.lookup_acceptance,
                s.lookup_tokens_per_step
            );
            if s.counts.replays > 0 {
                println!("  sequence rebuilds after rejected drafts: {}", s.counts.replays);
            }
        }
    }
    if let Some(s) = &r.speculation {
        speculation(s);
    }
    Ok(())
}

/// The verify cost curve, the oracle runs and the speed-ups the curve predicts.
fn speculation(s: &SpeculationReport) {
    let c = &s.cost;
    println!(
        "verify cost  after {} tokens of agent prompt, drafts all {} ({} kept by chance), {} reps",
        c.context_tokens, c.drafts, c.drafts_accepted, s.reps
    );
    println!("  plain step {:.2} ms", 1e3 * c.plain_seconds);
    println!("  {:>3} {:>5} {:>11} {:>10} {:>18}", "k", "rows", "verify ms", "plain ms", "cost(k+1)/cost(1)");
    for row in &c.rows {
        println!(
            "  {:>3} {:>5} {:>11.2} {:>10.2} {:>18.2}",
            row.k,
            row.rows,
            1e3 * row.verify_seconds,
            1e3 * row.plain_seconds,
            row.relative_cost
        );
    }
    if c.replays > 0 {
        println!("  sequence rebuilds after rejected drafts: {}", c.replays);
    }
    let o = &s.oracle;
    println!(
        "oracle       {} tokens after a {}-token prompt, seed {}, temperature {}: plain {:.1} tokens/s ({:.2} ± {:.2} s){}",
        o.generated_tokens,
        o.prompt_tokens,
        o.seed,
        o.temperature,
        o.plain_tokens_per_second,
        o.plain_seconds,
        o.plain_seconds_sd,
        if o.plain_repeatable { "" } else { ", plain runs DIFFER" }
    );
    println!(
        "  {:>3} {:>9} {:>9} {:>11} {:>12} {:>10}",
        "k", "tokens/s", "speed-up", "acceptance", "tokens/step", "identical"
    );
    for run in &o.runs {
        println!(
            "  {:>3} {:>9.1} {:>8.2}x {:>10.1}% {:>12.2} {:>10}",
            run.k,
            run.tokens_per_second,
            run.speedup,
            100.0 * run.acceptance,
            run.tokens_per_step,
            if run.identical { "yes" } else { "NO" }
        );
    }
    println!("expected     from the cost curve");
    println!(
        "  {:>10} {:>6} {:>12} {:>6} {:>9} {:>9}",
        "acceptance", "best k", "tokens/step", "cost", "speed-up", "planner k"
    );
    for e in &s.expected {
        println!(
            "  {:>9.0}% {:>6} {:>12.2} {:>6.2} {:>8.2}x {:>9}",
            100.0 * e.acceptance,
            e.best_k,
            e.tokens_per_step,
            e.relative_cost,
            e.speedup,
            e.planner_k
        );
    }
}

/// The runs at each sequence count.
pub(super) fn parallel(r: &ParallelReport) {
    println!(
        "model {} ({} params), {} questions from {}, episodes of at most {} tokens",
        r.model, r.params, r.questions, r.benchmark, r.max_episode_tokens
    );
    println!(
        "{:>9} {:>9} {:>10} {:>12} {:>14} {:>12} {:>9} {:>6}",
        "parallel", "episodes", "seconds", "episodes/min", "gen tokens/s", "peak MiB", "speedup", "same"
    );
    for run in &r.runs {
        println!(
            "{:>9} {:>9} {:>10.1} {:>12.2} {:>14.1} {:>12.0} {:>8.2}x {:>6}",
            run.parallel,
            run.episodes,
            run.seconds,
            run.episodes_per_minute,
            run.generated_tokens_per_second,
            run.peak_rss_bytes.unwrap_or(0) as f64 / (1 << 20) as f64,
            run.speedup,
            if run.same_episodes { "yes" } else { "NO" }
        );
    }
    println!(
        "compute per question: 2 x {} params x {:.0} decoded tokens = {:.4} TFLOPs",
        r.params, r.decoded_tokens_per_question, r.tflops_per_question
    );
}
