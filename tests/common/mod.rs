//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use sqale::engine::{Engine, EngineOptions, Model};
use sqale::generate::Generator;
use sqale::prompt::Prompt;

/// Converts the checkpoint folder `ck` to `out` as `ty` with sqale's converter (two threads).
pub fn convert_checkpoint(ck: &Path, ty: &str, out: &Path) {
    let opts = sqale_convert::ConvertOptions { out_type: ty.parse().unwrap(), threads: Some(2), ..Default::default() };
    sqale_convert::convert(ck, out, &opts, &mut |_| {}).unwrap();
}

/// Converts the committed tiny Qwen3.5 fixture `variant` (`tied`: with an MTP head, `untied`,
/// `causal`) into `dir` as `ty`; returns the GGUF's path.
pub fn convert_tiny(variant: &str, ty: &str, dir: &Path) -> PathBuf {
    let ck = Path::new(env!("CARGO_MANIFEST_DIR")).join("convert/fixtures/qwen35-tiny").join(variant);
    let out = dir.join(format!("tiny-{variant}-{ty}.gguf"));
    convert_checkpoint(&ck, ty, &out);
    out
}

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Held by every test that runs llama.cpp (in-process or in a `sqale` process it starts), so
/// that such tests run one at a time within a test binary. Each uses every core: two at once on
/// a 2-core machine made `tests/eval.rs` take 2.6 times as long as one after the other (llama.cpp's
/// threads wait on each other at every step). A test that panicked while holding it does not
/// poison it for the others.
pub fn one_at_a_time() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// The test model that `.ci/fetch-models` puts in place. Tests that need it fail (not skip)
/// without it, saying how to fetch it.
pub fn test_model() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/test/SmolLM2-135M-Instruct.Q4_1.gguf");
    assert!(p.is_file(), "test model missing: run `bash .ci/fetch-models` first ({})", p.display());
    p
}

/// The demo database shipped with the crate.
pub fn demo_db() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/demo.sqlite")
}

/// SHA-256 of a file, hex.
pub fn sha256(path: &Path) -> String {
    sqale::hash::sha256_hex(std::fs::read(path).expect("read file"))
}

