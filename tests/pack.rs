//! `sqale pack` and `sqale unpack`: the real SmolLM2 GGUF packed as the registry's default model,
//! verified and installed into an empty cache with no network, then found by `sqale ask` without
//! `--model`; and archives truncated or altered in every way refused, naming the file, with
//! nothing installed.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{json, Value};

const MODEL_DIR: &str = "sqale/models/trl-lab--qwen3.5-2b-grpo-synsql/main";
const GGUF: &str = "model/q4_k_m.gguf";
const PROMPT: &str = "model/sqale_agent.py";

/// `sqale` with `cache` as its cache, an empty Hugging Face cache and no network.
fn sqale(cache: &Path, args: &[&dyn AsRef<std::ffi::OsStr>]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqale"))
        .args(args)
        .env("XDG_CACHE_HOME", cache)
        .env("HF_HOME", cache.join("hf"))
        .env("HF_HUB_OFFLINE", "1")
        .output()
        .unwrap()
}

fn ok_json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "{:?}: {}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        String::from_utf8_lossy(&out.stdout)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn copy_prompt() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/copy_prompt.py")
}

/// The test model requantised to q4_k_m, the registry's default type, so that it packs as the
/// default model (`pack --gguf` labels a file by the type it declares, and the test model is Q4_1).
/// Made once (about 3 s) into cargo's temporary folder for integration tests, and kept there.
fn q4_k_m_model() -> PathBuf {
    static MADE: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _once = MADE.lock().unwrap_or_else(|e| e.into_inner());
    let source = common::test_model();
    let size = std::fs::metadata(&source).unwrap().len();
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pack-smollm2-{size}-q4_k_m.gguf"));
    if !path.is_file() {
        let args: [&dyn AsRef<std::ffi::OsStr>; 6] =
            [&"quantize", &source, &path, &"--type", &"q4_k_m", &"--allow-requantize"];
        let out = Command::new(env!("CARGO_BIN_EXE_sqale")).args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    path
}

/// Packs the test model in q4_k_m, as the default model, with the copy prompt (and `extra`
/// flags) into `tar`.
fn pack(cache: &Path, tar: &Path, prompt: &Path, extra: &[&dyn AsRef<std::ffi::OsStr>]) -> Value {
    let model = q4_k_m_model();
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
        vec![&"pack", &"--gguf", &model, &"--prompt", &prompt, &"-o", &tar, &"--json"];
    args.extend_from_slice(extra);
    ok_json(&sqale(cache, &args))
}

#[test]
fn an_archive_round_trip_installs_what_ask_finds_offline() {
    let _one = common::one_at_a_time();
    let work = tempfile::tempdir().unwrap();
    let (connected, site) = (work.path().join("connected"), work.path().join("site"));
    let tar = work.path().join("site.tar");
    let (model, prompt, bin) = (q4_k_m_model(), copy_prompt(), PathBuf::from(env!("CARGO_BIN_EXE_sqale")));
    let target = format!("{}-unknown-linux-gnu", std::env::consts::ARCH);
    let packed = pack(&connected, &tar, &prompt, &[&"--binary", &bin, &"--target", &target]);
    let m = &packed["manifest"];
    assert_eq!(m["model"]["repo"], "trl-lab/qwen3.5-2b-grpo-synsql");
    assert_eq!(m["model"]["out_type"], "q4_k_m");
    assert_eq!(m["binary_target"], target.as_str());
    for (name, file) in [(GGUF, &model), (PROMPT, &prompt), ("bin/sqale", &bin)] {
        assert_eq!(m["files"][name]["sha256"], common::sha256(file), "{name}");
        assert_eq!(m["files"][name]["bytes"], std::fs::metadata(file).unwrap().len(), "{name}");
    }
    assert_eq!(packed["sha256"], common::sha256(&tar));
    let sidecar = std::fs::read_to_string(work.path().join("site.tar.sha256")).unwrap();
    assert_eq!(sidecar, format!("{}  site.tar\n", common::sha256(&tar)), "sha256sum -c reads it");
    assert!(!connected.join("sqale").exists(), "packing files leaves the cache alone");

    // On the site: an empty cache, no network.
    let bin_dir = work.path().join("bin");
    std::fs::create_dir(&bin_dir).unwrap();
    let v = ok_json(&sqale(&site, &[&"unpack", &tar, &"--binary", &bin_dir, &"--json"]));
    let dir = site.join(MODEL_DIR);
    assert_eq!(v["default_model"], true);
    assert_eq!(v["already_installed"], false);
    assert!(v["sha256_checked_against"].as_str().unwrap().ends_with("site.tar.sha256"), "{v}");
    assert_eq!(common::dir_listing(&dir), ["q4_k_m.gguf", "q4_k_m.json", "sqale_agent.py"]);
    assert_eq!(common::dir_listing(&site.join("sqale/models")), ["trl-lab--qwen3.5-2b-grpo-synsql"], "no staging left");
    assert_eq!(common::sha256(&dir.join("q4_k_m.gguf")), common::sha256(&model));
    assert_eq!(std::fs::read(dir.join("sqale_agent.py")).unwrap(), std::fs::read(&prompt).unwrap());
    let manifest: Value = serde_json::from_slice(&std::fs::read(dir.join("q4_k_m.json")).unwrap()).unwrap();
    assert_eq!(manifest["gguf_sha256"], common::sha256(&model));
    let site_bin = bin_dir.join("sqale");
    assert_eq!(v["binary"], site_bin.display().to_string());
    assert_eq!(common::sha256(&site_bin), common::sha256(&bin));
    let version = Command::new(&site_bin).arg("--version").output().unwrap();
    assert!(version.status.success() && String::from_utf8_lossy(&version.stdout).contains(&target));

    // `ask` without --model finds the installed model and its reference loop, with no network.
    let sql = "SELECT COUNT(*) FROM orders";
    let question = json!({"tool": "submit_sql", "args": {"sql": sql}}).to_string();
    // Greedy: the requantised test model copies the call reliably only without sampling.
    let args: [&dyn AsRef<std::ffi::OsStr>; 9] =
        [&"ask", &"--json", &"--seed", &"1", &"--temp", &"0", &"--max-episode-tokens", &"600", &question];
    let asked = ok_json(&sqale(&site, &args));
    assert_eq!(asked["model"], dir.join("q4_k_m.gguf").display().to_string());
    assert_eq!(asked["episode"]["ended_by"], "submit_sql", "{asked}");
    assert_eq!(asked["episode"]["sql"], sql);
    assert_eq!(asked["episode"]["prompt_hash"], sqale::prompt::Prompt::from_python_file(&prompt).unwrap().hash());

    // The same archive again: nothing to do. Packing the site's cache gives the same files.
    let again = ok_json(&sqale(&site, &[&"unpack", &tar, &"--json"]));
    assert_eq!(again["already_installed"], true);
    let repacked = ok_json(&sqale(&site, &[&"pack", &"-o", &work.path().join("again.tar"), &"--json"]));
    let mut files = m["files"].clone();
    files.as_object_mut().unwrap().remove("bin/sqale");
    assert_eq!(repacked["manifest"]["files"], files);

    // Another reference loop for the same model is refused without --force, and nothing changes.
    let other_prompt = work.path().join("other_agent.py");
    std::fs::write(&other_prompt, "SYSTEM_PROMPT = \"Another.\"\nUSER_TEMPLATE = \"Q: {question}\"\n").unwrap();
    let other = work.path().join("other.tar");
    // (Without --json, into a pipe: progress comes as plain lines.)
    let out = sqale(&connected, &[&"pack", &"--gguf", &model, &"--prompt", &other_prompt, &"-o", &other]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.lines().any(|l| l.starts_with("packing: ") && l.contains(" MB ")), "{err}");
    let out = sqale(&site, &[&"unpack", &other]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().any(|l| l.starts_with("unpacking: ") && l.contains(" MB ")), "{err}");
    assert!(err.contains("sqale_agent.py is installed already") && err.contains("--force"), "{err}");
    assert_eq!(std::fs::read(dir.join("sqale_agent.py")).unwrap(), std::fs::read(&prompt).unwrap());
    ok_json(&sqale(&site, &[&"unpack", &other, &"--force", &"--json"]));
    assert_eq!(std::fs::read(dir.join("sqale_agent.py")).unwrap(), std::fs::read(&other_prompt).unwrap());
}

/// The entries of a tar archive: name, data, mode, and where each entry's header starts.
fn entries(bytes: &[u8]) -> Vec<(String, Vec<u8>, u32, usize)> {
    let mut archive = tar::Archive::new(bytes);
    let mut out = Vec::new();
    for e in archive.entries().unwrap() {
        let mut e = e.unwrap();
        let name = e.path().unwrap().to_string_lossy().into_owned();
        let (mode, at) = (e.header().mode().unwrap(), e.raw_header_position() as usize);
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut e, &mut data).unwrap();
        out.push((name, data, mode, at));
    }
    out
}

