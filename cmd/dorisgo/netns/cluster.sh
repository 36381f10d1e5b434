#!/usr/bin/env bash
# Runs a dorisgo cluster as separate hosts on one Linux machine: the FE and
# each BE in a network namespace of its own, with its own address on a
# bridge (veth pairs), so every FE↔BE and BE↔BE call crosses a real link
# that can be cut. Needs root and iproute2.
#
#   cluster.sh up    NAME BIN DIR NBE   namespaces, bridge and processes
#   cluster.sh cut   NAME HOST          take HOST's link down (fe, be1, be2, …)
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
set -euo pipefail

cmd=${1:?usage: cluster.sh up|cut|heal|down NAME ...}
name=${2:?NAME}
[[ $name =~ ^[a-z0-9]{1,4}$ ]] || { echo "NAME must be 1-4 lower-case letters or digits" >&2; exit 2; }
# The second octet of the subnet, derived from NAME (20-219).
octet=$(( 20 + $(printf '%s' "$name" | cksum | cut -d' ' -f1) % 200 ))
net=10.$octet.0
br=${name}br

ns() { echo "${name}-$1"; }
# addr_of HOST: fe is .10, be<i> is .(10+i).
addr_of() { if [[ $1 == fe ]]; then echo "$net.10"; else echo "$net.$((10 + ${1#be}))"; fi; }
veth() { echo "${name}v$1"; }

case $cmd in
up)
  bin=${3:?BIN}; dir=${4:?DIR}; nbe=${5:?NBE}
  mkdir -p "$dir"
  ip link add "$br" type bridge
  ip addr add "$net.1/24" dev "$br"
  ip link set "$br" up
  hosts=(fe)
  for i in $(seq 1 "$nbe"); do hosts+=("be$i"); done
  i=0
  for h in "${hosts[@]}"; do
    addr=$net.$((10 + i))
    ip netns add "$(ns "$h")"
    ip link add "$(veth "$h")" type veth peer name eth0 netns "$(ns "$h")"
    ip link set "$(veth "$h")" master "$br" up
    ip -n "$(ns "$h")" addr add "$addr/24" dev eth0
    ip -n "$(ns "$h")" link set eth0 up
    ip -n "$(ns "$h")" link set lo up
    echo "$h $addr"
    i=$((i + 1))
  done
  # The FE first: it makes the cluster token the backends are given.
  ip netns exec "$(ns fe)" "$bin" fe --host "$net.10" --data-dir "$dir/fe" \
    --mysql-port 9030 --http-port 8030 --log-level warn >"$dir/fe.log" 2>&1 &
  echo $! >"$dir/fe.pid"
  for _ in $(seq 1 100); do [[ -s $dir/fe/cluster_token ]] && break; sleep 0.1; done
  [[ -s $dir/fe/cluster_token ]] || { echo "the FE did not start: $(tail -5 "$dir/fe.log")" >&2; exit 1; }
  for i in $(seq 1 "$nbe"); do
    h=be$i
    ip netns exec "$(ns "$h")" "$bin" be --host "$net.$((10 + i))" --data-dir "$dir/$h" \
      --be-port 9060 --http-port 8040 --cluster-token-file "$dir/fe/cluster_token" >"$dir/$h.log" 2>&1 &
    echo $! >"$dir/$h.pid"
  done
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
