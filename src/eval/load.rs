//! How busy the machine was while a model ran: the load average at the start and the end, the
//! share of the CPUs other processes used, and the CPU time the hypervisor stole (Linux's
//! `/proc`; nothing is recorded elsewhere). A speed measured on a busy machine is the machine's,
//! not the model's: the reports warn where the load says so.

use serde::{Deserialize, Serialize};

/// The share of all CPUs other processes (or the hypervisor) may take during a run before its
/// speed is reported as untrustworthy.
pub const BUSY_SHARE: f64 = 0.10;

/// What `/proc` says at one moment.
#[derive(Debug, Clone, Copy)]
pub struct Sample {
    /// The 1-minute load average.
    loadavg: f64,
    /// Jiffies of all CPUs: busy (neither idle nor waiting on I/O), stolen, and in all.
    busy: u64,
    steal: u64,
    total: u64,
    /// Jiffies this process ran (user and system).
    own: u64,
}

impl Sample {
    /// Now, or `None` where `/proc` is not there to read.
    pub fn now() -> Option<Sample> {
        let loadavg = std::fs::read_to_string("/proc/loadavg").ok()?;
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let own = std::fs::read_to_string("/proc/self/stat").ok()?;
        Sample::parse(&loadavg, &stat, &own)
    }

    /// From the text of `/proc/loadavg`, `/proc/stat` and `/proc/self/stat`.
    fn parse(loadavg: &str, stat: &str, own: &str) -> Option<Sample> {
        let loadavg: f64 = loadavg.split_whitespace().next()?.parse().ok()?;
        let cpu: Vec<u64> = stat
            .lines()
            .find(|l| l.starts_with("cpu "))?
            .split_whitespace()
            .skip(1)
            .map(|v| v.parse().unwrap_or(0))
            .collect();
        // user nice system idle iowait irq softirq steal (guest time is inside user already).
        let field = |i: usize| cpu.get(i).copied().unwrap_or(0);
        let total: u64 = (0..8).map(field).sum();
        // Busy: neither idle, waiting on I/O, nor stolen (stolen time is counted apart).
        let busy = total - field(3) - field(4) - field(7);
        // The command name is in parentheses and may hold spaces: fields count after its `)`.
        let after = own.rsplit_once(')')?.1;
        let fields: Vec<&str> = after.split_whitespace().collect();
        // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
        let own = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
        Some(Sample { loadavg, busy, steal: field(7), total, own })
    }
}

/// The machine's load over one model's run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Load {
    /// The 1-minute load average when the run started.
    pub loadavg_start: f64,
    /// The 1-minute load average when it ended.
    pub loadavg_end: f64,
    /// CPUs online.
    pub cpus: usize,
    /// Share of all CPUs' time that other processes used during the run (0 to 1).
    pub others: f64,
    /// Share of all CPUs' time the hypervisor stole (0 to 1; 0 on bare metal).
    pub steal: f64,
}

impl Load {
    /// The load between two samples.
    pub fn between(start: &Sample, end: &Sample) -> Load {
        let total = end.total.saturating_sub(start.total).max(1) as f64;
        let busy = end.busy.saturating_sub(start.busy) as f64;
        let own = end.own.saturating_sub(start.own) as f64;
        Load {
            loadavg_start: start.loadavg,
            loadavg_end: end.loadavg,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            others: ((busy - own) / total).clamp(0.0, 1.0),
            steal: (end.steal.saturating_sub(start.steal) as f64 / total).clamp(0.0, 1.0),
        }
    }

    /// Why the run's speed cannot be trusted, when other processes or the hypervisor took more
    /// than [`BUSY_SHARE`] of the CPUs: `other processes used 48 % of the CPUs (load 2.1 → 3.4)`.
    pub fn busy(&self) -> Option<String> {
        let taken = self.others + self.steal;
        (taken > BUSY_SHARE).then(|| {
            let steal =
                if self.steal > 0.005 { format!(", {:.0} % stolen", 100.0 * self.steal) } else { String::new() };
            format!(
                "other processes used {:.0} % of the {} CPUs{steal} (load average {:.1} at the start, {:.1} at the end)",
                100.0 * self.others,
                self.cpus,
                self.loadavg_start,
                self.loadavg_end
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_is_read_from_proc_and_others_are_told_from_this_process() {
        let stat = |user: u64, idle: u64, steal: u64| format!("cpu  {user} 0 0 {idle} 0 0 0 {steal} 0 0\ncpu0 1 2 3\n");
        let own = |t: u64| format!("42 (sqale (x) y) R 1 1 1 0 -1 0 0 0 0 0 {t} 0 0 0");
        let a = Sample::parse("1.50 1.0 0.5 2/100 7", &stat(1000, 1000, 0), &own(100)).unwrap();
        let b = Sample::parse("3.25 1.2 0.6 2/100 7", &stat(1600, 1300, 100), &own(400)).unwrap();
        let load = Load::between(&a, &b);
        // 1000 jiffies passed: 600 busy, 300 of them this process's, 100 stolen.
        assert!((load.others - 0.3).abs() < 1e-9 && (load.steal - 0.1).abs() < 1e-9, "{load:?}");
        assert_eq!((load.loadavg_start, load.loadavg_end), (1.5, 3.25));
        let why = load.busy().unwrap();
        assert!(why.contains("other processes used 30 %") && why.contains("10 % stolen"), "{why}");
        let quiet = Load { others: 0.02, ..load };
        assert_eq!(Load { steal: 0.0, ..quiet }.busy(), None);
        assert!(Sample::now().is_some(), "this test runs on Linux");
    }
}
