//! Property-based fuzzing of the binary headers sqale-convert reads: safetensors checkpoints
//! (shards and their index) and GGUF files (the reader beside the writer).
//!
//! Inputs start valid (written by the crate's own GGUF writer, or laid out as real safetensors
//! shards) and are then mutated where it hurts: lengths, counts, offsets, types, truncation.
//! Every property also holds "never panics", and the GGUF reader's allocations are measured:
//! none may exceed a small multiple of the file's size, whatever count the file claims.
//!
//! CI runs the default case counts. A longer campaign:
//! `PROPTEST_CASES=20000 cargo test --release -p sqale-convert --test fuzz_headers`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::Cursor;
use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{json, Value as Json};
use sqale_convert::checkpoint::Checkpoint;
use sqale_convert::gguf::{self, Array, GgmlType, ReadError, TensorInfo, Value};

/// A scratch folder, in memory where the machine has one: the GGUF writer syncs its file, which
/// on a disk costs milliseconds a case.
fn scratch() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::tempdir_in(shm) {
            return d;
        }
    }
    tempfile::tempdir().unwrap()
}

fn config(default: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    Config { cases, failure_persistence: None, max_shrink_iters: 2048, ..Config::default() }
}

// ------------------------------------------------------------------------------------------
// Allocation measurement (per thread: the test harness runs tests on several threads)
// ------------------------------------------------------------------------------------------

struct Tracking;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Tracking = Tracking;

/// Runs `f`, returning its result and the largest single allocation it made.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|l| l.set(0));
    let out = f();
    (out, LARGEST.with(|l| l.get()))
}

// ------------------------------------------------------------------------------------------
// GGUF
// ------------------------------------------------------------------------------------------

/// What llama.cpp's own GGUF reader (`gguf_init_from_file`, no data) makes of a file: tensor
/// count, key count, alignment, data offset, and each tensor's name, type, offset and size.
#[derive(Debug, PartialEq)]
struct LlamaView {
    n_kv: i64,
    alignment: u64,
    data_offset: u64,
    tensors: Vec<(String, u32, u64, u64)>,
}

fn llama_reads(path: &Path) -> Option<LlamaView> {
    use llama_cpp_sys_2 as sys;
    use std::ffi::{CStr, CString};
    unsafe extern "C" fn quiet(_: sys::ggml_log_level, _: *const std::os::raw::c_char, _: *mut std::ffi::c_void) {}
    let c = CString::new(path.to_str()?).ok()?;
    // SAFETY: plain C calls on a path string and the context they return, freed once.
    unsafe {
        sys::ggml_log_set(Some(quiet), std::ptr::null_mut());
        let ctx =
            sys::gguf_init_from_file(c.as_ptr(), sys::gguf_init_params { no_alloc: true, ctx: std::ptr::null_mut() });
        if ctx.is_null() {
            return None;
        }
        let tensors = (0..sys::gguf_get_n_tensors(ctx))
            .map(|i| {
                (
                    CStr::from_ptr(sys::gguf_get_tensor_name(ctx, i)).to_string_lossy().into_owned(),
                    sys::gguf_get_tensor_type(ctx, i),
                    sys::gguf_get_tensor_offset(ctx, i) as u64,
                    sys::gguf_get_tensor_size(ctx, i) as u64,
                )
            })
            .collect();
        let view = LlamaView {
            n_kv: sys::gguf_get_n_kv(ctx),
            alignment: sys::gguf_get_alignment(ctx) as u64,
            data_offset: sys::gguf_get_data_offset(ctx) as u64,
            tensors,
        };
        sys::gguf_free(ctx);
        Some(view)
    }
}

fn our_view(h: &gguf::GgufHeader) -> LlamaView {
    LlamaView {
        n_kv: h.metadata.len() as i64,
        alignment: h.alignment,
        data_offset: h.data_offset,
        tensors: h.tensors.iter().map(|t| (t.name.clone(), t.ty, t.offset, t.size)).collect(),
    }
}

fn gguf_string() -> impl Strategy<Value = String> {
    prop_oneof!["[a-z._]{1,12}", "\\PC{0,12}", any::<String>().prop_map(|s| s.chars().take(8).collect())]
}

/// Up to a dozen elements.
fn elements<S: Strategy>(s: S) -> impl Strategy<Value = Vec<S::Value>> {
    prop::collection::vec(s, 0..12)
}

/// A value of any GGUF type (floats of any bit pattern, NaN payloads included).
fn gguf_value() -> impl Strategy<Value = Value> {
    let f32_ = || any::<u32>().prop_map(f32::from_bits);
    let f64_ = || any::<u64>().prop_map(f64::from_bits);
    let array = prop_oneof![
        elements(any::<u8>()).prop_map(Array::U8),
        elements(any::<i8>()).prop_map(Array::I8),
        elements(any::<u16>()).prop_map(Array::U16),
        elements(any::<i16>()).prop_map(Array::I16),
        elements(any::<u32>()).prop_map(Array::U32),
        elements(any::<i32>()).prop_map(Array::I32),
        elements(f32_()).prop_map(Array::F32),
        elements(any::<bool>()).prop_map(Array::Bool),
        elements(gguf_string()).prop_map(Array::Str),
        elements(any::<u64>()).prop_map(Array::U64),
        elements(any::<i64>()).prop_map(Array::I64),
        elements(f64_()).prop_map(Array::F64),
    ];
    prop_oneof![
        any::<u8>().prop_map(Value::U8),
        any::<i8>().prop_map(Value::I8),
        any::<u16>().prop_map(Value::U16),
        any::<i16>().prop_map(Value::I16),
        any::<u32>().prop_map(Value::U32),
        any::<i32>().prop_map(Value::I32),
        f32_().prop_map(Value::F32),
        any::<bool>().prop_map(Value::Bool),
        gguf_string().prop_map(Value::Str),
        any::<u64>().prop_map(Value::U64),
        any::<i64>().prop_map(Value::I64),
        f64_().prop_map(Value::F64),
        array.prop_map(Value::Array),
    ]
}

