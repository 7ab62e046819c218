#!/usr/bin/env bash
# dev/cluster/cluster.sh — a real single-node Kubernetes on this machine, from source and Debian's
# packages, with nothing from a container registry (run through `dev/stack cluster ...`, as root):
#
#   build   Kubernetes v1.37.2 (apiserver, controller-manager, scheduler, kubelet, kube-proxy,
#           kubectl), Helm v3.21.4 and CoreDNS v1.15.0 from the Go module proxy, the pause image from
#           Kubernetes' pause.c, the Debian base image (debootstrap minbase; alice-rl.local/debian:bookworm),
#           the sandbox pods' image (alice-rl.local/sandbox:bookworm, as deploy/docker/Dockerfile.sandbox)
#           and the Debian bases of images.sh (once per machine: about 15 minutes on 2 cores from
#           empty Go caches; kept in $ALICE_CLUSTER_HOME/bin)
#   up      start containerd, etcd, the control plane, CoreDNS and kube-proxy, register the node, wait until it is
#           Ready; prints the KUBECONFIG= to use
#   down    stop all of it, remove its pods, mounts, network and state: nothing of it left running
#   env     print the KUBECONFIG= export
#   infra NS [TAG]  Kafka, PostgreSQL, the database Secret and the artifacts volume in namespace NS
#           (infra.yaml), for a chart install there
#   images [TAG]    the images a chart install runs (images.sh: the six services, Kafka, PostgreSQL),
#           imported when the cluster is up
#   import TAR...   import OCI image archives (oci_image.py) into the cluster's containerd
#   retag FROM TO   the six services' images of tag FROM also as tag TO (a new image name, for helm upgrade)
#
# What it is: etcd and containerd/runc/CNI plugins from Debian; the apiserver on 10.96.0.1:443,
# an address on the host's loopback device that is also the `kubernetes` Service's ClusterIP, so
# that pods reach it with their in-cluster settings; the kubelet and CoreDNS (the pods' cluster
# DNS) on 10.89.0.1 (also on loopback); kube-proxy in iptables mode for ClusterIPs; pods on a bridge (10.88.0.0/16) with no masquerade, so nothing they send leaves
# the machine. One certificate authority made here signs every certificate; the components use
# the cluster-admin certificate (RBAC and the Node authorizer are on for everyone else).
# Settings this machine needs (issue 58): the kubelet on cgroup v1 (failCgroupV1: false,
# cgroupfs); containerd's CRI restrict_oom_score_adj (root here lacks CAP_SYS_RESOURCE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

