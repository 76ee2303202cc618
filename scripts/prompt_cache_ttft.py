"""Times pairs of `sqale ask` processes: the first decodes the system prompt and writes the prompt
cache, the second restores it (docs/prompt-cache.md). Each pair starts from an empty cache in a
temporary XDG_CACHE_HOME; checks that the second restored from disk and played the same episode.

    python3 scripts/prompt_cache_ttft.py SQALE MODEL REPS MAX_EPISODE_TOKENS [ASK FLAGS...]

Time to first token is the process's: its wall time less the episode's, plus the episode's
first_token_seconds. Prints each pair, the medians and their ratios, and the cache file's size.
"""
import json, os, statistics, subprocess, sys, tempfile, time, shutil
sqale, model, reps, budget = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
extra = sys.argv[5:]
xdg = tempfile.mkdtemp()
env = dict(os.environ, XDG_CACHE_HOME=xdg)
q = "How many customers placed more than three orders in 2024?"
def ask():
    t = time.monotonic()
    out = subprocess.run([sqale, "ask", "--json", "--seed", "3", "--ctx", "2048", "--max-episode-tokens", budget,
                          "--model", model, *extra, q], env=env, capture_output=True, text=True)
    wall = time.monotonic() - t
    assert out.returncode in (0, 1), out.stderr  # 1: the episode gave no answer (sqale ask's exit status)
    ep = json.loads(out.stdout)["episode"]
    ttft = wall - ep["seconds"] + ep["first_token_seconds"]
    return dict(wall=wall, ttft=ttft, ep_ttft=ep["first_token_seconds"], src=ep["tokens"]["prefix_source"],
                reused=ep["tokens"]["reused_tokens"], turns=[t["completion"] for t in ep["turns"]])
rows = {"first": [], "second": []}
for r in range(reps):
    shutil.rmtree(xdg + "/sqale/prompt-cache", ignore_errors=True)
    a = ask(); b = ask()
    assert a["src"] == "decoded" and b["src"] == "disk", (a["src"], b["src"])
    assert a["turns"] == b["turns"], "same episode"
    rows["first"].append(a); rows["second"].append(b)
    print(f"rep {r}: first ttft {a['ttft']:.2f} s wall {a['wall']:.2f} s | second ttft {b['ttft']:.2f} s wall {b['wall']:.2f} s (reused {b['reused']})", flush=True)
files = [os.path.join(xdg + "/sqale/prompt-cache", f) for f in os.listdir(xdg + "/sqale/prompt-cache")]
med = lambda k, w: statistics.median(x[w] for x in rows[k])
print(json.dumps({k: {w: round(med(k, w), 3) for w in ("ttft", "ep_ttft", "wall")} for k in rows}))
print("ratio ttft %.3f, wall %.3f" % (med("second", "ttft") / med("first", "ttft"), med("second", "wall") / med("first", "wall")))
print("cache file bytes", [os.path.getsize(f) for f in files])
shutil.rmtree(xdg)
