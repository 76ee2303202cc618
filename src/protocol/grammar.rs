//! Constrained calls: a GBNF grammar, built from the tool catalogue, that llama.cpp's grammar
//! sampler holds a turn to (docs/constrained-calls.md).
//!
//! The think block stays free. What the grammar holds is the part after it: one or more
//! `{"tool": NAME, "args": {...}}` objects with the catalogue's names and argument keys, each
//! argument a JSON string or (a row count) a positive integer, separated by at most a few spaces
//! or newlines; at most [`MAX_CALLS_PER_TURN`] of them. The turn may end only after a complete
//! call. On the final-answer turn the only
//! call is one `submit_sql`, the form [`super::final_answer_sql`] takes first.
//!
//! Two shapes (measured in docs/constrained-calls.md):
//! - [`Shape::Whole`]: the grammar covers the whole turn: free text (any text without `</`, at
//!   most a bound of characters), then `</think>`, then the calls; the model must close its
//!   thought and call.
//! - [`Shape::Trigger`]: the grammar is lazy: the turn is free until the model writes `{"tool"`,
//!   and from there on it is the calls (llama.cpp's `llama_sampler_init_grammar_lazy_patterns`).
//!   A turn that never writes `{"tool"` stays free (and may hold no call).

use std::fmt::Write;

use crate::tools::{ArgKind, ToolSpec, CATALOGUE};

/// How tool calls are written: the training protocol's free text, or held to the catalogue's
/// grammar.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Calls {
    /// Free text, as in training (the default).
    #[default]
    Free,
    /// The part after the think block held to the catalogue's grammar, over the whole turn
    /// ([`Shape::Whole`]).
    Constrained,
    /// The grammar starts where the model writes `{"tool"` ([`Shape::Trigger`]).
    Triggered,
}

impl Calls {
    /// The name used in JSON, reports and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Calls::Free => "free",
            Calls::Constrained => "constrained",
            Calls::Triggered => "triggered",
        }
    }

    /// The grammar a turn is held to (`None` for free calls); `final_turn` for the answer after
    /// the exploration limit; `thought_chars`, the most characters the whole-turn grammar lets
    /// the thought run before it must close.
    pub fn grammar(self, final_turn: bool, thought_chars: usize) -> Option<CallGrammar> {
        match self {
            Calls::Free => None,
            Calls::Constrained => Some(CallGrammar::new(Shape::Whole { thought_chars }, final_turn)),
            Calls::Triggered => Some(CallGrammar::new(Shape::Trigger, final_turn)),
        }
    }

    /// Whether turns are held to a grammar.
    pub fn constrained(self) -> bool {
        self != Calls::Free
    }
}

impl std::fmt::Display for Calls {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Calls {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "free" => Ok(Calls::Free),
            "constrained" => Ok(Calls::Constrained),
            "triggered" => Ok(Calls::Triggered),
            other => Err(format!("unknown way of calling tools {other:?}: free, constrained or triggered")),
        }
    }
}

/// Where the grammar starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Shape {
    /// At the start of the turn (inside the think block, which the runtime opened); the thought
    /// holds at most `thought_chars` characters, then `</think>` and a call are the only way on.
    Whole {
        /// The most characters of thought.
        thought_chars: usize,
    },
    /// Where the model writes `{"tool"` (a lazy grammar).
    Trigger,
}

/// A grammar for one turn: GBNF text with root `root`, and the trigger patterns of a lazy
/// grammar (empty: the grammar holds from the first token).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CallGrammar {
    /// The GBNF text.
    pub gbnf: String,
    /// Regular expressions that start a lazy grammar (llama.cpp feeds it from the match on).
    pub triggers: Vec<String>,
}

/// The most calls a constrained turn holds (the protocol's "one or more", bounded).
pub const MAX_CALLS_PER_TURN: usize = 4;

/// The most characters of a table or column name in a constrained call.
pub const NAME_CHARS: usize = 64;

/// The lazy grammar's trigger: a call's opening, as a regular expression.
pub const TRIGGER: &str = r#"\{"tool""#;