/// Metadata with unique keys (the writer refuses duplicates, as llama.cpp does).
fn gguf_metadata() -> impl Strategy<Value = Vec<(String, Value)>> {
    prop::collection::btree_map("[a-z]{1,8}(\\.[a-z_0-9]{1,8}){0,2}", gguf_value(), 0..8)
        .prop_map(|m| m.into_iter().collect())
}

fn gguf_tensors() -> impl Strategy<Value = Vec<TensorInfo>> {
    let ty = prop::sample::select(vec![GgmlType::F32, GgmlType::F16, GgmlType::Bf16]);
    prop::collection::btree_map("[a-z]{1,6}(\\.[a-z0-9_]{1,12}){0,3}", (prop::collection::vec(0u64..7, 0..5), ty), 0..6)
        .prop_map(|m| m.into_iter().map(|(name, (ne, ty))| TensorInfo { name, ne, ty }).collect())
}

/// Writes a GGUF with the crate's writer (tensor `i`'s bytes are all `i`); returns its bytes.
fn write_gguf(dir: &Path, metadata: &[(String, Value)], tensors: &[TensorInfo]) -> Result<Vec<u8>, String> {
    let path = dir.join("m.gguf");
    gguf::write(&path, metadata, tensors, |i, w| w.write_all(&vec![i as u8; tensors[i].bytes() as usize]), |_| {})
        .map_err(|e| e.to_string())?;
    Ok(std::fs::read(&path).unwrap())
}

/// Equality with floats compared bit for bit (NaN payloads included).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), Value::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::Array(Array::F32(x)), Value::Array(Array::F32(y))) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        (Value::Array(Array::F64(x)), Value::Array(Array::F64(y))) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits())
        }
        _ => a == b,
    }
}

/// What holds of any header the reader accepts.
fn check_header(h: &gguf::GgufHeader) -> Result<(), TestCaseError> {
    prop_assert!(h.alignment.is_power_of_two());
    prop_assert!(h.data_offset <= h.file_size);
    if !h.tensors.is_empty() {
        prop_assert_eq!(h.data_offset % h.alignment, 0);
    }
    let mut names = std::collections::HashSet::new();
    for t in &h.tensors {
        prop_assert!(names.insert(&t.name), "duplicate tensor {}", t.name);
        prop_assert!(t.name.len() < gguf::MAX_NAME);
        prop_assert!(t.ne.len() <= gguf::MAX_DIMS);
        let layout = gguf::type_layout(t.ty).expect("known type");
        prop_assert_eq!(t.size, t.elements() / layout.block_elems * layout.block_bytes);
        prop_assert_eq!(t.offset % h.alignment, 0);
        prop_assert!(h.data_offset + t.offset + t.size <= h.file_size, "tensor {} past the end", t.name);
    }
    Ok(())
}

/// Reads `bytes` as a GGUF file of `stated` bytes: never a panic, never an allocation larger than
/// a small multiple of the file; what it accepts is consistent.
fn read_checked(bytes: &[u8], stated: u64) -> Result<Result<gguf::GgufHeader, ReadError>, TestCaseError> {
    let (out, largest) = largest_allocation(|| gguf::read_header_from(Cursor::new(bytes), stated));
    let bound = 16 * bytes.len() + (64 << 10);
    prop_assert!(largest <= bound, "allocated {} bytes reading a {}-byte file", largest, bytes.len());
    match &out {
        Ok(h) => check_header(h)?,
        Err(e) => prop_assert!(!e.to_string().is_empty()),
    }
    Ok(out)
}

/// Values that break lengths, counts, offsets and types.
fn hostile_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        prop::sample::select(vec![
            0,
            1,
            2,
            3,
            4,
            31,
            32,
            33,
            63,
            64,
            1 << 31,
            1 << 32,
            1 << 60,
            i64::MAX as u64,
            i64::MAX as u64 + 1,
            u64::MAX - 7,
            u64::MAX
        ]),
        any::<u64>(),
        0u64..4096,
    ]
}

fn hostile_u32() -> impl Strategy<Value = u32> {
    prop_oneof![
        prop::sample::select(vec![
            0,
            1,
            2,
            3,
            4,
            5,
            6,
            7,
            8,
            9,
            10,
            11,
            12,
            13,
            30,
            31,
            39,
            42,
            43,
            255,
            0x0300_0000,
            u32::MAX
        ]),
        any::<u32>(),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip(prop::sample::Index, u8),
    PutU64(prop::sample::Index, u64),
    PutU32(prop::sample::Index, u32),
    Truncate(prop::sample::Index),
    Delete(prop::sample::Index, usize),
    Insert(prop::sample::Index, Vec<u8>),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<prop::sample::Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<prop::sample::Index>(), hostile_u64()).prop_map(|(i, v)| Mutation::PutU64(i, v)),
        (any::<prop::sample::Index>(), hostile_u32()).prop_map(|(i, v)| Mutation::PutU32(i, v)),
        any::<prop::sample::Index>().prop_map(Mutation::Truncate),
        (any::<prop::sample::Index>(), 1usize..16).prop_map(|(i, n)| Mutation::Delete(i, n)),
        (any::<prop::sample::Index>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(i, b)| Mutation::Insert(i, b)),
    ]
}

