#!/usr/bin/env python3
"""Expert scripts for the trained stand-in: for each question of scripts/standin_data.py, the
assistant's completions an expert would write in the protocol (a short thought, then bare JSON
calls), ready for `sqale play`, which plays them through the real agent, prompt and tools.

    python3 scripts/standin_episodes.py DATA/train.jsonl DATA/train-script.jsonl [--seed 1]
    sqale play DATA/train-script.jsonl --out DATA/train-episodes.jsonl

The plan per kind: list_tables; describe_table of the tables the question needs (join_path for
two joins); distinct_values where the question's literal is spelt differently in the database;
run_query of the gold query; submit_sql. Some episodes first run a query with a wrong column
and fix it from the error; some explore until the exploration limit and answer on the final
turn. Deterministic for a seed. Standard library only.
"""

import argparse
import json
import os
import random
import sys
import tempfile

TOOL_TURNS = 6


def call(tool, **args):
    return json.dumps({"tool": tool, "args": args})


def turn(thought, *calls):
    return f"{thought}\n</think>\n\n" + "\n".join(calls)


def words(name):
    return name.replace("_", " ")


def script(q, r):
    """The completions for question `q`."""
    plan, gold = q["plan"], q["gold_sql"]
    tables = plan["tables"]
    main = tables[0]
    turns = [turn(f"The question is about {words(main)}. First I list the tables.", call("list_tables"))]
    if q["kind"] == "join2":
        a, b = plan["join"]
        turns.append(turn(f"I need {words(a)} and {words(b)}. They are not joined directly, so I look for the path.",
                          call("join_path", table_a=a, table_b=b), call("describe_table", table_name=b)))
    elif q["kind"] == "count":
        pass
    else:
        held = f"The tables {' and '.join(tables)} hold" if len(tables) > 1 else f"The table {tables[0]} holds"
        turns.append(turn(f"{held} what I need. I look at {'their' if len(tables) > 1 else 'its'} columns.",
                          *[call("describe_table", table_name=t) for t in tables]))
    lit = plan.get("literal")
    if lit:
        turns.append(turn(f"The question says {lit['said']}. I check how {lit['column']} is stored.",
                          call("distinct_values", table_name=lit["table"], column_name=lit["column"], limit=20)))
        test_thought = f"The value for {lit['said']} is '{lit['value']}'. Now I test the query."
    else:
        test_thought = "I know the tables and columns. Now I test the query."
    wrong = None
    for label in ("full_name", "title", "city", "model"):
        if f".{label}" in gold or f"SELECT {label} " in gold:
            wrong = gold.replace(label, "name", 1) if "name" not in gold.replace(label, "") else None
            break
    if wrong and r.random() < 0.15:
        turns.append(turn(test_thought, call("run_query", sql=wrong)))
        test_thought = "There is no column called name. I use the right column and test again."
    turns.append(turn(test_thought, call("run_query", sql=gold)))
    if r.random() < 0.1 and len(turns) < TOOL_TURNS:
        while len(turns) < TOOL_TURNS:
            turns.append(turn(f"The query works. I look at a few rows of {words(main)} to be sure.",
                              call("sample_rows", table_name=main, limit=3)))
        turns.append(turn("No more tools can run. I give the query that worked.", call("submit_sql", sql=gold)))
    else:
        turns.append(turn("The query runs and returns what the question asks. I submit it.", call("submit_sql", sql=gold)))
    return turns


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("questions")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    r = random.Random(a.seed)
    lines = []
    with open(a.questions) as f:
        for n, line in enumerate(f):
            q = json.loads(line)
            if "plan" not in q:
                sys.exit(f"{a.questions} line {n + 1}: no plan; expected questions from scripts/standin_data.py")
            lines.append(json.dumps({"id": q["id"], "db": q["db"], "question": q["question"],
                                     "completions": script(q, r)}))
    # `db` stays relative to the questions' folder: write the script beside them.
    out_dir = os.path.dirname(os.path.abspath(a.out))
    if out_dir != os.path.dirname(os.path.abspath(a.questions)):
        sys.exit("write the script beside the questions (their `db` paths are relative to that folder)")
    fd, tmp = tempfile.mkstemp(dir=out_dir, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, a.out)
    print(f"{len(lines)} scripts written to {a.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
