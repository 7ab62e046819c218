"""SWE-Gym's harness (its fork of SWE-bench) as the reference of SweGymSpecsTest, captured once.

Usage: swegym_reference.py FORK_ROOT SWEBENCH_TABLE [NAME=LOG ...] > cli/src/test/resources/swegym-reference.json
FORK_ROOT holds the fork's swebench/harness folder (`git archive HEAD swebench/harness` of
github.com/SWE-Gym/SWE-Bench-Fork, brought with the project's fetch tool: it is on no package
registry this project's machines reach, so CI reads this captured output instead of running it).
Prints {"source", "repos": {repo: {"parser", "versions", "eval_scripts", "requirements_paths",
"env_yml_paths"}}, "non_test_exts", "probe_test_patch", "parsed": {function: {log: results}}} —
every repository and version of its table that SWEBENCH_TABLE (swebench-specs.json) does not have
(keys lower-cased, as the fork itself does; the others are SWE-bench's of an older release), each
eval script as its make_eval_script_list makes it for an instance at base commit BASE with the
probe test patch (spelled <probe_test_patch> in its git apply), and what those repositories' parsers read from each log LOG.
"""
import json
import os
import sys
import types


def fork_modules(root):
    sys.path.insert(0, root)
    for name, path in [("swebench", os.path.join(root, "swebench")), ("swebench.harness", os.path.join(root, "swebench", "harness"))]:
        module = types.ModuleType(name)
        module.__path__ = [path]
        sys.modules[name] = module
    # names its modules import for Docker and for downloading datasets: never called here
    stubs = {"requests": {}, "datasets": {"Dataset": object, "load_dataset": None},
             "dotenv": {"load_dotenv": lambda *a, **k: None},
             "swebench.harness.dockerfiles": {"get_dockerfile_base": None, "get_dockerfile_env": None, "get_dockerfile_instance": None}}
    for name, attrs in stubs.items():
        module = types.ModuleType(name)
        module.__dict__.update(attrs)
        sys.modules[name] = module
    import swebench.harness.constants as constants
    import swebench.harness.log_parsers as log_parsers
    import swebench.harness.test_spec as test_spec
    return constants, log_parsers, test_spec


PROBE_TEST_PATCH = "".join(
    f"diff --git a/{path} b/{path}\n--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-a\n+b\n"
    for path in ["tests/test_probe.py", "docs/probe.md", "tests/fixtures/probe.json", "pyproject.toml"]) + (
    "diff --git a/test-data/unit/check-probe.test b/test-data/unit/check-probe.test\n"
    "--- a/test-data/unit/check-probe.test\n+++ b/test-data/unit/check-probe.test\n@@ -1,2 +1,4 @@\n"
    " [case testProbeOne]\n+x = 1\n+[case testProbeTwo-skip]\n b = 2\n")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    constants, log_parsers, test_spec = fork_modules(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        swebench = {k.lower() for k in json.load(f)["repos"]} | {"swe-bench/humaneval"}
    repos = {}
    for repo, versions in constants.MAP_REPO_VERSION_TO_SPECS.items():
        if repo in swebench:
            continue
        parser = log_parsers.MAP_REPO_TO_PARSER.get(repo)
        scripts = {}
        for version, spec in versions.items():
            instance = {"repo": repo, "version": version, "test_patch": PROBE_TEST_PATCH, "instance_id": "probe"}
            script = test_spec.make_eval_script_list(instance, spec, "testbed", "/testbed", "BASE", PROBE_TEST_PATCH) if "test_cmd" in spec else None
            # the probe patch is spelled once, at the top, not in each script's git apply heredoc
            scripts[version] = None if script is None else [line.replace(PROBE_TEST_PATCH, "<probe_test_patch>") for line in script]
        lower = {k.lower(): v for k, v in constants.MAP_REPO_TO_REQS_PATHS.items()}
        yml = {k.lower(): v for k, v in constants.MAP_REPO_TO_ENV_YML_PATHS.items()}
        repos[repo] = {"parser": parser.__name__ if parser else None, "versions": versions, "eval_scripts": scripts,
                       "requirements_paths": lower.get(repo), "env_yml_paths": yml.get(repo)}
    parsed = {}
    functions = {p.__name__: p for r, p in log_parsers.MAP_REPO_TO_PARSER.items() if r in repos}
    for arg in sys.argv[3:]:
        name, path = arg.split("=", 1)
        with open(path, encoding="utf-8") as f:
            log = f.read()
        for fn in functions.values():
            parsed.setdefault(fn.__name__, {})[name] = fn(log)
    print(json.dumps({"source": "SWE-Gym/SWE-Bench-Fork@242429c188fcfd06aad13fce9a54d450470bf0ac", "repos": repos,
                      "non_test_exts": constants.NON_TEST_EXTS, "probe_test_patch": PROBE_TEST_PATCH, "parsed": parsed}))


if __name__ == "__main__":
    main()