/// A tar archive of `files` (name, data), as another tool would write it.
fn write_tar(path: &Path, files: &[(String, Vec<u8>)]) {
    let mut b = tar::Builder::new(std::fs::File::create(path).unwrap());
    for (name, data) in files {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        b.append_data(&mut h, name, &data[..]).unwrap();
    }
    b.finish().unwrap();
}

#[test]
fn truncated_or_altered_archives_are_refused_naming_the_file() {
    let work = tempfile::tempdir().unwrap();
    let (connected, site) = (work.path().join("connected"), work.path().join("site"));
    let tar = work.path().join("site.tar");
    pack(&connected, &tar, &copy_prompt(), &[]);
    let bytes = std::fs::read(&tar).unwrap();
    let files = entries(&bytes);
    let names: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();
    assert_eq!(names, [GGUF, PROMPT, "model/q4_k_m.json", "sqale-pack.json"], "the manifest comes last");
    let gguf_at = files[0].3 + 512;
    let gguf_len = files[0].1.len();
    let plain =
        |drop: &str| files.iter().filter(|f| f.0 != drop).map(|f| (f.0.clone(), f.1.clone())).collect::<Vec<_>>();

    let case = work.path().join("case.tar");
    let refused = |expected: &[&str], sidecar: Option<&str>| {
        let side = work.path().join("case.tar.sha256");
        let _ = std::fs::remove_file(&side);
        if let Some(s) = sidecar {
            std::fs::write(&side, s).unwrap();
        }
        let out = sqale(&site, &[&"unpack", &case]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{err}");
        for e in expected {
            assert!(err.contains(e), "{expected:?}: {err}");
        }
        assert!(err.contains(&case.display().to_string()), "names the archive: {err}");
        let models = site.join("sqale/models");
        assert!(!models.exists() || common::dir_listing(&models).is_empty(), "nothing installed: {err}");
    };

    // One byte of the GGUF changed.
    let mut flipped = bytes.clone();
    flipped[gguf_at + gguf_len / 2] ^= 0x01;
    std::fs::write(&case, &flipped).unwrap();
    refused(&[format!("{GGUF} is altered: its SHA-256 is").as_str(), "sqale-pack.json says"], None);

    // Cut in the middle of the GGUF, and cut before the manifest.
    std::fs::write(&case, &bytes[..gguf_at + gguf_len / 2]).unwrap();
    refused(&[format!("{GGUF} is truncated ({} of {gguf_len} bytes)", gguf_len / 2).as_str()], None);
    std::fs::write(&case, &bytes[..files[3].3]).unwrap();
    refused(&["has no sqale-pack.json", "truncated"], None);

    // A file left out, a file added, a file appended after the manifest.
    write_tar(&case, &plain(PROMPT));
    refused(&[format!("{PROMPT} is listed in sqale-pack.json but missing").as_str()], None);
    let mut extra = plain("sqale-pack.json");
    extra.push(("model/extra.py".into(), b"print('hi')\n".to_vec()));
    extra.push((files[3].0.clone(), files[3].1.clone()));
    write_tar(&case, &extra);
    refused(&["model/extra.py is not listed in sqale-pack.json"], None);
    let mut appended = plain("");
    appended.push(("model/extra.py".into(), b"print('hi')\n".to_vec()));
    write_tar(&case, &appended);
    refused(&["model/extra.py comes after sqale-pack.json"], None);

    // The manifest changed: a file's SHA-256 in it, or only its text (caught by the archive's
    // SHA-256 beside it).
    let manifest = String::from_utf8(files[3].1.clone()).unwrap();
    let prompt_sha = common::sha256(&copy_prompt());
    let mut edited = plain("");
    edited[3].1 = manifest.replace(&prompt_sha, &"0".repeat(64)).into_bytes();
    assert_ne!(edited[3].1, files[3].1);
    write_tar(&case, &edited);
    let zeros = "0".repeat(64);
    refused(
        &[format!("{PROMPT} is altered: its SHA-256 is {prompt_sha}, sqale-pack.json says {zeros}").as_str()],
        None,
    );
    edited[3].1 = manifest.replace("\"sqale_version\": \"", "\"sqale_version\": \"9").into_bytes();
    write_tar(&case, &edited);
    let original = std::fs::read_to_string(work.path().join("site.tar.sha256")).unwrap();
    refused(&["sqale-pack.json or the tar headers are altered", "case.tar.sha256 says"], Some(&original));

    // Not a tar archive at all.
    std::fs::write(&case, &bytes[gguf_at..gguf_at + 4096]).unwrap();
    refused(&["is damaged or truncated at its start"], None);

    // A binary asked of an archive with none, or for a folder that does not exist: nothing installed.
    for (to, says) in
        [(work.path().to_path_buf(), "holds no sqale binary"), (work.path().join("no/sqale"), "does not exist")]
    {
        let out = sqale(&site, &[&"unpack", &tar, &"--binary", &to]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.code() == Some(2) && err.contains(says) && err.contains("nothing was installed"), "{err}");
        assert!(!site.join(MODEL_DIR).exists(), "{err}");
    }

    // The untouched archive verifies (--check installs nothing).
    let v = ok_json(&sqale(&site, &[&"unpack", &tar, &"--check", &"--json"]));
    assert_eq!(v["installed_in"], Value::Null);
    assert!(!site.join("sqale/models").exists() || common::dir_listing(&site.join("sqale/models")).is_empty());
}