K8S_VERSION=v1.37.2
HELM_VERSION=v3.21.4
COREDNS_VERSION=v1.15.0
PAUSE_IMAGE=alice-rl.local/pause:3.10
BASE_IMAGE=alice-rl.local/debian:bookworm
SANDBOX_IMAGE=alice-rl.local/sandbox:bookworm
DEBIAN_MIRROR=${ALICE_DEBIAN_MIRROR:-http://deb.debian.org/debian}
HOME_DIR=${ALICE_CLUSTER_HOME:-$HOME/.cache/alice-rl/cluster}
BIN=$HOME_DIR/bin
RUN=$HOME_DIR/run
PKI=$RUN/pki
API_IP=10.96.0.1
NODE_IP=10.89.0.1
NODE_NAME=alice-rl-node
POD_CIDR=10.88.0.0/16
SERVICE_CIDR=10.96.0.0/16
BRIDGE=alicecni0
SOCK=$RUN/containerd/containerd.sock
export KUBECONFIG=$RUN/admin.kubeconfig

die() { echo "dev/cluster: $*" >&2; exit 1; }
need_root() { [ "$(id -u)" = 0 ] || die "$1 needs root (containerd, the kubelet, network addresses)"; }

cmd_build() {
  mkdir -p "$BIN"
  export GOFLAGS=-mod=mod
  local ld="" p t
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld="$ld -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=37 -X $p.gitTreeState=clean"
    ld="$ld -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  for t in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl; do
    if [ ! -x "$BIN/$t" ]; then
      echo "dev/cluster: building $t $K8S_VERSION (Go module proxy)"
      (cd "$here" && go build -trimpath -ldflags "-s -w $ld" -o "$BIN/$t.tmp" "k8s.io/kubernetes/cmd/$t") && mv "$BIN/$t.tmp" "$BIN/$t"
    fi
  done
  if [ ! -x "$BIN/helm" ]; then
    echo "dev/cluster: building helm $HELM_VERSION (Go module proxy)"
    GOBIN="$BIN" GOFLAGS= go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
  fi
  if [ ! -x "$BIN/coredns" ]; then
    echo "dev/cluster: building coredns $COREDNS_VERSION (Go module proxy)"
    GOBIN="$BIN" GOFLAGS= go install -trimpath -ldflags "-s -w" "github.com/coredns/coredns@$COREDNS_VERSION"
  fi
  if [ ! -f "$BIN/pause.tar" ]; then
    local src root
    src=$(cd "$here" && go list -m -f '{{.Dir}}' k8s.io/kubernetes)/build/pause/linux/pause.c
    root=$(mktemp -d)
    gcc -Os -static -DVERSION=3.10 -o "$root/pause" "$src"
    python3 "$here/oci_image.py" "$root" "$PAUSE_IMAGE" "$BIN/pause.tar" --entrypoint '["/pause"]'
    rm -rf "$root"
  fi
  if [ ! -f "$BIN/debian.tar" ] || [ ! -f "$BIN/debian-etc/passwd" ]; then # the base of every image: Debian 12 minbase from Debian's own mirror, as apt here uses it
    local rootfs=$HOME_DIR/debian-rootfs
    echo "dev/cluster: making the Debian base image (debootstrap minbase bookworm)"
    rm -rf "$rootfs"
    debootstrap --variant=minbase bookworm "$rootfs" "$DEBIAN_MIRROR" >"$HOME_DIR/debootstrap.log" 2>&1 ||
      die "debootstrap failed; see $HOME_DIR/debootstrap.log"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    python3 "$here/oci_image.py" "$rootfs" "$BASE_IMAGE" "$BIN/debian.tar" --cmd '["/bin/bash"]'
    mkdir -p "$BIN/debian-etc" && cp "$rootfs/etc/passwd" "$rootfs/etc/group" "$BIN/debian-etc/" # for the layers that add a user
    rm -rf "$rootfs"
  fi
  if [ ! -f "$BIN/sandbox.tar" ]; then # the sandbox pods' image: deploy/docker/Dockerfile.sandbox's packages and user, by debootstrap
    local rootfs=$HOME_DIR/sandbox-rootfs
    echo "dev/cluster: making the sandbox image (debootstrap minbase bookworm with git, python3, pytest)"
    rm -rf "$rootfs"
    debootstrap --variant=minbase --include=git,python3,python3-pytest,patch,ca-certificates bookworm "$rootfs" "$DEBIAN_MIRROR" \
      >"$HOME_DIR/debootstrap.log" 2>&1 || die "debootstrap failed; see $HOME_DIR/debootstrap.log"
    chroot "$rootfs" useradd --uid 1000 --create-home sandbox
    install -d -o 1000 -g 1000 "$rootfs/workspace"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    python3 "$here/oci_image.py" "$rootfs" "$SANDBOX_IMAGE" "$BIN/sandbox.tar" --cmd '["sleep", "infinity"]' --workdir /workspace --user 1000
    rm -rf "$rootfs"
  fi
  bash "$here/images.sh" --bases # the Debian bases of the services' images, Kafka's and PostgreSQL's
}

# A key and a certificate signed by the cluster's CA: name, subject, then extensions (SANs) if any.
cert() {
  local name=$1 subj=$2 ext=${3:-}
  openssl genrsa -out "$PKI/$name.key" 2048 2>/dev/null
  openssl req -new -key "$PKI/$name.key" -subj "$subj" -out "$PKI/$name.csr" 2>/dev/null
  if [ -n "$ext" ]; then
    printf '%s\n' "$ext" > "$PKI/$name.ext"
    openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial -days 365 \
      -extfile "$PKI/$name.ext" -out "$PKI/$name.crt" 2>/dev/null
  else
    openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial -days 365 \
      -out "$PKI/$name.crt" 2>/dev/null
  fi
}

make_pki() {
  mkdir -p "$PKI"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$PKI/ca.key" -out "$PKI/ca.crt" -days 365 -subj "/CN=alice-rl-cluster-ca" 2>/dev/null
  cert apiserver "/CN=kube-apiserver" \
    "subjectAltName=IP:$API_IP,IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert admin "/O=system:masters/CN=alice-rl-admin"
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  "$BIN/kubectl" config set-cluster alice-rl --server="https://$API_IP:443" --certificate-authority="$PKI/ca.crt" --embed-certs >/dev/null
  "$BIN/kubectl" config set-credentials admin --client-certificate="$PKI/admin.crt" --client-key="$PKI/admin.key" --embed-certs >/dev/null
  "$BIN/kubectl" config set-context alice-rl --cluster=alice-rl --user=admin >/dev/null
  "$BIN/kubectl" config use-context alice-rl >/dev/null
}

# Starts a daemon with its output in $RUN/logs/NAME.log and its pid in $RUN/NAME.pid.
daemon() {
  local name=$1
  shift
  setsid "$@" > "$RUN/logs/$name.log" 2>&1 < /dev/null &
  echo $! > "$RUN/$name.pid"
}

wait_for() {
  local what=$1 tries=$2
  shift 2
  for _ in $(seq "$tries"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  die "$what did not come up; see $RUN/logs"
}

write_configs() {
  mkdir -p "$RUN/cni" "$RUN/containerd" "$RUN/kubelet" "$RUN/logs"
  cat > "$RUN/cni/10-alice-rl.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "alice-rl", "plugins": [
  {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}],
            "dataDir": "$RUN/cni-ipam"}},
  {"type": "portmap", "capabilities": {"portMappings": true}}]}
