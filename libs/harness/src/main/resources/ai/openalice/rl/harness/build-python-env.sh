#!/usr/bin/env bash
# Builds a task version's Python environment as SWE-bench's environment images build theirs (its
# make_env_script_list_py, then its repository setup's install), without conda: a copy of the
# host's interpreter for the spec's Python, then pip from PyPI. Run by PythonEnvironments on the
# host (with network), never in a sandbox; sandboxes mount the result read-only at the same path.
#
# Usage: build-python-env.sh PREFIX ENV CHECKOUT SPEC_JSON [PROJECT_VERSION] [SETUP_DIR] [CONDA_PACKAGES]
#   PREFIX     the interpreter's installation (its bin/pythonX.Y; pyenv's versions/X.Y.Z)
#   ENV        where the environment goes (absent or empty; the path it will be mounted at)
#   CHECKOUT   the repository at the task's base commit (its install, its pre_install edits)
#   SPEC_JSON  the task's toolchain.python: version, packages, pip_packages, pre_install, install (SWE-bench's
#              words), requirements and env_yml (where a "requirements.txt" or "environment.yml" spec's file is:
#              SWE-bench's paths of the repository), packages_as_of (resolve from PyPI as it was then)
#   PROJECT_VERSION  the version a project that reads it from git tags (setuptools-scm) gets: the checkout has no tags
#   SETUP_DIR  those files as the repository has them at the task's environment_setup_commit, where SWE-bench
#              reads them (empty or absent: read from CHECKOUT)
#   CONDA_PACKAGES  how conda's package names become PyPI's (conda-packages.json), for an environment.yml
set -euo pipefail
prefix=$1 env=$2 checkout=$3 spec=$4 setup=${6:-} conda_map=${7:-}
[ -z "${5:-}" ] || export SETUPTOOLS_SCM_PRETEND_VERSION=$5
[ -n "$setup" ] || setup=$checkout

cp -a "$prefix/." "$env/"
# The copy's build configuration names the headers and the libpython where it was copied from
# (INCLUDEPY; LIBDIR and the -L and -rpath of LDSHARED), which a C extension's build compiles and links
# against; a sandbox does not see them (an interpreter built --enable-shared before 3.8, as astropy
# 1.3's Python 3.6, links every extension with -lpython3.6m: "cannot find -lpython3.6m"). Both take the
# copy's own, so that both run the same commands (and ccache's results of this build serve the
# sandboxes'). Only those entries: the others (INCLUDEDIR) steer setuptools' installs.
find "$env/lib" -maxdepth 2 -name '_sysconfigdata_*.py' \
  -exec sed -i -E -e "s|^( *'(CONF)?INCLUDEPY': ')${prefix%/}/|\1$env/|" -e "s|^( *'LIBDIR': ')${prefix%/}/lib'|\1$env/lib'|" \
  -e "s#(-L|-Wl,-rpath,)${prefix%/}/lib([ '])#\1$env/lib\2#g" {} +
find "$env/lib" -maxdepth 3 -path '*/__pycache__/_sysconfigdata_*' -delete
export PATH="$env/bin:$PATH" LD_LIBRARY_PATH="$env/lib" PYTHONNOUSERSITE=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
python=$(ls "$env"/bin/python[0-9].[0-9]* | grep -E 'python[0-9]+\.[0-9]+$' | head -1)
# The host interpreter's own installed packages are not the environment's (a new conda environment
# has none): they go, with their scripts, whose first line names the host's interpreter and which a
# sandbox could not run; pip comes back from the interpreter's own bundled copy (ensurepip, offline).
site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
[ -n "$site" ] && [ -d "$site" ] && find "$site" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
find "$env/bin" -maxdepth 1 -type f ! -name 'python*' ! -name '2to3*' ! -name 'idle*' ! -name 'pydoc*' -delete
find "$env/bin" -maxdepth 1 -xtype l -delete
"$python" -m ensurepip --default-pip >/dev/null
field() { "$python" -c 'import json,sys; v=json.load(open(sys.argv[1])).get(sys.argv[2]); print("\n".join(v) if isinstance(v, list) else (v or ""))' "$spec" "$1"; }

# pip, setuptools and wheel as a new conda environment had them when SWE-bench built its images (2024:
# pip 24.0, setuptools 69.5, wheel 0.43), or the newest this Python supports below that. It matters:
# pip from 25.3 installs a setup.py project in editable mode through an import hook instead of a path
# entry (test suites that look modules up by file path, pylint's, then find none), and setuptools from
# 81 drops pkg_resources, which older projects import.
echo "+ pip<24.1, setuptools<70 and wheel<0.44 (a conda environment's, as SWE-bench's images were built)"
"$python" -m pip install -q --upgrade "pip<24.1" "setuptools<70" "wheel<0.44"