/// Applies `m`. Positions favour the header (the first few hundred bytes), where every byte
/// means something.
fn apply(bytes: &mut Vec<u8>, m: &Mutation) {
    let pos = |i: &prop::sample::Index, n: usize| {
        let head = n.min(512);
        let k = i.index(2 * head + 1);
        if k < head {
            k
        } else {
            i.index(n.max(1))
        }
    };
    let n = bytes.len();
    match m {
        Mutation::Flip(i, b) if n > 0 => {
            let p = pos(i, n);
            bytes[p.min(n - 1)] ^= b | 1;
        }
        Mutation::PutU64(i, v) if n >= 8 => {
            let p = pos(i, n).min(n - 8);
            bytes[p..p + 8].copy_from_slice(&v.to_le_bytes());
        }
        Mutation::PutU32(i, v) if n >= 4 => {
            let p = pos(i, n).min(n - 4);
            bytes[p..p + 4].copy_from_slice(&v.to_le_bytes());
        }
        Mutation::Truncate(i) => bytes.truncate(pos(i, n)),
        Mutation::Delete(i, k) => {
            let p = pos(i, n).min(n);
            bytes.drain(p..(p + k).min(n));
        }
        Mutation::Insert(i, b) => {
            let p = pos(i, n).min(n);
            bytes.splice(p..p, b.iter().copied());
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(config(2000))]

    /// What the writer writes, the reader reads back: version, every metadata value (floats
    /// bit for bit), every tensor's name, shape, type, size and offset, the data inside the file.
    #[test]
    fn gguf_round_trip(metadata in gguf_metadata(), tensors in gguf_tensors()) {
        let dir = scratch();
        let bytes = write_gguf(dir.path(), &metadata, &tensors).unwrap();
        let h = gguf::read_header(&dir.path().join("m.gguf")).unwrap();
        check_header(&h)?;
        prop_assert_eq!(h.version, 3);
        prop_assert_eq!(h.file_size, bytes.len() as u64);
        prop_assert_eq!(h.alignment, gguf::ALIGNMENT);
        prop_assert_eq!(h.metadata.len(), metadata.len());
        for ((k, v), (rk, rv)) in metadata.iter().zip(&h.metadata) {
            prop_assert_eq!(k, rk);
            prop_assert!(same(v, rv), "{}: wrote {:?}, read {:?}", k, v, rv);
        }
        prop_assert_eq!(h.tensors.len(), tensors.len());
        for (i, (t, r)) in tensors.iter().zip(&h.tensors).enumerate() {
            prop_assert_eq!(&t.name, &r.name);
            prop_assert_eq!(&t.ne, &r.ne);
            prop_assert_eq!(t.ty.id(), r.ty);
            prop_assert_eq!(t.bytes(), r.size);
            let at = (h.data_offset + r.offset) as usize;
            prop_assert!(bytes[at..at + r.size as usize].iter().all(|&b| b == i as u8), "tensor {} data", i);
        }
        // llama.cpp reads the same header.
        prop_assert_eq!(llama_reads(&dir.path().join("m.gguf")), Some(our_view(&h)));
        // The stream reader agrees with the file reader.
        let from_stream = read_checked(&bytes, bytes.len() as u64)?.unwrap();
        prop_assert_eq!(format!("{from_stream:?}"), format!("{h:?}"));
    }

    /// The writer refuses what llama.cpp (and the reader) would refuse: long or duplicate
    /// names, too many dimensions, empty or duplicate keys; whatever it writes reads back.
    #[test]
    fn gguf_writer_and_reader_agree(
        keys in prop::collection::vec("[a-z]{0,2}", 0..4),
        names in prop::collection::vec(prop_oneof!["[a-z]{1,2}", "[a-zé]{60,70}"], 0..4),
        dims in prop::collection::vec(prop::collection::vec(0u64..3, 0..7), 4),
    ) {
        let metadata: Vec<(String, Value)> = keys.into_iter().map(|k| (k, Value::U32(1))).collect();
        let tensors: Vec<TensorInfo> = names.into_iter().zip(dims).map(|(name, ne)| TensorInfo { name, ne, ty: GgmlType::F16 }).collect();
        let dir = scratch();
        match write_gguf(dir.path(), &metadata, &tensors) {
            Ok(bytes) => { read_checked(&bytes, bytes.len() as u64)?.unwrap(); }
            Err(e) => {
                prop_assert!(e.contains("invalid"), "{}", e);
                prop_assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "a refused plan leaves no file");
            }
        }
    }

    /// Valid files mutated where it hurts (hostile counts, lengths, types, offsets; flipped,
    /// inserted and deleted bytes; truncation): an error or a consistent header, never a panic,
    /// never a large allocation.
    #[test]
    fn gguf_mutated(
        metadata in gguf_metadata(),
        tensors in gguf_tensors(),
        mutations in prop::collection::vec(mutation(), 1..5),
        stated_extra in prop_oneof![8 => Just(0u64), 1 => 1u64..64, 1 => Just(1u64 << 40)],
        via_file in prop::bool::weighted(0.1),
    ) {
        let dir = scratch();
        let mut bytes = write_gguf(dir.path(), &metadata, &tensors).unwrap();
        for m in &mutations {
            apply(&mut bytes, m);
        }
        // A stated size past the real one: the stream ends early, which must be an error too.
        let stated = bytes.len() as u64 + stated_extra;
        let out = read_checked(&bytes, stated)?;
        if stated_extra > 0 {
            // Only the data may be missing for it to succeed.
            if let Ok(h) = &out {
                prop_assert!(h.tensors.iter().all(|t| h.data_offset + t.offset + t.size <= stated));
            }
        }
        if via_file {
            let path = dir.path().join("mutated.gguf");
            std::fs::write(&path, &bytes).unwrap();
            match gguf::read_header(&path) {
                Ok(h) => {
                    check_header(&h)?;
                    // Never accept what llama.cpp refuses, and read what it reads.
                    prop_assert_eq!(llama_reads(&path), Some(our_view(&h)));
                }
                Err(e) => prop_assert!(e.to_string().contains("mutated.gguf"), "{}", e),
            }
        }
    }

    /// Random bytes after a valid magic and version.
    #[test]
    fn gguf_random_after_magic(version in prop_oneof![Just(3u32), Just(2u32), any::<u32>()], rest in prop::collection::vec(any::<u8>(), 0..256)) {
        let mut bytes = b"GGUF".to_vec();
        bytes.extend_from_slice(&version.to_le_bytes());
        bytes.extend_from_slice(&rest);
        let _ = read_checked(&bytes, bytes.len() as u64)?;
    }
}