/// Names of the entries of a directory, sorted.
pub fn dir_listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A second database, unlike the demo: a small library (authors, books, loans, members) with a
/// composite key, built with rusqlite in `dir`.
pub fn library_db(dir: &Path) -> PathBuf {
    let path = dir.join("library.sqlite");
    let conn = rusqlite::Connection::open(&path).expect("create db");
    conn.execute_batch(
        "PRAGMA journal_mode = DELETE;
         CREATE TABLE authors (author_id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT);
         CREATE TABLE books (book_id INTEGER PRIMARY KEY, title TEXT NOT NULL, author_id INTEGER REFERENCES authors(author_id), year INTEGER);
         CREATE TABLE members (member_id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT);
         CREATE TABLE loans (book_id INTEGER REFERENCES books(book_id), member_id INTEGER REFERENCES members(member_id), loaned_on TEXT, PRIMARY KEY (book_id, member_id, loaned_on));
         CREATE TABLE notes (note TEXT);
         INSERT INTO authors VALUES (1, 'Ursula K. Le Guin', 'USA'), (2, 'Stanisław Lem', 'Poland'), (3, 'Octavia Butler', 'USA');
         INSERT INTO books VALUES (1, 'The Dispossessed', 1, 1974), (2, 'Solaris', 2, 1961), (3, 'Kindred', 3, 1979), (4, 'The Lathe of Heaven', 1, 1971);
         INSERT INTO members VALUES (1, 'Ada', 'Kraków'), (2, 'Grace', 'Boston'), (3, 'O''Hara', 'Dublin');
         INSERT INTO loans VALUES (1, 1, '2024-01-03'), (2, 1, '2024-02-10'), (2, 2, '2024-03-01'), (3, 3, '2024-03-05'), (4, 2, '2024-04-01');
         INSERT INTO notes VALUES ('multi
line'), (NULL);",
    )
    .expect("populate db");
    drop(conn);
    path
}

/// Cells that would command a terminal: `ESC ] 0 ; PWNED BEL` sets the window title, `ESC [ 2 J`
/// clears the screen.
pub const HOSTILE_CELLS: [&str; 2] = ["open\x1b]0;PWNED\x07", "shipped\x1b[2J"];

/// A database whose text would command a terminal: `orders(order_id, status)`, ten orders whose
/// statuses alternate between [`HOSTILE_CELLS`], built with rusqlite in `dir`.
pub fn hostile_db(dir: &Path) -> PathBuf {
    let path = dir.join("esc.sqlite");
    let conn = rusqlite::Connection::open(&path).expect("create db");
    conn.execute_batch("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, status TEXT)").expect("create table");
    for (i, status) in HOSTILE_CELLS.iter().cycle().take(10).enumerate() {
        conn.execute("INSERT INTO orders VALUES (?1, ?2)", rusqlite::params![i as i64, status]).expect("insert");
    }
    drop(conn);
    path
}

/// Largest |a - b|.
pub fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// Index of the largest value.
pub fn argmax(a: &[f32]) -> usize {
    a.iter().enumerate().max_by(|x, y| x.1.total_cmp(y.1)).map(|(i, _)| i).unwrap()
}

/// max - min.
pub fn range(a: &[f32]) -> f32 {
    a.iter().copied().fold(f32::MIN, f32::max) - a.iter().copied().fold(f32::MAX, f32::min)
}

/// One conversation decoded incrementally, recording where each decode call began, so that a
/// fresh context can replay the same calls.
pub fn incremental_conversation(engine: &mut Engine<'_>, seed: u32) -> Vec<(usize, bool)> {
    let prompt = Prompt::default();
    let mut cuts = Vec::new();
    engine.begin_markup(&prompt.shared_prefix(), seed).unwrap();
    cuts.push((engine.tokens().len(), false));
    engine.append_markup(&prompt.first_turn(&prompt.user_turn("How many books?", None).unwrap()), usize::MAX).unwrap();
    cuts.push((engine.tokens().len(), false));
    engine.complete(24, &mut |_| {}).unwrap();
    cuts.push((engine.tokens().len(), true));
    engine
        .append_markup(
            &sqale::prompt::tool_result_turn(&[("list_tables".into(), "2 tables: books, loans".into())], 5, None),
            usize::MAX,
        )
        .unwrap();
    cuts.push((engine.tokens().len(), false));
    engine.complete(16, &mut |_| {}).unwrap();
    cuts.push((engine.tokens().len(), true));
    engine.append("<|im_end|>\n<|im_start|>user\nTool result:\n1 row<|im_end|>\n", usize::MAX).unwrap();
    cuts.push((engine.tokens().len(), false));
    cuts
}

/// Cache correctness: the logits after turns decoded incrementally (the system prompt restored
/// from its snapshot, appended turns, sampled tokens) equal the logits of the same token
/// sequence decoded from scratch in a fresh context, call for call.
///
/// "Call for call" matters: llama.cpp's CPU kernels take a different path for a one-token batch
/// than for a long one, so the same sequence decoded in one batch differs by rounding (measured
/// in `live_smollm2.rs`). Replaying the same batch shapes isolates what this test is about: the state the
/// engine carries between turns and restores between episodes.
pub fn check_incremental_equals_scratch(model: &Model, options: EngineOptions) {
    let mut inc = Engine::new(model, options.clone()).unwrap();
    for round in 0..2 {
        let cuts = incremental_conversation(&mut inc, 3);
        let c = inc.counters();
        assert_eq!(c.decoded_tokens + c.reused_tokens, c.context_tokens, "each token decoded once");
        if round == 1 {
            assert!(c.reused_tokens > 0, "round 2 restores the prefix snapshot");
        }
        let tokens = inc.tokens().to_vec();
        let logits = inc.logits().to_vec();
        let mut fresh = Engine::new(model, options.clone()).unwrap();
        let mut pos = 0;
        for (end, generated) in cuts {
            if generated {
                for t in &tokens[pos..end] {
                    fresh.decode_sampled(std::slice::from_ref(t)).unwrap();
                }
            } else {
                fresh.decode(&tokens[pos..end]).unwrap();
            }
            pos = end;
        }
        let scratch = fresh.logits();
        assert_eq!(scratch.len(), logits.len());
        let diff = max_abs_diff(&logits, scratch);
        assert!(diff <= 1e-5 * range(scratch), "round {round}: max |Δlogit| {diff} over range {}", range(scratch));
    }
}

/// A parquet column for [`write_parquet`].
pub enum ParquetColumn {
    /// Nullable UTF-8 strings.
    Strings(Vec<Option<String>>),
    /// Lists of UTF-8 strings (parquet's three-level LIST layout, as pyarrow writes it).
    Lists(Vec<Vec<String>>),
}

/// Writes a one-row-group, snappy-compressed parquet file (for benchmark fixtures).
pub fn write_parquet(path: &Path, columns: &[(&str, ParquetColumn)]) {
    use parquet::basic::{ConvertedType, Repetition, Type as Physical};
    use parquet::data_type::{ByteArray, ByteArrayType};
    use parquet::schema::types::Type;
    use std::sync::Arc;
    // Built with the type builders (not the message parser) so names may hold spaces.
    let string = |name: &str| {
        Arc::new(
            Type::primitive_type_builder(name, Physical::BYTE_ARRAY)
                .with_repetition(Repetition::OPTIONAL)
                .with_converted_type(ConvertedType::UTF8)
                .build()
                .unwrap(),
        )
    };
    let fields: Vec<Arc<Type>> = columns
        .iter()
        .map(|(name, c)| match c {
            ParquetColumn::Strings(_) => string(name),
            ParquetColumn::Lists(_) => {
                let list = Type::group_type_builder("list")
                    .with_repetition(Repetition::REPEATED)
                    .with_fields(vec![string("element")])
                    .build()
                    .unwrap();
                Arc::new(
                    Type::group_type_builder(name)
                        .with_repetition(Repetition::OPTIONAL)
                        .with_converted_type(ConvertedType::LIST)
                        .with_fields(vec![Arc::new(list)])
                        .build()
                        .unwrap(),
                )
            }
        })
        .collect();
    let schema = Arc::new(Type::group_type_builder("fixture").with_fields(fields).build().unwrap());
    let props = Arc::new(
        parquet::file::properties::WriterProperties::builder()
            .set_compression(parquet::basic::Compression::SNAPPY)
            .build(),
    );
    let file = std::fs::File::create(path).unwrap();
    let mut writer = parquet::file::writer::SerializedFileWriter::new(file, schema, props).unwrap();
    let mut group = writer.next_row_group().unwrap();
    for (_, c) in columns {
        let mut col = group.next_column().unwrap().unwrap();
        let w = col.typed::<ByteArrayType>();
        match c {
            ParquetColumn::Strings(v) => {
                let values: Vec<ByteArray> = v.iter().flatten().map(|s| ByteArray::from(s.as_str())).collect();
                let defs: Vec<i16> = v.iter().map(|s| s.is_some() as i16).collect();
                w.write_batch(&values, Some(&defs), None).unwrap();
            }
            ParquetColumn::Lists(v) => {
                let (mut values, mut defs, mut reps) = (Vec::new(), Vec::new(), Vec::new());
                for list in v {
                    if list.is_empty() {
                        defs.push(1);
                        reps.push(0);
                    }
                    for (i, s) in list.iter().enumerate() {
                        values.push(ByteArray::from(s.as_str()));
                        defs.push(3);
                        reps.push(if i == 0 { 0 } else { 1 });
                    }
                }
                w.write_batch(&values, Some(&defs), Some(&reps)).unwrap();
            }
        }
        col.close().unwrap();
    }
    group.close().unwrap();
    writer.close().unwrap();
}
