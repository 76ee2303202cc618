//! Memory: the process's resident memory, the machine's, and what a model and a context will
//! take ([`estimate()`]).
//!
//! Linux keeps the peak resident set size (`VmHWM` in `/proc/self/status`) and lets a process
//! reset it (writing `5` to `/proc/self/clear_refs`), so peaks can be measured per model within
//! one process. Elsewhere both return `None`/`false`.

pub mod estimate;

pub use estimate::{estimate, estimate_file, estimate_with_kv, per_type, Estimate, Shape, TypeMemory};

use serde::Serialize;

/// The machine's memory, from `/proc/meminfo`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MachineMemory {
    /// `MemTotal`, bytes.
    #[serde(rename = "memory_total")]
    pub total: u64,
    /// `MemAvailable`, bytes.
    #[serde(rename = "memory_available")]
    pub available: u64,
}

/// The machine's memory, where `/proc/meminfo` tells it.
pub fn machine() -> Option<MachineMemory> {
    parse_meminfo(&std::fs::read_to_string("/proc/meminfo").ok()?)
}

/// `MemTotal` and `MemAvailable` of a `/proc/meminfo` text (kB), in bytes.
pub fn parse_meminfo(text: &str) -> Option<MachineMemory> {
    let get = |key: &str| {
        text.lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map(|kb| kb * 1024)
    };
    Some(MachineMemory { total: get("MemTotal:")?, available: get("MemAvailable:")? })
}

/// Peak resident memory of this process in bytes since start or the last [`reset_peak`].
pub fn peak_bytes() -> Option<u64> {
    status_kib("VmHWM:").map(|k| k * 1024)
}

/// Resident memory now, in bytes.
pub fn current_bytes() -> Option<u64> {
    status_kib("VmRSS:").map(|k| k * 1024)
}

/// Resets the peak to the current resident size; false where the system does not allow it.
pub fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn status_kib(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].trim().trim_end_matches("kB").trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_read_in_bytes() {
        let text = "MemTotal:       16318412 kB\nMemFree:          512000 kB\nMemAvailable:    8159206 kB\n";
        assert_eq!(parse_meminfo(text), Some(MachineMemory { total: 16_318_412 * 1024, available: 8_159_206 * 1024 }));
        assert_eq!(parse_meminfo("MemTotal: 1 kB\n"), None);
        let json = serde_json::to_value(parse_meminfo(text).unwrap()).unwrap();
        assert_eq!(json["memory_available"], 8_159_206u64 * 1024);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn peak_follows_an_allocation_and_resets() {
        // Other tests run in this process at the same time and allocate and free memory of their
        // own, so the check is against the block itself, not against a before/after difference.
        const BLOCK: u64 = 128 << 20;
        assert!(reset_peak());
        let block = vec![1u8; BLOCK as usize];
        std::hint::black_box(&block);
        let resident = current_bytes().unwrap();
        let during = peak_bytes().unwrap();
        assert!(resident >= BLOCK, "the written block is resident: {resident} bytes");
        assert!(during >= resident, "the peak is at least the resident size: {during} < {resident}");
        drop(block);
        assert!(reset_peak());
        let after = peak_bytes().unwrap();
        assert!(after < during, "a reset peak forgets the freed block: {after} >= {during}");
    }
}
