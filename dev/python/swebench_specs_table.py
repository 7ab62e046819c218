"""Writes cli/src/main/resources/swebench-specs.json: SWE-bench's repository spec table, as facts.

Usage: swebench_specs_table.py REFERENCE_JSON OUT_JSON
REFERENCE_JSON is what `swebench_reference.py specs` prints (swebench 4.1.0's own table). The
output keeps every repository's versions in SWE-bench's own vocabulary (python, packages,
pip_packages, pre_install, install, eval_commands, build, test_cmd, docker_specs, apt-pkgs, ...)
and each repository's log parser by swebench's function name (alice-rl maps it to its own parser:
SweBenchLogParsers.forFunction).
Run again when the pinned swebench moves; SweBenchSpecsTest fails until it is.
"""
import json
import sys

ABOUT = ("SWE-bench's repository spec table, every repository and version its harness knows, as its "
         "harness defines them (swebench {source}: harness/constants/<language>.py and harness/log_parsers), in "
         "SWE-bench's own words: python, packages, pip_packages, pre_install, install, eval_commands, build, test_cmd "
         "(a string, or a list run one after another), docker_specs (java_version, node_version, go_version, "
         "rust_version, ...), apt-pkgs; swebench_parser names the repository's log parser by swebench's function name, "
         "null where swebench has none; requirements_paths (its MAP_REPO_TO_REQS_PATHS) says where a spec whose packages are 'requirements.txt' finds that file, the first that exists, env_yml_paths (its MAP_REPO_TO_ENV_YML_PATHS) the same for 'environment.yml'. harness: python (swebench's test command is test_cmd followed by the test "
         "patch's files that do not end with one of non_test_exts; test_directives: modules names them as test modules, as for django/django) or common (test_cmd as is). Written by dev/python/swebench_specs_table.py; SweBenchSpecsTest checks it against "
         "the official package in CI. repo-specs.json (or --specs) is read first: an entry there wins.")


def main():
    ref = json.load(open(sys.argv[1], encoding="utf-8"))
    repos = {}
    for repo, entry in sorted(ref["repos"].items(), key=lambda kv: kv[0].lower()):
        if repo == "swe-bench/humaneval":
            continue  # not a repository: SWE-bench's seq2seq HumanEval variant, not in any dataset alice-rl imports
        repos[repo] = {
            "harness": "python" if entry["python"] else "common",
            "swebench_parser": entry["parser"],
            "versions": entry["versions"],
        }
        if entry.get("requirements_paths"):  # where a "packages": "requirements.txt" spec finds the file, first found wins
            repos[repo]["requirements_paths"] = entry["requirements_paths"]
        if entry.get("env_yml_paths"):  # where a "packages": "environment.yml" spec finds that file, first found wins
            repos[repo]["env_yml_paths"] = entry["env_yml_paths"]
        if repo == "django/django":  # swebench's get_test_directives names django's test files as test modules
            repos[repo] = {"test_directives": "modules", **repos[repo]}
    out = {"about": ABOUT.format(source="4.1.0"), "source": "swebench==4.1.0", "non_test_exts": ref["non_test_exts"], "repos": repos}
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False, sort_keys=False)
        f.write("\n")


if __name__ == "__main__":
    main()
