#!/usr/bin/env bash
# Proves `sweep slurm` on a real Slurm cluster: a one-node cluster on loopback (munged, slurmctld, slurmd from
# Debian's slurm-wlm and munge, configured in a temporary directory), a 16-point sweep submitted as a job array
# of 6 tasks, and its merged results compared with a local `sweep run` of the same spec: every record must be
# equal except the timings host_seconds and sim_seconds (cycles, instruction counts and every statistic, bit for
# bit).
#
# usage: slurm_test.sh SWEEP_EXECUTABLE
# Exit 0 pass, 1 fail, 77 skip (CTest SKIP_RETURN_CODE): not root, apt cannot install the packages, or the
# daemons cannot run here. Only 127.0.0.1 is used. GPUARCH_KEEP_SLURM_DIR=1 keeps the temporary directory.
set -uo pipefail

sweep=${1:?usage: slurm_test.sh SWEEP_EXECUTABLE}
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; show_logs; exit 1; }
work=""
pids=()
show_logs() {
    [ -n "$work" ] || return 0
    for f in "$work"/log/*.log "$work"/cluster/slurm/*.out; do
        [ -f "$f" ] || continue
        echo "---- $f (last 30 lines)"
        tail -n 30 "$f"
    done
}
stop_daemons() {
    # By PID, newest first (slurmd, slurmctld, munged); TERM, then KILL after 10 s.
    local i pid
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        pid=${pids[i]}
        kill -TERM "$pid" 2>/dev/null || continue
        for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    pids=()
}
cleanup() {
    stop_daemons
    if [ -n "$work" ] && [ "${GPUARCH_KEEP_SLURM_DIR:-0}" != 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ -x "$sweep" ] || fail "no sweep executable at '$sweep'"
[ "$(id -u)" -eq 0 ] || skip "not root: a private Slurm cluster needs root to install slurm-wlm/munge and run slurmd"

have_all() { for b in munged munge unmunge slurmctld slurmd sbatch squeue sinfo; do command -v "$b" >/dev/null || return 1; done; }
if ! have_all; then
    command -v apt-get >/dev/null || skip "slurm-wlm/munge are not installed and there is no apt-get"
    echo "installing slurm-wlm and munge with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    if ! timeout 600 apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null 2>&1; then
        timeout 300 apt-get update -qq >/dev/null 2>&1
        timeout 600 apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null 2>&1 ||
            skip "apt-get could not install slurm-wlm and munge"
    fi
    have_all || skip "slurm-wlm/munge installed, but their programs are not on PATH"
fi

work=$(mktemp -d /tmp/gpuarch_slurm.XXXXXX) || skip "cannot create a temporary directory"
chmod 0700 "$work"
mkdir -p "$work"/{munge,log,state,spool,run}

# munge: a private key, socket and daemon (the system's munged, if any, is left alone).
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$work/munge/munge.key"
socket="$work/munge/munge.socket"
munged -F --force --key-file="$work/munge/munge.key" --socket="$socket" --pid-file="$work/run/munged.pid" \
    --log-file="$work/log/munged.log" --seed-file="$work/munge/munged.seed" >"$work/log/munged.out.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || { show_logs; skip "munged does not start here (see its log above)"; }
munge -n -S "$socket" | unmunge -S "$socket" >/dev/null 2>&1 || { show_logs; skip "munge credentials do not round-trip"; }

# Two free TCP ports on loopback (a probe that connects means the port is taken).
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
    local p=$1
    while port_busy "$p" || [ "$p" = "${2:-}" ]; do p=$((p + 1)); done
    echo "$p"
}
base=$((20000 + ($$ % 20000)))
ctld_port=$(pick_port "$base")
slurmd_port=$(pick_port $((ctld_port + 1)) "$ctld_port")

cpus=$(nproc)
cat >"$work/slurm.conf" <<EOF
ClusterName=gpuarchci
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobContainerType=job_container/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
SlurmdParameters=config_overrides
ReturnToService=2
MailProg=/bin/true
SlurmctldTimeout=30
SlurmdTimeout=30
KillWait=5
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$cpus RealMemory=1024 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$work/slurm.conf"

slurmctld -D -c -f "$SLURM_CONF" >"$work/log/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >"$work/log/slurmd.out.log" 2>&1 &
pids+=($!)

state=""
for _ in $(seq 120); do
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || { show_logs; skip "a Slurm daemon exited at start (see its log above)"; }; done
    state=$(sinfo -h -n localhost -o %T 2>/dev/null | head -n 1)
    [ "$state" = idle ] && break
    sleep 0.5
done
[ "$state" = idle ] || { show_logs; skip "the one-node cluster did not come up (node state '$state' after 60 s)"; }
echo "one-node Slurm cluster up: slurmctld on 127.0.0.1:$ctld_port, slurmd on 127.0.0.1:$slurmd_port, $cpus CPUs"

# 2 machines x 2 schedulers x 2 kernels x 2 MSHR settings = 16 points, chunks of 3 -> array tasks 0-5.
cat >"$work/spec.json" <<'EOF'
{
  "name": "slurm_ci",
  "machines": ["fermi", "kepler"],
  "schedulers": ["LRR", "GTO"],
  "kernels": ["vector_add", "reduce_shfl"],
  "sizes": ["small"],
  "knobs": {"mshr_entries": ["preset", 8]},
  "slurm": {"cpus": 1, "mem": "256M", "time": "00:05:00", "chunk": 3}
}
EOF

start=$(date +%s)
timeout 600 "$sweep" slurm "$work/spec.json" --out "$work/cluster" --partition debug --wait >"$work/log/sweep_slurm.log" 2>&1
status=$?
head -n 4 "$work/log/sweep_slurm.log"
tail -n 2 "$work/log/sweep_slurm.log"
[ "$status" -ne 124 ] || fail "the job array did not finish within 10 minutes"
[ "$status" -eq 0 ] || fail "sweep slurm --wait exited with $status"
echo "job array finished in $(($(date +%s) - start)) s"
grep -q '^#SBATCH --array=0-5$' "$work/cluster/slurm/sweep.sbatch" || fail "the script does not ask for array tasks 0-5"
outs=$(ls "$work"/cluster/slurm/*_*.out 2>/dev/null | wc -l)
[ "$outs" -eq 6 ] || fail "expected the output of 6 array tasks, found $outs"
"$sweep" collect "$work/spec.json" --out "$work/cluster" --quiet || fail "sweep collect reports missing or failed points"

"$sweep" run "$work/spec.json" --out "$work/local" --jobs 2 --quiet >"$work/log/sweep_run.log" 2>&1 ||
    fail "the local sweep run failed: $(tail -n 5 "$work/log/sweep_run.log")"

# Every record equal except the timings (the same fields, in the same order, with the same values).
strip_timings() { sed -e 's/"host_seconds":[^,]*,//' -e 's/"sim_seconds":[^,]*,//' "$1"; }
n=0
for f in "$work"/local/results/*.json; do
    g="$work/cluster/results/$(basename "$f")"
    [ -f "$g" ] || fail "the cluster has no record $(basename "$f")"
    cmp -s <(strip_timings "$f") <(strip_timings "$g") ||
        fail "record $(basename "$f") differs between the local run and the cluster"
    n=$((n + 1))
done
[ "$n" -eq 16 ] || fail "expected 16 local records, found $n"
drop_timings() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "host_seconds" || $i == "sim_seconds") drop[i] = 1 }
             { out = ""; for (i = 1; i <= NF; i++) if (!(i in drop)) out = out (out == "" ? "" : ",") $i; print out }' "$1"
}
cmp -s <(drop_timings "$work/local/results.csv") <(drop_timings "$work/cluster/results.csv") ||
    fail "results.csv differs between the local run and the cluster"
echo "PASS: 16 points through a 6-task Slurm job array equal a local sweep run, record for record"
