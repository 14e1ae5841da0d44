//! The seccomp filters bubblewrap installs before it runs the driver (`--add-seccomp-fd`):
//! system calls that sandboxed code never needs fail with `EPERM`, and `clone3` (whose
//! flags a filter cannot see) fails with `ENOSYS`, so the C library falls back to `clone`,
//! whose namespace flags the first filter refuses.

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

/// Refused outright: debugging other processes, mounting, namespaces, the kernel keyring,
/// BPF, performance counters, kernel modules and kexec, rebooting, swap, accounting, quotas,
/// the clock, file handles (a known container escape), io_uring, userfaultfd, the kernel log.
const DENIED: &[(&str, libc::c_long)] = &[
    ("ptrace", libc::SYS_ptrace),
    ("process_vm_readv", libc::SYS_process_vm_readv),
    ("process_vm_writev", libc::SYS_process_vm_writev),
    ("pidfd_getfd", libc::SYS_pidfd_getfd),
    ("kcmp", libc::SYS_kcmp),
    ("mount", libc::SYS_mount),
    ("umount2", libc::SYS_umount2),
    ("pivot_root", libc::SYS_pivot_root),
    ("chroot", libc::SYS_chroot),
    ("open_tree", libc::SYS_open_tree),
    ("move_mount", libc::SYS_move_mount),
    ("fsopen", libc::SYS_fsopen),
    ("fsconfig", libc::SYS_fsconfig),
    ("fsmount", libc::SYS_fsmount),
    ("fspick", libc::SYS_fspick),
    ("mount_setattr", libc::SYS_mount_setattr),
    ("unshare", libc::SYS_unshare),
    ("setns", libc::SYS_setns),
    ("keyctl", libc::SYS_keyctl),
    ("add_key", libc::SYS_add_key),
    ("request_key", libc::SYS_request_key),
    ("bpf", libc::SYS_bpf),
    ("perf_event_open", libc::SYS_perf_event_open),
    ("init_module", libc::SYS_init_module),
    ("finit_module", libc::SYS_finit_module),
    ("delete_module", libc::SYS_delete_module),
    ("kexec_load", libc::SYS_kexec_load),
    ("kexec_file_load", libc::SYS_kexec_file_load),
    ("reboot", libc::SYS_reboot),
    ("swapon", libc::SYS_swapon),
    ("swapoff", libc::SYS_swapoff),
    ("acct", libc::SYS_acct),
    ("quotactl", libc::SYS_quotactl),
    ("settimeofday", libc::SYS_settimeofday),
    ("clock_settime", libc::SYS_clock_settime),
    ("clock_adjtime", libc::SYS_clock_adjtime),
    ("open_by_handle_at", libc::SYS_open_by_handle_at),
    ("name_to_handle_at", libc::SYS_name_to_handle_at),
    ("io_uring_setup", libc::SYS_io_uring_setup),
    ("io_uring_enter", libc::SYS_io_uring_enter),
    ("io_uring_register", libc::SYS_io_uring_register),
    ("userfaultfd", libc::SYS_userfaultfd),
    ("syslog", libc::SYS_syslog),
    ("vhangup", libc::SYS_vhangup),
    #[cfg(target_arch = "x86_64")]
    ("iopl", libc::SYS_iopl),
    #[cfg(target_arch = "x86_64")]
    ("ioperm", libc::SYS_ioperm),
    #[cfg(target_arch = "x86_64")]
    ("uselib", libc::SYS_uselib),
];

/// The names of the refused system calls, for the docs and `get_sessions`.
pub(crate) fn denied_names() -> impl Iterator<Item = &'static str> {
    DENIED.iter().map(|(name, _)| *name)
}

/// `clone` flags that create namespaces: refused (user namespaces are bubblewrap's
/// `--disable-userns` too; this also covers the others).
const NAMESPACE_FLAGS: &[libc::c_int] = &[
    libc::CLONE_NEWUSER,
    libc::CLONE_NEWNS,
    libc::CLONE_NEWPID,
    libc::CLONE_NEWNET,
    libc::CLONE_NEWUTS,
    libc::CLONE_NEWIPC,
    libc::CLONE_NEWCGROUP,
];

fn arch() -> Result<TargetArch, String> {
    TargetArch::try_from(std::env::consts::ARCH)
        .map_err(|_| format!("no seccomp filter for {}", std::env::consts::ARCH))
}

/// The two filters, as the bytes bubblewrap reads: the `EPERM` one and the `clone3` one.
///
/// # Errors
/// This architecture has no filter (only x86_64, aarch64 and riscv64 do).
pub(crate) fn programs() -> Result<[Vec<u8>; 2], String> {
    let arch = arch()?;
    let mut denied: BTreeMap<i64, Vec<SeccompRule>> = DENIED
        .iter()
        .map(|(_, number)| (*number, Vec::new()))
        .collect();
    let clone_rules = NAMESPACE_FLAGS
        .iter()
        .map(|flag| {
            let flag = *flag as u64;
            SeccompCondition::new(
                0,
                SeccompCmpArgLen::Qword,
                SeccompCmpOp::MaskedEq(flag),
                flag,
            )
            .and_then(|c| SeccompRule::new(vec![c]))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    denied.insert(libc::SYS_clone, clone_rules);
    let eperm = compile(denied, libc::EPERM, arch)?;
    let clone3 = BTreeMap::from([(libc::SYS_clone3, Vec::new())]);
    let enosys = compile(clone3, libc::ENOSYS, arch)?;
    Ok([eperm, enosys])
}

fn compile(
    rules: BTreeMap<i64, Vec<SeccompRule>>,
    errno: libc::c_int,
    arch: TargetArch,
) -> Result<Vec<u8>, String> {
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno as u32),
        arch,
    )
    .map_err(|e| e.to_string())?;
    let program: BpfProgram = filter
        .try_into()
        .map_err(|e: seccompiler::BackendError| e.to_string())?;
    // struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; } in native byte order.
    let mut bytes = Vec::with_capacity(program.len() * 8);
    for instruction in program {
        bytes.extend_from_slice(&instruction.code.to_ne_bytes());
        bytes.push(instruction.jt);
        bytes.push(instruction.jf);
        bytes.extend_from_slice(&instruction.k.to_ne_bytes());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_programs_compile_to_whole_instructions() {
        let [eperm, enosys] = programs().unwrap();
        assert!(eperm.len() > 8 * DENIED.len(), "{}", eperm.len());
        assert_eq!(eperm.len() % 8, 0);
        assert_eq!(enosys.len() % 8, 0);
        assert!(denied_names().any(|n| n == "ptrace"));
    }
}
