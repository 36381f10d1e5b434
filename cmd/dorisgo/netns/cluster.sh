#!/usr/bin/env bash
# Runs a dorisgo cluster as separate hosts on one Linux machine: the FE and
# each BE in a network namespace of its own, with its own address on a
# bridge (veth pairs), so every FE↔BE and BE↔BE call crosses a real link
# that can be cut. Needs root and iproute2.
#
#   cluster.sh up    NAME BIN DIR NBE [NFE]  namespaces, bridge and processes
#   cluster.sh start NAME HOST BIN DIR  (re)start HOST's process, as `up` did
#   cluster.sh cut   NAME HOST          take HOST's link down (fe, fe2, be1, …)
#   cluster.sh heal  NAME HOST          bring it back
#   cluster.sh isolate NAME HOST PEER   HOST and PEER no longer reach each other
#                                       (both keep their links to the others)
#   cluster.sh rejoin  NAME HOST PEER   undo isolate
#   cluster.sh down  NAME DIR           stop the processes, remove everything
#
# NAME (1-4 letters or digits) prefixes every namespace and interface, so
# two clusters can run side by side. Addresses: the bridge is 10.N.0.1
# (N from NAME), the FE 10.N.0.10 (MySQL 9030, HTTP 8030), BE i 10.N.0.(10+i)
# (gRPC 9060, HTTP 8040). `up` prints one line per host: "host address".
# Logs and pids are in DIR/<host>.log and DIR/<host>.pid.
#
# With NFE > 1 the frontends are replicated: fe, fe2, …, feNFE (fe<j> at
# 10.N.0.(100+j)) run with --edit-log-port 9010; fe bootstraps the journal
# and the others start with --helper fe's edit log address, joining once the
# master ran ALTER SYSTEM ADD FOLLOWER "10.N.0.(100+j):9010" (they wait for
# it up to two minutes).
set -euo pipefail

cmd=${1:?usage: cluster.sh up|cut|heal|down NAME ...}
name=${2:?NAME}
[[ $name =~ ^[a-z0-9]{1,4}$ ]] || { echo "NAME must be 1-4 lower-case letters or digits" >&2; exit 2; }
# The second octet of the subnet, derived from NAME (20-219).
octet=$(( 20 + $(printf '%s' "$name" | cksum | cut -d' ' -f1) % 200 ))
net=10.$octet.0
br=${name}br

ns() { echo "${name}-$1"; }
# addr_of HOST: fe is .10, fe<j> is .(100+j), be<i> is .(10+i).
addr_of() {
  case $1 in
  fe) echo "$net.10" ;;
  fe*) echo "$net.$((100 + ${1#fe}))" ;;
  *) echo "$net.$((10 + ${1#be}))" ;;
  esac
}
veth() { echo "${name}v$1"; }

# start_host HOST BIN DIR: HOST's process in its namespace, in the background.
start_host() {
  local h=$1 bin=$2 dir=$3 addr
  addr=$(addr_of "$h")
  case $h in
  fe*)
    local ha=()
    if [[ -e $dir/replicated ]]; then
      ha=(--edit-log-port 9010)
      [[ $h == fe ]] || ha+=(--helper "$net.10:9010")
    fi
    ip netns exec "$(ns "$h")" "$bin" fe --host "$addr" --data-dir "$dir/$h" \
      --mysql-port 9030 --http-port 8030 "${ha[@]}" --log-level warn >>"$dir/$h.log" 2>&1 &
    ;;
  *)
    ip netns exec "$(ns "$h")" "$bin" be --host "$addr" --data-dir "$dir/$h" \
      --be-port 9060 --http-port 8040 --cluster-token-file "$dir/fe/cluster_token" >>"$dir/$h.log" 2>&1 &
    ;;
  esac
  echo $! >"$dir/$h.pid"
}

case $cmd in
up)
  bin=${3:?BIN}; dir=${4:?DIR}; nbe=${5:?NBE}; nfe=${6:-1}
  mkdir -p "$dir"
  if (( nfe > 1 )); then touch "$dir/replicated"; fi
  ip link add "$br" type bridge
  ip addr add "$net.1/24" dev "$br"
  ip link set "$br" up
  hosts=(fe)
  for j in $(seq 2 "$nfe"); do hosts+=("fe$j"); done
  for i in $(seq 1 "$nbe"); do hosts+=("be$i"); done
  for h in "${hosts[@]}"; do
    addr=$(addr_of "$h")
    ip netns add "$(ns "$h")"
    ip link add "$(veth "$h")" type veth peer name eth0 netns "$(ns "$h")"
    ip link set "$(veth "$h")" master "$br" up
    ip -n "$(ns "$h")" addr add "$addr/24" dev eth0
    ip -n "$(ns "$h")" link set eth0 up
    ip -n "$(ns "$h")" link set lo up
    echo "$h $addr"
  done
  # The FE first: it makes the cluster token the backends are given.
  start_host fe "$bin" "$dir"
  for _ in $(seq 1 100); do [[ -s $dir/fe/cluster_token ]] && break; sleep 0.1; done
  [[ -s $dir/fe/cluster_token ]] || { echo "the FE did not start: $(tail -5 "$dir/fe.log")" >&2; exit 1; }
  for h in "${hosts[@]}"; do
    [[ $h == fe ]] || start_host "$h" "$bin" "$dir"
  done
  ;;
start)
  start_host "${3:?HOST}" "${4:?BIN}" "${5:?DIR}"
  ;;
cut)
  ip link set "$(veth "${3:?HOST}")" down
  ;;
heal)
  ip link set "$(veth "${3:?HOST}")" up
  ;;
isolate)
  # HOST routes nothing to PEER: its packets to PEER (replies included)
  # are dropped, so neither reaches the other.
  ip -n "$(ns "${3:?HOST}")" route add unreachable "$(addr_of "${4:?PEER}")/32"
  ;;
rejoin)
  ip -n "$(ns "${3:?HOST}")" route del unreachable "$(addr_of "${4:?PEER}")/32"
  ;;
down)
  dir=${3:?DIR}
  for p in "$dir"/*.pid; do
    [[ -e $p ]] || continue
    kill -9 "$(cat "$p")" 2>/dev/null || true
    rm -f "$p"
  done
  for n in $(ip netns list | awk '{print $1}' | grep "^${name}-" || true); do
    ip netns pids "$n" | xargs -r kill -9 2>/dev/null || true
    ip netns del "$n"
  done
  ip link del "$br" 2>/dev/null || true
  ;;
*)
  echo "unknown command $cmd" >&2; exit 2
  ;;
esac