EOF
  cat > "$RUN/containerd/config.toml" <<EOF
version = 2
root = "$RUN/containerd/root"
state = "$RUN/containerd/state"
[grpc]
  address = "$SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$RUN/cni"
EOF
  cat > "$RUN/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: $PKI/ca.crt}
authorization: {mode: Webhook}
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$SOCK
resolvConf: /etc/resolv.conf
clusterDNS: [$NODE_IP]
clusterDomain: cluster.local
evictionHard: {memory.available: "100Mi", nodefs.available: "2%", imagefs.available: "2%"}
imageGCHighThresholdPercent: 100
serializeImagePulls: false
EOF
}

# Cluster DNS: CoreDNS on the node's address answers for cluster.local from the API server, and
# NXDOMAIN for every other name (nothing a pod asks leaves the machine).
write_corefile() {
  cat > "$RUN/Corefile" <<EOF
cluster.local:53 in-addr.arpa:53 {
  bind $NODE_IP
  kubernetes cluster.local in-addr.arpa {
    kubeconfig $KUBECONFIG alice-rl
    pods insecure
  }
  errors
}
.:53 {
  bind $NODE_IP
  template ANY ANY {
    rcode NXDOMAIN
  }
}
EOF
}

cmd_up() {
  need_root "dev/stack cluster up"
  for t in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl helm coredns pause.tar debian.tar sandbox.tar jvm.tar sandboxed.tar postgresql.tar; do
    [ -e "$BIN/$t" ] || { cmd_build; break; }
  done
  if [ -f "$RUN/kube-apiserver.pid" ] && kill -0 "$(cat "$RUN/kube-apiserver.pid")" 2>/dev/null; then
    echo "export KUBECONFIG=$KUBECONFIG"
    return
  fi
  command -v etcd >/dev/null && command -v containerd >/dev/null && [ -x /usr/lib/cni/bridge ] ||
    die "etcd, containerd, runc or the CNI plugins are missing: run this as dev/stack cluster up, which installs them"
  rm -rf "$RUN"
  mkdir -p "$RUN/logs"
  make_pki
  write_configs
  ip addr add "$API_IP/32" dev lo 2>/dev/null || true
  ip addr add "$NODE_IP/32" dev lo 2>/dev/null || true

  daemon containerd containerd --config "$RUN/containerd/config.toml"
  wait_for containerd 30 ctr --address "$SOCK" version
  cmd_import "$BIN/pause.tar" "$BIN/debian.tar" "$BIN/sandbox.tar"
  if compgen -G "$HOME_DIR/images/*.tar" >/dev/null; then cmd_import "$HOME_DIR"/images/*.tar; fi # what dev/stack cluster images made
  daemon etcd etcd --data-dir "$RUN/etcd" --listen-client-urls http://127.0.0.1:2379 \
    --advertise-client-urls http://127.0.0.1:2379 --listen-peer-urls http://127.0.0.1:2380
  daemon kube-apiserver "$BIN/kube-apiserver" --etcd-servers=http://127.0.0.1:2379 \
    --bind-address="$API_IP" --secure-port=443 --advertise-address="$API_IP" --service-cluster-ip-range="$SERVICE_CIDR" \
    --client-ca-file="$PKI/ca.crt" --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
    --kubelet-client-certificate="$PKI/admin.crt" --kubelet-client-key="$PKI/admin.key" \
    --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
    --service-account-issuer=https://kubernetes.default.svc --authorization-mode=Node,RBAC --allow-privileged=true \
    --kubelet-preferred-address-types=InternalIP
  wait_for "the API server" 90 "$BIN/kubectl" get --raw /readyz
  daemon kube-controller-manager "$BIN/kube-controller-manager" --kubeconfig="$KUBECONFIG" \
    --authentication-kubeconfig="$KUBECONFIG" --authorization-kubeconfig="$KUBECONFIG" --bind-address=127.0.0.1 \
    --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" --use-service-account-credentials=true \
    --cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" --leader-elect=false
  daemon kube-scheduler "$BIN/kube-scheduler" --kubeconfig="$KUBECONFIG" --authentication-kubeconfig="$KUBECONFIG" \
    --authorization-kubeconfig="$KUBECONFIG" --bind-address=127.0.0.1 --leader-elect=false
  write_corefile
  daemon coredns "$BIN/coredns" -conf "$RUN/Corefile"
  daemon kube-proxy "$BIN/kube-proxy" --kubeconfig="$KUBECONFIG" --hostname-override="$NODE_NAME" --cluster-cidr="$POD_CIDR" \
    --proxy-mode=iptables --conntrack-max-per-core=0 --bind-address=127.0.0.1 --metrics-bind-address=127.0.0.1:10249 \
    --healthz-bind-address=127.0.0.1:10256
  daemon kubelet "$BIN/kubelet" --config="$RUN/kubelet/config.yaml" --kubeconfig="$KUBECONFIG" \
    --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" --root-dir="$RUN/kubelet/root" --cert-dir="$RUN/kubelet/pki"
  wait_for "the node" 120 "$BIN/kubectl" wait --for=condition=Ready "node/$NODE_NAME" --timeout=1s
  wait_for "the default ServiceAccount" 60 "$BIN/kubectl" get serviceaccount default
  echo "export KUBECONFIG=$KUBECONFIG"
}

cmd_down() {
  need_root "dev/stack cluster down"
  local name
  [ -d "$RUN" ] || return 0
  if [ -S "$SOCK" ]; then # every pod's containers and sandboxes, so that no shim outlives containerd
    "$BIN/kubectl" delete pods --all --all-namespaces --grace-period=0 --force --wait=false >/dev/null 2>&1 || true
  fi
  for name in kubelet kube-proxy coredns kube-scheduler kube-controller-manager kube-apiserver etcd; do
    stop "$name"
  done
  local shim
  for shim in $(pgrep -f "containerd-shim-runc-v2 .*-address $SOCK" || true); do # each container's first process, which ends its pid namespace, then the shim
    pkill -9 -P "$shim" 2>/dev/null || true
    kill -9 "$shim" 2>/dev/null || true
  done
  stop containerd
  [ ! -x "$BIN/kube-proxy" ] || "$BIN/kube-proxy" --cleanup >/dev/null 2>&1 || true # its iptables chains
  drop_kube_chains # and the kubelet's
  grep -o " $RUN[^ ]*" /proc/mounts | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done
  find /sys/fs/cgroup/*/kubepods* -depth -type d -exec rmdir {} + 2>/dev/null || true # the kubelet's cgroups, empty now
  ip link del "$BRIDGE" 2>/dev/null || true
  ip addr del "$API_IP/32" dev lo 2>/dev/null || true
  ip addr del "$NODE_IP/32" dev lo 2>/dev/null || true
  rm -rf "$RUN"
}

