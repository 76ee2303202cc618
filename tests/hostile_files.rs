//! Hostile files and paths for the commands that write files: an output that names an input
//! (directly, through a symbolic link, a hard link), a folder as the output, archives that are
//! not files or never end, entry names that steer the terminal, a `.sha256` that cannot be
//! written, and signals in the middle of an unpack. Everything through the real binary.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// `sqale` with `cache` as its cache, an empty Hugging Face cache and no network.
fn sqale_cmd(cache: &Path, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_sqale"));
    c.args(args).env("XDG_CACHE_HOME", cache).env("HF_HOME", cache.join("hf")).env("HF_HUB_OFFLINE", "1");
    c
}

fn sqale(cache: &Path, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    sqale_cmd(cache, args).output().unwrap()
}

/// Its stderr, after checking it failed with status 2.
fn refused(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "should be refused: {err}");
    err
}

/// A copy of the test model in `dir`.
fn model_copy(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::copy(common::test_model(), &p).unwrap();
    p
}

/// The names in `dir` that a temporary file or staging folder of sqale would have.
fn debris(dir: &Path) -> Vec<String> {
    common::dir_listing(dir).into_iter().filter(|n| n.starts_with(".sqale-")).collect()
}

#[test]
fn an_output_that_names_an_input_is_refused_and_the_input_kept() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let m = model_copy(w, "m.gguf");
    let sum = common::sha256(&m);
    let quantize = |out: &Path| sqale(&cache, &[&"quantize", &m, &out, &"--type", &"q8_0", &"--allow-requantize"]);

    let err = refused(&quantize(&m));
    assert!(err.contains("is the input GGUF") && err.contains("Write the output to another file"), "{err}");
    std::os::unix::fs::symlink(&m, w.join("link.gguf")).unwrap();
    let err = refused(&quantize(&w.join("link.gguf")));
    assert!(err.contains("symbolic link"), "{err}");
    std::fs::hard_link(&m, w.join("hard.gguf")).unwrap();
    let err = refused(&quantize(&w.join("hard.gguf")));
    assert!(err.contains("hard link"), "{err}");
    assert!(!err.contains("warning"), "refused before anything else is said: {err}");
    assert_eq!(common::sha256(&m), sum, "the input is kept");

    // `pack --gguf m.gguf -o m.gguf` would put the tar where the GGUF was.
    let err = refused(&sqale(&cache, &[&"pack", &"--gguf", &m, &"-o", &m]));
    assert!(err.contains("a file being packed"), "{err}");
    assert_eq!(common::sha256(&m), sum);

    // A checkpoint's shard as the output of its own conversion.
    let ck = w.join("ck");
    std::fs::create_dir(&ck).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("convert/fixtures/qwen35-tiny/tied");
    for e in std::fs::read_dir(&fixture).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), ck.join(e.file_name())).unwrap();
    }
    let shard = ck.join("model-00001-of-00002.safetensors");
    let shard_sum = common::sha256(&shard);
    let err = refused(&sqale(&cache, &[&"convert", &ck, &"--type", &"f16", &"-o", &shard]));
    assert!(err.contains("a file of the checkpoint folder"), "{err}");
    assert_eq!(common::sha256(&shard), shard_sum);
    assert!(debris(&ck).is_empty(), "{:?}", debris(&ck));

    // The archive as the destination of its own binary.
    let elf = w.join("fake-sqale");
    let machine: u16 = if std::env::consts::ARCH == "aarch64" { 183 } else { 62 };
    let mut head = b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0".to_vec();
    head.extend_from_slice(&machine.to_le_bytes());
    std::fs::write(&elf, &head).unwrap();
    let target = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
    let tar = w.join("site.tar");
    let packed = sqale(&cache, &[&"pack", &"--gguf", &m, &"--binary", &elf, &"--target", &target, &"-o", &tar]);
    assert!(packed.status.success(), "{}", String::from_utf8_lossy(&packed.stderr));
    let tar_sum = common::sha256(&tar);
    let err = refused(&sqale(&cache, &[&"unpack", &tar, &"--binary", &tar]));
    assert!(err.contains("is the archive"), "{err}");
    assert_eq!(common::sha256(&tar), tar_sum, "the archive is kept");
}