/// Real GGUF files (quantised models, vocabularies): read, and read as llama.cpp reads them.
/// Files: `SQALE_REAL_GGUF` (paths separated by `:`), and any `*.gguf` in `models/test/`.
#[test]
fn gguf_reader_agrees_with_llama_cpp_on_real_files() {
    let mut files: Vec<std::path::PathBuf> = std::env::var("SQALE_REAL_GGUF")
        .map(|v| v.split(':').filter(|s| !s.is_empty()).map(Into::into).collect())
        .unwrap_or_default();
    let test_models = Path::new(env!("CARGO_MANIFEST_DIR")).join("../models/test");
    if let Ok(dir) = std::fs::read_dir(&test_models) {
        files.extend(
            dir.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "gguf")),
        );
    }
    if files.is_empty() {
        eprintln!("no real GGUF files (set SQALE_REAL_GGUF or put one in models/test/): nothing to compare");
    }
    for f in files {
        let h = gguf::read_header(&f).unwrap_or_else(|e| panic!("{e}"));
        check_header(&h).unwrap();
        assert_eq!(llama_reads(&f), Some(our_view(&h)), "{}", f.display());
        eprintln!("{}: {} keys, {} tensors, as llama.cpp reads it", f.display(), h.metadata.len(), h.tensors.len());
    }
}

/// Found by the llama.cpp differential in `gguf_mutated`: a tensor name with a NUL byte was
/// read whole, while llama.cpp (C strings) reads it cut at the NUL, i.e. as another name. Names
/// and keys with NUL bytes are refused, by the reader and by the writer.
#[test]
fn gguf_names_with_nul_bytes_are_refused() {
    let dir = scratch();
    let t = |name: &str| TensorInfo { name: name.into(), ne: vec![1], ty: GgmlType::F32 };
    let good = write_gguf(dir.path(), &[("k".into(), Value::Bool(true))], &[t("a"), t("b")]).unwrap();
    let read = |b: &[u8]| gguf::read_header_from(Cursor::new(b), b.len() as u64);
    let at = good.windows(9).position(|w| w == [1, 0, 0, 0, 0, 0, 0, 0, b'b']).unwrap() + 8;
    let mut v = good.clone();
    v[at] = 0;
    let e = read(&v).unwrap_err().to_string();
    assert!(e.contains("tensor name \"\\0\" contains a NUL byte"), "{e}");
    let k = good.windows(9).position(|w| w == [1, 0, 0, 0, 0, 0, 0, 0, b'k']).unwrap() + 8;
    let mut v = good.clone();
    v[k] = 0;
    assert!(read(&v).unwrap_err().to_string().contains("contains a NUL byte"));
    assert!(write_gguf(dir.path(), &[], &[t("a\0b")]).unwrap_err().contains("NUL byte"));
    assert!(write_gguf(dir.path(), &[("a\0".into(), Value::Bool(true))], &[]).unwrap_err().contains("NUL byte"));
}

/// A header with the given counts and nothing else.
fn gguf_with_counts(tensors: u64, kvs: u64) -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(&3u32.to_le_bytes());
    b.extend_from_slice(&tensors.to_le_bytes());
    b.extend_from_slice(&kvs.to_le_bytes());
    b
}

