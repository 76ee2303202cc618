//! `--vote K` on the real thing: answers executed read-only on the demo database (SQLite), and K
//! SmolLM2 episodes batched in one context from the shared prompt snapshot.

mod common;

use sqale::agent::Settings;
use sqale::engine::{EngineOptions, Model, ModelOptions};
use sqale::env::Environment;
use sqale::vote::{vote_answers, Tier};

#[test]
fn the_majority_by_result_set_wins_and_a_write_is_refused_inside_the_vote() {
    let db = common::demo_db();
    let before = common::sha256(&db);
    let mut env = Environment::open(&db).unwrap();
    let count = "SELECT count(*) FROM products";
    let answers = [
        Some("DELETE FROM products"),
        Some("SELECT 1"),
        Some(count),
        // The same result set written another way.
        Some("SELECT count(*) AS n FROM products WHERE 1 = 1"),
        None,
    ];
    let v = vote_answers(&mut env, &answers);
    assert_eq!(v.winner, Some(2), "{v:?}");
    assert_eq!(v.summary(), "2 of 5 agree");
    let write = &v.ballots[0];
    assert!(write.tier < Tier::Runs, "a write does not run inside a vote: {write:?}");
    assert!(write.error.is_some(), "{write:?}");
    assert_eq!(common::sha256(&db), before, "the database is unchanged");
    // A tie of two singletons that both return rows goes to the earliest.
    let v = vote_answers(&mut env, &[Some("SELECT 2"), Some(count)]);
    assert_eq!((v.winner, v.agree), (Some(0), 1));
}

#[test]
fn k_episodes_are_batched_with_a_seed_each_and_voted() {
    let _g = common::one_at_a_time();
    let model = Model::load(common::test_model(), &ModelOptions::default()).expect("load SmolLM2");
    let options = EngineOptions { ctx: 2048, ..EngineOptions::default() };
    let settings = Settings { max_episode_tokens: 900, seed: 11, ..Settings::default() };
    let db = common::demo_db();
    let (episodes, vote) =
        sqale::vote::run(&model, options, &settings, 3, "How many products are there?", None, &db).unwrap();
    assert_eq!(episodes.len(), 3);
    assert_eq!(episodes.iter().map(|e| e.seed).collect::<Vec<_>>(), [11, 12, 13]);
    assert_eq!(vote.of, 3);
    assert_eq!(vote.ballots.len(), 3);
    assert!(vote.agree >= 1 && vote.agree <= 3);
    assert_eq!(vote.groups.iter().map(|g| g.episodes.len()).sum::<usize>(), 3);
    // The vote's first episode alone is the lone engine's episode with the same seed.
    let mut lone = sqale::agent::Agent::new(
        sqale::engine::Engine::new(&model, EngineOptions { ctx: 2048, ..EngineOptions::default() }).unwrap(),
        settings.clone(),
    );
    let alone = lone.run("How many products are there?", &db).unwrap();
    if sqale::engine::batch_invariant() {
        let texts = |e: &sqale::Episode| e.turns.iter().map(|t| t.completion.clone()).collect::<Vec<_>>();
        assert_eq!(texts(&episodes[0]), texts(&alone));
    }
    assert!(matches!(sqale::vote::check_size(0, 2048), Err(sqale::vote::VoteError::Zero)));
}
