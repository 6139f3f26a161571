#!/usr/bin/python3
"""Checks that each planted bug's predicate (examples/planted/causes.py) is exact: with that bug
alone planted, every failing case matches the bug's predicate and no passing case does.

Run from the repository root (builds conform once, then runs the corpus once per bug and once
with no bug, about 5 minutes on 2 cores):
    /usr/bin/python3 examples/planted/verify.py [BUG ...]
Exit status 1 if a predicate misses a failing case or holds on a passing one.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import causes_eval  # noqa: E402


def run(conform, bugs, out):
    env = dict(os.environ, CONFORM_PLANTED_BUGS=bugs)
    subprocess.run([conform, "check", "--impl", f"{sys.executable} {os.path.join(HERE, 'adapter.py')}",
                    "--json", out], env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)["results"]


def main():
    causes = causes_eval.load_causes(os.path.join(HERE, "causes.py"))
    bugs = sys.argv[1:] or [c.split("/", 1)[1] for c in causes]
    corpus = causes_eval.Corpus([os.path.join(ROOT, "cases", "golden"), os.path.join(ROOT, "cases", "seeds")])
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        conform = os.path.join(tmp, "conform")
        subprocess.run(["go", "build", "-o", conform, "./cmd/conform"], cwd=ROOT, check=True)
        clean = run(conform, "none", os.path.join(tmp, "none.json"))
        failing = [r["id"] for r in clean if r["status"] == "fail"]
        print(f"no bug: {len(failing)} failing" + (f" {failing[:5]}" if failing else ""))
        bad += bool(failing)
        for bug in bugs:
            _, predicate = causes[f"planted/{bug}"]
            results = run(conform, bug, os.path.join(tmp, f"{bug}.json"))
            missed, false_alarms, n_fail = [], [], 0
            for r in results:
                if r["status"] not in ("pass", "fail"):
                    continue
                case = corpus.case(r["id"], r)
                if case is None:
                    continue
                holds = bool(predicate(case))
                n_fail += r["status"] == "fail"
                if r["status"] == "fail" and not holds:
                    missed.append(r["id"])
                if r["status"] == "pass" and holds:
                    false_alarms.append(r["id"])
            ok = not missed and not false_alarms
            bad += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {bug:22} {n_fail:5} failing; predicate misses {len(missed)}"
                  f"{' ' + str(missed[:5]) if missed else ''}, holds on {len(false_alarms)} passing"
                  f"{' ' + str(false_alarms[:5]) if false_alarms else ''}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
