#!/usr/bin/env bash
# A real single-node Kubernetes on this machine, entirely under one scratch directory: etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, containerd (CRI), kubelet,
# kube-proxy (iptables mode, so Service ClusterIPs work) and CoreDNS (so that
# `<service>.<namespace>.svc` resolves inside pods). The binaries come from
# scripts/install-kubernetes.sh; every image the pods run is built here and imported
# (`import`), since no registry is reachable.
#
# Pods get addresses from a CNI bridge on this machine (10.244.0.0/24); Services from
# 10.96.0.0/16. The node's address is the machine's own (not loopback). Nothing is routed off
# the machine: no masquerade to the outside, no upstream DNS.
#
# Usage: scripts/cluster.sh start|stop|status|import <archive.tar>|env
#   start    starts every part and waits (up to 180 s) for the node to be Ready; prints the
#            kubeconfig's path. A second start while it runs says so and does nothing.
#   stop     deletes every pod's containers, stops every process, unmounts what the kubelet
#            mounted, deletes the bridge, the pods' network namespaces and every KUBE-* and
#            CNI iptables rule, and restores the two sysctls start changed. Leaves the
#            directory's logs; `stop --purge` removes the directory too.
#   status   says which parts run, and the node's condition; exit 1 when any part is down.
#   leftovers  lists what a stopped cluster left behind (processes, mounts, the bridge,
#            network namespaces, iptables rules, cgroups); exit 1 when anything is.
#   import   loads a `podman save` / `docker save` archive into the cluster's containerd.
#   env      prints `export KUBECONFIG=…` (eval it to use kubectl on the cluster).
# Environment: MOCK_ISTIOD_CLUSTER_DIR (default <repo>/.kube/cluster), KUBE_BIN_DIR (default
#   <repo>/.kube/bin), MOCK_ISTIOD_NODE_IP (default the machine's first non-loopback IPv4).
# Needs root (containerd, the kubelet, iptables, mounts).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin_dir="${KUBE_BIN_DIR:-$repo_root/.kube/bin}"
dir="${MOCK_ISTIOD_CLUSTER_DIR:-$repo_root/.kube/cluster}"
readonly POD_CIDR='10.244.0.0/24'
readonly SERVICE_CIDR='10.96.0.0/16'
readonly BRIDGE='mi-cni0'
readonly CNI_NETWORK='mock-istiod-pods'
readonly NODE_NAME='mock-istiod-node'
readonly PAUSE_IMAGE='localhost/mock-istiod/pause:cluster'
readonly PARTS=(etcd containerd kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy coredns)
readonly START_TIMEOUT_S=180

fail() {
  echo "cluster: $*" >&2
  exit 1
}

say() {
  echo "cluster: $*" >&2
}

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//'
}

kubectl_() {
  "$bin_dir/kubectl" --kubeconfig "$dir/kubeconfig" "$@"
}

ctr_() {
  ctr --address "$dir/containerd/containerd.sock" -n k8s.io "$@"
}

pid_of() {
  local file="$dir/run/$1.pid"
  [[ -f "$file" ]] || return 1
  local pid
  pid="$(<"$file")"
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

running_parts() {
  local part
  for part in "${PARTS[@]}"; do pid_of "$part" >/dev/null && echo "$part"; done
  return 0
}

node_ip() {
  if [[ -n "${MOCK_ISTIOD_NODE_IP:-}" ]]; then
    echo "$MOCK_ISTIOD_NODE_IP"
    return
  fi
  local ip
  ip="$(ip -4 -o addr show scope global | awk '{print $4}' | cut -d/ -f1 | head -1)"
  [[ -n "$ip" ]] || fail "this machine has no non-loopback IPv4 address for the node (set MOCK_ISTIOD_NODE_IP)"
  echo "$ip"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("0.0.0.0",0)); print(s.getsockname()[1])'
}

