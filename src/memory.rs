//! The process's resident memory, for reporting what a model run took.
//!
//! Linux keeps the peak resident set size (`VmHWM` in `/proc/self/status`) and lets a process
//! reset it (writing `5` to `/proc/self/clear_refs`), so peaks can be measured per model within
//! one process. Elsewhere both return `None`/`false`.

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
    #[cfg(target_os = "linux")]
    fn peak_follows_an_allocation_and_resets() {
        assert!(reset_peak());
        let before = peak_bytes().unwrap();
        let block = vec![1u8; 64 << 20];
        std::hint::black_box(&block);
        let during = peak_bytes().unwrap();
        assert!(during >= before + (60 << 20), "{before} -> {during}");
        drop(block);
        assert!(reset_peak());
        assert!(peak_bytes().unwrap() < during);
        assert!(current_bytes().unwrap() > 0);
    }
}
