//! The optional binary: a target triple that can be one, and a file that is a program for it.

use std::io::Read;
use std::path::Path;

use super::error::io;
use super::PackError;

/// Checks that `target` looks like a target triple (`aarch64-unknown-linux-gnu`).
pub(super) fn check_target(target: &str) -> Result<(), PackError> {
    let bad = |why| PackError::BadTarget { target: target.to_string(), why };
    if target.is_empty() || target.len() > 64 {
        return Err(bad("it is 1 to 64 characters"));
    }
    if !target.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c)) {
        return Err(bad("only letters, digits, '-', '_' and '.' may appear"));
    }
    if !target.contains('-') || target.starts_with('-') {
        return Err(bad("it is an architecture, then '-' and the rest"));
    }
    Ok(())
}

/// ELF's machine number for the architecture a target triple starts with, where known.
fn elf_machine(target: &str) -> Option<u16> {
    let arch = target.split('-').next()?;
    Some(match arch {
        "x86_64" => 62,
        "aarch64" => 183,
        "riscv64gc" | "riscv64" => 243,
        "i686" | "i586" => 3,
        a if a.starts_with("arm") || a.starts_with("thumb") => 40,
        _ => return None,
    })
}

/// Checks that `path` is an executable (ELF, Mach-O or PE) and, for ELF, one for `target`'s
/// architecture.
pub(super) fn check_binary(path: &Path, target: &str) -> Result<(), PackError> {
    let mut head = [0u8; 20];
    let mut f = crate::regular_file::open(path).map_err(io(path))?;
    let n = f.read(&mut head).map_err(io(path))?;
    let wrong = |why: String| PackError::WrongBinary { path: path.to_path_buf(), target: target.to_string(), why };
    let head = &head[..n];
    if head.starts_with(b"\x7fELF") && head.len() == 20 {
        let machine = if head[5] == 2 {
            u16::from_be_bytes([head[18], head[19]])
        } else {
            u16::from_le_bytes([head[18], head[19]])
        };
        return match elf_machine(target) {
            Some(want) if want != machine => Err(wrong(format!(
                "it is an ELF program for machine {machine} ({}), where {target} needs machine {want}",
                machine_name(machine)
            ))),
            _ => Ok(()),
        };
    }
    let macho = [[0xcf, 0xfa, 0xed, 0xfe], [0xfe, 0xed, 0xfa, 0xcf], [0xca, 0xfe, 0xba, 0xbe]];
    if macho.iter().any(|m| head.starts_with(m)) || head.starts_with(b"MZ") {
        return Ok(());
    }
    Err(wrong("it is not an executable (ELF, Mach-O or PE)".into()))
}

fn machine_name(machine: u16) -> &'static str {
    match machine {
        62 => "x86-64",
        183 => "aarch64",
        243 => "RISC-V",
        3 => "x86",
        40 => "32-bit ARM",
        _ => "another architecture",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_checked() {
        for ok in ["aarch64-unknown-linux-gnu", "x86_64-unknown-linux-musl", "armv7-unknown-linux-gnueabihf"] {
            assert!(check_target(ok).is_ok(), "{ok}");
        }
        for bad in ["", "aarch64", "-linux", "a/b-c", "x86_64 linux"] {
            assert!(check_target(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_binary_for_another_machine_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut elf = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0".to_vec();
        elf.extend_from_slice(&62u16.to_le_bytes());
        let p = dir.path().join("sqale");
        std::fs::write(&p, &elf).unwrap();
        assert!(check_binary(&p, "x86_64-unknown-linux-gnu").is_ok());
        let err = check_binary(&p, "aarch64-unknown-linux-gnu").unwrap_err().to_string();
        assert!(err.contains("x86-64") && err.contains("aarch64-unknown-linux-gnu"), "{err}");
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        assert!(check_binary(&p, "x86_64-unknown-linux-gnu").unwrap_err().to_string().contains("not an executable"));
    }
}
