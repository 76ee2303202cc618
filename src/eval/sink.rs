//! Where a run's records go: one [`Sink`] for runs in-process ([`super::run`]) and on inference
//! servers ([`super::remote::run`]), recorded for a divergence measurement or not.

use std::collections::HashSet;
use std::path::PathBuf;

use super::{done_ids, jsonl, score_record, EvalError, GoldCache, Plan, Question, Record};
use crate::divergence::run::DivergenceDir;
use crate::divergence::Transcript;

/// The caller's view of a run: `(done, total, record)` after each record.
type Progress<'a> = Box<dyn FnMut(usize, usize, &Record) + 'a>;

/// Where a run's records go: appended to a results file as they finish (a run resumes: the
/// questions already there are not played again) or kept in memory; with each played episode's
/// exact token sequence appended to a divergence folder's transcripts first (the reference's run
/// of a divergence measurement, [`crate::divergence`]), so that a record never lacks its
/// transcript; and the caller's progress after each record.
pub struct Sink<'a> {
    results: Option<PathBuf>,
    transcripts: Option<&'a DivergenceDir>,
    kept: Option<Vec<Record>>,
    progress: Option<Progress<'a>>,
    total: usize,
    finished: usize,
}

impl<'a> Sink<'a> {
    /// Records appended to the results file `results` (`episodes.jsonl`), one line each.
    pub fn file(results: impl Into<PathBuf>) -> Self {
        Sink { results: Some(results.into()), transcripts: None, kept: None, progress: None, total: 0, finished: 0 }
    }

    /// Records kept in memory only ([`Sink::into_records`]): every question is played.
    pub fn memory() -> Self {
        Sink { results: None, transcripts: None, kept: Some(Vec::new()), progress: None, total: 0, finished: 0 }
    }

    /// Each played episode's token sequence also appended to `dir`'s transcripts, before its
    /// record.
    pub fn with_transcripts(mut self, dir: &'a DivergenceDir) -> Self {
        self.transcripts = Some(dir);
        self
    }

    /// `progress(done, total, record)` after each record (`total`: the questions this run plays).
    pub fn with_progress(mut self, progress: impl FnMut(usize, usize, &Record) + 'a) -> Self {
        self.progress = Some(Box::new(progress));
        self
    }

    /// The records kept in memory, in the order they finished (none for a results file).
    pub fn into_records(self) -> Vec<Record> {
        self.kept.unwrap_or_default()
    }

    /// Whether played episodes' token sequences are wanted.
    pub(crate) fn records_transcripts(&self) -> bool {
        self.transcripts.is_some()
    }

    /// The questions of this run so far (those already done excluded).
    pub(crate) fn total(&self) -> usize {
        self.total
    }

    /// Starts `plan`: the questions already in the results file are skipped, those whose gold
    /// query fails are recorded at once (without an episode); returns the questions to play.
    pub(crate) fn start<'q>(&mut self, plan: &Plan<'q>, gold: &mut GoldCache) -> Result<Vec<&'q Question>, EvalError> {
        self.start_labels(plan, &[plan.label], gold)
    }

    /// [`Self::start`] for a run that records each question under every one of `labels` (a
    /// vote and its first episode): a question is played unless every label has it, and a
    /// failing gold query is recorded under each label that lacks it.
    pub(crate) fn start_labels<'q>(
        &mut self,
        plan: &Plan<'q>,
        labels: &[&str],
        gold: &mut GoldCache,
    ) -> Result<Vec<&'q Question>, EvalError> {
        let done: Vec<HashSet<String>> = labels
            .iter()
            .map(|label| self.results.as_deref().map(|r| done_ids(r, label)).unwrap_or_default())
            .collect();
        let todo: Vec<&Question> = plan.questions.iter().filter(|q| done.iter().any(|d| !d.contains(&q.id))).collect();
        (self.total, self.finished) = (todo.len(), 0);
        let mut runnable = Vec::new();
        for q in todo {
            if gold.get(q).rows.is_err() {
                for (label, _) in labels.iter().zip(&done).filter(|(_, d)| !d.contains(&q.id)) {
                    self.write(score_record(label, q, None, gold.get(q), &plan.settings.limits), None)?;
                }
            } else {
                runnable.push(q);
            }
        }
        Ok(runnable)
    }

    /// Takes a finished record (and its episode's transcript, when recording) and reports
    /// progress.
    pub(crate) fn write(&mut self, record: Record, transcript: Option<Transcript>) -> Result<(), EvalError> {
        if let (Some(dir), Some(t)) = (self.transcripts, &transcript) {
            dir.append_transcript(t)?;
        }
        if let Some(path) = &self.results {
            jsonl::append(path, &record).map_err(|source| EvalError::Io { path: path.clone(), source })?;
        }
        self.finished += 1;
        if let Some(progress) = &mut self.progress {
            progress(self.finished, self.total, &record);
        }
        if let Some(kept) = &mut self.kept {
            kept.push(record);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Settings;
    use crate::env::Limits;

    #[test]
    fn a_file_sink_resumes_and_a_memory_sink_keeps_its_records() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("t.sqlite");
        rusqlite::Connection::open(&db).unwrap().execute_batch("CREATE TABLE t(x); INSERT INTO t VALUES (1);").unwrap();
        let q = |id: &str, sql: &str| Question {
            id: id.into(),
            db: db.clone(),
            question: "How many?".into(),
            evidence: None,
            gold_sql: sql.into(),
            difficulty: None,
        };
        let questions = [q("ok", "SELECT x FROM t"), q("bad", "SELECT nope FROM nowhere")];
        let settings = Settings::default();
        let plan = Plan { settings: &settings, label: "m", questions: &questions, seed: 0 };
        let mut gold = GoldCache::new(Limits::default());
        let results = dir.path().join("episodes.jsonl");
        let mut seen = Vec::new();
        let mut sink =
            Sink::file(&results).with_progress(|done, total, r: &Record| seen.push((done, total, r.id.clone())));
        // The question whose gold query fails is recorded at once; the other is left to play.
        let todo = sink.start(&plan, &mut gold).unwrap();
        assert_eq!(todo.iter().map(|q| q.id.as_str()).collect::<Vec<_>>(), ["ok"]);
        let answer = score_record("m", &questions[0], Some("SELECT 1"), gold.get(&questions[0]), &settings.limits);
        assert!(answer.correct);
        sink.write(answer, None).unwrap();
        assert_eq!(sink.total(), 2);
        drop(sink);
        assert_eq!(seen, [(1, 2, "bad".to_string()), (2, 2, "ok".to_string())]);
        assert_eq!(super::super::read_records(&results).len(), 2);
        assert!(Sink::file(&results).start(&plan, &mut gold).unwrap().is_empty(), "a resumed run plays nothing");
        let mut memory = Sink::memory();
        assert_eq!(memory.start(&plan, &mut gold).unwrap().len(), 1, "in memory, nothing is skipped");
        assert_eq!(memory.into_records().iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["bad"]);
    }
}
