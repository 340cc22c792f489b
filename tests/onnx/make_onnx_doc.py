#!/usr/bin/env python3
"""Regenerates the generated half of docs/onnx.md from a run of ONNX's
backend suites (tests/onnx/backend_suite_test.cpp):

    SS_ONNX_REPORT=/tmp/onnx build/default/bin/shapescript_tests -tc="ONNX's*"
    python3 tests/onnx/make_onnx_doc.py /tmp/onnx

The prose above the marker line is kept as written; below it come the
suites' counts, every supported op with the node tests it passes (the op
table is read from onnx/*.cpp), and every refusal with its code."""
import collections
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOC = os.path.join(ROOT, "docs", "onnx.md")
MARKER = "<!-- Generated below by tests/onnx/make_onnx_doc.py: don't edit by hand. -->"
SUITES = ["node", "pytorch-converted", "pytorch-operator", "simple"]


def read_report(prefix, suite):
    rows = []
    with open(f"{prefix}.{suite}.tsv") as f:
        for line in f:
            test, status, code, ops, detail = (line.rstrip("\n").split("\t") + [""] * 5)[:5]
            rows.append({"test": test, "status": status, "code": code,
                         "ops": [o for o in ops.split(",") if o], "detail": detail})
    return rows


def supported_ops():
    ops = set()
    for path in glob.glob(os.path.join(ROOT, "onnx", "ops_*.cpp")):
        ops.update(re.findall(r'table\["(\w+)"\]', open(path).read()))
    return sorted(ops)


def short(test):
    return test[len("test_"):] if test.startswith("test_") else test


def main():
    prefix = sys.argv[1] if len(sys.argv) > 1 else "/tmp/onnx"
    reports = {s: read_report(prefix, s) for s in SUITES}
    head = open(DOC).read().split(MARKER)[0].rstrip("\n")
    out = [head, "", MARKER, "", "## The suites", "",
           "| suite | tests | pass | refused with a code | wrong |", "|---|---|---|---|---|"]
    for s in SUITES:
        rows = reports[s]
        count = collections.Counter(r["status"] for r in rows)
        out.append(f"| {s} | {len(rows)} | {count['pass']} | {count['refused']} | {count['fail']} |")
    out += ["", "## Supported ops", "",
            "Each op the importer translates, with the node tests it passes (a test",
            "passes when every output is within rtol 1e-3, atol 1e-7 of ONNX's).", "",
            "| op | node tests passed |", "|---|---|"]
    passed_by_op = collections.defaultdict(list)
    for r in reports["node"]:
        if r["status"] == "pass":
            for op in r["ops"]:
                passed_by_op[op].append(short(r["test"]))
    for op in supported_ops():
        tests = passed_by_op.get(op, [])
        out.append(f"| {op} | {len(tests)}: {', '.join(sorted(tests)) if tests else '(none in the suite)'} |")
    out += ["", "## Refusals", "",
            "Every test the importer refuses, by code (docs/errors.md explains each).", ""]
    by_code = collections.defaultdict(list)
    for s in SUITES:
        for r in reports[s]:
            if r["status"] == "refused":
                by_code[r["code"]].append((s, r))
    for code in sorted(by_code):
        out += [f"### {code} ({len(by_code[code])})", "", "| suite | test | why |", "|---|---|---|"]
        for s, r in sorted(by_code[code], key=lambda x: (x[0], x[1]["test"])):
            detail = r["detail"].replace("|", "\\|").replace("\n", " ")
            if len(detail) > 160:
                detail = detail[:157] + "..."
            out.append(f"| {s} | {short(r['test'])} | {detail} |")
        out.append("")
    open(DOC, "w").write("\n".join(out).rstrip("\n") + "\n")


if __name__ == "__main__":
    main()