#[test]
fn an_importance_matrix_is_neither_overwritten_by_quantize_nor_by_its_own_merge() {
    let _one = common::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let text = w.join("text.txt");
    let sentence = "The warehouse shipped forty crates of bolts to the northern depot on Tuesday. ";
    std::fs::write(&text, sentence.repeat(20)).unwrap();
    let im = w.join("im.gguf");
    let m = common::test_model();
    let made =
        sqale(&cache, &[&"imatrix", &"-m", &m, &"--text", &text, &"--chunk", &"64", &"--chunks", &"1", &"-o", &im]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    let sum = common::sha256(&im);
    let err = refused(&sqale(
        &cache,
        &[&"quantize", &m, &im, &"--type", &"q4_k_m", &"--allow-requantize", &"--imatrix", &im],
    ));
    assert!(err.contains("is the importance matrix"), "{err}");
    let err = refused(&sqale(&cache, &[&"imatrix", &"-m", &m, &"--in-file", &im, &"-o", &im]));
    assert!(err.contains("a matrix to merge"), "{err}");
    let err = refused(&sqale(&cache, &[&"imatrix", &"-m", &m, &"--text", &text, &"-o", &text]));
    assert!(err.contains("the calibration text"), "{err}");
    assert_eq!(common::sha256(&im), sum, "the matrix is kept");
}

#[test]
fn a_folder_as_the_output_gets_a_file_path_suggested() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let out_dir = w.join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("convert/fixtures/qwen35-tiny/tied");
    let slash = format!("{}/", w.join("new").display());
    for out in [out_dir.display().to_string(), slash] {
        let err = refused(&sqale(&cache, &[&"convert", &fixture, &"--type", &"f16", &"-o", &out]));
        assert!(err.contains("must be a file path") && err.contains("tied-f16.gguf"), "{err}");
        assert!(!err.contains("os error"), "{err}");
        let err = refused(&sqale(&cache, &[&"pack", &"--gguf", &common::test_model(), &"-o", &out]));
        assert!(err.contains("must be a file path") && err.contains("site.tar"), "{err}");
    }
    assert!(common::dir_listing(&out_dir).is_empty() && debris(w).is_empty());
}

#[test]
fn pack_writes_the_archive_and_its_sha256_or_neither() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let tar = w.join("site.tar");
    // A folder where the .sha256 goes: it cannot be written.
    std::fs::create_dir(w.join("site.tar.sha256")).unwrap();
    let err = refused(&sqale(&cache, &[&"pack", &"--gguf", &common::test_model(), &"-o", &tar]));
    assert!(err.contains("site.tar.sha256"), "{err}");
    assert!(!tar.exists(), "no archive without its .sha256: {err}");
    assert_eq!(common::dir_listing(w), ["site.tar.sha256"], "no temporary file left");
}

/// The entries of the tar at `path`: name and data.
fn tar_entries(path: &Path) -> Vec<(String, Vec<u8>)> {
    let mut archive = tar::Archive::new(std::fs::File::open(path).unwrap());
    let mut out = Vec::new();
    for e in archive.entries().unwrap() {
        let mut e = e.unwrap();
        let name = e.path().unwrap().to_string_lossy().into_owned();
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut e, &mut data).unwrap();
        out.push((name, data));
    }
    out
}

