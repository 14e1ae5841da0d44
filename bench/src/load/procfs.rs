//! What `/proc` says about a server process: CPU time, peak and current resident memory,
//! open file descriptors, its descendants and their proportional memory.

use std::io;
use std::sync::OnceLock;

/// User plus system CPU time of process `pid` (all its threads, live and ended), in
/// seconds: fields 14 and 15 of `/proc/<pid>/stat`.
pub fn cpu_seconds(pid: u32) -> io::Result<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The command name (field 2) may contain spaces; fields after it are plain.
    let after_name = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| io::Error::other("unexpected /proc/<pid>/stat"))?;
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // `after_name` starts at field 3 (state); utime is field 14, stime field 15.
    let ticks = |i: usize| -> io::Result<u64> {
        fields
            .get(i)
            .and_then(|f| f.parse().ok())
            .ok_or_else(|| io::Error::other("unexpected /proc/<pid>/stat"))
    };
    let total = ticks(11)? + ticks(12)?;
    Ok(total as f64 / clock_ticks_per_second())
}

/// CPU seconds this process and its reaped children used (fields 14–17 of
/// `/proc/self/stat`).
pub fn own_and_children_seconds() -> io::Result<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    let after_name = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .ok_or_else(|| io::Error::other("unexpected /proc/self/stat"))?;
    let fields: Vec<u64> = after_name
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    Ok(fields.iter().sum::<u64>() as f64 / clock_ticks_per_second())
}

/// Busy CPU seconds of the whole machine (all CPUs: user, nice, system, irq, softirq and
/// steal of the `cpu` line of `/proc/stat`).
pub fn machine_busy_seconds() -> io::Result<f64> {
    let stat = std::fs::read_to_string("/proc/stat")?;
    let line = stat
        .lines()
        .find(|l| l.starts_with("cpu "))
        .ok_or_else(|| io::Error::other("no cpu line in /proc/stat"))?;
    let fields: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    // user nice system idle iowait irq softirq steal …
    let busy: u64 = [0, 1, 2, 5, 6, 7]
        .iter()
        .filter_map(|&i| fields.get(i))
        .sum();
    Ok(busy as f64 / clock_ticks_per_second())
}

/// `getconf CLK_TCK` (the unit of `/proc/<pid>/stat` times), 100 when it cannot be asked.
pub fn clock_ticks_per_second() -> f64 {
    static TICKS: OnceLock<f64> = OnceLock::new();
    *TICKS.get_or_init(|| {
        std::process::Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .ok()
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(100.0)
    })
}

/// A `kB` line of `/proc/<pid>/status` (`VmHWM`: peak resident set; `VmRSS`: current), in KiB.
pub fn status_kib(pid: u32, field: &str) -> io::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|line| {
            let value = line.strip_prefix(field)?.strip_prefix(':')?;
            value.trim().trim_end_matches("kB").trim().parse().ok()
        })
        .ok_or_else(|| io::Error::other(format!("no {field} in /proc/{pid}/status")))
}

/// Open file descriptors of process `pid`.
pub fn open_fds(pid: u32) -> io::Result<usize> {
    Ok(std::fs::read_dir(format!("/proc/{pid}/fd"))?.count())
}

/// A running child of this process whose executable is `program` (the first found), for
/// children spawned by a library that does not tell their process ids.
pub fn child_running(program: &std::path::Path) -> Option<u32> {
    let program = program.canonicalize().ok()?;
    let tasks = std::fs::read_dir("/proc/self/task").ok()?;
    tasks
        .filter_map(|task| std::fs::read_to_string(task.ok()?.path().join("children")).ok())
        .flat_map(|children| {
            children
                .split_whitespace()
                .filter_map(|pid| pid.parse::<u32>().ok())
                .collect::<Vec<_>>()
        })
        .find(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).ok() == Some(program.clone()))
}

/// Every descendant of process `pid` (children, their children, …), from
/// `/proc/<pid>/task/<tid>/children`; processes that end meanwhile are skipped.
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let mut pending = vec![pid];
    while let Some(parent) = pending.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{parent}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            let Ok(children) = std::fs::read_to_string(task.path().join("children")) else {
                continue;
            };
            for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
                found.push(child);
                pending.push(child);
            }
        }
    }
    found
}

/// The proportional set size of process `pid` (its private pages plus its share of pages
/// mapped by several processes), from `/proc/<pid>/smaps_rollup`, in KiB.
pub fn pss_kib(pid: u32) -> io::Result<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))?;
    rollup
        .lines()
        .find_map(|line| {
            let value = line.strip_prefix("Pss:")?;
            value.trim().trim_end_matches("kB").trim().parse().ok()
        })
        .ok_or_else(|| io::Error::other(format!("no Pss in /proc/{pid}/smaps_rollup")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_process() {
        let pid = std::process::id();
        assert!(cpu_seconds(pid).unwrap() >= 0.0);
        assert!(status_kib(pid, "VmHWM").unwrap() >= status_kib(pid, "VmRSS").unwrap() / 2);
        assert!(open_fds(pid).unwrap() >= 3);
        assert!(pss_kib(pid).unwrap() > 0);
        assert!(own_and_children_seconds().unwrap() >= 0.0);
        assert!(machine_busy_seconds().unwrap() > 0.0);
    }
}
