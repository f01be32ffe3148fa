#!/usr/bin/env bash
# slowlink.sh: an emulated slow network link on one machine, for real MPI/UCX measurements.
#
#   scripts/slowlink.sh up --rate 1gbit [--ports 20000-20063] [--links per-port|shared] [--duplex full|half]
#                          [--burst 19k] [--mtu 9000] [--rps on|off] [--congestion cubic|keep|NAME]
#   scripts/slowlink.sh down
#   scripts/slowlink.sh status
#   eval "$(scripts/slowlink.sh env [--ports A-B])"   # pins OpenMPI's TCP BTL and UCX's TCP to lo
#
# How: an htb root qdisc (handle c51:) on lo, and nothing on any other interface. Its default
# class c51:1 is unlimited (100gbit), so other loopback traffic is not slowed (it does use the
# link's packet size while up, --mtu below). TCP packets (IPv4 and IPv6) whose destination or
# source port lies in the range go to rate-limited classes. On lo every packet leaves through
# lo once, so both directions of a connection meet in the same qdisc.
#   --links per-port (default): every port of the range has its own classes, c51:1000+i for
#                  packets to port min+i and c51:2000+i for packets from it (one u32 filter
#                  per port, direction and IP version; at most 256 ports). Each MPI or UCX
#                  process listens on its own port and each pair of processes talks over one
#                  connection, so a message is charged either to its receiver's port (the
#                  sender connected to it) or to its sender's (the receiver did): in a ring
#                  or between pairs, each class carries one flow and every process has a
#                  full-duplex link of the rate to itself, as nodes with a NIC each would.
#                  Measured in one run (1gbit, 2 processes, ring all_reduce of 16 MiB, 2
#                  rounds of 5): 144.2 ms, p10..p90 143.9..146.5 (the link: 134.2 ms plus
#                  headers); longer runs still meet the erratic large transfers below.
#   --links shared: two classes for all, c51:10 for packets to a port in the range (client ->
#                  listener) and c51:11 for packets from one, each at the rate: the two
#                  directions of one connection, not of a pair of processes, so messages of
#                  several processes share a class. The same 16 MiB all_reduce: 284.8 ms,
#                  p10..p90 236.4..285.4 (half the rate, most of the time); at 4 processes
#                  846.9 ms where per-port links take 408.3 (the link: 201.3).
#   --duplex half: one class per port (per-port) or one for all (shared) for both directions.
# Ports: MPI and UCX listen on a port of the range and connect from an ephemeral port
# (net.ipv4.ip_local_port_range, 32768-60999 here). The default range 20000-20063 lies
# outside it; a range that overlaps it works, but then a client port may fall into the
# range by chance (the script warns).
#
# Packets (--mtu, default 9000: jumbo frames): htb charges a packet when it sends it, so a
# class with any tokens left sends its next packet at loopback speed, however large, and the
# tokens go negative. lo's own MTU is 64 KiB and TCP hands it segments of up to 64 KiB (GSO), so
# with lo as it is each message of up to about 64 KiB went out at once, and only the next one
# paid for it: measured here (2 processes, ring all_reduce over Open MPI's TCP BTL, 1gbit,
# --burst 15k), a 64 KiB all_reduce took 170 us where the link needs 524 us (32 KiB each way,
# twice), and a compressed all_reduce, whose small messages are spaced by the codec's work,
# looked faster than any 1 Gbit/s link would carry it. While up, lo's MTU and its largest GSO
# packet are --mtu, so htb shapes frame by frame as a real link's serialisation does; down
# restores both. The other loopback traffic (ports out of range) uses those packets too while
# the link is up. --mtu 65536 keeps lo's packets (the behaviour before 2026-12-02).
# Burst: what a class may send at once after idling (--burst, default 19k: two jumbo frames; a
# smaller one is rounded up by the packet).
# Packets in order (--rps, default on): htb hands a packet to lo from whichever CPU runs the
# qdisc at that moment (the sender's, or the one whose timer fires when a class may send
# again), and lo delivers it through that CPU's backlog; two CPUs' backlogs drain independently,
# so the packets of one connection arrive out of order. TCP reads the reordering as loss:
# measured here (1gbit, --mtu 1500, 2 processes, ring all_reduce of 32 MiB over Open MPI's TCP
# BTL, 5 repetitions) 33,000-47,000 segments were retransmitted per run (nstat TcpRetransSegs;
# TCPSACKReorder, TCPDSACKRecv: the receiver had them already), and the retransmissions took
# the link's capacity: 480-757 ms where the link needs 278. Receive packet steering on lo
# (/sys/class/net/lo/queues/rx-*/rps_cpus: every CPU) puts all packets of a connection into one
# CPU's backlog, chosen by the connection's hash: in order, 0-1 retransmissions per run. This
# was the "rate or half of it from run to run" of the large transfers measured before
# 2026-12-02 (tests/data/measure/*/1gbit-*.json without "rps" in machine.emulated_link).
# Congestion control (--congestion, default cubic): the host's default here is bbr, which
# paces by its estimate of the path; through the shaper its 32 MiB all_reduces came out at the
# link's time or 1.5 times it, phase by phase (275 or 420 ms, --mtu 9000). With cubic every
# repetition of 4 and 32 MiB took 34 and 275 ms (the link: 33.5 and 270). --congestion keep
# leaves the host's choice. Both settings are the host's (every TCP connection's congestion
# control, lo's packet steering): up saves them and down restores them.
# Why jumbo frames: frames cost CPU. With packets in order and cubic, at --mtu 1500 (--burst 3k)
# the kernel's packet work (softirq) took 57 % of both CPUs for a 32 MiB all_reduce, which then
# ran at 60 % of the link's rate (461-471 ms), however few the filters: the "link" was the
# CPU. A model fitted on such a run does not transfer to the compressed ring, whose fewer bytes
# cost less CPU (on 2026-12-02, bench/results/calibration.md: 13.4 % gmean against 7.8 % with
# jumbo frames). At --mtu 9000 softirq took 15-21 % and 1-64 MiB ran at the link's rate, each
# size's repetitions within +-1-3 %. Small messages then pay about 57 us per all_reduce up to
# 16 KiB (28 us per hop; 1 GbE's own is 20-50 us), against 14 us at --mtu 1500.
# Needs root and tc (iproute2) with the htb scheduler. Idempotent: `up` replaces an earlier
# slowlink, `down` with nothing set up is fine. Refuses to replace a root qdisc on lo that it
# did not create. Exit codes: 0 ok, 1 error, 2 usage.
set -euo pipefail

