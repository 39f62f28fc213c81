#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, for trying the array job of
# scripts/slurm/perft.sbatch (and for its end-to-end test). Needs Debian's
# `slurm-wlm` and `munge` packages (apt-get install -y slurm-wlm munge) and
# root. Starts munged, slurmctld and slurmd directly (no systemd) with a
# minimal slurm.conf: SlurmUser=root, proctrack/linuxproc, task/none, one
# node with this machine's CPUs, one partition `perft`.
#
#   scripts/slurm/local-cluster.sh start [STATE_DIR]   # default /tmp/perft-slurm
#   scripts/slurm/local-cluster.sh stop  [STATE_DIR]
#
# Then point the Slurm commands at the configuration:
#   export SLURM_CONF=/tmp/perft-slurm/slurm.conf
#   sinfo; sbatch ...; squeue
set -euo pipefail

cmd=${1:-}
state=${2:-/tmp/perft-slurm}
conf=$state/slurm.conf

die() { echo "local-cluster.sh: $*" >&2; exit 1; }

stop() {
    # Our own daemons only, by the pids they wrote.
    for name in slurmd slurmctld munged; do
        pidfile=$state/$name.pid
        if [ -f "$pidfile" ] && pid=$(cat "$pidfile") && kill -0 "$pid" 2>/dev/null; then
            kill "$pid" 2>/dev/null || true
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        fi
        rm -f "$pidfile"
    done
}

start() {
    [ "$(id -u)" = 0 ] || die "run as root (the daemons run as root here)"
    for b in munged slurmctld slurmd sinfo; do
        command -v "$b" >/dev/null || die "$b not found: apt-get install -y slurm-wlm munge"
    done
    stop
    mkdir -p "$state/ctld" "$state/spool" "$state/munge"
    chmod 700 "$state/munge"
    # munge: a key of our own, a socket in the state directory.
    [ -f "$state/munge/munge.key" ] || dd if=/dev/urandom of="$state/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$state/munge/munge.key"
    local socket=$state/munge/munge.socket
    munged --force --key-file="$state/munge/munge.key" --socket="$socket" \
        --pid-file="$state/munged.pid" --log-file="$state/munged.log" \
        --seed-file="$state/munge/munge.seed"
    local host cpus mem
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
    cat > "$conf" <<CONF
# Written by scripts/slurm/local-cluster.sh: a one-node test cluster.
ClusterName=perft
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=perft Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
    export SLURM_CONF=$conf
    slurmctld -f "$conf"
    slurmd -f "$conf"
    for _ in $(seq 100); do
        if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
            echo "local-cluster.sh: cluster up: node $host, $cpus CPUs, partition perft" >&2
            echo "export SLURM_CONF=$conf"
            return 0
        fi
        sleep 0.2
    done
    sinfo >&2 || true
    tail -5 "$state/slurmctld.log" "$state/slurmd.log" >&2 || true
    die "the node did not come up (logs in $state)"
}

case "$cmd" in
    start) start ;;
    stop) stop; echo "local-cluster.sh: stopped" >&2 ;;
    *) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
