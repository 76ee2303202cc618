//! Conversion crate.