readonly kDev=lo
readonly kHandle=c51
readonly kState=/run/ccsim-slowlink.conf
readonly kDefaultPorts=20000-20063
readonly kDefaultBurst=19k
readonly kDefaultMtu=9000
readonly kMaxPerPort=256

die() { echo "slowlink: error: $*" >&2; exit 1; }
usage_error() { echo "slowlink: $*" >&2; echo "usage: $0 up --rate RATE [--ports A-B] [--links per-port|shared] [--duplex full|half] [--burst SIZE] [--mtu BYTES] [--rps on|off] [--congestion NAME|keep] | down | status | env [--ports A-B]" >&2; exit 2; }

need_tc() {
  command -v tc >/dev/null 2>&1 || die "tc not found (install iproute2)"
}
need_root() {
  [ "$(id -u)" -eq 0 ] || die "must run as root to change qdiscs on $kDev (running as uid $(id -u))"
}

# Validates "A-B" (1 <= A <= B <= 65535) and sets port_min, port_max.
parse_ports() {
  local text=$1
  [[ $text =~ ^([0-9]{1,5})-([0-9]{1,5})$ ]] || usage_error "--ports: expected A-B (e.g. 20000-20999), got \"$text\""
  port_min=$((10#${BASH_REMATCH[1]}))
  port_max=$((10#${BASH_REMATCH[2]}))
  ((port_min >= 1 && port_max <= 65535 && port_min <= port_max)) ||
    usage_error "--ports: expected 1 <= A <= B <= 65535, got \"$text\""
}

# Prints "port mask" per aligned power-of-two block covering [lo, hi].
port_blocks() {
  local lo=$1 hi=$2 size
  while ((lo <= hi)); do
    size=1
    while ((lo % (size * 2) == 0 && lo + size * 2 - 1 <= hi)); do size=$((size * 2)); done
    printf '%d 0x%04x\n' "$lo" $((0xffff & ~(size - 1)))
    lo=$((lo + size))
  done
}

# The root qdisc of lo: "ours", "none" (the default noqueue) or "foreign: <tc line>".
root_qdisc_owner() {
  local line
  line=$(tc qdisc show dev "$kDev" root 2>/dev/null | head -n1 || true)
  if [[ -z $line || $line == "qdisc noqueue 0:"* ]]; then
    echo none
  elif [[ $line == "qdisc htb $kHandle: root"* ]]; then
    echo ours
  else
    echo "foreign: $line"
  fi
}

# lo's MTU and its largest GSO packet ("MTU GSO"; GSO empty where ip does not show it).
link_packets() {
  local line mtu gso
  line=$(ip -d link show dev "$kDev")
  mtu=$(grep -o ' mtu [0-9]*' <<<"$line" | head -n1 | awk '{print $2}')
  gso=$(grep -o 'gso_max_size [0-9]*' <<<"$line" | head -n1 | awk '{print $2}')
  echo "$mtu ${gso:-}"
}
# set_packets MTU [GSO]
set_packets() {
  ip link set dev "$kDev" mtu "$1"
  if [ -n "${2-}" ]; then ip link set dev "$kDev" gso_max_size "$2"; fi
}
# Restores lo's packets saved in the settings file by up, if any.
restore_packets() {
  [ -r "$kState" ] || return 0
  local orig_mtu="" orig_gso=""
  eval "$(grep -E '^orig_(mtu|gso)=[0-9]*$' "$kState" || true)"
  [ -n "$orig_mtu" ] || return 0
  set_packets "$orig_mtu" "$orig_gso"
}

# lo's receive queues' packet steering masks, "QUEUE=MASK+QUEUE=MASK..." (MASK as sysfs writes
# it; no spaces, so that the settings file can be sourced).
rps_masks() {
  local q out=""
  for q in /sys/class/net/"$kDev"/queues/rx-*/rps_cpus; do
    [ -r "$q" ] || continue
    q=${q%/rps_cpus}
    out+="${q##*/}=$(tr -d '\n' <"$q/rps_cpus")+"
  done
  echo "${out%+}"
}
# set_rps "QUEUE=MASK+..." (rps_masks' format) or "all": every CPU of this machine.
set_rps() {
  local item q mask
  if [ "$1" = all ]; then
    local n cpus
    n=$(nproc --all)
    cpus=$(printf '%x' $(((1 << (n < 31 ? n : 31)) - 1)))
    for q in /sys/class/net/"$kDev"/queues/rx-*; do echo "$cpus" >"$q/rps_cpus"; done
    return
  fi
  local items
  IFS=+ read -r -a items <<<"$1"
  for item in "${items[@]}"; do
    q=${item%%=*}
    mask=${item#*=}
    [[ $q =~ ^rx-[0-9]+$ && $mask =~ ^[0-9a-f,]+$ ]] || continue
    echo "$mask" >/sys/class/net/"$kDev"/queues/"$q"/rps_cpus
  done
}
congestion_now() { cat /proc/sys/net/ipv4/tcp_congestion_control; }
set_congestion() { echo "$1" >/proc/sys/net/ipv4/tcp_congestion_control; }
# Restores the host settings up saved (packet steering, congestion control), if any.
restore_host() {
  [ -r "$kState" ] || return 0
  local orig_rps orig_cc
  orig_rps=$(sed -n 's/^orig_rps=//p' "$kState")
  orig_cc=$(sed -n 's/^orig_cc=//p' "$kState")
  if [ -n "$orig_rps" ]; then set_rps "$orig_rps" || true; fi
  if [[ $orig_cc =~ ^[a-z0-9_]+$ ]]; then set_congestion "$orig_cc" || true; fi
}

# What a failed `up` restores: lo's qdisc (ours), packets, packet steering and congestion
# control, as saved before up changed any of them. An EXIT trap, not an ERR trap: bash does not
# pass an ERR trap to functions (without set -E), so a failure inside set_packets, set_rps or
# set_congestion ended the script with lo changed and no settings file for down to restore from.
rollback_armed=0
rollback_mtu="" rollback_gso="" rollback_rps="" rollback_cc=""
rollback_up() {
  ((rollback_armed)) || return 0
  rollback_armed=0
  set +e
  echo "slowlink: error: up failed; restoring $kDev and the host settings it changed" >&2
  [ "$(root_qdisc_owner)" = ours ] && tc qdisc del dev "$kDev" root
  if [ -n "$rollback_mtu" ]; then
    ip link set dev "$kDev" mtu "$rollback_mtu"
    if [ -n "$rollback_gso" ]; then ip link set dev "$kDev" gso_max_size "$rollback_gso"; fi
  fi
  if [ -n "$rollback_rps" ]; then set_rps "$rollback_rps"; fi
  if [[ $rollback_cc =~ ^[a-z0-9_]+$ ]]; then set_congestion "$rollback_cc"; fi
  rm -f "$kState"
}

cmd_up() {
  local rate="" ports=$kDefaultPorts duplex=full burst=$kDefaultBurst mtu=$kDefaultMtu links=per-port rps=on congestion=cubic
  while (($#)); do
    case $1 in
      --rate) rate=${2-}; shift 2 || usage_error "--rate needs a value" ;;
      --ports) ports=${2-}; shift 2 || usage_error "--ports needs a value" ;;
      --duplex) duplex=${2-}; shift 2 || usage_error "--duplex needs a value" ;;
      --burst) burst=${2-}; shift 2 || usage_error "--burst needs a value" ;;
      --mtu) mtu=${2-}; shift 2 || usage_error "--mtu needs a value" ;;
      --links) links=${2-}; shift 2 || usage_error "--links needs a value" ;;
      --rps) rps=${2-}; shift 2 || usage_error "--rps needs a value" ;;
      --congestion) congestion=${2-}; shift 2 || usage_error "--congestion needs a value" ;;
      *) usage_error "up: unknown option \"$1\" (valid: --rate, --ports, --duplex, --burst, --mtu, --links, --rps, --congestion)" ;;
    esac
  done
  [ -n "$rate" ] || usage_error "up: --rate is required (e.g. --rate 1gbit)"
  [[ $rate =~ ^[0-9]+(\.[0-9]+)?(bit|kbit|mbit|gbit|tbit|bps|kbps|mbps|gbps|tbps)$ ]] ||
    usage_error "--rate: expected a number with a tc unit (bit, kbit, mbit, gbit, tbit, bps, kbps, mbps, gbps, tbps), e.g. 1gbit, got \"$rate\""
  [[ $rate =~ ^0+(\.0+)?[a-z]+$ ]] && usage_error "--rate: must be positive, got \"$rate\""
  [[ $burst =~ ^[0-9]+(k|kb|m|mb|b)?$ ]] ||
    usage_error "--burst: expected a size in bytes with optional k/m suffix (e.g. 15k), got \"$burst\""
  case $duplex in full | half) ;; *) usage_error "--duplex: expected full or half, got \"$duplex\"" ;; esac
  case $links in shared | per-port) ;; *) usage_error "--links: expected shared or per-port, got \"$links\"" ;; esac
  if ! [[ $mtu =~ ^[0-9]{1,5}$ ]] || ((10#$mtu < 1280 || 10#$mtu > 65536)); then
    usage_error "--mtu: expected a packet size in bytes from 1280 (IPv6's minimum) to 65536, got \"$mtu\""
  fi
  mtu=$((10#$mtu))
  case $rps in on | off) ;; *) usage_error "--rps: expected on or off, got \"$rps\"" ;; esac
  if [ "$congestion" != keep ]; then
    local available
    available=$(cat /proc/sys/net/ipv4/tcp_available_congestion_control 2>/dev/null || true)
    [[ " $available " == *" $congestion "* ]] ||
      usage_error "--congestion: expected keep or one of this kernel's (${available:-none listed}), got \"$congestion\""
  fi
  parse_ports "$ports"
  if [ "$links" = per-port ] && ((port_max - port_min >= kMaxPerPort)); then
    usage_error "--links per-port: at most $kMaxPerPort ports (a pair of classes and four filters each), got $ports ($((port_max - port_min + 1)))"
  fi
  need_tc
  need_root
  ip link show dev "$kDev" >/dev/null 2>&1 || die "no interface $kDev"

  local owner
  owner=$(root_qdisc_owner)
  case $owner in
    ours) tc qdisc del dev "$kDev" root ;;
    none) ;;
    *) die "$kDev already has a root qdisc that slowlink did not create (${owner#foreign: }); remove it first" ;;
  esac
  # lo's own packets, to restore on down: those an earlier up saved, else lo's now.
  local orig_mtu="" orig_gso=""
  if [ -r "$kState" ]; then eval "$(grep -E '^orig_(mtu|gso)=[0-9]*$' "$kState" || true)"; fi
  if [ -z "$orig_mtu" ]; then read -r orig_mtu orig_gso < <(link_packets); fi
  [ -n "$orig_mtu" ] || die "cannot read the MTU of $kDev (ip -d link show dev $kDev)"
  # The host's packet steering and congestion control likewise.
  local orig_rps="" orig_cc=""
  if [ -r "$kState" ]; then
    orig_rps=$(sed -n 's/^orig_rps=//p' "$kState")
    orig_cc=$(sed -n 's/^orig_cc=//p' "$kState")
  fi
  [ -n "$orig_rps" ] || orig_rps=$(rps_masks)
  [ -n "$orig_cc" ] || orig_cc=$(congestion_now)

  local eph_lo eph_hi
  read -r eph_lo eph_hi </proc/sys/net/ipv4/ip_local_port_range || true
  if [[ -n ${eph_lo-} ]] && ((port_min <= eph_hi && port_max >= eph_lo)); then
    echo "slowlink: warning: ports $ports overlap the ephemeral range $eph_lo-$eph_hi: a client port may fall into the shaped range" >&2
  fi

  local to_class=$kHandle:10 from_class=$kHandle:10
  [ "$duplex" = full ] && from_class=$kHandle:11
  # Any failure below (set -e ends the script, in a function too) leaves lo half-changed:
  # restore all of it rather than leave lo shaped oddly.
  rollback_mtu=$orig_mtu rollback_gso=$orig_gso rollback_rps=$orig_rps rollback_cc=$orig_cc
  rollback_armed=1
  trap 'rollback_up' EXIT
  set_packets "$mtu" "${orig_gso:+$mtu}"
  if [ "$rps" = on ]; then set_rps all; else set_rps "$orig_rps"; fi
  if [ "$congestion" != keep ]; then set_congestion "$congestion"; else set_congestion "$orig_cc"; fi
  tc qdisc add dev "$kDev" root handle "$kHandle:" htb default 1
  tc class add dev "$kDev" parent "$kHandle:" classid "$kHandle:1" htb rate 100gbit burst 1m cburst 1m quantum 200000
  if [ "$links" = per-port ]; then
    # Each port of the range its own classes (tc -batch: a few hundred commands).
    local batch i cls_to cls_from
    batch=$(mktemp)
    for ((i = 0; i <= port_max - port_min; i++)); do
      cls_to=$(printf '%x' $((0x1000 + i)))
      cls_from=$cls_to
      [ "$duplex" = full ] && cls_from=$(printf '%x' $((0x2000 + i)))
      echo "class add dev $kDev parent $kHandle: classid $kHandle:$cls_to htb rate $rate ceil $rate burst $burst cburst $burst quantum 66000"
      [ "$cls_from" = "$cls_to" ] ||
        echo "class add dev $kDev parent $kHandle: classid $kHandle:$cls_from htb rate $rate ceil $rate burst $burst cburst $burst quantum 66000"
      echo "filter add dev $kDev parent $kHandle: protocol ip prio 1 u32 match ip protocol 6 0xff match ip dport $((port_min + i)) 0xffff flowid $kHandle:$cls_to"
      echo "filter add dev $kDev parent $kHandle: protocol ip prio 2 u32 match ip protocol 6 0xff match ip sport $((port_min + i)) 0xffff flowid $kHandle:$cls_from"
      echo "filter add dev $kDev parent $kHandle: protocol ipv6 prio 3 u32 match ip6 protocol 6 0xff match ip6 dport $((port_min + i)) 0xffff flowid $kHandle:$cls_to"
      echo "filter add dev $kDev parent $kHandle: protocol ipv6 prio 4 u32 match ip6 protocol 6 0xff match ip6 sport $((port_min + i)) 0xffff flowid $kHandle:$cls_from"
    done >"$batch"
    tc -batch "$batch"
    rm -f "$batch"
  else
    tc class add dev "$kDev" parent "$kHandle:" classid "$kHandle:10" htb rate "$rate" ceil "$rate" burst "$burst" cburst "$burst" quantum 66000
    if [ "$duplex" = full ]; then
      tc class add dev "$kDev" parent "$kHandle:" classid "$kHandle:11" htb rate "$rate" ceil "$rate" burst "$burst" cburst "$burst" quantum 66000
    fi
    local port mask
    while read -r port mask; do
      tc filter add dev "$kDev" parent "$kHandle:" protocol ip prio 1 u32 \
        match ip protocol 6 0xff match ip dport "$port" "$mask" flowid "$to_class"
      tc filter add dev "$kDev" parent "$kHandle:" protocol ip prio 2 u32 \
        match ip protocol 6 0xff match ip sport "$port" "$mask" flowid "$from_class"
      tc filter add dev "$kDev" parent "$kHandle:" protocol ipv6 prio 3 u32 \
        match ip6 protocol 6 0xff match ip6 dport "$port" "$mask" flowid "$to_class"
      tc filter add dev "$kDev" parent "$kHandle:" protocol ipv6 prio 4 u32 \
        match ip6 protocol 6 0xff match ip6 sport "$port" "$mask" flowid "$from_class"
    done < <(port_blocks "$port_min" "$port_max")
  fi
  printf 'rate=%s\nports=%s\nduplex=%s\nlinks=%s\nburst=%s\nmtu=%s\nrps=%s\ncongestion=%s\norig_mtu=%s\norig_gso=%s\norig_rps=%s\norig_cc=%s\n' \
    "$rate" "$ports" "$duplex" "$links" "$burst" "$mtu" "$rps" "$(congestion_now)" "$orig_mtu" "$orig_gso" "$orig_rps" "$orig_cc" >"$kState"
  rollback_armed=0
  trap - EXIT
  echo "slowlink: up on $kDev: TCP ports $ports at $rate ($duplex duplex, $links links, burst $burst, packets of $mtu bytes, packet steering $rps, congestion control $(congestion_now))"
}