# packages_as_of: every package resolved from PyPI as it was then (SWE-bench's images resolved their
# unpinned packages when they were built; sphinx 3.x imports docutils.utils.roman, which docutils
# 0.22 of 2025-07 removed). pip filters by upload time from 26.0 (--uploaded-prior-to, read here from
# PIP_UPLOADED_PRIOR_TO by every pip this build runs, build isolation's too); pip 26.0 needs Python
# 3.9, so older interpreters resolve unbounded, which their python_requires mostly bound anyway. The
# environment gets pip<24.1 back at the end: sandboxes install the project with it.
as_of=$(field packages_as_of)
if [ -n "$as_of" ]; then
  if "$python" -c 'import sys; sys.exit(sys.version_info < (3, 9))'; then
    echo "+ pip>=26 for the build: packages as PyPI had them on $as_of (PIP_UPLOADED_PRIOR_TO)"
    "$python" -m pip install -q --upgrade "pip>=26,<27"
    [[ $as_of == *T* ]] || as_of="${as_of}T00:00:00Z" # a date is midnight UTC, not the host's local time
    export PIP_UPLOADED_PRIOR_TO=$as_of
  else
    echo "+ packages_as_of $as_of not applied: pip filters by upload time from 26.0, which needs Python 3.9 (this is $("$python" -c 'import platform; print(platform.python_version())'))"
    as_of=
  fi
fi

packages=$(field packages)
case "$packages" in
  "") ;;
  requirements.txt)
    # as SWE-bench's get_requirements_by_commit: the first of the spec's requirements files that
    # exists, its -r includes inlined (first), lines starting "-e .", "#" or ".[test" left out
    "$python" - "$setup" "$spec" > "$env/.requirements.txt" <<'EOF'
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
    echo "+ pip install -r (the repository's requirements at its environment_setup_commit, from $(field requirements | tr '\n' ' '))"
    "$python" -m pip install -q -r "$env/.requirements.txt" ;;
  environment.yml)
    # as SWE-bench's get_environment_yml_by_commit: the first of the spec's files that exists; its conda
    # packages become PyPI's (conda-packages.json), its pip: section is taken as is; all installed in one
    # resolution with the spec's pip_packages, so that the pins hold and the rest is what fits them
    "$python" - "$setup" "$spec" "$conda_map" > "$env/.environment-pip.txt" <<'EOF'
import json, os, re, sys
root, spec, mapping = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
paths = spec.get("env_yml") or ["environment.yml"]
found = next((p for p in paths if os.path.isfile(os.path.join(root, p))), None)
if found is None:
    sys.exit(f"none of the environment files {paths} is in the repository at its environment_setup_commit")
rename = {k.lower(): v for k, v in mapping["rename"].items()}
skip = {k.lower(): v for k, v in mapping["skip"].items()}
conda, pip, section, pip_indent = [], [], None, None
for raw in open(os.path.join(root, found)).read().split("\n"):
    line = raw.split("#", 1)[0].rstrip()
    if not line.strip():
        continue
    if not line.startswith((" ", "-")):
        section = line.split(":", 1)[0].strip()
        continue
    item = line.strip()
    if section != "dependencies" or not item.startswith("-"):
        continue
    indent, value = len(line) - len(line.lstrip()), item[1:].strip()
    if value == "pip:":
        pip_indent = indent
        continue
    if pip_indent is not None and indent > pip_indent:
        pip.append(value)
        continue
    pip_indent = None
    conda.append(value)
print(f"# {found}: {len(conda)} conda packages, {len(pip)} pip packages")
out = []
for dep in conda:
    m = re.match(r"([A-Za-z0-9_.\-]+)\s*(.*)$", dep)
    name, version = m.group(1), m.group(2).replace(" ", "")
    if name.lower() in skip:
        print(f"# {dep}: left out, {skip[name.lower()]}")
        continue
    if version.startswith("=") and not version.startswith("=="):
        version = "==" + version[1:].split("=")[0] + ".*"
    targets = rename.get(name.lower(), name).split()
    if targets != [name]:
        print(f"# {dep}: PyPI's {' '.join(targets)}")
    out.append(targets[0] + version)
    out.extend(targets[1:])
print("\n".join(out + pip))
EOF
    mapfile -t pinned < <(field pip_packages)
    echo "+ pip install -r (the conda environment file as PyPI's packages) ${pinned[*]}"
    grep '^#' "$env/.environment-pip.txt" | sed 's/^# /  /'
    "$python" -m pip install -q -r "$env/.environment-pip.txt" "${pinned[@]}" ;;
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

install=$(field install)
mapfile -t pre < <(field pre_install)
if { [ -n "$install" ] || [ -n "${pre[*]}" ]; } && [ ! -e "$checkout/.git" ]; then
  # setuptools-scm and its kind read the version from git, as they would in the task's workspace; and
  # what pre_install changes is read as a diff
  git -C "$checkout" init -q && git -C "$checkout" add -A \
    && git -C "$checkout" -c user.name=alice-rl -c user.email=alice-rl@localhost commit -q --no-verify -m "the task's base"