# Removes every KUBE-* iptables and ip6tables chain and the rules that jump to them (the kubelet's firewall and
# canary chains, what kube-proxy --cleanup left): no other rule is touched.
drop_kube_chains() {
  local ipt table rule chain
  for ipt in iptables ip6tables; do
    for table in filter nat mangle; do
      "$ipt" -t "$table" -S 2>/dev/null | grep -E '^-A [^ ]+ .*-j KUBE-' | grep -v '^-A KUBE-' | sed 's/^-A/-D/' |
        while read -r rule; do eval "$ipt -t $table $rule" || true; done || true
      for chain in $("$ipt" -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[^ ]*\)$/\1/p'); do "$ipt" -t "$table" -F "$chain"; done
      for chain in $("$ipt" -t "$table" -S 2>/dev/null | sed -n 's/^-N \(KUBE-[^ ]*\)$/\1/p'); do "$ipt" -t "$table" -X "$chain" || true; done
    done
  done
}

stop() {
  local pid
  [ -f "$RUN/$1.pid" ] || return 0
  pid=$(cat "$RUN/$1.pid")
  kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
  for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.5; done
  kill -9 -- "-$pid" 2>/dev/null || kill -9 "$pid" 2>/dev/null || true
}

# Kafka, PostgreSQL, the database Secret and the artifacts volume in NAMESPACE (infra.yaml), what
# a chart install there expects to find.
cmd_infra() {
  local ns=${1:?usage: dev/stack cluster infra NAMESPACE [TAG]} tag=${2:-dev} volume=$RUN/volumes/$1-artifacts
  install -d -m 0777 "$volume" # the services run as 185, the verifier as root; a hostPath volume has no fsGroup
  "$BIN/kubectl" create namespace "$ns" --dry-run=client -o yaml | "$BIN/kubectl" apply -f - >/dev/null
  sed -e "s|@VOLUME@|$volume|" -e "s|@NAMESPACE@|$ns|" -e "s|@TAG@|$tag|" "$here/infra.yaml" | "$BIN/kubectl" apply -n "$ns" -f -
  "$BIN/kubectl" -n "$ns" rollout status deployment/alice-rl-kafka deployment/alice-rl-postgresql --timeout=180s
}

