#!/usr/bin/env bash
# Builds a task version's Python environment as SWE-bench's environment images build theirs (its
# make_env_script_list_py, then its repository setup's install), without conda: a copy of the
# host's interpreter for the spec's Python, then pip from PyPI. Run by PythonEnvironments on the
# host (with network), never in a sandbox; sandboxes mount the result read-only at the same path.
#
# Usage: build-python-env.sh PREFIX ENV CHECKOUT SPEC_JSON
#   PREFIX     the interpreter's installation (its bin/pythonX.Y; pyenv's versions/X.Y.Z)
#   ENV        where the environment goes (absent or empty; the path it will be mounted at)
#   CHECKOUT   the repository at the task's base commit (its requirements file, its install)
#   SPEC_JSON  the task's toolchain.python: version, packages, pip_packages, install (SWE-bench's words)
set -euo pipefail
prefix=$1 env=$2 checkout=$3 spec=$4

cp -a "$prefix/." "$env/"
export PATH="$env/bin:$PATH" LD_LIBRARY_PATH="$env/lib" PYTHONNOUSERSITE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
python=$(ls "$env"/bin/python[0-9].[0-9]* | grep -E 'python[0-9]+\.[0-9]+$' | head -1)
field() { "$python" -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print("\n".join(v) if isinstance(v, list) else (v or ""))' "$spec" "$1"; }

echo "+ pip: the newest this Python supports, and wheel (conda's environments have both)"
"$python" -m pip install -q --upgrade pip
"$python" -m pip install -q wheel
"$python" -c 'import setuptools' 2>/dev/null || "$python" -m pip install -q setuptools

packages=$(field packages)
case "$packages" in
  "") ;;
  requirements.txt)
    echo "+ pip install -r requirements.txt (the repository's, at the task's base commit)"
    (cd "$checkout" && "$python" -m pip install -q -r requirements.txt) ;;
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
if [ -n "$install" ]; then
  echo "+ $install (in the repository at its base commit, for its dependencies)"
  (cd "$checkout" && bash -c "$install")
  "$python" - <<'EOF' | while read -r name; do echo "+ pip uninstall $name (the project itself)"; "$python" -m pip uninstall -q -y "$name"; done
import json, importlib.metadata as md
for dist in md.distributions():
    text = dist.read_text("direct_url.json")
    if text and "dir_info" in json.loads(text):
        print(dist.metadata["Name"])
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
