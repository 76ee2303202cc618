// Temporary probe: BatchedEngine completions for N = 1 and N = 4, and the serial Engine.
use sqale::batched::BatchedEngine;
use sqale::engine::{Engine, EngineOptions, Model, ModelOptions};
use sqale::generate::Generator;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let model = Model::load(&args[1], &ModelOptions::default()).unwrap();
    let temp: f32 = args.get(2).map(|s| s.parse().unwrap()).unwrap_or(0.0);
    let prefix = "<|im_start|>system\nYou are a helpful assistant that writes SQL for SQLite databases. Answer briefly.<|im_end|>\n";
    let users: Vec<String> = (0..6).map(|i| format!("<|im_start|>user\nQuestion {i}: how many rows has table t{i}? Think step by step.<|im_end|>\n<|im_start|>assistant\n")).collect();
    let opts = EngineOptions { ctx: 1024, temperature: temp, ..Default::default() };
    let mut serial = Vec::new();
    {
        let mut e = Engine::new(&model, opts.clone()).unwrap();
        for (i, u) in users.iter().enumerate() {
            e.begin(prefix, i as u32).unwrap();
            e.append(u, 1024).unwrap();
            serial.push(e.complete(80, &mut |_| {}).unwrap().text);
        }
    }
    for n in [1usize, 4] {
        let mut b = BatchedEngine::new(&model, opts.clone(), n).unwrap();
        let mut out = vec![String::new(); users.len()];
        let jobs: Vec<(usize, &String)> = users.iter().enumerate().collect();
        b.run(
            jobs,
            |(i, u), g| {
                g.begin(prefix, i as u32).unwrap();
                g.append(u, 1024).unwrap();
                (i, g.complete(80, &mut |_| {}).unwrap().text)
            },
            &mut |(i, t)| out[i] = t,
        )
        .unwrap();
        let same: Vec<bool> = out.iter().zip(&serial).map(|(a, b)| a == b).collect();
        println!("N={n} same as serial Engine: {same:?}");
        if n == 4 {
            for (a, b) in out.iter().zip(&serial) {
                if a != b {
                    println!("  {:?}\n  {:?}", a, b);
                    break;
                }
            }
        }
    }
}
