//! The README's set-up lines work in a fresh Debian container run as root (no sudo, no apt lists
//! yet) and, through sudo, for a normal user. The lines are run by bash as the README has them,
//! with `apt-get` (and `sudo`) stood in for by scripts that record their calls and refuse what
//! the real ones would refuse: an install before any `apt-get update`, or an apt-get not run as
//! root.

use std::path::Path;
use std::process::Command;

/// The package lines of the README's set-up block: the `SUDO=` line and every `apt-get` line.
fn setup_lines() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let from = readme.find("## The two commands").expect("README has its two commands");
    let block = &readme[from..];
    let start = block.find("```sh\n").expect("a set-up block") + "```sh\n".len();
    let end = start + block[start..].find("```").expect("the block ends");
    let lines: Vec<&str> =
        block[start..end].lines().filter(|l| l.starts_with("SUDO=") || l.contains("apt-get")).collect();
    assert!(lines.iter().any(|l| l.contains("apt-get install")), "no install line in:\n{}", &block[start..end]);
    lines.join("\n") + "\n"
}

/// A folder of stand-ins (bash alone, no other command on PATH): `apt-get` logs its arguments
/// to `log`, and fails as a fresh container's would on an install before `update`, or when not "root" (`SQALE_TEST_ROOT` unset
/// and no `sudo` in between); `sudo`, when `with_sudo`, logs itself and runs its command as root.
fn stand_ins(dir: &Path, with_sudo: bool) {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = dir.join("log");
    let apt = format!(
        r#"#!/bin/bash
[ -n "$SQALE_TEST_ROOT" ] || {{ echo "E: could not open lock file (are you root?)" >&2; exit 100; }}
echo "apt-get $*" >> {log}
[ "$1" = update ] && : > {lists}
if [ "$1" = install ] && [ ! -e {lists} ]; then echo "E: Unable to locate package $3" >&2; exit 100; fi
exit 0
"#,
        log = log.display(),
        lists = dir.join("lists").display()
    );
    write_script(&bin.join("apt-get"), &apt);
    if with_sudo {
        let sudo = format!("#!/bin/bash\necho sudo >> {}\nSQALE_TEST_ROOT=1 exec \"$@\"\n", log.display());
        write_script(&bin.join("sudo"), &sudo);
    }
}

fn write_script(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// Runs the set-up lines with only the stand-ins (and bash's builtins) on PATH; `root` says
/// whether the shell itself is root.
fn run_setup(dir: &Path, root: bool) -> (bool, String, String) {
    let bash = ["/bin/bash", "/usr/bin/bash"].into_iter().find(|p| Path::new(p).exists()).expect("bash");
    let mut cmd = Command::new(bash);
    cmd.arg("-c").arg(format!("set -e\n{}", setup_lines())).env_clear().env("PATH", dir.join("bin"));
    if root {
        cmd.env("SQALE_TEST_ROOT", "1");
    }
    let out = cmd.output().unwrap();
    let log = std::fs::read_to_string(dir.join("log")).unwrap_or_default();
    (out.status.success(), log, String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn the_readme_set_up_works_as_root_in_a_fresh_container() {
    let dir = tempfile::tempdir().unwrap();
    stand_ins(dir.path(), false);
    let (ok, log, stderr) = run_setup(dir.path(), true);
    assert!(ok, "the set-up failed as root without sudo:\n{stderr}\ncalls:\n{log}");
    assert!(log.starts_with("apt-get update\n"), "the lists are not updated first:\n{log}");
    assert!(log.contains("apt-get install -y cmake clang libclang-dev"), "{log}");
}

#[test]
fn the_readme_set_up_works_through_sudo_for_a_normal_user() {
    let dir = tempfile::tempdir().unwrap();
    stand_ins(dir.path(), true);
    let (ok, log, stderr) = run_setup(dir.path(), false);
    assert!(ok, "the set-up failed through sudo:\n{stderr}\ncalls:\n{log}");
    let apt_calls = log.lines().filter(|l| l.starts_with("apt-get")).count();
    let sudo_calls = log.lines().filter(|l| *l == "sudo").count();
    assert!(apt_calls >= 2 && sudo_calls == apt_calls, "every apt-get goes through sudo:\n{log}");
}

/// A machine whose Node.js came from NodeSource has `npm` already, and Debian's `npm` package
/// conflicts with it ("nodejs : Conflicts: npm"): the set-up installs `npm` only where the command
/// is missing.
#[test]
fn the_readme_set_up_installs_npm_only_where_it_is_missing() {
    let installs_npm =
        |log: &str| log.lines().any(|l| l.starts_with("apt-get install") && l.split(' ').any(|w| w == "npm"));
    let dir = tempfile::tempdir().unwrap();
    stand_ins(dir.path(), false);
    let (ok, log, stderr) = run_setup(dir.path(), true);
    assert!(ok, "{stderr}\n{log}");
    assert!(installs_npm(&log), "a machine without npm gets it:\n{log}");

    let dir = tempfile::tempdir().unwrap();
    stand_ins(dir.path(), false);
    write_script(&dir.path().join("bin/npm"), "#!/bin/bash\necho 11.0.0\n");
    let (ok, log, stderr) = run_setup(dir.path(), true);
    assert!(ok, "the set-up failed where npm is there:\n{stderr}\n{log}");
    assert!(!installs_npm(&log), "npm is installed over NodeSource's:\n{log}");
}
