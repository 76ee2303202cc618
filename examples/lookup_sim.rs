//! How prompt lookup would fare on real episodes under other drafting rules, without running
//! them: plays greedy agent episodes plainly, then replays each one's generated tokens through
//! a drafting rule, counting the verify steps it would take and pricing them with a verify
//! cost curve measured in the same run. Greedy verification keeps a draft while it equals the
//! plain run's token, so the replay is exact about acceptance; only time is priced.
//!
//! `cargo run --release --example lookup_sim -- MODEL.gguf [EPISODES] [BUDGET]`

use std::time::Instant;

use llama_cpp_2::token::LlamaToken;
use sqale::agent::{Agent, Settings};
use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::generate::Generator;
use sqale::prompt::Prompt;
use sqale::speculate::adapt::{CostCurve, Planner};
use sqale::speculate::lookup::PromptLookup;
use sqale::speculate::Speculate;

const QUESTIONS: &[&str] = &[
    "Which supplier shipped the most back-ordered items last quarter?",
    "How many customers are there?",
    "How many orders are back-ordered?",
    "What is the total value of the orders of each customer?",
    "Which product was ordered most often?",
    "List the customers who never placed an order.",
];

/// A drafting rule: how long a draft, from what.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// sqale's engine today: the adaptive planner sizes the draft, lookup fills it.
    Planner { min_ngram: usize, max_ngram: usize },
    /// The planner, but a match whose key is at least `long` tokens drafts `max` tokens.
    Confident { min_ngram: usize, max_ngram: usize, long: usize },
}

/// Steps, tokens and priced cost of replaying `generated` (a turn's tokens after `context`).
#[derive(Default, Debug, Clone, Copy)]
struct Tally {
    tokens: usize,
    cost: f64,
    steps: usize,
    drafted: usize,
    accepted: usize,
}

/// The longest `n` such that the last `n` tokens of `seq` occurred earlier too.
fn key_length(seq: &[LlamaToken], cap: usize) -> usize {
    let len = seq.len();
    let mut best = 0;
    for n in 1..=cap.min(len.saturating_sub(1)) {
        let key = &seq[len - n..];
        if (0..len - n).rev().any(|i| &seq[i..i + n] == key) {
            best = n;
        } else {
            break;
        }
    }
    best
}

