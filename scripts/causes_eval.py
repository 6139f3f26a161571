#!/usr/bin/python3
"""Measures a grouping of failures against causes found by hand (issue #23's acceptance table).

Usage:
    go run ./cmd/conform check --impl '/usr/bin/python3 examples/pytorch/adapter.py' --json /tmp/torch.json
    /usr/bin/python3 scripts/causes_eval.py /tmp/torch.json examples/pytorch/causes.py [--group signature]
        [--cases cases/golden] [--list CAUSE] [--unexplained N] [--overlaps]

Reads conform check's --json report (per case: id, status, signature, detail, case) and a
causes.py, which defines CAUSES: an ordered dict ID -> (explanation, predicate). A predicate takes
a Case (below) and says whether that cause makes the case fail. Each failing case is labelled with
the first cause whose predicate holds ("unexplained" when none does). Then, per cause: the group
(the value of --group in the case's JSON result: "signature", or "cause+symptom", conform's causes: several
fields joined by "+" group by all of them)
holding most of the cause's cases, the % of the cause's cases in that group (recall) and the % of
that group that is the cause (precision); #23 asks for at least 80% of each.

The cases are loaded from --cases (default: cases/golden and cases/seeds, the corpus embedded in
conform: *.jsonl lines or *.json case files, inputs in blobs.npz or as .npy files).
"""
import argparse
import collections
import glob
import importlib.util
import json
import os
import sys
import zipfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Case:
    """A corpus case: op, its spec fields (spec), inputs (NumPy arrays), expect ({"output": array}
    or {"error": kind}), and result, conform's JSON result for it (status, detail, signature)."""

    def __init__(self, raw, inputs, expect, result):
        self.raw, self.op, self.id = raw, raw["op"], raw.get("id")
        self.spec = {k: v for k, v in raw.items() if k not in ("op", "inputs", "expect", "oracles", "provenance", "id")}
        self.inputs, self.expect, self.result = inputs, expect, result or {}

    @property
    def index(self):
        return self.spec.get("index", "")

    @property
    def expect_error(self):
        return self.expect.get("error")

    @property
    def expect_output(self):
        return self.expect.get("output")

    @property
    def got_error(self):
        """The kind the implementation answered, read from conform's detail ("got error KIND ...")."""
        d = self.result.get("detail", "")
        return d.split()[2] if d.startswith("got error ") else None

    @property
    def class_mismatch(self):
        """(got, want): the exception classes of a failure compared by class, read from its
        signature (OP/error-class/GOT-for-WANT), or None."""
        parts = self.result.get("signature", "").split("/", 2)
        if len(parts) != 3 or parts[1] != "error-class":
            return None
        got, _, want = parts[2].split("@")[0].split("#")[0].partition("-for-")
        return got, want

    def __repr__(self):
        return f"{self.id} {self.op} {self.spec} " + " ".join(
            f"{k}:{v.dtype.str}{v.shape}" for k, v in self.inputs.items())


class Corpus:
    """Reads cases lazily from a corpus directory."""

    def __init__(self, directories):
        self.dirs = directories
        self.raw = {}
        for directory in directories:
            prefix = os.path.basename(os.path.normpath(directory))
            for path in sorted(glob.glob(os.path.join(directory, "**", "*.jsonl"), recursive=True)):
                with open(path) as f:
                    for line in f:
                        if line.strip():
                            c = json.loads(line)
                            self.raw[c["id"]] = (c, os.path.dirname(path))
            for path in sorted(glob.glob(os.path.join(directory, "**", "*.json"), recursive=True)):
                try:
                    c = json.load(open(path))
                except (ValueError, OSError):
                    continue
                if isinstance(c, dict) and "op" in c:
                    name = os.path.relpath(path, directory)[:-len(".json")]
                    for cid in (c.get("id"), name, f"{prefix}/{name}"):  # conform names a case file by its path
                        if cid:
                            self.raw[cid] = (c, os.path.dirname(path))
        self.packs = {}

    def array(self, base, path):
        if path.startswith("blobs/"):
            pack = os.path.join(base, "blobs.npz")
            if os.path.exists(pack):
                if pack not in self.packs:
                    self.packs[pack] = zipfile.ZipFile(pack)
                import io
                return np.load(io.BytesIO(self.packs[pack].read(path[len("blobs/"):])), allow_pickle=False)
        return np.load(os.path.join(base, path), allow_pickle=False)

    def case(self, cid, result=None):
        if cid not in self.raw:
            return None
        raw, base = self.raw[cid]
        inputs = {k: self.array(base, v) for k, v in raw.get("inputs", {}).items()}
        expect = dict(raw.get("expect", {}))
        if "output" in expect:
            expect["output"] = self.array(base, expect["output"])
        case = Case(raw, inputs, expect, result)
        case.id = cid
        return case


