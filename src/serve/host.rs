//! Which names a request may call the server by (its `Host`): the defence against DNS
//! rebinding.
//!
//! A web page on `attacker.example` can point that name at 127.0.0.1 once the page has loaded
//! and then call the local server from the victim's browser as its own origin (Ollama's
//! CVE-2024-28224). The browser still sends `Host: attacker.example`, so a server that answers
//! only to the names it knows is out of reach. Accepted:
//!
//! - any IP address (`127.0.0.1:8080`, `[::1]`, `192.168.1.5`): an address names no DNS
//!   record, so it cannot be rebound;
//! - `localhost`, with or without a port;
//! - the names the operator adds (`--allow-host NAME`), or every name with `--allow-host '*'`.

use std::net::IpAddr;

/// The names a server answers to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostPolicy {
    /// Any `Host` (`--allow-host '*'`).
    Any,
    /// IP addresses, `localhost`, and these names (lower case, without a trailing dot).
    Names(Vec<String>),
}

impl Default for HostPolicy {
    fn default() -> Self {
        HostPolicy::Names(Vec::new())
    }
}

/// Why a `--allow-host` value is not a host name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--allow-host {0:?} is not a host name: give a name such as sqale.example.lan (no scheme, port or path), or '*' for any")]
pub struct BadHostName(pub String);

impl HostPolicy {
    /// The policy of `--allow-host` values: `*` among them allows any name.
    pub fn new(allowed: &[String]) -> Result<Self, BadHostName> {
        if allowed.iter().any(|a| a.trim() == "*") {
            return Ok(HostPolicy::Any);
        }
        let mut names = Vec::new();
        for a in allowed {
            let name = normal(a.trim());
            let label_ok = |l: &str| {
                !l.is_empty() && l.len() <= 63 && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            };
            if name.is_empty() || name.len() > 253 || !name.split('.').all(label_ok) {
                return Err(BadHostName(a.clone()));
            }
            names.push(name);
        }
        Ok(HostPolicy::Names(names))
    }

    /// Whether a request that calls the server `authority` (a `Host` header's value: a name or
    /// address, and perhaps a port) may be answered.
    pub fn allows(&self, authority: &str) -> bool {
        match self {
            HostPolicy::Any => true,
            HostPolicy::Names(names) => {
                let Some(host) = host_of(authority) else { return false };
                if host.parse::<IpAddr>().is_ok() {
                    return true;
                }
                let host = normal(host);
                host == "localhost" || names.contains(&host)
            }
        }
    }
}

/// Lower case, without the trailing dot of a fully qualified name.
fn normal(name: &str) -> String {
    name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase()
}

/// The host of `name[:port]` or `[v6]:port`, unbracketed; `None` when it is not of that form.
pub fn host_of(authority: &str) -> Option<&str> {
    let a = authority.trim();
    if let Some(rest) = a.strip_prefix('[') {
        let (host, after) = rest.split_once(']')?;
        return (after.is_empty() || after.strip_prefix(':').is_some_and(valid_port)).then_some(host);
    }
    let (host, port) = match a.rsplit_once(':') {
        Some((h, p)) => (h, Some(p)),
        None => (a, None),
    };
    if host.is_empty() || host.contains(':') || host.contains('@') || host.contains('/') {
        return None;
    }
    port.is_none_or(valid_port).then_some(host)
}

fn valid_port(p: &str) -> bool {
    !p.is_empty() && p.len() <= 5 && p.chars().all(|c| c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_localhost_pass_other_names_only_when_added() {
        let p = HostPolicy::new(&[]).unwrap();
        for ok in ["127.0.0.1:8080", "127.0.0.1", "[::1]:8080", "[::1]", "localhost", "LOCALHOST:8080", "localhost."] {
            assert!(p.allows(ok), "{ok}");
        }
        assert!(p.allows("192.168.1.5:8080"), "an address cannot be rebound");
        for bad in [
            "attacker.example",
            "attacker.example:8080",
            "localhost.attacker.example",
            "127.0.0.1.nip.io",
            "",
            "[::1",
            "a:b:c",
            "localhost:80x",
            "user@localhost",
        ] {
            assert!(!p.allows(bad), "{bad}");
        }
        let p = HostPolicy::new(&["Sqale.Example.LAN".into()]).unwrap();
        assert!(p.allows("sqale.example.lan:8080"));
        assert!(p.allows("SQALE.example.lan."));
        assert!(!p.allows("other.example.lan"));
        assert_eq!(HostPolicy::new(&["a.b".into(), "*".into()]).unwrap(), HostPolicy::Any);
        assert!(HostPolicy::Any.allows("anything"));
        for bad in ["http://x", "x:80", "x/y", "", "a..b"] {
            assert!(HostPolicy::new(&[bad.into()]).is_err(), "{bad}");
        }
    }
}
