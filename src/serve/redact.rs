//! The server's own file paths, kept from its clients.
//!
//! Clients know a database by its name (`shop`), never by its file (`/data/shop.sqlite`). Yet
//! messages from below the service can carry the file: SQLite's and the environment's errors
//! (`cannot open /data/shop.sqlite as a SQLite database: …` when a served file was deleted or
//! replaced), and a query's rows can hold it too (the model may ask SQLite where its database
//! is). Everything a client is sent passes through a [`Redactor`], which puts each served
//! file's name in place of its path; the server's own log keeps the whole message.

use std::borrow::Cow;
use std::path::Path;

use serde_json::Value;

use super::databases::Databases;

/// Replaces the paths of the server's files with the names clients know them by.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    /// (path, replacement), longest path first, so that a path is replaced before a shorter
    /// one inside it (a relative path given at start is the tail of its absolute form).
    pairs: Vec<(String, String)>,
}

impl Redactor {
    /// Replaces every database's path with its name.
    pub fn for_databases(databases: &Databases) -> Self {
        let mut r = Redactor::default();
        for db in databases.iter() {
            r.add(&db.path, &db.name);
        }
        r
    }

    /// Replaces `path` (as given, and its absolute, symlink-free form) with `replacement`.
    pub fn add(&mut self, path: &Path, replacement: &str) {
        let mut forms = vec![path.display().to_string()];
        if let Ok(abs) = std::path::absolute(path) {
            forms.push(abs.display().to_string());
        }
        if let Ok(canonical) = path.canonicalize() {
            forms.push(canonical.display().to_string());
        }
        for form in forms {
            // A bare file name (or nothing) says nothing of the server's folders.
            if form.is_empty() || !form.contains(std::path::MAIN_SEPARATOR) {
                continue;
            }
            if !self.pairs.iter().any(|(p, _)| *p == form) {
                self.pairs.push((form, replacement.to_string()));
            }
        }
        self.pairs.sort_by_key(|(p, _)| std::cmp::Reverse(p.len()));
    }

    /// `text` with every known path replaced.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for (path, name) in &self.pairs {
            if out.contains(path.as_str()) {
                out = Cow::Owned(out.replace(path.as_str(), name));
            }
        }
        out
    }

    /// Replaces every known path in the strings of `value` (keys included); returns whether
    /// anything was replaced.
    pub fn json(&self, value: &mut Value) -> bool {
        match value {
            Value::String(s) => match self.text(s) {
                Cow::Owned(r) => {
                    *s = r;
                    true
                }
                Cow::Borrowed(_) => false,
            },
            Value::Array(items) => items.iter_mut().fold(false, |changed, v| self.json(v) | changed),
            Value::Object(map) => {
                let mut changed = false;
                let renamed: Vec<(String, String)> = map
                    .keys()
                    .filter_map(|k| match self.text(k) {
                        Cow::Owned(r) => Some((k.clone(), r)),
                        Cow::Borrowed(_) => None,
                    })
                    .collect();
                for (old, new) in renamed {
                    if let Some(v) = map.remove(&old) {
                        map.insert(new, v);
                        changed = true;
                    }
                }
                map.values_mut().fold(changed, |changed, v| self.json(v) | changed)
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => false,
        }
    }

    /// `value` as JSON with every known path replaced (`Null` if it does not serialise).
    pub fn to_json(&self, value: &impl serde::Serialize) -> Value {
        let mut v = serde_json::to_value(value).unwrap_or(Value::Null);
        self.json(&mut v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_become_names_in_text_and_json() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("shop.sqlite");
        std::fs::write(&file, b"x").unwrap();
        let mut r = Redactor::default();
        r.add(&file, "shop");
        let canonical = file.canonicalize().unwrap().display().to_string();
        let msg = format!("cannot open {canonical} as a SQLite database: file is not a database");
        assert_eq!(r.text(&msg), "cannot open shop as a SQLite database: file is not a database");
        assert!(matches!(r.text("nothing here"), Cow::Borrowed(_)));
        let mut v = serde_json::json!({"rows": [[format!("{}-journal", file.display()), 1]], canonical.clone(): true});
        assert!(r.json(&mut v));
        assert_eq!(v, serde_json::json!({"rows": [["shop-journal", 1]], "shop": true}));
        // The file may be gone by the time an error names it: the forms were taken at start.
        std::fs::remove_file(&file).unwrap();
        assert_eq!(r.text(&format!("database not found: {}", file.display())), "database not found: shop");
    }

    #[test]
    fn a_relative_path_is_replaced_in_its_absolute_form_first() {
        let mut r = Redactor::default();
        r.add(Path::new("data/shop.sqlite"), "shop");
        let abs = std::path::absolute("data/shop.sqlite").unwrap().display().to_string();
        assert_eq!(r.text(&format!("at {abs}")), "at shop", "not the folder before the relative tail");
        assert_eq!(r.text("at data/shop.sqlite"), "at shop");
        // A bare name shows no folder: left alone.
        let mut bare = Redactor::default();
        bare.add(Path::new("shop.sqlite"), "shop");
        assert_eq!(bare.text("shop.sqlite"), "shop.sqlite");
    }
}