#[test]
fn pack_labels_a_gguf_by_its_type_and_records_no_folder_of_this_machine() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let tar = w.join("a.tar");
    let m = common::test_model();
    let out = sqale(&cache, &[&"pack", &"--gguf", &m, &"-o", &tar, &"--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["manifest"]["model"]["out_type"], "q4_1", "SmolLM2's file is Q4_1 (general.file_type 3)");
    let entries = tar_entries(&tar);
    let manifest = entries.iter().find(|(n, _)| n == "model/q4_1.json").expect("model/q4_1.json");
    let manifest: serde_json::Value = serde_json::from_slice(&manifest.1).unwrap();
    assert_eq!(manifest["snapshot"], "packed from SmolLM2-135M-Instruct.Q4_1.gguf");
    let here = m.parent().unwrap().display().to_string();
    assert!(entries.iter().all(|(_, d)| !String::from_utf8_lossy(d).contains(&here)), "no path of this machine");
    // A type the file is not is refused, naming the one it is.
    let err = refused(&sqale(&cache, &[&"pack", &"--gguf", &m, &"--type", &"q4_k_m", &"-o", &w.join("b.tar")]));
    assert!(err.contains("is a q4_1 file") && err.contains("leave out --type"), "{err}");
    assert!(!w.join("b.tar").exists());
}

#[test]
fn unpack_refuses_what_is_not_a_regular_file_without_hanging() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let fifo = w.join("pipe.tar");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let cases: [(&dyn AsRef<std::ffi::OsStr>, &str); 3] =
        [(&"/dev/zero", "is a character device"), (&w, "is a directory"), (&fifo, "is a named pipe (FIFO)")];
    for (path, says) in cases {
        let mut child = sqale_cmd(&cache, &[&"unpack", path]).stderr(Stdio::piped()).spawn().unwrap();
        let status = wait_or_kill(&mut child, 600);
        let mut err = String::new();
        std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
        assert_eq!(status.and_then(|s| s.code()), Some(2), "unpack of {says} never ended, or: {err}");
        assert!(err.contains(says) && err.contains("not an archive"), "{err}");
    }
    assert!(!cache.join("sqale/models").exists() || debris(&cache.join("sqale/models")).is_empty());
}