/// A hostile count (2^60 tensors, 2^60 keys, a 2^60-byte string, a 2^60-element array) is an
/// error naming it, found before anything is allocated for it.
#[test]
fn gguf_hostile_counts_do_not_allocate() {
    let huge = 1u64 << 60;
    let mut cases = vec![gguf_with_counts(huge, 0), gguf_with_counts(0, huge)];
    // One key whose name claims 2^60 bytes.
    let mut b = gguf_with_counts(0, 1);
    b.extend_from_slice(&huge.to_le_bytes());
    b.extend_from_slice(&[b'k'; 64]);
    cases.push(b);
    // One string value of 2^60 bytes; one array of 2^60 u32; one of 2^60 strings.
    for (ty, elem) in [(8u32, None), (9, Some(4u32)), (9, Some(8))] {
        let mut b = gguf_with_counts(0, 1);
        b.extend_from_slice(&1u64.to_le_bytes());
        b.push(b'k');
        b.extend_from_slice(&ty.to_le_bytes());
        if let Some(e) = elem {
            b.extend_from_slice(&e.to_le_bytes());
        }
        b.extend_from_slice(&huge.to_le_bytes());
        b.extend_from_slice(&[0u8; 64]);
        cases.push(b);
    }
    for bytes in cases {
        let (out, largest) = largest_allocation(|| gguf::read_header_from(Cursor::new(&bytes), bytes.len() as u64));
        let e = out.unwrap_err();
        assert!(largest < 4096, "allocated {largest} bytes for {e}");
        assert!(e.to_string().contains(&huge.to_string()), "{e}");
    }
}

/// Each check llama.cpp makes has a clear message.
#[test]
fn gguf_errors_name_the_problem() {
    let dir = scratch();
    let t = |name: &str, ne: Vec<u64>| TensorInfo { name: name.into(), ne, ty: GgmlType::F32 };
    let good = write_gguf(
        dir.path(),
        &[("general.architecture".into(), Value::Str("qwen35".into()))],
        &[t("a", vec![4, 2]), t("b", vec![3])],
    )
    .unwrap();
    let read = |b: &[u8]| gguf::read_header_from(Cursor::new(b), b.len() as u64);
    let h = read(&good).unwrap();
    assert_eq!(h.architecture(), Some("qwen35"));
    assert_eq!(h.tensor("b").unwrap().ne, vec![3]);
    assert_eq!(h.tensor("a").unwrap().type_name(), "f32");

    let err = |b: &[u8]| read(b).unwrap_err().to_string();
    assert!(err(b"GGML").contains("magic"));
    assert!(err(&good[..30]).contains("truncated"));
    let mut v = good.clone();
    v[4..8].copy_from_slice(&0x0300_0000u32.to_le_bytes());
    assert!(err(&v).contains("big-endian"));
    v[4..8].copy_from_slice(&1u32.to_le_bytes());
    assert!(err(&v).contains("version 1"));
    let mut v = good.clone();
    v[4..8].copy_from_slice(&2u32.to_le_bytes());
    assert_eq!(read(&v).unwrap().version, 2);

    let b = h.tensor("b").unwrap();
    assert!(err(&good[..(h.data_offset + b.offset + b.size - 1) as usize]).contains("past the end of the file"));
    // The fields of tensor "b" follow its name.
    let name_at = |b: &[u8], name: &[u8]| {
        let mut key = (name.len() as u64).to_le_bytes().to_vec();
        key.extend_from_slice(name);
        b.windows(key.len()).position(|w| w == key).unwrap() + key.len()
    };
    let b_at = name_at(&good, b"b");
    // n_dims (4) · ne[0] (8) · type (4) · offset (8)
    let mut v = good.clone();
    v[b_at..b_at + 4].copy_from_slice(&5u32.to_le_bytes());
    assert!(err(&v).contains("5 dimensions"), "{}", err(&v));
    let mut v = good.clone();
    v[b_at + 12..b_at + 16].copy_from_slice(&4u32.to_le_bytes());
    assert!(err(&v).contains("unknown or unsupported ggml type 4"), "{}", err(&v));
    let mut v = good.clone();
    v[b_at + 12..b_at + 16].copy_from_slice(&12u32.to_le_bytes());
    assert!(err(&v).contains("block size 256"), "{}", err(&v));
    let mut v = good.clone();
    v[b_at + 16..b_at + 24].copy_from_slice(&64u64.to_le_bytes());
    assert!(err(&v).contains("llama.cpp expects 32"), "{}", err(&v));
    let mut v = good.clone();
    v[b_at + 4..b_at + 12].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(err(&v).contains("negative dimension"), "{}", err(&v));

    // Duplicate keys and tensor names, alignment, bools, nested arrays: hand-made headers.
    let kv = |key: &str, ty: u32, value: &[u8]| {
        let mut b = (key.len() as u64).to_le_bytes().to_vec();
        b.extend_from_slice(key.as_bytes());
        b.extend_from_slice(&ty.to_le_bytes());
        b.extend_from_slice(value);
        b
    };
    let with_kvs = |kvs: &[Vec<u8>]| {
        let mut b = gguf_with_counts(0, kvs.len() as u64);
        kvs.iter().for_each(|k| b.extend_from_slice(k));
        b
    };
    assert!(err(&with_kvs(&[kv("a", 7, &[1]), kv("a", 7, &[0])])).contains("appears twice"));
    assert!(err(&with_kvs(&[kv("", 8, &[[4u8, 0, 0, 0, 0, 0, 0, 0].as_slice(), b"abcd"].concat())])).contains("empty"));
    assert!(err(&with_kvs(&[kv("b", 7, &[2])])).contains("must be 0 or 1"));
    assert!(err(&with_kvs(&[kv("general.alignment", 4, &48u32.to_le_bytes())])).contains("power of two"));
    assert!(err(&with_kvs(&[kv("general.alignment", 10, &64u64.to_le_bytes())])).contains("must be a u32"));
    assert!(err(&with_kvs(&[kv("n", 9, &[9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])])).contains("array of arrays"));
    assert!(err(&with_kvs(&[kv("s", 8, &[1, 0, 0, 0, 0, 0, 0, 0, 0xff])])).contains("not UTF-8"));
    assert!(err(&with_kvs(&[kv("t", 13, &[0])])).contains("unknown GGUF type 13"));
    let all = with_kvs(&[
        kv("u8", 0, &[7]),
        kv("i8", 1, &[0xff]),
        kv("u16", 2, &[1, 2]),
        kv("i16", 3, &[0xfe, 0xff]),
        kv("u64", 10, &u64::MAX.to_le_bytes()),
        kv("i64", 11, &(-5i64).to_le_bytes()),
        kv("f64", 12, &1.5f64.to_le_bytes()),
        kv("a", 9, &[[0u8, 0, 0, 0].as_slice(), &2u64.to_le_bytes(), &[1, 2]].concat()),
        kv("general.alignment", 4, &64u32.to_le_bytes()),
    ]);
    let h = read(&all).unwrap();
    assert_eq!(h.get("u8"), Some(&Value::U8(7)));
    assert_eq!(h.get("i8"), Some(&Value::I8(-1)));
    assert_eq!(h.get("u16"), Some(&Value::U16(0x0201)));
    assert_eq!(h.get("i16"), Some(&Value::I16(-2)));
    assert_eq!(h.get("u64").and_then(Value::as_u64), Some(u64::MAX));
    assert_eq!(h.get("i64"), Some(&Value::I64(-5)));
    assert_eq!(h.get("f64"), Some(&Value::F64(1.5)));
    assert_eq!(h.get("a").and_then(Value::as_array), Some(&Array::U8(vec![1, 2])));
    assert_eq!(h.alignment, 64);

    let e = gguf::read_header(&dir.path().join("absent.gguf")).unwrap_err();
    assert!(matches!(e, ReadError::Io { .. }) && e.to_string().contains("absent.gguf"), "{e}");
}