fi

# SWE-bench's pre_install, before the install as its image runs it: Debian packages must be on this
# host already (sandboxes see its /usr; dev/stack install adds those of the bundled specs); the other
# steps run in the checkout here, for the install below, and again in each sandbox's workspace at its
# own commit (the harness commits what they change there before the patch, as SWE-bench's image holds it).
for step in "${pre[@]}"; do
  [ -n "$step" ] || continue
  if [[ $step == *apt-get* ]]; then
    read -r -a debs <<< "$(sed -n 's/.*apt-get install\( -[a-z-]*\)* //p' <<< "$step")"
    missing=()
    for d in "${debs[@]}"; do dpkg-query -W -f='${Status}' "$d" 2>/dev/null | grep -q "ok installed" || missing+=("$d"); done
    if [ "${#missing[@]}" -gt 0 ]; then
      echo "the spec's pre_install needs the Debian packages ${missing[*]} on this host: sudo apt-get install -y ${missing[*]} (or dev/stack install)" >&2
      exit 3
    fi
    echo "+ (pre_install) $step: ${debs[*]} on this host"
  else
    echo "+ (pre_install) $step"
    (cd "$checkout" && bash -c "$step")
  fi
done
if [ -n "${pre[*]}" ]; then
  echo "+ (pre_install) changed $(git -C "$checkout" diff --name-only | wc -l) files of the repository"
fi

# The repository's own install pulls its dependencies from PyPI now, while there is network; the
# project itself is uninstalled again (sandboxes install it, patched, from their workspace).
# A project with C extensions (astropy's) compiles them here and again in every sandbox's install:
# through ccache (Debian's, where the host has it), whose cache the environment keeps for the
# sandboxes to read (TestEnvironment); the working folder and the locale (a sandbox's environment is
# not the host's) are left out of the hash so that a workspace elsewhere hits it.
install_project() {
  if [ -d /usr/lib/ccache ] && command -v ccache >/dev/null; then
    (cd "$checkout" && PATH="/usr/lib/ccache:$PATH" CCACHE_DIR="$env/.ccache" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=locale bash -c "$install")
  else
    (cd "$checkout" && bash -c "$install")
  fi
}
if [ -n "$install" ]; then
  echo "+ $install (in the repository at its base commit, for its dependencies)"
  command -v ccache >/dev/null && echo "+ (compilers through ccache, its cache kept in the environment for the sandboxes)"
  # pip 26 (packages_as_of) has no setup.py develop: a project whose build system pins a setuptools
  # without PEP 660's editable hook (pylint 2.15's) installs again with pip<24.1, as SWE-bench's did,
  # what that adds resolved without the date (said here)
  if ! install_project; then
    [ -n "$as_of" ] || exit 1
    echo "+ the install failed with pip 26; again with pip<24.1, whatever it adds resolved as PyPI has it today"
    "$python" -m pip install -q "pip<24.1"
    install_project
  fi
  # setup.py's setup_requires (astropy 4.0.dev's Cython and Jinja2) are fetched by setuptools into the
  # checkout's .eggs, which a sandbox's fresh workspace lacks and cannot fetch offline: they go into
  # the environment, where setuptools finds them satisfied. With packages_as_of by name, as PyPI had
  # them then (what pip<24.1's fetch got is today's); without, the versions fetched.
  if [ -d "$checkout/.eggs" ]; then
    mapfile -t eggs < <(find "$checkout/.eggs" -maxdepth 1 -name '*.egg' -printf '%f\n' | sed -E 's/^([^-]+)-([^-]+)-.*$/\1==\2/')
    if [ "${#eggs[@]}" -gt 0 ]; then
      if [ -n "$as_of" ]; then
        eggs=("${eggs[@]%%==*}")
        "$python" -m pip install -q --upgrade "pip>=26,<27"
      fi
      echo "+ pip install ${eggs[*]} (what setup_requires fetched into .eggs)"
      "$python" -m pip install -q "${eggs[@]}"
    fi
  fi
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
    # a build requirement may move a pinned package (astropy 5.x's oldest-supported-numpy takes numpy
    # 1.25.2 down to 1.19.3, and the install then wants numpy>=1.20): the spec's pins win again, as in
    # SWE-bench's image, where the build requirements lived in pip's isolated build environment
    if [ "${#pip_packages[@]}" -gt 0 ] && [ -n "${pip_packages[0]}" ]; then
      echo "+ pip install ${pip_packages[*]} (the spec's pins, over what the build requirements moved)"
      "$python" -m pip install -q "${pip_packages[@]}"
    fi
  fi
fi
if [ -n "$as_of" ]; then
  echo "+ pip<24.1 back (the sandboxes' project install)"
  "$python" -m pip install -q "pip<24.1"
fi
chmod -R a+rX "$env"
