"""Compares two `sqale ask --json` episodes turn by turn: how far their generated text agrees.

Usage: python3 .ci/compare-episodes.py A.json B.json
Prints, per turn, the characters the two share from the start and where they part; exits 0
(different CPUs' kernels may round differently: the report says how far they agree, it does not
fail on a difference).
"""
import json
import sys


def turns(path):
    with open(path) as f:
        ep = json.load(f)["episode"]
    return ep, [t["completion"] for t in ep["turns"]]


def main():
    (a, ta), (b, tb) = turns(sys.argv[1]), turns(sys.argv[2])
    same_turns = 0
    for i, (x, y) in enumerate(zip(ta, tb), 1):
        n = 0
        while n < min(len(x), len(y)) and x[n] == y[n]:
            n += 1
        if x == y:
            same_turns += 1
            print(f"turn {i}: identical ({len(x)} characters)")
        else:
            print(f"turn {i}: agree for {n} of {len(x)} / {len(y)} characters; then {x[n:n + 40]!r} against {y[n:n + 40]!r}")
            break
    print(f"turns: {len(ta)} against {len(tb)}; identical turns: {same_turns}")
    print(f"generated tokens: {a['tokens']['generated_tokens']} against {b['tokens']['generated_tokens']}")
    print(f"sql: {a['sql']!r} against {b['sql']!r}; ended_by {a['ended_by']} against {b['ended_by']}")


main()
