#!/usr/bin/env bash
# dev/cluster/docker.sh — Debian's Docker (docker.io 20.10) started by hand for docker-compose.yml,
# with the images `dev/stack cluster images` built loaded into it, none from a registry (run
# through `dev/stack docker ...`, as root):
#
#   up      start dockerd on its own socket, state and data in $ALICE_CLUSTER_HOME, and load the
#           services', Kafka's and PostgreSQL's images; prints the exports docker-compose needs
#   down    remove its containers, networks and volumes, stop it, remove its state: nothing left
#   env     print those exports
#
# It leaves the host's firewall alone (--iptables=false, no masquerade, no forwarding): published
# ports go through docker-proxy on 127.0.0.1, containers reach each other on their compose
# network's bridge and nothing outside the machine. So it can run beside the dev cluster. Its runtime
# is runc behind runc-current-caps, so that `privileged: true` starts where root lacks capabilities.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

TAG=${ALICE_TAG:-dev}
HOME_DIR=${ALICE_CLUSTER_HOME:-$HOME/.cache/alice-rl/cluster}
DATA=$HOME_DIR/docker
RUN=$HOME_DIR/run/docker
SOCK=$RUN/docker.sock
DOCKER=/usr/bin/docker # Debian's client, of the daemon's version (another may come first in PATH)
IMAGES="task-dispatcher sandbox-runner verifier rubric-prm inference trainer kafka postgresql"

die() { echo "dev/docker: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (dockerd)"
d() { "$DOCKER" -H "unix://$SOCK" "$@"; }
alive() { [ -f "$RUN/dockerd.pid" ] && kill -0 "$(cat "$RUN/dockerd.pid")" 2>/dev/null; }

cmd_env() {
  echo "export DOCKER_HOST=unix://$SOCK"
  echo "export ALICE_REGISTRY=alice-rl.local ALICE_TAG=$TAG"
  echo "export ALICE_KAFKA_IMAGE=alice-rl.local/kafka:$TAG ALICE_POSTGRES_IMAGE=alice-rl.local/postgresql:$TAG"
}

cmd_up() {
  local i s
  for s in $IMAGES; do
    [ -f "$HOME_DIR/images/$s.tar" ] || die "no image $HOME_DIR/images/$s.tar: run dev/stack cluster images first"
  done
  mkdir -p "$DATA" "$RUN"
  if ! alive; then
    echo "dev/docker: starting dockerd (log: $RUN/dockerd.log)" >&2
    setsid dockerd --host "unix://$SOCK" --data-root "$DATA" --exec-root "$RUN/exec" --pidfile "$RUN/dockerd.pid" \
      --iptables=false --ip-masq=false --ip-forward=false --bridge=none --storage-driver=overlay2 \
      --add-runtime "current-caps=$here/runc-current-caps" --default-runtime current-caps \
      > "$RUN/dockerd.log" 2>&1 < /dev/null &
    for i in $(seq 1 60); do d version >/dev/null 2>&1 && break; sleep 0.5; done
    d version >/dev/null 2>&1 || { tail -20 "$RUN/dockerd.log" >&2; die "dockerd did not answer on $SOCK"; }
  fi
  for s in $IMAGES; do
    d load -q -i "$HOME_DIR/images/$s.tar" >&2
  done
  cmd_env
}

cmd_down() {
  local pid i
  if alive; then
    pid=$(cat "$RUN/dockerd.pid")
    d ps -aq | xargs -r "$DOCKER" -H "unix://$SOCK" rm -f >/dev/null
    d network prune -f >/dev/null || true
    kill "$pid"
    for i in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  pkill -f "containerd --config $RUN/exec/containerd" 2>/dev/null || true # the containerd dockerd starts, if it outlived it
  grep -o " $DATA[^ ]*\| $RUN[^ ]*" /proc/mounts | sort -r | xargs -r -n1 umount -l 2>/dev/null || true
  for i in $(ip -o link show type bridge 2>/dev/null | sed -n 's/^[0-9]*: \(br-[0-9a-f]*\)[:@].*/\1/p'); do ip link delete "$i"; done
  rm -rf "$DATA" "$RUN"
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  env) cmd_env ;;
  *) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
