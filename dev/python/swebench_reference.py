"""The official swebench package's log parsers, as the reference SweBenchLogParsersTest compares with.

Usage: swebench_reference.py parse PARSER LOG_FILE
       swebench_reference.py specs
       swebench_reference.py registry
`parse` prints {"results": {test: STATUS}} — what swebench's parser of that name reads from the log
(5.0.2's; pytest-v2 is 4.1.0's parse_log_pytest_v2 and pytest-v2-joined 5.0.2's).
`specs` prints swebench 4.1.0's repository spec table (the last release that has one in the
package, installed beside 5.0.2 in the folder swebench-specs of this environment):
{"repos": {repo: {"parser": its log parser's function name or null, "versions": {version: spec},
"eval_scripts": {version: [the lines of its eval script] or null}, "requirements_paths": [where
its requirements file may be, in order] or null, "env_yml_paths": the same for its conda environment.yml}}, "non_test_exts": [...],
"probe_test_patch": PATCH} — each eval script is the one swebench's own code makes for an instance
of that repository and version at base commit BASE whose test patch is PROBE_TEST_PATCH, in /testbed
with the conda environment testbed.
`registry` prints {"registry": {name: function}}: swebench 5.0.2's PARSER_REGISTRY, the names a
5.x dataset row's log_parser holds and the function each is (several are aliases of one).

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


PROBE_TEST_PATCH = "".join(
    f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-a\n+b\n"
    for path in ["tests/test_probe.py", "tests/unit/probe_test.go", "docs/probe.md", "tests/fixtures/probe.json", "src/probe.rs"])


def spec_table_modules():
    """swebench 4.1.0's constants, log parsers and eval-script helpers, from its --target folder."""
    target = os.path.join(os.path.dirname(os.path.dirname(sys.executable)), "swebench-specs")
    root = os.path.join(target, "swebench")
    if not os.path.isdir(root):
        sys.exit(f"swebench 4.1.0 is not installed in {target} (dev/stack python)")
    sys.path.insert(0, target)
    for name, path in [("swebench", root), ("swebench.harness", os.path.join(root, "harness")),
                       ("swebench.harness.test_spec", os.path.join(root, "harness", "test_spec"))]:
        module = types.ModuleType(name)
        module.__path__ = [path]
        sys.modules[name] = module
    # names its modules import for the Docker harness or for downloading datasets: never called here
    stubs = {"requests": {}, "datasets": {"Dataset": object, "load_dataset": None, "load_from_disk": None},
             "dotenv": {"load_dotenv": lambda *a, **k: None}, "swebench.harness.test_spec.test_spec": {"TestSpec": object}}
    for name, attrs in stubs.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        sys.modules[name] = module
    import swebench.harness.constants as constants
    import swebench.harness.log_parsers as log_parsers
    import swebench.harness.test_spec.python as python_spec
    import swebench.harness.test_spec.utils as common_spec
    return constants, log_parsers, python_spec, common_spec


def specs():
    constants, log_parsers, python_spec, common_spec = spec_table_modules()
    repos = {}
    for repo, versions in constants.MAP_REPO_VERSION_TO_SPECS.items():
        parser = log_parsers.MAP_REPO_TO_PARSER.get(repo)
        scripts = {}
        python = repo in constants.MAP_REPO_VERSION_TO_SPECS_PY
        for version in versions:
            instance = {"repo": repo, "version": version, "test_patch": PROBE_TEST_PATCH, "instance_id": "probe"}
            if "test_cmd" not in versions[version]:
                scripts[version] = None  # the spec names no test command: swebench cannot evaluate it either
                continue
            make = python_spec.make_eval_script_list_py if python else common_spec.make_eval_script_list_common
            scripts[version] = make(instance, versions[version], "testbed", "/testbed", "BASE", PROBE_TEST_PATCH)
        repos[repo] = {"parser": parser.__name__ if parser else None, "versions": versions, "eval_scripts": scripts, "python": python,
                       "requirements_paths": constants.MAP_REPO_TO_REQS_PATHS.get(repo),
                       "env_yml_paths": constants.MAP_REPO_TO_ENV_YML_PATHS.get(repo)}
    print(json.dumps({"repos": repos, "non_test_exts": constants.NON_TEST_EXTS, "probe_test_patch": PROBE_TEST_PATCH}))


def registry():
    """swebench 5.0.2's PARSER_REGISTRY: each name a dataset row's log_parser may hold, and the function it is."""
    python, _ = swebench_modules()
    root = os.path.dirname(python.__file__)
    spec = importlib.util.spec_from_file_location("swebench.harness.log_parsers", os.path.join(root, "__init__.py"),
                                                  submodule_search_locations=[root])
    module = importlib.util.module_from_spec(spec)
    sys.modules["swebench.harness.log_parsers"] = module
    spec.loader.exec_module(module)
    print(json.dumps({"registry": {name: fn.__name__ for name, fn in module.PARSER_REGISTRY.items()}}))


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "specs":
        return specs()
    if len(sys.argv) == 2 and sys.argv[1] == "registry":
        return registry()
    if len(sys.argv) != 4 or sys.argv[1] != "parse":
        sys.exit(__doc__)
    with open(sys.argv[3], encoding="utf-8") as f:
        log = f.read()
    if sys.argv[2] == "pytest-v2":
        # swebench 4.1.0's, whose ids SWE-bench Verified's test lists hold (a parameter cut at its
        # first space) and whose verdicts the published runs have; 5.x keys the whole id (pytest-v2-joined)
        _, log_parsers, _, _ = spec_table_modules()
        print(json.dumps({"results": log_parsers.python.parse_log_pytest_v2(log, None)}))
        return
    python, go = swebench_modules()
    parsers = {
        "pytest-rA": python.parse_log_pytest,
        "pytest-options": python.parse_log_pytest_options,
        "pytest-v2-joined": python.parse_log_pytest_v2,
        "django": python.parse_log_django,
        "seaborn": python.parse_log_seaborn,
        "sympy": python.parse_log_sympy,
        "matplotlib": python.parse_log_matplotlib,
        "go-test": go.parse_log_gotest,
    }
    print(json.dumps({"results": parsers[sys.argv[2]](log, None)}))


if __name__ == "__main__":
    main()
