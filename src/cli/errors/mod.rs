//! How the CLI prints the library's errors: each cause once, with the flag that fixes it.

mod hints;
#[cfg(test)]
mod tests;

/// The command-line flag that fixes a library error, added to its message here: the library's
/// errors name no flags (as ripgrep's flag layer adds them to its library's errors).
pub(crate) fn with_flag_hint(e: anyhow::Error) -> anyhow::Error {
    match hints::flag_hint(&e) {
        Some(h) => anyhow::anyhow!("{} ({h})", error_text(&e)),
        None => e,
    }
}

/// An error and its causes on one line, as `{:#}` writes them, but each message once: many of
/// the library's errors say their cause in their own message and also hand it on as their
/// source, and a cause already said is not said again.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let msg = cause.to_string();
        if msg.is_empty() || out.contains(&msg) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&msg);
    }
    out
}