check_prerequisites() {
  [[ "$(id -u)" == 0 ]] || fail "needs root (containerd, the kubelet, iptables and mounts)"
  local name missing=()
  for name in kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl coredns; do
    [[ -x "$bin_dir/$name" ]] || missing+=("$name")
  done
  [[ ${#missing[@]} -eq 0 ]] || fail "missing ${missing[*]} in $bin_dir: run scripts/install-kubernetes.sh first"
  for name in etcd containerd runc ctr iptables openssl; do
    command -v "$name" >/dev/null 2>&1 || missing+=("$name")
  done
  [[ ${#missing[@]} -eq 0 ]] || fail "missing ${missing[*]}: run scripts/install-kubernetes.sh (it installs them with apt-get)"
  [[ -x /usr/lib/cni/bridge ]] || fail "missing the CNI plugins in /usr/lib/cni: run scripts/install-kubernetes.sh"
}

# --- start -------------------------------------------------------------------------------

# Starts one part in the background, its output in logs/<part>.log, its pid in run/<part>.pid.
launch() {
  local part="$1"
  shift
  "$@" >>"$dir/logs/$part.log" 2>&1 &
  echo $! >"$dir/run/$part.pid"
}

wait_for() {
  local what="$1" limit="$2"
  local deadline=$((SECONDS + limit))
  shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      fail "$what did not come up within $limit s (logs in $dir/logs/)"
    fi
    sleep 0.5
  done
}

write_pki() {
  local pki="$dir/pki" ip="$1"
  [[ -f "$pki/ca.crt" && -f "$pki/.node-ip" && "$(<"$pki/.node-ip")" == "$ip" ]] && return 0
  rm -rf "$pki" && mkdir -p "$pki"
  (
    cd "$pki"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 \
      -subj '/CN=mock-istiod-cluster-ca' 2>/dev/null
    cat >apiserver.ext <<EOF
subjectAltName = DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster.local, DNS:localhost, IP:10.96.0.1, IP:127.0.0.1, IP:$ip
extendedKeyUsage = serverAuth
EOF
    openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj '/CN=kube-apiserver' 2>/dev/null
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
      -extfile apiserver.ext -out apiserver.crt 2>/dev/null
    printf 'extendedKeyUsage = clientAuth\n' >client.ext
    # One client identity for the control plane's parts and the admin (system:masters), and one
    # for the kubelet (its node's identity, for the Node authorizer).
    openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr -subj '/O=system:masters/CN=admin' 2>/dev/null
    openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
      -extfile client.ext -out admin.crt 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout kubelet.key -out kubelet.csr \
      -subj "/O=system:nodes/CN=system:node:$NODE_NAME" 2>/dev/null
    openssl x509 -req -in kubelet.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
      -extfile client.ext -out kubelet.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    rm -f ./*.csr ./*.ext ca.srl
  )
  echo "$ip" >"$pki/.node-ip"
}

write_kubeconfig() {
  local file="$1" server="$2" user="$3"
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: mock-istiod
  cluster: { server: "$server", certificate-authority: "$dir/pki/ca.crt" }
users:
- name: $user
  user: { client-certificate: "$dir/pki/$user.crt", client-key: "$dir/pki/$user.key" }
contexts:
- name: mock-istiod
  context: { cluster: mock-istiod, user: $user }
current-context: mock-istiod
EOF
}

write_containerd_config() {
  mkdir -p "$dir/containerd" "$dir/cni/net.d" "$dir/cni/networks"
  # The runtime's base spec: containerd's default, with an open-files limit this machine grants
  # (root here cannot raise its hard limit above 20000; RECIPES.md).
  ctr oci spec | python3 -c '
import json, sys
spec = json.load(sys.stdin)
spec["process"]["rlimits"] = [{"type": "RLIMIT_NOFILE", "hard": 20000, "soft": 20000}]
json.dump(spec, sys.stdout, indent=1)' >"$dir/containerd/base-spec.json"
  cat >"$dir/containerd/config.toml" <<EOF
version = 2
root = "$dir/containerd/root"
state = "$dir/containerd/state"
[grpc]
  address = "$dir/containerd/containerd.sock"
[ttrpc]
  address = "$dir/containerd/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$dir/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$PAUSE_IMAGE"
  restrict_oom_score_adj = true
  disable_apparmor = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      base_runtime_spec = "$dir/containerd/base-spec.json"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = false
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$dir/cni/net.d"
EOF
  cat >"$dir/cni/net.d/10-mock-istiod.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "$CNI_NETWORK",
  "plugins": [
    {
      "type": "bridge",
      "bridge": "$BRIDGE",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": "$dir/cni/networks",
        "ranges": [[{ "subnet": "$POD_CIDR" }]],
        "routes": [{ "dst": "0.0.0.0/0" }]
      }
    },
    { "type": "loopback" }
  ]
}
EOF
}

write_kubelet_config() {
  local ip="$1" port="$2" healthz="$3"
  mkdir -p "$dir/kubelet"
  # The pods' resolv.conf for dnsPolicy Default: no upstream resolver exists here.
  printf 'nameserver %s\n' "$ip" >"$dir/kubelet/resolv.conf"
  cat >"$dir/kubelet/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $ip
port: $port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $healthz
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
cgroupsPerQOS: true
enforceNodeAllocatable: []
containerRuntimeEndpoint: unix://$dir/containerd/containerd.sock
authentication:
  anonymous: { enabled: false }
  webhook: { enabled: false }
  x509: { clientCAFile: $dir/pki/ca.crt }
authorization: { mode: AlwaysAllow }
clusterDomain: cluster.local
clusterDNS: [$ip]
resolvConf: $dir/kubelet/resolv.conf
evictionHard: { memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1% }
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
serializeImagePulls: false
podPidsLimit: -1
maxPods: 50
EOF
}

write_coredns_config() {
  local ip="$1" health="$2" ready="$3"
  cat >"$dir/coredns/Corefile" <<EOF
.:53 {
  bind $ip
  errors
  health 127.0.0.1:$health
  ready 127.0.0.1:$ready
  kubernetes cluster.local in-addr.arpa ip6.arpa {
    kubeconfig $dir/kubeconfig
    pods insecure
    fallthrough in-addr.arpa ip6.arpa
  }
  cache 5
}
EOF
}

remember_sysctl() {
  local name="$1" value="$2" file="$dir/run/sysctl-$1"
  [[ -f "$file" ]] || cat "/proc/sys/${name//.//}" >"$file"
  echo "$value" >"/proc/sys/${name//.//}"
}

# A part of some cluster on this machine, whichever directory it was started from.
cluster_process_alive() {
  pgrep -x kube-apiserver >/dev/null 2>&1 || pgrep -x kubelet >/dev/null 2>&1 || pgrep -x coredns >/dev/null 2>&1
}

start() {
  check_prerequisites
  local running
  running="$(running_parts)"
  if [[ -n "$running" ]]; then
    if [[ "$(echo "$running" | wc -l)" -eq ${#PARTS[@]} ]]; then
      say "already running (KUBECONFIG=$dir/kubeconfig)"
      echo "$dir/kubeconfig"
      return 0
    fi
    fail "partly running ($(echo "$running" | tr '\n' ' ')): run 'scripts/cluster.sh stop' first"
  fi
  # One cluster per machine: the bridge, DNS on the node's port 53 and the iptables chains
  # are the machine's own.
  if cluster_process_alive; then
    fail "another cluster runs on this machine (a kube-apiserver, kubelet or coredns is alive): stop it with its own scripts/cluster.sh stop"
  fi
  if ip link show "$BRIDGE" >/dev/null 2>&1; then
    # No part of any cluster is alive, so the bridge is what a killed one left behind.
    say "bridge $BRIDGE left by a cluster that was killed without 'stop': removing it and its rules"
    unmount_all
    remove_network
  fi
  local begin=$SECONDS ip etcd_port etcd_peer api_port kubelet_port kubelet_healthz
  ip="$(node_ip)"
  mkdir -p "$dir/logs" "$dir/run" "$dir/coredns"
  write_pki "$ip"
  etcd_port="$(free_port)" etcd_peer="$(free_port)" api_port="$(free_port)"
  kubelet_port="$(free_port)" kubelet_healthz="$(free_port)"
  local server="https://$ip:$api_port"
  write_kubeconfig "$dir/kubeconfig" "$server" admin
  write_kubeconfig "$dir/kubelet.kubeconfig" "$server" kubelet
  remember_sysctl net.ipv4.ip_forward 1
  remember_sysctl net.bridge.bridge-nf-call-iptables 1

  say "etcd"
  launch etcd etcd --name "$NODE_NAME" --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "$NODE_NAME=http://127.0.0.1:$etcd_peer" --listen-metrics-urls ''
  write_containerd_config
  say "containerd"
  launch containerd containerd --config "$dir/containerd/config.toml"
  say "kube-apiserver on $server"
  launch kube-apiserver "$bin_dir/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_port" --bind-address "$ip" --advertise-address "$ip" \
    --secure-port "$api_port" --service-cluster-ip-range "$SERVICE_CIDR" \
    --tls-cert-file "$dir/pki/apiserver.crt" --tls-private-key-file "$dir/pki/apiserver.key" \
    --client-ca-file "$dir/pki/ca.crt" \
    --kubelet-client-certificate "$dir/pki/admin.crt" --kubelet-client-key "$dir/pki/admin.key" \
    --kubelet-preferred-address-types InternalIP \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$dir/pki/sa.pub" --service-account-signing-key-file "$dir/pki/sa.key" \
    --authorization-mode Node,RBAC --allow-privileged=true --profiling=false
  wait_for "etcd" 30 bash -c "exec 3<>/dev/tcp/127.0.0.1/$etcd_port"
  wait_for "kube-apiserver" 90 kubectl_ get --raw /readyz
  wait_for "containerd" 30 ctr_ version

  say "kube-controller-manager, kube-scheduler"
  launch kube-controller-manager "$bin_dir/kube-controller-manager" --kubeconfig "$dir/kubeconfig" \
    --service-account-private-key-file "$dir/pki/sa.key" --root-ca-file "$dir/pki/ca.crt" \
    --cluster-signing-cert-file "$dir/pki/ca.crt" --cluster-signing-key-file "$dir/pki/ca.key" \
    --use-service-account-credentials --leader-elect=false --secure-port 0 \
    --service-cluster-ip-range "$SERVICE_CIDR" --controllers '*,-nodeipam,-cloud-node-lifecycle'
  launch kube-scheduler "$bin_dir/kube-scheduler" --kubeconfig "$dir/kubeconfig" \
    --leader-elect=false --secure-port 0

  say "kubelet (node $NODE_NAME at $ip)"
  write_kubelet_config "$ip" "$kubelet_port" "$kubelet_healthz"
  launch kubelet "$bin_dir/kubelet" --config "$dir/kubelet/config.yaml" \
    --kubeconfig "$dir/kubelet.kubeconfig" --root-dir "$dir/kubelet/root" \
    --hostname-override "$NODE_NAME" --node-ip "$ip" --cert-dir "$dir/kubelet/pki"

  say "kube-proxy"
  launch kube-proxy "$bin_dir/kube-proxy" --kubeconfig "$dir/kubeconfig" \
    --hostname-override "$NODE_NAME" --proxy-mode iptables --cluster-cidr "$POD_CIDR" \
    --bind-address "$ip" --healthz-bind-address "127.0.0.1:$(free_port)" \
    --metrics-bind-address "127.0.0.1:$(free_port)" \
    --conntrack-max-per-core 0

  say "coredns on $ip:53"
  local dns_health dns_ready
  dns_health="$(free_port)" dns_ready="$(free_port)"
  write_coredns_config "$ip" "$dns_health" "$dns_ready"
  launch coredns "$bin_dir/coredns" -conf "$dir/coredns/Corefile"

  import_pause_image
  wait_for "the node $NODE_NAME Ready" "$START_TIMEOUT_S" \
    kubectl_ wait --for=condition=Ready "node/$NODE_NAME" --timeout=5s
  wait_for "the default service account" 60 kubectl_ -n default get serviceaccount default
  wait_for "coredns" 30 bash -c "exec 3<>/dev/tcp/127.0.0.1/$dns_ready"
  local part
  for part in "${PARTS[@]}"; do
    pid_of "$part" >/dev/null || fail "$part exited (its log: $dir/logs/$part.log: $(tail -1 "$dir/logs/$part.log"))"
  done
  say "ready in $((SECONDS - begin)) s; export KUBECONFIG=$dir/kubeconfig"
  echo "$dir/kubeconfig"
}

# The pod sandbox's image: built here (no registry) from image/cluster/pause.Containerfile
# (the one scripts/build-cluster-images.sh builds too), under the fixed name containerd's
# sandbox_image gives, so that start needs no other image.
import_pause_image() {
  ctr_ images check "name==$PAUSE_IMAGE" 2>/dev/null | grep -q "$PAUSE_IMAGE" && return 0
  local context="$dir/run/pause-image"
  mkdir -p "$context"
  cp "$bin_dir/pause" "$context/pause"
  podman build --runtime runc -q -f "$repo_root/image/cluster/pause.Containerfile" \
    -t "${PAUSE_IMAGE#localhost/}" "$context" >/dev/null 2>&1 ||
    fail "could not build the pause image with podman (install podman: apt-get install podman)"
  rm -f "$context/pause.tar" # podman save does not overwrite an archive
  podman save -q --format docker-archive -o "$context/pause.tar" "${PAUSE_IMAGE#localhost/}" >/dev/null 2>&1 ||
    fail "podman save of the pause image failed"
  import_archive "$context/pause.tar"
}

import_archive() {
  [[ -f "$1" ]] || fail "no such archive: $1"
  ctr_ images import --no-unpack=false "$1" >/dev/null || fail "containerd could not import $1"
}

# --- stop --------------------------------------------------------------------------------

# Stops the named parts together: SIGTERM to each, then one wait of up to 20 s for all of them
# before SIGKILL. Each part takes about 2 s to exit on SIGTERM; one at a time, the eight parts
# made `stop` take 19 s.
stop_parts() {
  local part pid pids=() deadline
  for part in "$@"; do
    if pid="$(pid_of "$part")"; then
      kill "$pid" 2>/dev/null || true
      pids+=("$pid")
    fi
  done
  deadline=$((SECONDS + 20))
  for pid in "${pids[@]}"; do
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  for part in "$@"; do rm -f "$dir/run/$part.pid"; done
}

remove_pod_containers() {
  pid_of containerd >/dev/null || return 0
  local id
  for id in $(ctr_ tasks ls -q 2>/dev/null); do
    ctr_ tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true
  done
  for id in $(ctr_ tasks ls -q 2>/dev/null); do
    ctr_ tasks delete -f "$id" >/dev/null 2>&1 || true
  done
  for id in $(ctr_ containers ls -q 2>/dev/null); do
    ctr_ containers delete "$id" >/dev/null 2>&1 || true
  done
}

# Shims outlive containerd; each one whose socket or bundle is under the scratch directory goes.
kill_leftover_processes() {
  local pid
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $dir/" 2>/dev/null || true); do
    kill -9 "$pid" 2>/dev/null || true
  done
  # Processes of pods whose shim is gone: anything whose root is under our snapshots.
  for pid in $(ls /proc | grep -E '^[0-9]+$'); do
    local root
    root="$(readlink "/proc/$pid/root" 2>/dev/null || true)"
    [[ "$root" == "$dir/"* ]] && kill -9 "$pid" 2>/dev/null
  done
  return 0
}

unmount_all() {
  local mounts
  # Deepest first.
  mounts="$(awk '{print $2}' /proc/mounts | grep -F "$dir/" | sort -r || true)"
  local m
  for m in $mounts; do umount -l "$m" 2>/dev/null || true; done
  for m in $(awk '{print $2}' /proc/mounts | grep -E '^/(var/)?run/netns/cni-' || true); do
    umount -l "$m" 2>/dev/null || true
    rm -f "$m"
  done
}

remove_network() {
  local veth
  for veth in $(ip -o link show master "$BRIDGE" 2>/dev/null | awk -F': ' '{print $2}' | cut -d@ -f1); do
    ip link delete "$veth" 2>/dev/null || true
  done
  if ip link show "$BRIDGE" >/dev/null 2>&1; then ip link delete "$BRIDGE" 2>/dev/null || true; fi
  # kube-proxy's own clean-up, then any KUBE-* or CNI-* chain and rule that is left.
  if [[ -x "$bin_dir/kube-proxy" ]]; then "$bin_dir/kube-proxy" --cleanup >/dev/null 2>&1 || true; fi
  local tool table
  for tool in iptables-nft iptables-legacy ip6tables-nft ip6tables-legacy; do
    command -v "$tool-save" >/dev/null 2>&1 || continue
    for table in filter nat mangle raw; do
      "$tool-save" -t "$table" 2>/dev/null | grep -qE 'KUBE-|CNI-' || continue
      "$tool-save" -t "$table" 2>/dev/null | python3 -c '
import re, sys
lines = sys.stdin.read().splitlines()
ours = re.compile(r"(KUBE-|CNI-)")
out = []
for line in lines:
    if line.startswith(":") and ours.search(line.split()[0]):
        continue
    if line.startswith("-A") and ours.search(line):
        continue
    out.append(line)
print("\n".join(out))' | "$tool-restore" -T "$table" 2>/dev/null || true
    done
  done
}

restore_sysctls() {
  local file name
  for file in "$dir"/run/sysctl-*; do
    [[ -f "$file" ]] || continue
    name="${file##*/sysctl-}"
    cat "$file" >"/proc/sys/${name//.//}" 2>/dev/null || true
    rm -f "$file"
  done
}

remove_cgroups() {
  local root
  for root in /sys/fs/cgroup/*/; do
    [[ -d "$root/kubepods" ]] || continue
    find "$root/kubepods" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}

stop() {
  [[ "$(id -u)" == 0 ]] || fail "needs root"
  [[ -d "$dir/run" ]] || {
    say "not running (no $dir/run)"
    return 0
  }
  stop_parts kubelet
  remove_pod_containers
  # What talks to the API server first, then the API server, then what it and the pods ran on.
  stop_parts coredns kube-proxy kube-scheduler kube-controller-manager
  stop_parts kube-apiserver
  stop_parts containerd etcd
  kill_leftover_processes
  unmount_all
  remove_network
  remove_cgroups
  restore_sysctls
  rm -rf "$dir/etcd" "$dir/containerd/state" "$dir/kubelet/root" "$dir/cni/networks"
  if [[ "${1:-}" == --purge ]]; then
    unmount_all
    rm -rf "$dir"
  fi
  say "stopped"
}

# What a stopped cluster must not leave: processes, mounts, the bridge, network namespaces,
# iptables rules, cgroups. Prints each one found; exit 1 when any is.
leftovers() {
  local found=0 part tool
  for part in "${PARTS[@]}"; do
    if pid_of "$part" >/dev/null; then echo "process: $part (pid $(pid_of "$part"))" && found=1; fi
  done
  if pgrep -f "containerd-shim-runc-v2 .*-address $dir/" >/dev/null 2>&1; then
    echo "process: containerd-shim-runc-v2 of $dir" && found=1
  fi
  if grep -qF "$dir/" /proc/mounts; then
    grep -F "$dir/" /proc/mounts | awk '{print "mount: " $2}' && found=1
  fi
  if ip link show "$BRIDGE" >/dev/null 2>&1; then echo "bridge: $BRIDGE" && found=1; fi
  if ls /var/run/netns 2>/dev/null | grep -q '^cni-'; then
    ls /var/run/netns | grep '^cni-' | sed 's/^/netns: /' && found=1
  fi
  for tool in iptables-nft iptables-legacy ip6tables-nft ip6tables-legacy; do
    command -v "$tool-save" >/dev/null 2>&1 || continue
    if "$tool-save" 2>/dev/null | grep -qE 'KUBE-|CNI-'; then
      echo "$tool: $("$tool-save" 2>/dev/null | grep -cE 'KUBE-|CNI-') KUBE-/CNI- chains and rules" && found=1
    fi
  done
  if ls -d /sys/fs/cgroup/*/kubepods >/dev/null 2>&1; then
    ls -d /sys/fs/cgroup/*/kubepods | sed 's/^/cgroup: /' && found=1
  fi
  return "$found"
}

# --- status ------------------------------------------------------------------------------

status() {
  local part down=0
  for part in "${PARTS[@]}"; do
    if pid_of "$part" >/dev/null; then
      printf '%-24s running (pid %s)\n' "$part" "$(pid_of "$part")"
    else
      printf '%-24s not running\n' "$part"
      down=1
    fi
  done
  if pid_of kube-apiserver >/dev/null; then
    kubectl_ get nodes -o wide 2>&1 || down=1
  fi
  return "$down"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  status) status ;;
  leftovers) leftovers ;;
  import) import_archive "${2:?import needs an archive (podman save -o file.tar image…)}" ;;
  env) echo "export KUBECONFIG=$dir/kubeconfig" ;;
  -h | --help) usage ;;
  *)
    usage >&2
    exit 2
    ;;
esac