/// Waits for `child`, polling every 50 ms up to `polls` times; kills it if it does not end
/// (`None`: it had to be killed). A guard against a hang, not a measure of speed.
fn wait_or_kill(child: &mut Child, polls: u32) -> Option<std::process::ExitStatus> {
    for _ in 0..polls {
        if let Some(s) = child.try_wait().unwrap() {
            return Some(s);
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

#[test]
fn entry_names_cannot_steer_the_terminal() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let tar = w.join("evil.tar");
    let mut b = tar::Builder::new(std::fs::File::create(&tar).unwrap());
    let mut h = tar::Header::new_gnu();
    h.set_size(3);
    h.set_mode(0o644);
    b.append_data(&mut h, "model/x\x1b[2K\rinstalled OK", &b"abc"[..]).unwrap();
    b.finish().unwrap();
    let err = refused(&sqale(&cache, &[&"unpack", &tar]));
    assert!(!err.contains('\x1b') && !err.contains('\r'), "raw control characters: {err:?}");
    assert!(err.contains("model/x\\u{1b}[2K\\u{d}installed OK is not a file a sqale pack holds"), "{err}");
}

/// A tar whose first entry, `model/q4_k_m.gguf`, claims `size` bytes that are all there but are
/// a hole in a sparse file: reading it takes a while, and it takes no disk.
fn sparse_archive(path: &Path, size: u64) {
    let mut h = tar::Header::new_gnu();
    h.set_path("model/q4_k_m.gguf").unwrap();
    h.set_size(size);
    h.set_mode(0o644);
    h.set_cksum();
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(h.as_bytes()).unwrap();
    f.set_len(512 + size + 1024).unwrap();
}

/// Starts `unpack` with `args`, waits until its staging folder appears in `staging_in`, sends
/// `signal`, and returns its exit status.
fn signalled_unpack(cmd: &mut Command, staging_in: &Path, signal: &str) -> std::process::ExitStatus {
    let mut child = cmd.stderr(Stdio::null()).stdout(Stdio::null()).spawn().unwrap();
    let mut seen = false;
    for _ in 0..20_000 {
        if staging_in.is_dir() && !debris(staging_in).is_empty() {
            seen = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    assert!(seen, "the unpack ended, or made no staging folder in {}", staging_in.display());
    let sent = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    wait_or_kill(&mut child, 1200).expect("the unpack ended after the signal")
}

#[test]
fn a_signal_during_unpack_leaves_no_staging_folder() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let tar = w.join("big.tar");
    sparse_archive(&tar, 4 << 30);
    let models = cache.join("sqale/models");
    let status = signalled_unpack(&mut sqale_cmd(&cache, &[&"unpack", &tar]), &models, "-INT");
    assert_eq!(status.code(), Some(130), "exits as a shell reports SIGINT: {status:?}");
    assert!(debris(&models).is_empty(), "left in the cache: {:?}", debris(&models));

    // --check stages in the temporary folder; SIGTERM.
    let tmp = w.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut check = sqale_cmd(&cache, &[&"unpack", &tar, &"--check"]);
    check.env("TMPDIR", &tmp);
    let status = signalled_unpack(&mut check, &tmp, "-TERM");
    assert_eq!(status.code(), Some(143), "{status:?}");
    assert!(common::dir_listing(&tmp).is_empty(), "left in TMPDIR: {:?}", common::dir_listing(&tmp));
}

/// This process's pid namespace, as the staging folders' names record it.
fn pid_namespace() -> u64 {
    let link = std::fs::read_link("/proc/self/ns/pid").unwrap().to_string_lossy().into_owned();
    link.trim_start_matches("pid:[").trim_end_matches(']').parse().unwrap()
}

#[test]
fn a_later_unpack_removes_stale_staging_folders_and_only_those() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let models = cache.join("sqale/models");
    let ns = pid_namespace();
    // A process that is gone (a pid above any pid_max), a live one (this test), another tool's.
    let dead = models.join(format!(".sqale-unpack-999999999.{ns}-Ab12Cd"));
    let live = models.join(format!(".sqale-unpack-{}.{ns}-Ef34Gh", std::process::id()));
    let other = models.join("sqale-unpack-keep");
    for d in [&dead, &live, &other] {
        std::fs::create_dir_all(d.join("model")).unwrap();
        std::fs::write(d.join("model/q4_k_m.gguf"), vec![0u8; 4096]).unwrap();
    }
    // Any unpack that gets as far as staging tidies, even one whose archive is damaged.
    let damaged = w.join("damaged.tar");
    std::fs::write(&damaged, vec![b'x'; 2048]).unwrap();
    let err = refused(&sqale(&cache, &[&"unpack", &damaged]));
    assert!(err.contains("damaged"), "{err}");
    assert!(!dead.exists(), "a dead process's staging folder is removed");
    assert!(live.exists() && other.exists(), "a live process's, and what is not sqale's, are kept");
    assert_eq!(debris(&models), [live.file_name().unwrap().to_string_lossy()], "and nothing else is left");
}

/// The stand-in: a small model that answers, for the commands that play episodes.
fn standin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/standin/standin-f16.gguf")
}

/// Runs `cmd`, killing it after 30 s; its status code and stderr.
fn run_bounded(mut cmd: Command) -> (Option<i32>, String) {
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).stdin(Stdio::null()).spawn().unwrap();
    let mut err = String::new();
    let mut pipe = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut pipe, &mut s);
        s
    });
    let status = wait_or_kill(&mut child, 600);
    err.push_str(&reader.join().unwrap());
    (status.and_then(|s| s.code()), err)
}

