//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

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
    let bytes = std::fs::read(path).expect("read file");
    Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect()
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
