"""The official swebench package's log parsers, as the reference SweBenchLogParsersTest compares with.

Usage: swebench_reference.py parse PARSER LOG_FILE
Prints {"results": {test: STATUS}} — what swebench's parser of that name reads from the log.

The package's top-level __init__ imports its Docker harness (docker, datasets, ...), which is
installed without its dependencies here (dev/python/swebench-requirements.txt): its modules are
loaded through package stubs pointing at the installed folders, so its own parser code runs
unchanged and nothing else of it is imported.
"""
import importlib.util
import json
import os
import sys
import types


def swebench_modules():
    spec = importlib.util.find_spec("swebench")
    if spec is None:
        sys.exit("swebench is not installed in this environment (dev/stack python)")
    root = os.path.dirname(spec.origin)
    for name, path in [("swebench", root), ("swebench.harness", os.path.join(root, "harness")),
                       ("swebench.harness.log_parsers", os.path.join(root, "harness", "log_parsers"))]:
        module = types.ModuleType(name)
        module.__path__ = [path]
        sys.modules[name] = module
    import swebench.harness.log_parsers.go as go
    import swebench.harness.log_parsers.python as python
    return python, go


def main():
    if len(sys.argv) != 4 or sys.argv[1] != "parse":
        sys.exit(__doc__)
    python, go = swebench_modules()
    parsers = {
        "pytest-rA": python.parse_log_pytest,
        "pytest-options": python.parse_log_pytest_options,
        "pytest-v2": python.parse_log_pytest_v2,
        "django": python.parse_log_django,
        "seaborn": python.parse_log_seaborn,
        "sympy": python.parse_log_sympy,
        "matplotlib": python.parse_log_matplotlib,
        "go-test": go.parse_log_gotest,
    }
    with open(sys.argv[3], encoding="utf-8") as f:
        log = f.read()
    print(json.dumps({"results": parsers[sys.argv[2]](log, None)}))


if __name__ == "__main__":
    main()