#[test]
fn every_file_read_is_a_regular_file_and_a_bad_one_is_named_at_once() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let fifo = w.join("pipe");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let folder = w.join("folder");
    std::fs::create_dir(&folder).unwrap();
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/eval-fixture.jsonl");
    let bads: [(&Path, &str); 3] = [
        (Path::new("/dev/zero"), "is a character device"),
        (&fifo, "is a named pipe (FIFO)"),
        (&folder, "is a directory"),
    ];
    for (i, (bad, says)) in bads.into_iter().enumerate() {
        // A results folder whose episodes.jsonl is a link to it.
        let results = w.join(format!("results-{i}"));
        std::fs::create_dir(&results).unwrap();
        std::os::unix::fs::symlink(bad, results.join("episodes.jsonl")).unwrap();
        let (model, unused) = (standin(), w.join("unused"));
        let commands: Vec<(&str, Vec<&dyn AsRef<std::ffi::OsStr>>)> = vec![
            ("play", vec![&"play", &bad]),
            ("--prompt-from", vec![&"ask", &"--model", &model, &"--prompt-from", &bad, &"How many orders?"]),
            (
                "--api-key-file",
                vec![&"serve", &"--model", &model, &"--listen", &"127.0.0.1:0", &"--api-key-file", &bad],
            ),
            (
                "--server-api-key-file",
                vec![&"ask", &"--server", &"http://127.0.0.1:9", &"--server-api-key-file", &bad, &"How many orders?"],
            ),
            ("eval -o", vec![&"eval", &"--bench", &bench, &"-m", &model, &"--limit", &"1", &"-o", &results]),
            ("eval --bench", vec![&"eval", &"--bench", &bad, &"-m", &model, &"-o", &unused]),
        ];
        for (what, args) in commands {
            let (code, err) = run_bounded(sqale_cmd(&cache, &args));
            assert_eq!(code, Some(2), "{what} with {}: never ended, or: {err}", bad.display());
            assert!(err.contains(says) || (what == "eval --bench" && err.contains("not a benchmark")), "{what}: {err}");
            assert!(!err.contains("panicked") && !err.contains("memory allocation"), "{what}: {err}");
        }
    }
}

/// A manifest of one question with `line` as its line, in `dir`.
fn manifest(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

fn question(id: &str, db: &str, q: &str) -> String {
    serde_json::json!({"id": id, "db": db, "question": q, "gold_sql": "SELECT COUNT(*) FROM orders"}).to_string()
}

#[test]
fn a_manifest_with_a_bad_database_a_repeated_id_or_an_empty_question_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let fifo = w.join("pipe.sqlite");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    std::fs::create_dir(w.join("folder.sqlite")).unwrap();
    let model = standin();
    let cases = [
        (vec![question("q1", "missing.sqlite", "How many orders?")], "missing.sqlite, cannot be read"),
        (vec![question("q1", "folder.sqlite", "How many orders?")], "is a directory, not a SQLite file"),
        (vec![question("q1", "/dev/zero", "How many orders?")], "is a character device, not a SQLite file"),
        (vec![question("q1", "pipe.sqlite", "How many orders?")], "is a named pipe (FIFO), not a SQLite file"),
        (
            vec![question("q1", "demo", "How many orders?"), question("q1", "demo", "How many customers?")],
            "questions 1 and 2 both have the id \"q1\"",
        ),
        (vec![question("q1", "demo", "  ")], "question \"q1\" is empty"),
    ];
    for (i, (lines, says)) in cases.into_iter().enumerate() {
        let bench = manifest(w, &format!("m{i}.jsonl"), &lines);
        let out = w.join(format!("out-{i}"));
        let (code, err) = run_bounded(sqale_cmd(&cache, &[&"eval", &"--bench", &bench, &"-m", &model, &"-o", &out]));
        assert_eq!(code, Some(2), "{says}: {err}");
        assert!(err.contains(says), "expected {says:?} in: {err}");
        assert!(!out.join("episodes.jsonl").exists(), "nothing played: {says}");
    }
}

