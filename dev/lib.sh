# Shared by the project's scripts: locate a JDK >= 21 and the repository root.
# Sourced, not executed.

ALICE_ROOT=${ALICE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}

java_major() { # prints the major version of the java binary given, or 0
  "$1" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/ {print $2; exit}' | cut -d. -f1 || echo 0
}

# The build needs JDK 21+ (it is tested with Temurin 25). Prefer $JAVA_HOME when it is new enough,
# then Temurin 25 where this project's machines keep it, then any JDK >= 21 under /usr/lib/jvm.
ensure_java_home() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ] && [ "$(java_major "$JAVA_HOME/bin/java")" -ge 21 ]; then
    export JAVA_HOME; return 0
  fi
  local candidate
  for candidate in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/*; do
    if [ -x "$candidate/bin/javac" ] && [ "$(java_major "$candidate/bin/java")" -ge 21 ]; then
      export JAVA_HOME=$candidate; return 0
    fi
  done
  echo "alice-rl needs a JDK 21 or newer (Temurin 25 is what it is built with)." >&2
  echo "Install one (e.g. apt-get install openjdk-21-jdk-headless) or set JAVA_HOME." >&2
  return 1
}
