#!/usr/bin/env bash
# dev/cluster/images.sh — the images a chart install on the dev cluster runs, built from this
# checkout and Debian's packages, none from a registry (run as `dev/stack cluster images [TAG]`, as
# root, after `./mvnw package`): OCI archives in $ALICE_CLUSTER_HOME/images, imported into the
# cluster's containerd when it is up.
#
#   alice-rl.local/jre:25                     Debian with git + a Java runtime linked (jlink) from the build's JDK, user alice (185)
#   alice-rl.local/alice-rl-SERVICE:TAG       jre + services/SERVICE/target/quarkus-app (deploy/docker/Dockerfile)
#   alice-rl.local/alice-rl-{verifier,sandbox-runner}:TAG
#                                             Debian with bubblewrap, git, python3, pytest, tini + the runtime + the app, as root
#                                             (deploy/docker/Dockerfile.sandboxed)
#   alice-rl.local/kafka:TAG                  jre + the test broker's jars from Maven Central (images/kafka-run.sh), the
#                                             variables and the health-check tool apache/kafka's image has
#   alice-rl.local/postgresql:TAG             Debian's PostgreSQL, the variables of the postgres image (images/postgres-run.sh)
#
# The archives load into Docker too (`docker load`): dev/stack docker up does it for docker-compose.yml.
#
# `images.sh --bases` makes only the Debian bases (debootstrap, a few minutes once; `cluster build`
# runs it, so that this script's own run after a package takes about a minute).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
TAG=${1:-dev}
BASES_ONLY=false
[ "$TAG" != --bases ] || BASES_ONLY=true
HOME_DIR=${ALICE_CLUSTER_HOME:-$HOME/.cache/alice-rl/cluster}
BIN=$HOME_DIR/bin
OUT=$HOME_DIR/images
WORK=$HOME_DIR/image-work
DEBIAN_MIRROR=${ALICE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SERVICES="task-dispatcher sandbox-runner rubric-prm inference trainer verifier"
JAVA_ARGS='"java", "-XX:MaxRAMPercentage=75", "-XX:+ExitOnOutOfMemoryError", "-jar", "/deployments/quarkus-run.jar"'

die() { echo "dev/cluster images: $*" >&2; exit 1; }
image() { python3 "$here/oci_image.py" "$@"; }

[ -f "$BIN/debian.tar" ] && [ -f "$BIN/debian-etc/passwd" ] || die "no Debian base: run dev/stack cluster build first"
mkdir -p "$OUT" "$WORK"

# A Debian rootfs with extra packages, made once (debootstrap minbase), then kept as an archive.
debian_with() {
  local name=$1 packages=$2 rootfs=$WORK/$1-rootfs
  [ -f "$BIN/$name.tar" ] && return
  echo "dev/cluster images: Debian with $packages (debootstrap)"
  rm -rf "$rootfs"
  debootstrap --variant=minbase --include="$packages" bookworm "$rootfs" "$DEBIAN_MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
    die "debootstrap failed; see $WORK/debootstrap.log"
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  image "$rootfs" "alice-rl.local/$name:bookworm" "$BIN/$name.tar" --cmd '["/bin/bash"]'
  rm -rf "$rootfs"
}

# The runtime layer: the JDK's modules but its tools, and the user the services run as.
jre_layer() {
  local layer=$WORK/jre
  [ -d "$layer/opt/java" ] && return
  rm -rf "$layer"
  mkdir -p "$layer/opt" "$layer/etc" "$layer/home"
  local modules
  modules=$("$JAVA_HOME/bin/java" --list-modules | sed 's/@.*//' | grep -v -E '^jdk\.(jshell|jdi|jdwp\.agent|hotspot\.agent|javadoc|jlink|jpackage|jconsole|jstatd|jartool|editpad|internal\.(le|opt|ed|jvmstat)|incubator\..*)$' | paste -sd,)
  "$JAVA_HOME/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages --output "$layer/opt/java"
  cp "$BIN/debian-etc/passwd" "$BIN/debian-etc/group" "$layer/etc/"
  echo "alice:x:185:0:alice-rl:/home/alice:/bin/sh" >> "$layer/etc/passwd"
  install -d -o 185 -g 0 "$layer/home/alice"
}

app_layer() { # the service's fast-jar, owned by 185:0
  local s=$1 layer=$WORK/app-$1
  rm -rf "$layer"
  mkdir -p "$layer"
  cp -a "$root/services/$s/target/quarkus-app" "$layer/deployments"
  chown -R 185:0 "$layer/deployments"
  # where the artifacts volume goes: a fresh named volume takes this folder's owner, so the trainer (185) writes checkpoints in it
  install -d -o 185 -g 0 -m 775 "$layer/var/lib/alice-rl/artifacts"
}

debian_with jvm git,ca-certificates # the runner makes its workspace templates with git
debian_with sandboxed bubblewrap,git,python3,python3-pytest,patch,util-linux,procps,tini
debian_with postgresql postgresql
if $BASES_ONLY; then exit 0; fi
JAVA_HOME=${JAVA_HOME:?JAVA_HOME: the JDK whose runtime the images carry}
for s in $SERVICES; do
  [ -f "$root/services/$s/target/quarkus-app/quarkus-run.jar" ] || die "services/$s is not packaged: ./mvnw -B -DskipTests package first"
done

JRE_ENV=(--env JAVA_HOME=/opt/java --env PATH=/opt/java/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
jre_layer
image "$WORK/jre" alice-rl.local/jre:25 "$OUT/jre.tar" --base "$BIN/jvm.tar" "${JRE_ENV[@]}" --user 185
image "$WORK/jre" alice-rl.local/jre-sandboxed:25 "$WORK/jre-sandboxed.tar" --base "$BIN/sandboxed.tar" "${JRE_ENV[@]}"

for s in $SERVICES; do
  echo "dev/cluster images: alice-rl.local/alice-rl-$s:$TAG"
  app_layer "$s"
  if [ "$s" = verifier ] || [ "$s" = sandbox-runner ]; then # bubblewrap for local sandboxes (compose); the chart runs the runner as 185
    image "$WORK/app-$s" "alice-rl.local/alice-rl-$s:$TAG" "$OUT/$s.tar" --base "$WORK/jre-sandboxed.tar" --env DJL_CACHE_DIR=/tmp/djl \
      --workdir /deployments --entrypoint "[\"/usr/bin/tini\", \"--\", $JAVA_ARGS]"
  else
    image "$WORK/app-$s" "alice-rl.local/alice-rl-$s:$TAG" "$OUT/$s.tar" --base "$OUT/jre.tar" --env DJL_CACHE_DIR=/tmp/djl \
      --workdir /deployments --entrypoint "[$JAVA_ARGS]"
  fi
  rm -rf "$WORK/app-$s"
done

echo "dev/cluster images: alice-rl.local/kafka:$TAG"
layer=$WORK/kafka
rm -rf "$layer"
mkdir -p "$layer/opt/kafka/libs"
tr ':' '\n' <<<"${ALICE_KAFKA_CLASSPATH:?ALICE_KAFKA_CLASSPATH: the jars of the test broker, set by dev/stack}" | xargs -I{} cp {} "$layer/opt/kafka/libs/"
cp "$root/dev/kafka/log4j2.properties" "$layer/opt/kafka/"
install -m 755 "$here/images/kafka-run.sh" "$layer/opt/kafka/run.sh"
install -D -m 755 "$here/images/kafka-broker-api-versions.sh" "$layer/opt/kafka/bin/kafka-broker-api-versions.sh"
install -d -o 185 -g 0 "$layer/var/lib/kafka/data" # a named volume mounted there starts as the image's folder: the broker's to write
image "$layer" "alice-rl.local/kafka:$TAG" "$OUT/kafka.tar" --base "$OUT/jre.tar" --entrypoint '["/opt/kafka/run.sh"]'

echo "dev/cluster images: alice-rl.local/postgresql:$TAG"
layer=$WORK/postgresql
rm -rf "$layer"
mkdir -p "$layer/usr/local/bin"
install -m 755 "$here/images/postgres-run.sh" "$layer/usr/local/bin/postgres-run"
image "$layer" "alice-rl.local/postgresql:$TAG" "$OUT/postgresql.tar" --base "$BIN/postgresql.tar" --user 0 \
  --env PGDATA=/var/lib/postgresql/data/pgdata --entrypoint '["/usr/local/bin/postgres-run"]'
rm -rf "$WORK/kafka" "$WORK/postgresql"
ls -la "$OUT"