impl CallGrammar {
    /// The grammar of a tool turn (`final_turn`: of the final answer, one `submit_sql` call).
    pub fn new(shape: Shape, final_turn: bool) -> Self {
        let mut g = String::new();
        let body = if final_turn { "submit" } else { "calls" };
        match shape {
            Shape::Whole { thought_chars } => {
                let _ = writeln!(g, "root ::= thought \"</think>\" ws {body}");
                // Any text without `</` (other than the closing tag itself), bounded: a model
                // that never closes its thought is made to (llama.cpp expands `{0,N}` into N
                // small rules, each a tail call, so the bound costs no stack).
                let _ = writeln!(g, "thought ::= tchar{{0,{thought_chars}}}");
                g.push_str("tchar ::= [^<] | \"<\" [^/]\n");
            }
            Shape::Trigger => {
                let _ = writeln!(g, "root ::= {body}");
            }
        }
        // At most a few calls a turn, then only the end of the turn: a model that repeats a call
        // without end (SmolLM2 does) is made to stop and read the results.
        let _ = writeln!(g, "calls ::= call ( ws call ){{0,{}}}", MAX_CALLS_PER_TURN - 1);
        g.push_str("submit ::= call-submit-sql\n");
        let names: Vec<String> = CATALOGUE.iter().map(rule_name).collect();
        let _ = writeln!(g, "call ::= {}", names.join(" | "));
        for spec in &CATALOGUE {
            let _ = writeln!(g, "{} ::= {}", rule_name(spec), call_rule(spec));
        }
        g.push_str("ws ::= [ \\n]? [ \\n]? [ \\n]?\n");
        g.push_str("str ::= \"\\\"\" chr* \"\\\"\"\n");
        // A table or column name: short, so that a model that never closes the string is made to.
        let _ = writeln!(g, "name ::= \"\\\"\" chr{{1,{NAME_CHARS}}} \"\\\"\"");
        g.push_str("chr ::= [^\"\\\\\\x00-\\x1F] | \"\\\\\" [\"\\\\/bfnrt]\n");
        g.push_str("int ::= [1-9] [0-9]? [0-9]? [0-9]?\n");
        let triggers = match shape {
            Shape::Whole { .. } => Vec::new(),
            Shape::Trigger => vec![TRIGGER.to_string()],
        };
        CallGrammar { gbnf: g, triggers }
    }

    /// Whether the grammar is lazy (starts at a trigger).
    pub fn lazy(&self) -> bool {
        !self.triggers.is_empty()
    }
}

fn rule_name(spec: &ToolSpec) -> String {
    format!("call-{}", spec.name.replace('_', "-"))
}

/// `{"tool": "NAME", "args": {"KEY": VALUE, ...}}` as GBNF, a row count optional.
fn call_rule(spec: &ToolSpec) -> String {
    let mut r = format!("\"{{\\\"tool\\\": \\\"{}\\\", \\\"args\\\": {{\"", spec.name);
    for (i, a) in spec.args.iter().enumerate() {
        let sep = if i > 0 { ", " } else { "" };
        let key = format!("\"{sep}\\\"{}\\\": \"", a.name);
        match a.kind {
            ArgKind::Table | ArgKind::Column => {
                let _ = write!(r, " {key} name");
            }
            ArgKind::Sql => {
                let _ = write!(r, " {key} str");
            }
            ArgKind::Limit { .. } => {
                let _ = write!(r, " ( {key} int )?");
            }
        }
    }
    r.push_str(" \"}}\"");
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_has_a_rule_with_its_keys() {
        let g = CallGrammar::new(Shape::Whole { thought_chars: 300 }, false);
        for spec in &CATALOGUE {
            let line = g.gbnf.lines().find(|l| l.starts_with(&format!("{} ::=", rule_name(spec)))).unwrap();
            assert!(line.contains(&format!("\\\"{}\\\"", spec.name)), "{line}");
            for a in spec.args {
                assert!(line.contains(&format!("\\\"{}\\\"", a.name)), "{line}");
            }
        }
        assert!(g.gbnf.starts_with("root ::= thought \"</think>\" ws calls\nthought ::= tchar{0,300}\n"));
        assert!(g.gbnf.contains("calls ::= call ( ws call ){0,3}\n"), "{}", g.gbnf);
        assert!(!g.lazy());
    }

    #[test]
    fn the_final_turn_takes_one_submit_and_the_trigger_is_lazy() {
        let g = CallGrammar::new(Shape::Trigger, true);
        assert!(g.gbnf.starts_with("root ::= submit\n"));
        assert_eq!(g.triggers, [TRIGGER]);
        assert_eq!(Calls::Free.grammar(false, 100), None);
        assert_eq!("constrained".parse::<Calls>(), Ok(Calls::Constrained));
        assert!("json".parse::<Calls>().unwrap_err().contains("free, constrained or triggered"));
    }
}
