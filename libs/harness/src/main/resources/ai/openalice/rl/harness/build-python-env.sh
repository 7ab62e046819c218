#!/usr/bin/env bash
# Builds a task version's Python environment as SWE-bench's environment images build theirs (its
# make_env_script_list_py, then its repository setup's install), without conda: a copy of the
# host's interpreter for the spec's Python, then pip from PyPI. Run by PythonEnvironments on the
# host (with network), never in a sandbox; sandboxes mount the result read-only at the same path.
#
# Usage: build-python-env.sh PREFIX ENV CHECKOUT SPEC_JSON [PROJECT_VERSION]
#   PREFIX     the interpreter's installation (its bin/pythonX.Y; pyenv's versions/X.Y.Z)
#   ENV        where the environment goes (absent or empty; the path it will be mounted at)
#   CHECKOUT   the repository at the task's base commit (its requirements file, its install)
#   SPEC_JSON  the task's toolchain.python: version, packages, pip_packages, install (SWE-bench's words),
#              requirements (where a "requirements.txt" spec's file is: SWE-bench's paths of the repository)
#   PROJECT_VERSION  the version a project that reads it from git tags (setuptools-scm) gets: the checkout has no tags
set -euo pipefail
prefix=$1 env=$2 checkout=$3 spec=$4
[ -z "${5:-}" ] || export SETUPTOOLS_SCM_PRETEND_VERSION=$5

cp -a "$prefix/." "$env/"
export PATH="$env/bin:$PATH" LD_LIBRARY_PATH="$env/lib" PYTHONNOUSERSITE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
python=$(ls "$env"/bin/python[0-9].[0-9]* | grep -E 'python[0-9]+\.[0-9]+$' | head -1)
field() { "$python" -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print("\n".join(v) if isinstance(v, list) else (v or ""))' "$spec" "$1"; }

echo "+ pip, setuptools and wheel: the newest this Python supports (a new conda environment has all three, current)"
"$python" -m pip install -q --upgrade pip setuptools wheel

packages=$(field packages)
case "$packages" in
  "") ;;
  requirements.txt)
    # as SWE-bench's get_requirements_by_commit: the first of the spec's requirements files that
    # exists, its -r includes inlined (first), lines starting "-e .", "#" or ".[test" left out
    "$python" - "$checkout" "$spec" > "$env/.requirements.txt" <<'EOF'
import json, os, sys
checkout, spec = sys.argv[1], json.load(open(sys.argv[2]))
paths = spec.get("requirements") or ["requirements.txt"]
found = next((p for p in paths if os.path.isfile(os.path.join(checkout, p))), None)
if found is None:
    sys.exit(f"none of the requirements files {paths} is in the repository at its base commit")
excluded = lambda line: any(line.strip().startswith(x) for x in ["-e .", "#", ".[test"])
own, included = [], []
for line in open(os.path.join(checkout, found)).read().split("\n"):
    if line.strip().startswith("-r"):
        extra = os.path.join(checkout, os.path.dirname(found), line.strip()[2:].strip())
        if os.path.isfile(extra):
            included += [x for x in open(extra).read().split("\n") if not excluded(x)]
    elif not excluded(line):
        own.append(line)
print("\n".join(included + ["\n".join(own)]))
EOF
    echo "+ pip install -r (the repository's requirements at its base commit, from $(field requirements | tr '\n' ' '))"
    "$python" -m pip install -q -r "$env/.requirements.txt" ;;
  environment.yml)
    echo "the spec's packages are a conda environment.yml, which needs conda; this host builds environments with pip only" >&2
    exit 3 ;;
  *)
    echo "+ pip install $packages (SWE-bench's conda packages, from PyPI)"
    # shellcheck disable=SC2086 # a space-separated list, as SWE-bench's spec gives it
    "$python" -m pip install -q $packages ;;
esac

mapfile -t pip_packages < <(field pip_packages)
if [ "${#pip_packages[@]}" -gt 0 ] && [ -n "${pip_packages[0]}" ]; then
  echo "+ pip install ${pip_packages[*]}"
  "$python" -m pip install -q "${pip_packages[@]}"
fi

# The repository's own install pulls its dependencies from PyPI now, while there is network; the
# project itself is uninstalled again (sandboxes install it, patched, from their workspace).
install=$(field install)
if [ -n "$install" ] && [ ! -e "$checkout/.git" ]; then
  # setuptools-scm and its kind read the version from git, as they would in the task's workspace
  git -C "$checkout" init -q && git -C "$checkout" add -A \
    && git -C "$checkout" -c user.name=alice-rl -c user.email=alice-rl@localhost commit -q --no-verify -m "the task's base"
fi
if [ -n "$install" ]; then
  echo "+ $install (in the repository at its base commit, for its dependencies)"
  (cd "$checkout" && bash -c "$install")
  "$python" - <<'EOF' | while read -r name; do echo "+ pip uninstall $name (the project itself)"; "$python" -m pip uninstall -q -y "$name"; done
# what pip installed from a folder (PEP 610's direct_url.json), or linked in the old way (.egg-link);
# read as files, so that it works on every Python 3 (importlib.metadata is 3.8+)
import glob, json, os, sysconfig
site = sysconfig.get_paths()["purelib"]
for f in glob.glob(os.path.join(site, "*.dist-info", "direct_url.json")):
    if "dir_info" in json.load(open(f)):
        for line in open(os.path.join(os.path.dirname(f), "METADATA")):
            if line.startswith("Name:"):
                print(line.split(":", 1)[1].strip())
                break
for f in glob.glob(os.path.join(site, "*.egg-link")):
    print(os.path.basename(f)[:-len(".egg-link")])
EOF
fi

# What installing the project again in a sandbox needs without network or build isolation: its
# pyproject's build requirements.
if [ -f "$checkout/pyproject.toml" ]; then
  mapfile -t requires < <("$python" - "$checkout/pyproject.toml" <<'EOF'
import sys
try:
    import tomllib
except ImportError:
    from pip._vendor import tomli as tomllib
with open(sys.argv[1], "rb") as f:
    print("\n".join(tomllib.load(f).get("build-system", {}).get("requires", [])))
EOF
  )
  if [ "${#requires[@]}" -gt 0 ] && [ -n "${requires[0]}" ]; then
    echo "+ pip install ${requires[*]} (the project's build requirements)"
    "$python" -m pip install -q "${requires[@]}"
  fi
fi
chmod -R a+rX "$env"