fn replay(rule: Rule, turns: &[(Vec<LlamaToken>, Vec<LlamaToken>)], rel: &[f64], max: usize) -> Tally {
    let mut curve = CostCurve::new(max + 1);
    for (i, r) in rel.iter().enumerate() {
        curve.record(i + 1, *r);
    }
    let mut t = Tally::default();
    let mut planner = Planner::new(max);
    for (context, generated) in turns {
        let mut seq = context.clone();
        let mut i = 0;
        while i < generated.len() {
            // The pending token is generated[i]: sampled, not yet decoded. Drafts follow it.
            let last = generated[i];
            let room = generated.len() - i - 1;
            let (min_ngram, max_ngram) = match rule {
                Rule::Planner { min_ngram, max_ngram } | Rule::Confident { min_ngram, max_ngram, .. } => {
                    (min_ngram, max_ngram)
                }
            };
            let lookup = PromptLookup { min_ngram, max_ngram };
            let mut k = planner.plan(&curve, room.max(1));
            if let Rule::Confident { long, .. } = rule {
                let mut with_last = seq.clone();
                with_last.push(last);
                if key_length(&with_last, long) >= long {
                    k = max;
                }
            }
            let k = k.min(room);
            let draft = if k > 0 { lookup.draft(&seq, last, k) } else { Vec::new() };
            seq.push(last);
            if draft.is_empty() {
                t.cost += 1.0;
                t.tokens += 1;
                i += 1;
                continue;
            }
            let actual = &generated[i + 1..];
            let accepted = draft.iter().zip(actual).take_while(|(a, b)| a == b).count();
            planner.record(draft.len(), accepted);
            t.cost += curve.relative(draft.len() + 1);
            t.steps += 1;
            t.drafted += draft.len();
            t.accepted += accepted;
            // The kept drafts and the token sampled after them.
            seq.extend_from_slice(&actual[..accepted]);
            t.tokens += accepted + 1;
            i += accepted + 1;
        }
    }
    t
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let path = args.get(1).ok_or("usage: lookup_sim MODEL.gguf [EPISODES] [BUDGET]")?;
    let episodes: usize = args.get(2).map(|s| s.parse()).transpose()?.unwrap_or(3);
    let budget: usize = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(1500);
    let model = Model::load(path, &ModelOptions::default())?;
    let db = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/demo.sqlite");
    let max = 8;

    // The verify cost curve, measured here: one plain step against k + 1 rows.
    let o = EngineOptions { ctx: 4096, temperature: 0.0, speculate: Speculate::Off, ..Default::default() };
    let mut e = Engine::new(&model, o.clone())?;
    let prompt = Prompt::default();
    let user = prompt.first_turn(&prompt.user_turn(QUESTIONS[0], None)?);
    let mut rel = vec![0.0; max + 1];
    for rows in 1..=max + 1 {
        let mut secs = Vec::new();
        for _ in 0..6 {
            e.begin_markup(&prompt.shared_prefix(), 0)?;
            e.append_markup(&user, usize::MAX)?;
            let toks: Vec<LlamaToken> = e.tokens()[..rows].to_vec();
            let t = Instant::now();
            e.decode(&toks)?;
            secs.push(t.elapsed().as_secs_f64());
        }
        secs.sort_by(f64::total_cmp);
        rel[rows - 1] = secs[secs.len() / 2];
    }
    let one = rel[0];
    let rel: Vec<f64> = rel.iter().map(|s| s / one).collect();
    println!("verify cost, rows 1..={}: {:?}", max + 1, rel.iter().map(|r| format!("{r:.2}")).collect::<Vec<_>>());

    let mut turns = Vec::new();
    let mut total = 0;
    for q in QUESTIONS.iter().take(episodes) {
        let settings = Settings { max_episode_tokens: budget, seed: 1, ..Settings::default() };
        let mut agent = Agent::new(Engine::new(&model, o.clone())?, settings);
        let ep = agent.run(q, &db)?;
        let tokens = agent.generator().tokens().to_vec();
        for &(start, len) in agent.generator().generated_spans() {
            let end = (start + len).min(tokens.len());
            turns.push((tokens[..start].to_vec(), tokens[start..end].to_vec()));
            total += end - start;
        }
        println!("{q}: {} turns, ended by {:?}", ep.turns.len(), ep.ended_by);
    }
    println!("{total} generated tokens in {} turns", turns.len());
    let rules = [
        Rule::Planner { min_ngram: 2, max_ngram: 4 },
        Rule::Planner { min_ngram: 1, max_ngram: 4 },
        Rule::Planner { min_ngram: 2, max_ngram: 8 },
        Rule::Planner { min_ngram: 3, max_ngram: 6 },
        Rule::Confident { min_ngram: 2, max_ngram: 4, long: 6 },
        Rule::Confident { min_ngram: 2, max_ngram: 4, long: 10 },
        Rule::Confident { min_ngram: 2, max_ngram: 8, long: 8 },
        Rule::Confident { min_ngram: 1, max_ngram: 4, long: 8 },
    ];
    for rule in rules {
        let t = replay(rule, &turns, &rel, max);
        println!(
            "{rule:?}: speed-up {:.2}x, {} steps, {} of {} drafts kept ({:.0} %), {:.2} tokens per step",
            t.tokens as f64 / t.cost,
            t.steps,
            t.accepted,
            t.drafted,
            100.0 * t.accepted as f64 / t.drafted.max(1) as f64,
            (t.accepted + t.steps) as f64 / t.steps.max(1) as f64
        );
    }
    Ok(())
}