// ------------------------------------------------------------------------------------------
// Safetensors checkpoints
// ------------------------------------------------------------------------------------------

const DTYPES: &[(&str, usize)] =
    &[("F32", 32), ("F16", 16), ("BF16", 16), ("U8", 8), ("I64", 64), ("BOOL", 8), ("F8_E4M3", 8), ("F4", 4)];

/// One shard's tensors: name, dtype, shape (laid out in order, data_offsets computed).
fn shard_tensors() -> impl Strategy<Value = Vec<(String, usize, Vec<u64>)>> {
    prop::collection::btree_map(
        "[a-z]{1,4}(\\.[a-z0-9]{1,4}){0,2}",
        (0..DTYPES.len(), prop::collection::vec(0u64..5, 0..4)),
        0..5,
    )
    .prop_map(|m| m.into_iter().map(|(n, (d, s))| (n, d, s)).collect())
}

/// The header of a valid shard, and its data length.
fn shard_header(tensors: &[(String, usize, Vec<u64>)]) -> (serde_json::Map<String, Json>, u64) {
    let mut map = serde_json::Map::new();
    let mut at = 0u64;
    for (name, d, shape) in tensors {
        let (dtype, bits) = DTYPES[*d];
        let mut shape = shape.clone();
        let elements: u64 = shape.iter().product();
        if !(elements * bits as u64).is_multiple_of(8) {
            shape.push(2); // F4 needs an even count
        }
        let bytes = shape.iter().product::<u64>() * bits as u64 / 8;
        map.insert(name.clone(), json!({"dtype": dtype, "shape": shape, "data_offsets": [at, at + bytes]}));
        at += bytes;
    }
    map.insert("__metadata__".into(), json!({"format": "pt"}));
    (map, at)
}