cmd_down() {
  (($# == 0)) || usage_error "down takes no options, got \"$1\""
  need_tc
  need_root
  local owner
  owner=$(root_qdisc_owner)
  case $owner in
    ours) tc qdisc del dev "$kDev" root; restore_packets; restore_host; rm -f "$kState"; echo "slowlink: down" ;;
    none) restore_packets; restore_host; rm -f "$kState"; echo "slowlink: down (nothing was set up)" ;;
    *) restore_packets; restore_host; rm -f "$kState"; echo "slowlink: down (the root qdisc of $kDev is not slowlink's, left alone: ${owner#foreign: })" ;;
  esac
}

cmd_status() {
  (($# == 0)) || usage_error "status takes no options, got \"$1\""
  need_tc
  local owner
  owner=$(root_qdisc_owner)
  if [ "$owner" != ours ]; then
    echo "slowlink: down"
    return 0
  fi
  if [ -r "$kState" ]; then
    # shellcheck disable=SC1090
    local rate ports duplex burst mtu="" orig_mtu="" orig_gso="" links="" rps="" congestion="" orig_rps="" orig_cc=""
    # shellcheck source=/dev/null
    . "$kState"
    echo "slowlink: up on $kDev: TCP ports $ports at $rate ($duplex duplex, ${links:-?} links, burst $burst, packets of ${mtu:-?} bytes; lo's own ${orig_mtu:-?}; packet steering ${rps:-?} ($(rps_masks)), congestion control ${congestion:-?}; the host's own: steering ${orig_rps:-?}, ${orig_cc:-?})"
  else
    echo "slowlink: up on $kDev (settings file $kState missing)"
  fi
  tc -s class show dev "$kDev"
  echo "filters: $(tc filter show dev "$kDev" | grep -c flowid)"
}

cmd_env() {
  local ports=""
  while (($#)); do
    case $1 in
      --ports) ports=${2-}; shift 2 || usage_error "--ports needs a value" ;;
      *) usage_error "env: unknown option \"$1\" (valid: --ports)" ;;
    esac
  done
  if [ -z "$ports" ]; then
    ports=$kDefaultPorts
    if [ -r "$kState" ]; then ports=$(sed -n 's/^ports=//p' "$kState"); fi
  fi
  parse_ports "$ports"
  cat <<EOF
# OpenMPI: ob1 with only self and TCP on lo, listening in $ports (no sm/vader, no UCX PML).
export OMPI_MCA_pml=ob1
export OMPI_MCA_btl=self,tcp
export OMPI_MCA_btl_tcp_if_include=lo
export OMPI_MCA_btl_tcp_port_min_v4=$port_min
export OMPI_MCA_btl_tcp_port_range_v4=$((port_max - port_min + 1))
export OMPI_MCA_btl_tcp_port_min_v6=$port_min
export OMPI_MCA_btl_tcp_port_range_v6=$((port_max - port_min + 1))
export OMPI_MCA_osc=^ucx
export OMPI_MCA_oob_tcp_if_include=lo
# UCX: TCP on lo only, listening in $ports (no posix/sysv/cma shared memory).
export UCX_TLS=tcp,self
export UCX_NET_DEVICES=lo
export UCX_TCP_PORT_RANGE=$port_min-$port_max
EOF
}

main() {
  (($#)) || usage_error "missing command"
  local cmd=$1
  shift
  case $cmd in
    up) cmd_up "$@" ;;
    down) cmd_down "$@" ;;
    status) cmd_status "$@" ;;
    env) cmd_env "$@" ;;
    -h | --help) sed -n '2,8p' "$0" ;;
    *) usage_error "unknown command \"$cmd\" (valid: up, down, status, env)" ;;
  esac
}

main "$@"
