"""SWE-PolyBench's harness as the reference of PolyBenchLogParsersTest and SwePolyBenchSpecsTest, captured once.

Usage: polybench_reference.py SRC_ROOT [NAME=LOG ...] > libs/harness/src/test/resources/polybench-reference.json
       polybench_reference.py table REFERENCE_JSON > cli/src/main/resources/swepolybench-specs.json
SRC_ROOT holds the harness's src/poly_bench_evaluation folder (`git archive` of
github.com/amazon-science/SWE-PolyBench, brought with the project's fetch tool: its evaluation
package is on no registry this project's machines reach, so CI reads this captured output).
Prints {"source", "repo_to_parser", "timeouts": {"java", "default"}, "parsed": {NAME: {class:
{"passed_tests", "failed_tests"}}}}: its constants, and what every one of its parser classes reads
from each log LOG (logs as its harness makes them: stderr, stdout, then its closing lines).
Only its parsers and constants are loaded: the package's __init__ imports Docker's client, which is
never needed here.
"""
import importlib.util
import json
import os
import sys
import types


def load(root):
    package = types.ModuleType("poly_bench_evaluation")
    package.__path__ = [os.path.join(root, "poly_bench_evaluation")]
    sys.modules["poly_bench_evaluation"] = package
    spec = importlib.util.spec_from_file_location("poly_bench_evaluation.constants", os.path.join(root, "poly_bench_evaluation", "constants.py"))
    constants = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(constants)
    import poly_bench_evaluation.parsers as parsers
    return constants, parsers


def table(reference_path):
    """alice-rl's table from the captured constants, and the script header its docker_run writes."""
    with open(reference_path, encoding="utf-8") as f:
        ref = json.load(f)
    return {"name": "SWE-PolyBench", "source": ref["source"].split(" (")[0] + ", src/poly_bench_evaluation/constants.py",
            "script_header": ["#!/bin/bash", "set -uxo pipefail"], "timeouts": ref["timeouts"], "repos": ref["repo_to_parser"]}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "table":
        json.dump(table(sys.argv[2]), sys.stdout, indent=1)
        print()
        return
    constants, parsers = load(sys.argv[1])
    parsed = {}
    for arg in sys.argv[2:]:
        name, path = arg.split("=", 1)
        with open(path, encoding="utf-8") as f:
            log = f.read()
        parsed[name] = {}
        for cls in parsers.__all__:
            result = getattr(parsers, cls)(test_content=log).parse()
            parsed[name][cls] = {"passed_tests": result.get("passed_tests", []), "failed_tests": result.get("failed_tests", [])}
    source = os.environ.get("POLYBENCH_SOURCE", "github.com/amazon-science/SWE-PolyBench")
    json.dump({"source": source, "repo_to_parser": constants.REPO_TO_PARSER_CLASS,
               "timeouts": {"java": constants.JAVA_TIMEOUT, "default": constants.DEFAULT_TIMEOUT}, "parsed": parsed},
              sys.stdout, indent=1, ensure_ascii=False, sort_keys=False)
    print()


if __name__ == "__main__":
    main()
