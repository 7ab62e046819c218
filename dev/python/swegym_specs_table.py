"""Writes cli/src/main/resources/swegym-specs.json: SWE-Gym's repository spec table, as facts.

Usage: swegym_specs_table.py REFERENCE_JSON SWEBENCH_TABLE OUT_JSON
REFERENCE_JSON is what `swegym_reference.py FORK_ROOT` prints (SWE-Gym's fork of SWE-bench, its
own table: cli/src/test/resources/swegym-reference.json); SWEBENCH_TABLE is swebench-specs.json.
The output keeps the repositories the fork adds to SWE-bench's (those swebench-specs.json does
not have), in the format of swebench-specs.json; the fork's other entries are SWE-bench's of an
older release, which swebench-specs.json has as the official package now defines them.
"""
import json
import sys

ABOUT = ("SWE-Gym's repository spec table: the repositories its fork of SWE-bench's harness adds ({source}: "
         "swebench/harness/constants.py, log_parsers.py, test_spec.py), in the words and format of swebench-specs.json. "
         "Keys are lower-case, as the fork looks repositories up (Project-MONAI/MONAI is project-monai/monai). Every "
         "repository's harness is python (test_cmd followed by the test patch's files, as swebench-specs.json says); "
         "test_directives: mypy-cases runs test_cmd followed by the test patch's [case NAME] names joined by ' or ', in "
         "double quotes, as the fork's make_test_command does for python/mypy. Written by dev/python/swegym_specs_table.py "
         "from the fork's own output (cli/src/test/resources/swegym-reference.json); SweGymSpecsTest checks it. "
         "Read after swebench-specs.json.")


def main():
    ref = json.load(open(sys.argv[1], encoding="utf-8"))
    swebench = {k.lower() for k in json.load(open(sys.argv[2], encoding="utf-8"))["repos"]}
    repos = {}
    for repo, entry in sorted(ref["repos"].items()):
        if repo in swebench:
            continue
        repos[repo] = {"harness": "python", "swebench_parser": entry["parser"], "versions": entry["versions"]}
        if entry.get("requirements_paths"):
            repos[repo]["requirements_paths"] = entry["requirements_paths"]
        if repo == "python/mypy":
            repos[repo] = {"test_directives": "mypy-cases", **repos[repo]}
    out = {"about": ABOUT.format(source=ref["source"]), "source": ref["source"], "name": "SWE-Gym", "origin": "swe-gym",
           "repo_keys": "lower-case", "non_test_exts": ref["non_test_exts"], "repos": repos}
    with open(sys.argv[3], "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")


if __name__ == "__main__":
    main()