def load_causes(path):
    spec = importlib.util.spec_from_file_location("causes", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    spec.loader.exec_module(module)
    return module.CAUSES


def label(case, causes, overlaps, all_hits=None):
    """The first cause whose predicate holds; records every other that also holds (and, into
    all_hits, every cause that holds)."""
    hits = []
    for cid, (_, predicate) in causes.items():
        try:
            if predicate(case):
                hits.append(cid)
        except Exception as e:  # a predicate that cannot read the case does not hold
            print(f"warning: {cid} on {case.id}: {type(e).__name__}: {e}", file=sys.stderr)
    if len(hits) > 1:
        overlaps[tuple(hits)] += 1
    if all_hits is not None:
        all_hits[case.id] = hits
    return hits[0] if hits else "unexplained"


def table(labels, groups, causes):
    """Rows (cause, n, group, recall %, precision %) for every cause with a failing case."""
    by_cause = collections.defaultdict(list)
    group_size = collections.Counter(groups.values())
    for cid, cause in labels.items():
        by_cause[cause].append(cid)
    rows = []
    for cause in list(causes) + ["unexplained"]:
        ids = by_cause.get(cause)
        if not ids:
            continue
        counts = collections.Counter(groups[i] for i in ids)
        group, n = max(counts.items(), key=lambda kv: (kv[1], kv[0] is not None, str(kv[0])))
        rows.append((cause, len(ids), group, 100 * n / len(ids), 100 * n / group_size[group]))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report", help="conform check --json output")
    ap.add_argument("causes", help="a causes.py defining CAUSES")
    ap.add_argument("--group", default="signature", help="the per-case JSON field that groups failures (default signature); "
                         "fields joined by '+' group by all of them: cause+symptom")
    ap.add_argument("--cases", action="append", metavar="DIR",
                    help="a corpus the report ran (repeatable; default: cases/golden and cases/seeds, "
                         "the corpus embedded in conform)")
    ap.add_argument("--list", metavar="CAUSE", help="print the failing cases labelled CAUSE (or unexplained)")
    ap.add_argument("--unexplained", type=int, default=10, metavar="N", help="print N unexplained cases (default 10)")
    ap.add_argument("--passing", action="store_true", help="also test the predicates on passing cases (report false alarms)")
    ap.add_argument("--details", action="store_true",
                    help="per cause, the commonest starts of conform's failure details (for a person checking the labels)")
    ap.add_argument("--single", action="store_true",
                    help="measure over the cases with one cause only (a case two causes make fail has no one "
                         "right group); then say how many of the others are in a group of one of their causes")
    ap.add_argument("--credit", action="store_true",
                    help="label a case several causes make fail with the one of them whose group it is in "
                         "(the group that holds most of that cause's single-cause cases), else the first")
    ap.add_argument("--per-op", action="store_true",
                    help="split a cause whose failing cases are of several ops into one cause per op "
                         "(conform finds causes per op: a library's one fault in getitem and take is two causes)")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    args = ap.parse_args()

    report = json.load(open(args.report))
    causes = load_causes(args.causes)
    corpus = Corpus(args.cases or [os.path.join(ROOT, "cases", "golden"), os.path.join(ROOT, "cases", "seeds")])
    labels, groups, overlaps, missing, hits = {}, {}, collections.Counter(), [], {}
    report_ops = {}
    for r in report["results"]:
        if r["status"] != "fail":
            continue
        case = corpus.case(r["id"], r)
        if case is None:
            missing.append(r["id"])
            continue
        labels[r["id"]] = label(case, causes, overlaps, hits)
        report_ops[r["id"]] = case.op
        fields = args.group.split("+")
        groups[r["id"]] = r.get(fields[0]) if len(fields) == 1 else " — ".join(str(r.get(f)) for f in fields)
        if args.list and labels[r["id"]] == args.list:
            print(f"  {case!r}\n      {r.get('signature')}: {r.get('detail', '')[:160]}")
    if args.details:
        by_cause = collections.defaultdict(collections.Counter)
        for r in report["results"]:
            if r["id"] in labels:
                by_cause[labels[r["id"]]][" ".join(r.get("detail", "").split())[:90]] += 1
        for cause, details in by_cause.items():
            print(f"{cause}:")
            for d, n in details.most_common(6):
                print(f"  {n:5}  {d}")
    false_alarms = collections.Counter()
    if args.passing:
        for r in report["results"]:
            if r["status"] == "pass":
                case = corpus.case(r["id"], r)
                if case is not None:
                    hit = label(case, causes, collections.Counter())
                    if hit != "unexplained":
                        false_alarms[hit] += 1

    if args.per_op:
        ops = collections.defaultdict(set)
        for cid, cause in labels.items():
            ops[cause].add(cid.split("/")[0] if cid.split("/")[0] != "seeds" else report_ops.get(cid, ""))
        split = {c for c, o in ops.items() if len(o) > 1}
        causes = dict(causes)
        for cid, cause in list(labels.items()):
            op = report_ops.get(cid, "")
            if cause in split:
                labels[cid] = f"{cause} [{op}]"
                causes.setdefault(labels[cid], causes.get(cause))
            if cid in hits:
                hits[cid] = [f"{h} [{op}]" if h in split else h for h in hits[cid]]
    failing = len(labels)
    multi, fullgroups = {}, dict(groups)
    if args.credit:
        single = {cid: c for cid, c in labels.items() if len(hits.get(cid, [])) <= 1}
        owner = {group: cause for cause, _, group, _, _ in table(single, {c: groups[c] for c in single}, causes)}
        for cid, h in hits.items():
            if len(h) > 1 and owner.get(groups[cid]) in h:
                labels[cid] = owner[groups[cid]]
    if args.single:
        multi = {cid: h for cid, h in hits.items() if len(h) > 1}
        labels = {cid: c for cid, c in labels.items() if cid not in multi}
        groups = {cid: g for cid, g in groups.items() if cid not in multi}
    rows = table(labels, groups, causes)
    n_unexplained = sum(1 for c in labels.values() if c == "unexplained")
    n_groups = len(set(groups.values()))
    print(f"{failing} failing cases, {n_groups} groups by {args.group}, "
          f"{len(causes)} causes declared, {n_unexplained} unexplained "
          f"({100 * n_unexplained / max(failing, 1):.1f}%)")
    if missing:
        print(f"{len(missing)} failing cases not found in the corpus (not labelled): {missing[:5]}")
    if args.markdown:
        print(f"\n| cause | cases | largest group ({args.group}) | % of cause in group | % of group that is cause | ok |")
        print("|---|---:|---|---:|---:|:-:|")
        for cause, n, group, recall, precision in rows:
            ok = "✅" if recall >= 80 and precision >= 80 else "❌"
            print(f"| `{cause}` | {n} | `{group}` | {recall:.0f}% | {precision:.0f}% | {ok} |")
    else:
        for cause, n, group, recall, precision in rows:
            ok = "ok  " if recall >= 80 and precision >= 80 else "FAIL"
            print(f"{ok} {cause:38} {n:5}  {recall:5.1f}% of cause in group, {precision:5.1f}% of group is cause  {group}")
    explained = [r for r in rows if r[0] != "unexplained"]
    met = sum(1 for r in explained if r[3] >= 80 and r[4] >= 80)
    print(f"\n{met} of {len(explained)} causes meet both 80% bounds")
    if multi:
        owner = {group: cause for cause, _, group, _, _ in rows}
        placed = sum(1 for cid, h in multi.items() if owner.get(fullgroups[cid]) in h)
        print(f"{len(multi)} cases with several causes left out of the table; {placed} of them "
              f"({100 * placed / len(multi):.0f}%) are in the largest group of one of their causes")
    if overlaps:
        print("overlaps (cases matched by several predicates; the first one labels them):")
        for hits, n in overlaps.most_common():
            print(f"  {n:5}  {' > '.join(hits)}")
    if args.passing:
        print("predicates holding on passing cases: " + (", ".join(f"{c} {n}" for c, n in false_alarms.most_common()) or "none"))
    if n_unexplained and args.unexplained:
        print(f"unexplained (first {args.unexplained}):")
        shown = 0
        for r in report["results"]:
            if labels.get(r["id"]) == "unexplained" and shown < args.unexplained:
                print(f"  {r['id']}: {r.get('case', '')[:150]}\n      {r.get('signature')}: {r.get('detail', '')[:150]}")
                shown += 1


if __name__ == "__main__":
    main()