#[test]
fn eval_names_its_progress_and_reads_a_manifest_with_a_byte_order_mark() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    // An id that would set the window title and start a new line in the progress.
    let id = "q\u{1b}]0;PWNED\u{7}\nforged: right";
    let bench = w.join("bom.jsonl");
    std::fs::write(&bench, format!("\u{feff}{}\n", question(id, "demo", "How many orders are there?"))).unwrap();
    let out = w.join("out");
    let res = sqale_cmd(&cache, &[&"eval", &"--bench", &bench, &"-m", &standin(), &"-t", &"2", &"-o", &out])
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&res.stdout), String::from_utf8_lossy(&res.stderr));
    assert_eq!(res.status.code(), Some(0), "{stderr}");
    for (name, text) in [("stdout", &stdout), ("stderr", &stderr)] {
        assert!(!text.contains('\u{1b}') && !text.contains('\u{7}'), "a raw escape on {name}:\n{text}");
        assert!(!text.lines().any(|l| l.starts_with("forged")), "a line forged on {name}:\n{text}");
    }
    assert!(stderr.contains("episode 1/1 q\\u{1b}]0;PWNED\\u{7}\\nforged"), "{stderr}");
}

#[test]
fn outputs_of_play_and_eval_that_name_an_input_are_refused() {
    let work = tempfile::tempdir().unwrap();
    let (w, cache) = (work.path(), work.path().join("cache"));
    let script = w.join("s.jsonl");
    let line = serde_json::json!({"id": "p1", "db": "demo", "question": "How many orders?",
        "completions": ["<think>\nx\n</think>\n{\"tool\": \"submit_sql\", \"args\": {\"sql\": \"SELECT 1\"}}"]});
    std::fs::write(&script, format!("{line}\n")).unwrap();
    let before = std::fs::read(&script).unwrap();
    let err = refused(&sqale(&cache, &[&"play", &script, &"--out", &script]));
    assert!(err.contains("is the script") && err.contains("Write the output to another file"), "{err}");
    std::os::unix::fs::symlink(&script, w.join("link.jsonl")).unwrap();
    let err = refused(&sqale(&cache, &[&"play", &script, &"--out", &w.join("link.jsonl")]));
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read(&script).unwrap(), before, "the script is kept");
    // It plays into another file.
    let ok = sqale(&cache, &[&"play", &script, &"--out", &w.join("played.jsonl")]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));

    // eval score whose predictions are the results folder's own episodes.jsonl.
    let results = w.join("results");
    std::fs::create_dir(&results).unwrap();
    let preds = results.join("episodes.jsonl");
    std::fs::write(&preds, "{\"id\": \"f1\", \"sql\": \"SELECT 1\"}\n").unwrap();
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/eval-fixture.jsonl");
    let err =
        refused(&sqale(&cache, &[&"eval", &"score", &"--bench", &bench, &"--predictions", &preds, &"-o", &results]));
    assert!(err.contains("is the predictions"), "{err}");
    // eval -o naming a file, and a merge into one of its inputs.
    let err = refused(&sqale(&cache, &[&"eval", &"--bench", &bench, &"-m", &standin(), &"-o", &script]));
    assert!(err.contains("is a regular file, not a folder: -o takes a results folder"), "{err}");
    let err = refused(&sqale(&cache, &[&"eval", &"merge", &results, &w.join("other"), &"-o", &results]));
    assert!(err.contains("is also a folder being merged"), "{err}");
}

#[test]
fn a_read_only_cache_still_gets_the_demo_database() {
    let work = tempfile::tempdir().unwrap();
    // A cache under a regular file cannot be created, whoever runs the test (root included).
    let file = work.path().join("not-a-folder");
    std::fs::write(&file, b"x").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(["tools", r#"{"tool": "list_tables", "args": {}}"#])
        .env("XDG_CACHE_HOME", file.join("cache"))
        .env("TMPDIR", work.path())
        .output()
        .unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("suppliers"), "{stdout}");
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    assert!(work.path().join(format!("sqale-{uid}")).is_dir(), "the private fallback folder");
}
