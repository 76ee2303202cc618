//! `sqale pull`: download, convert, quantise, record checksums ([`sqale::pull::pull`]).

use clap::Args;
use sqale::pull::{self, PullEvent, PullOptions};

use super::progress::{plain, Lines, Progress, EVERY};

/// Arguments of `sqale pull`.
#[derive(Args, Debug)]
pub struct PullArgs {
    /// A registry alias (synsql, sqale, bird, base) or a repository id (org/name[@revision]).
    /// Without one, lists the registry.
    model: Option<String>,
    /// Output type (default: the registry's, q4_k_m): f32, f16, bf16, or a quantised type
    /// (`sqale quantize --help` lists them).
    #[arg(long = "type")]
    out_type: Option<String>,
    /// Threads for quantisation.
    #[arg(long, short = 't')]
    threads: Option<i32>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// Leave out the multi-token-prediction head. By default a model keeps its own, and a
    /// registry model without one (a fine-tune) gets its base model's head grafted, which means
    /// fetching the base checkpoint too.
    #[arg(long)]
    no_mtp: bool,
    /// An importance matrix for the quantiser (`sqale imatrix`, or llama.cpp's llama-imatrix):
    /// required by iq3_xxs, iq2_s and iq2_xs, and better files for every type below q4_k_m.
    #[arg(long, value_name = "IMATRIX.gguf")]
    imatrix: Option<std::path::PathBuf>,
}

/// Shows a pull's progress on stderr (nothing when `quiet`): a bar per downloaded file and a
/// percentage redrawn in place on a terminal, plain lines otherwise ([`Lines`]).
pub(super) fn progress(quiet: bool) -> impl FnMut(PullEvent<'_>) {
    let mut last = 0usize;
    let mut lines = plain(quiet).then(|| Lines::new(EVERY));
    // One bar (or one series of plain lines) for every file downloaded, renamed per file.
    let mut download: Option<Progress> = None;
    move |event| match (event, &mut lines) {
        (PullEvent::PullingDefault { entry, ty }, _) => {
            eprintln!("no --model given: pulling the default model {} ({ty}) once", entry.repo)
        }
        _ if quiet => {}
        (PullEvent::Download(d), _) => {
            let bar = download.get_or_insert_with(|| {
                let template = "{prefix:>9} [{bar:40}] {bytes}/{total_bytes} {wide_msg} ({eta})";
                Progress::new(template, "download", quiet).in_bytes()
            });
            bar.set_message(&format!("{}/{}", d.repo, d.file));
            bar.set(d.done, d.total);
        }
        (event, lines) => {
            // Any downloads are over: clear their bar, then show what comes next.
            if let Some(bar) = download.take() {
                bar.finish();
            }
            progress_line(event, lines, &mut last);
        }
    }
}

/// Shows a conversion's or an install's event: as a plain line into `lines`, or redrawn in place.
fn progress_line(event: PullEvent<'_>, lines: &mut Option<Lines>, last: &mut usize) {
    match (event, lines) {
        (PullEvent::Convert(sqale_convert::Progress::Tensor { index, total, .. }), Some(l)) => {
            l.say("convert", index as u64 + 1, total as u64, "tensors")
        }
        (PullEvent::Convert(sqale_convert::Progress::Quantize { index, total }), Some(l)) => {
            l.say("quantise", index as u64, total as u64, "tensors")
        }
        (PullEvent::Convert(sqale_convert::Progress::Tensor { index, total, .. }), None)
            if index * 20 / total != *last =>
        {
            *last = index * 20 / total;
            eprint!("\rconverting {:>3}%", (index + 1) * 100 / total);
        }
        (PullEvent::Convert(sqale_convert::Progress::Quantize { index, total }), None) => {
            eprint!("\rquantising {index}/{total}   ")
        }
        (PullEvent::Installed { gguf, manifest }, l) => eprintln!(
            "{}{} ({}, {:.1} MB, sha256 {})",
            if l.is_some() { "" } else { "\r" },
            gguf.display(),
            manifest.out_type,
            manifest.gguf_bytes as f64 / 1e6,
            &manifest.gguf_sha256[..16]
        ),
        _ => {}
    }
}

pub fn run(args: PullArgs) -> anyhow::Result<()> {
    let Some(name) = args.model else {
        let (models, default) = pull::registry()?;
        for m in models {
            let mark = if m.alias == default { "*" } else { " " };
            println!("{mark} {:<8} {:<36} {:<8} {}", m.alias, m.repo, m.default_type, m.description);
        }
        return Ok(());
    };
    let entry = pull::resolve(&name)?;
    let ty = args.out_type.unwrap_or_else(|| entry.default_type.clone());
    let options = PullOptions { threads: args.threads, no_mtp: args.no_mtp, imatrix: args.imatrix };
    let (gguf, _) = pull::pull(&entry, &ty, &options, &mut progress(args.json))?;
    if args.json {
        let manifest = sqale::regular_file::read_text_at_most(&gguf.with_extension("json"), 64 << 20)?;
        println!("{manifest}");
    } else {
        println!("{}", gguf.display());
    }
    Ok(())
}
