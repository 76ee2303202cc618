//! An episode as the exact token sequence its generator held: the prompt and the tool results
//! as text (tokenized again the way the engine tokenized them), the completions as the ids that
//! were sampled (never tokenized again: a sampled sequence need not be the tokenizer's own
//! spelling of its text).

use serde::{Deserialize, Serialize};

use crate::agent::EndedBy;
use crate::generate::{Completion, Counters, GenerateError, Generator, Markup, TurnCache};

/// One part of an episode's token sequence, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Piece {
    /// The shared prefix (the system turn), tokenized with the beginning-of-sequence token.
    Prefix(Markup),
    /// Appended text (the user turn, tool results, turn markers), tokenized without it.
    Text(Markup),
    /// A completion's sampled token ids (its stop token excluded: it was not decoded).
    Sampled(Vec<u32>),
}

/// A whole episode's sequence, one line of `divergence/transcripts.jsonl`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transcript {
    /// The question's id.
    pub id: String,
    /// How the episode ended (`ended_by`), so that a cut episode can be told apart; written `""`
    /// where there was no episode's end to record.
    #[serde(with = "ended_by_or_empty")]
    pub ended_by: Option<EndedBy>,
    /// The sequence's parts, in order.
    pub pieces: Vec<Piece>,
    /// The whole sequence as the generator held it, where it can say (an inference server's
    /// episode: its ids came from the server's tokenizer, and a local model must tokenize the
    /// pieces to exactly these to be compared).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ids: Option<Vec<u32>>,
}

impl Transcript {
    /// Sampled tokens in the whole episode.
    pub fn sampled(&self) -> usize {
        self.pieces.iter().map(|p| if let Piece::Sampled(ids) = p { ids.len() } else { 0 }).sum()
    }
}

/// A [`Generator`] that passes every call through to `inner` and keeps what went into the
/// sequence: what [`super::force`] replays. Only calls that succeeded are kept, so the pieces
/// are exactly the sequence the generator held.
pub struct Recorder<G: Generator> {
    inner: G,
    pieces: Vec<Piece>,
}

impl<G: Generator> Recorder<G> {
    /// Records the calls made to `inner`.
    pub fn new(inner: G) -> Self {
        Recorder { inner, pieces: Vec::new() }
    }

    /// The generator recorded.
    pub fn inner(&self) -> &G {
        &self.inner
    }

    /// The pieces of the sequence since the last `begin`.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The pieces, taken out (the recorder starts empty).
    pub fn take(&mut self) -> Vec<Piece> {
        std::mem::take(&mut self.pieces)
    }
}

impl<G: Generator> Generator for Recorder<G> {
    fn begin_markup(&mut self, prefix: &Markup, seed: u32) -> Result<(), GenerateError> {
        self.pieces.clear();
        self.inner.begin_markup(prefix, seed)?;
        self.pieces.push(Piece::Prefix(prefix.clone()));
        Ok(())
    }

    fn append_markup(&mut self, text: &Markup, max_tokens: usize) -> Result<(), GenerateError> {
        self.inner.append_markup(text, max_tokens)?;
        // Each append is its own piece: the engine tokenizes each alone, and two texts joined
        // can tokenize otherwise across their boundary.
        self.pieces.push(Piece::Text(text.clone()));
        Ok(())
    }

    fn complete(&mut self, max_tokens: usize, on_text: &mut dyn FnMut(&str)) -> Result<Completion, GenerateError> {
        let c = self.inner.complete(max_tokens, on_text)?;
        if !c.ids.is_empty() {
            self.pieces.push(Piece::Sampled(c.ids.clone()));
        }
        Ok(c)
    }

    fn counters(&self) -> Counters {
        self.inner.counters()
    }

    fn context_size(&self) -> usize {
        self.inner.context_size()
    }

    fn last_cache(&self) -> Option<TurnCache> {
        self.inner.last_cache()
    }

    fn constrain(&mut self, grammar: Option<&crate::protocol::CallGrammar>) -> Result<(), GenerateError> {
        self.inner.constrain(grammar)
    }
}

/// A transcript's `ended_by` as its files hold it: the end's name, or `""` for none.
mod ended_by_or_empty {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::agent::EndedBy;

    pub(super) fn serialize<S: Serializer>(v: &Option<EndedBy>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(e) => e.serialize(s),
            None => s.serialize_str(""),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<EndedBy>, D::Error> {
        let name = String::deserialize(d)?;
        if name.is_empty() {
            return Ok(None);
        }
        EndedBy::deserialize(serde::de::value::StrDeserializer::<D::Error>::new(&name)).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::Transcript;

    /// `ended_by` reads and writes the same bytes as when it was a string; an unknown end is refused.
    #[test]
    fn ended_by_is_written_as_before() {
        for text in [r#"{"id":"q","ended_by":"context_full","pieces":[]}"#, r#"{"id":"q","ended_by":"","pieces":[]}"#] {
            let t: Transcript = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_string(&t).unwrap(), text);
        }
        assert!(serde_json::from_str::<Transcript>(r#"{"id":"q","ended_by":"answer","pieces":[]}"#).is_err());
    }
}