cmd_import() {
  local tar
  for tar in "$@"; do ctr --address "$SOCK" -n k8s.io images import "$tar" >/dev/null; done
}

cmd_retag() { # the services' images of tag $1 under tag $2 too: a new image for a helm upgrade, nothing rebuilt
  local s
  [ $# = 2 ] || die "usage: dev/stack cluster retag FROM TO"
  for s in task-dispatcher sandbox-runner rubric-prm inference trainer verifier; do
    ctr --address "$SOCK" -n k8s.io images tag --force "alice-rl.local/alice-rl-$s:$1" "alice-rl.local/alice-rl-$s:$2" >/dev/null
  done
}

case "${1:-}" in
  build) cmd_build ;;
  up) cmd_up ;;
  down) cmd_down ;;
  env) echo "export KUBECONFIG=$KUBECONFIG" ;;
  import) shift; cmd_import "$@" ;;
  retag) shift; cmd_retag "$@" ;;
  infra) shift; cmd_infra "$@" ;;
  images)
    shift
    bash "$here/images.sh" "$@"
    if [ -S "$SOCK" ]; then cmd_import "$HOME_DIR"/images/*.tar; fi ;;
  *) echo "usage: dev/stack cluster build|up|down|env|images [TAG]|import TAR...|retag FROM TO" >&2; exit 2 ;;
esac
