#!/usr/bin/env python3
"""Compare two GGUF files tensor by tensor and key by key (e.g. sqale's and llama.cpp's
convert_hf_to_gguf.py outputs of the same checkpoint).

    PYTHONPATH=<llama.cpp>/gguf-py python scripts/compare_gguf.py a.gguf b.gguf

Prints, for every tensor, whether names, shapes and types agree and the largest absolute
difference of the values; then the metadata keys that differ. Exit code 1 if any tensor differs
in name, shape or type, or any value differs by more than --tol.
"""
import argparse
import sys

import numpy as np
from gguf import GGUFReader


def field_value(f):
    if not f.data:
        return None
    parts = [f.parts[i] for i in f.data]
    if f.types and f.types[0].name == "STRING":
        return [bytes(p).decode("utf-8", "replace") for p in parts] if len(parts) > 1 else bytes(parts[0]).decode("utf-8", "replace")
    vals = [p.tolist() for p in parts]
    vals = [v[0] if isinstance(v, list) and len(v) == 1 else v for v in vals]
    return vals if len(vals) > 1 or (f.types and f.types[0].name == "ARRAY") else vals[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--tol", type=float, default=0.0)
    args = ap.parse_args()
    ra, rb = GGUFReader(args.a), GGUFReader(args.b)
    ta = {t.name: t for t in ra.tensors}
    tb = {t.name: t for t in rb.tensors}
    bad = 0
    print(f"{'tensor':40} {'shape':>16} {'type':>10} {'max |a-b|':>12}")
    for name in sorted(set(ta) | set(tb)):
        if name not in ta or name not in tb:
            print(f"{name:40} only in {'b' if name not in ta else 'a'}")
            bad += 1
            continue
        x, y = ta[name], tb[name]
        shape_ok = list(x.shape) == list(y.shape)
        type_ok = x.tensor_type == y.tensor_type
        diff = float(np.max(np.abs(np.asarray(x.data, dtype=np.float64) - np.asarray(y.data, dtype=np.float64)))) if shape_ok and type_ok else float("nan")
        flag = "" if shape_ok and type_ok and diff <= args.tol else "  <-- differs"
        bad += bool(flag)
        print(f"{name:40} {str(list(x.shape)):>16} {x.tensor_type.name:>10} {diff:12.3g}{flag}")
    print(f"\n{len(ta)} vs {len(tb)} tensors, {bad} differ")
    fa = {k: field_value(v) for k, v in ra.fields.items() if not k.startswith("GGUF.")}
    fb = {k: field_value(v) for k, v in rb.fields.items() if not k.startswith("GGUF.")}
    print("\nmetadata keys that differ:")
    for k in sorted(set(fa) | set(fb)):
        va, vb = fa.get(k, "<absent>"), fb.get(k, "<absent>")
        if va != vb:
            show = lambda v: (str(v)[:70] + "…") if len(str(v)) > 70 else str(v)
            print(f"  {k:48} a={show(va)}  b={show(vb)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