/// Mutations of a header's JSON.
#[derive(Debug, Clone)]
enum JsonMutation {
    Dtype(prop::sample::Index, Json),
    Shape(prop::sample::Index, Json),
    Offsets(prop::sample::Index, Json),
    Remove(prop::sample::Index, &'static str),
    Metadata(Json),
    Junk(Json),
}

fn json_mutation() -> impl Strategy<Value = JsonMutation> {
    prop_oneof![
        (
            any::<prop::sample::Index>(),
            prop::sample::select(vec![
                json!("F64"),
                json!("Q4"),
                json!(""),
                json!(3),
                json!(null),
                json!("bf16"),
                json!("F6_E2M3"),
                json!("C64")
            ])
        )
            .prop_map(|(i, v)| JsonMutation::Dtype(i, v)),
        (
            any::<prop::sample::Index>(),
            prop_oneof![
                prop::collection::vec(hostile_u64(), 0..4).prop_map(|v| json!(v)),
                Just(json!([-1])),
                Just(json!([1.5])),
                Just(json!("2")),
                Just(json!([[2]])),
            ]
        )
            .prop_map(|(i, v)| JsonMutation::Shape(i, v)),
        (
            any::<prop::sample::Index>(),
            prop_oneof![
                (hostile_u64(), hostile_u64()).prop_map(|(a, b)| json!([a, b])),
                (0u64..64, 0u64..64).prop_map(|(a, b)| json!([a, b])),
                Just(json!([0])),
                Just(json!([0, 1, 2])),
                Just(json!([-1, 0])),
                Just(json!(null)),
                Just(json!([0, u64::MAX])),
                Just(json!([u64::MAX - 7, u64::MAX])),
            ]
        )
            .prop_map(|(i, v)| JsonMutation::Offsets(i, v)),
        (any::<prop::sample::Index>(), prop::sample::select(vec!["dtype", "shape", "data_offsets"]))
            .prop_map(|(i, k)| JsonMutation::Remove(i, k)),
        prop::sample::select(vec![json!({"a": 1}), json!([1]), json!(null), json!({"a": {"b": "c"}}), json!("x")])
            .prop_map(JsonMutation::Metadata),
        prop::sample::select(vec![json!(1), json!("x"), json!({"dtype": "F32"}), json!([]), json!({})])
            .prop_map(JsonMutation::Junk),
    ]
}

fn mutate_json(map: &mut serde_json::Map<String, Json>, m: &JsonMutation) {
    let names: Vec<String> =
        map.iter().filter(|(k, v)| *k != "__metadata__" && v.is_object()).map(|(k, _)| k.clone()).collect();
    let pick = |i: &prop::sample::Index| (!names.is_empty()).then(|| names[i.index(names.len())].clone());
    match m {
        JsonMutation::Dtype(i, v) | JsonMutation::Shape(i, v) | JsonMutation::Offsets(i, v) => {
            let key = match m {
                JsonMutation::Dtype(..) => "dtype",
                JsonMutation::Shape(..) => "shape",
                _ => "data_offsets",
            };
            if let Some(n) = pick(i) {
                map[&n][key] = v.clone();
            }
        }
        JsonMutation::Remove(i, key) => {
            if let Some(n) = pick(i) {
                map[&n].as_object_mut().unwrap().remove(*key);
            }
        }
        JsonMutation::Metadata(v) => {
            map.insert("__metadata__".into(), v.clone());
        }
        JsonMutation::Junk(v) => {
            map.insert("junk".into(), v.clone());
        }
    }
}

/// How a shard file is assembled from its header and data.
#[derive(Debug, Clone)]
struct Framing {
    /// Added to the true header length in the 8-byte prefix (wrapping).
    length_delta: u64,
    /// Spaces after the JSON (inside the stated header length), as real writers pad.
    padding: usize,
    /// Bytes removed from (negative) or added to (positive) the data.
    data_delta: i64,
}

fn framing() -> impl Strategy<Value = Framing> {
    (
        prop_oneof![6 => Just(0u64), 1 => prop::sample::select(vec![1, u64::MAX, 8, u64::MAX - 7, 1 << 40, 1 << 63])],
        0usize..9,
        prop_oneof![6 => Just(0i64), 2 => -16i64..16],
    )
        .prop_map(|(length_delta, padding, data_delta)| Framing { length_delta, padding, data_delta })
}

fn shard_bytes(header: &serde_json::Map<String, Json>, data_len: u64, f: &Framing) -> Vec<u8> {
    let mut json = serde_json::to_vec(header).unwrap();
    json.extend(std::iter::repeat_n(b' ', f.padding));
    let mut out = (json.len() as u64).wrapping_add(f.length_delta).to_le_bytes().to_vec();
    out.extend_from_slice(&json);
    let data_len = (data_len as i64 + f.data_delta).max(0) as usize;
    out.extend((0..data_len).map(|i| i as u8));
    out
}

/// How the index names the shards.
#[derive(Debug, Clone)]
enum Index {
    None,
    Valid,
    /// A weight_map entry replaced by this.
    Entry(Json),
    /// The whole index replaced by this text.
    Text(&'static str),
}

fn index() -> impl Strategy<Value = Index> {
    prop_oneof![
        3 => Just(Index::None),
        3 => Just(Index::Valid),
        2 => prop::sample::select(vec![
            json!("absent.safetensors"), json!(""), json!("."), json!(".."), json!(3), json!(null), json!("../outside.safetensors"),
            json!("config.json"), json!("/dev/null"), json!("shard-0.safetensors/x"),
        ]).prop_map(Index::Entry),
        1 => prop::sample::select(vec!["", "{", "[]", "{\"weight_map\": 3}", "{\"weight_map\": []}", "{\"weight_map\": {}}", "null"]).prop_map(Index::Text),
    ]
}

/// A shard's tensors as `(name, dtype index, shape)`, its header mutations and its framing.
type ShardCase = (Vec<(String, usize, Vec<u64>)>, Vec<JsonMutation>, Framing);

#[derive(Debug, Clone)]
struct CheckpointCase {
    shards: Vec<ShardCase>,
    index: Index,
    byte_mutations: Vec<Mutation>,
}

fn checkpoint_case() -> impl Strategy<Value = CheckpointCase> {
    (
        prop::collection::vec((shard_tensors(), prop::collection::vec(json_mutation(), 0..3), framing()), 1..4),
        index(),
        prop_oneof![4 => Just(vec![]), 1 => prop::collection::vec(mutation(), 1..3)],
    )
        .prop_map(|(shards, index, byte_mutations)| CheckpointCase { shards, index, byte_mutations })
}

/// Lays the case out as a checkpoint folder; returns whether every shard is untouched.
fn lay_out(dir: &Path, case: &CheckpointCase) -> bool {
    std::fs::write(dir.join("config.json"), r#"{"architectures": ["Qwen3_5ForCausalLM"]}"#).unwrap();
    std::fs::write(dir.join("tokenizer.json"), "{}").unwrap();
    let mut pristine = case.byte_mutations.is_empty();
    let mut weight_map = serde_json::Map::new();
    for (k, (tensors, mutations, framing)) in case.shards.iter().enumerate() {
        let (mut header, data_len) = shard_header(tensors);
        for m in mutations {
            mutate_json(&mut header, m);
        }
        pristine &= mutations.is_empty() && framing.length_delta == 0 && framing.data_delta == 0;
        let mut bytes = shard_bytes(&header, data_len, framing);
        if k == 0 {
            for m in &case.byte_mutations {
                apply(&mut bytes, m);
            }
        }
        let file = format!("shard-{k}.safetensors");
        std::fs::write(dir.join(&file), bytes).unwrap();
        for (name, _, _) in tensors {
            weight_map.insert(name.clone(), json!(file));
        }
    }
    match &case.index {
        Index::None => {}
        Index::Valid => {
            std::fs::write(dir.join("model.safetensors.index.json"), json!({"weight_map": weight_map}).to_string())
                .unwrap()
        }
        Index::Entry(v) => {
            weight_map.insert("extra.weight".into(), v.clone());
            std::fs::write(dir.join("model.safetensors.index.json"), json!({"weight_map": weight_map}).to_string())
                .unwrap();
        }
        Index::Text(t) => std::fs::write(dir.join("model.safetensors.index.json"), t).unwrap(),
    }
    pristine
}

proptest! {
    #![proptest_config(config(2000))]

    /// Checkpoints with valid and damaged shards (header JSON mutated: dtypes, shapes, offsets
    /// out of range, overlapping, huge; wrong length prefixes; truncated or extended data;
    /// flipped bytes) and damaged indexes: an error with a message, or a checkpoint whose every
    /// tensor's bytes lie inside its shard and match its shape; never a panic.
    #[test]
    fn safetensors_checkpoints(case in checkpoint_case()) {
        let dir = scratch();
        let pristine = lay_out(dir.path(), &case);
        let names: std::collections::BTreeSet<&String> = case.shards.iter().flat_map(|s| s.0.iter().map(|t| &t.0)).collect();
        let distinct = names.len() == case.shards.iter().map(|s| s.0.len()).sum::<usize>();
        match Checkpoint::open(dir.path()) {
            Ok(ck) => {
                for t in ck.tensors.values() {
                    let bytes = ck.bytes(t);
                    prop_assert_eq!(bytes.len(), t.elements() * t.dtype.bitsize() / 8, "{}", t.name);
                    ck.release(t);
                }
            }
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(!msg.is_empty());
                // A valid checkpoint with a valid (or no) index opens.
                let index_ok = matches!(case.index, Index::None | Index::Valid);
                prop_assert!(!(pristine && distinct && index_ok), "a valid checkpoint was refused: {}", msg);
            }
        }
    }
}

/// Offsets near 2^64 made the safetensors crate's own size check overflow (a panic in a debug
/// build: `buffer_end + N_LEN + n`); they are refused first, naming the tensor.
#[test]
fn safetensors_offsets_near_2_pow_64_are_refused_by_name() {
    let dir = scratch();
    std::fs::write(dir.path().join("config.json"), r#"{"architectures": ["X"]}"#).unwrap();
    std::fs::write(dir.path().join("tokenizer.json"), "{}").unwrap();
    // Eight U8 tensors of 2^61 - 1 bytes each bring the end to 2^64 - 8; the ninth past it.
    let step = (1u64 << 61) - 1;
    let mut header = serde_json::Map::new();
    for k in 0..8u64 {
        header.insert(
            format!("t{k}"),
            json!({"dtype": "U8", "shape": [step], "data_offsets": [k * step, (k + 1) * step]}),
        );
    }
    header.insert("t8".into(), json!({"dtype": "U8", "shape": [7], "data_offsets": [8 * step, 8 * step + 7]}));
    let bytes = shard_bytes(&header, 0, &Framing { length_delta: 0, padding: 0, data_delta: 0 });
    std::fs::write(dir.path().join("model.safetensors"), bytes).unwrap();
    let e = Checkpoint::open(dir.path()).err().expect("refused").to_string();
    assert!(e.contains("lie past the end of the data"), "{e}");
}

/// A tensor in two shards was silently taken from the later one; now it is an error.
#[test]
fn safetensors_tensor_in_two_shards_is_refused() {
    let dir = scratch();
    std::fs::write(dir.path().join("config.json"), r#"{"architectures": ["X"]}"#).unwrap();
    std::fs::write(dir.path().join("tokenizer.json"), "{}").unwrap();
    let (header, len) = shard_header(&[("w".into(), 0, vec![2])]);
    let f = Framing { length_delta: 0, padding: 0, data_delta: 0 };
    std::fs::write(dir.path().join("a.safetensors"), shard_bytes(&header, len, &f)).unwrap();
    std::fs::write(dir.path().join("b.safetensors"), shard_bytes(&header, len, &f)).unwrap();
    let e = Checkpoint::open(dir.path()).err().expect("refused").to_string();
    assert!(e.contains("tensor w is also in"), "{e}");
}
