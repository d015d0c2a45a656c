#!/bin/sh
# lessor's machine agent (docs/agent.md). POSIX sh (dash is enough); it needs curl, and setsid
# (util-linux, busybox) to give the command a process group of its own for signals.
#
#   LESSOR_URL=https://lessor.example LESSOR_LEASE_ID=ls_... LESSOR_ENROLL_TOKEN=lse_... \
#   LESSOR_CMD='python train.py' sh agent.sh          # or: sh agent.sh python train.py
#
# Without a command (a lease for a box, not a job) it only heartbeats and carries out commands.
# It first exchanges the enrollment token for the lease token (LESSOR_LEASE_TOKEN: used as is).
# It unpacks the lease's workdir bundle, if any, into LESSOR_WORKDIR and runs the command there;
# once the command has ended it uploads every file under LESSOR_OUT (docs/artifacts.md), then
# reports the exit.
#
# It runs the command with its output in a spool file, ships the output in numbered chunks (at
# least every second, at most LESSOR_AGENT_CHUNK_BYTES each), heartbeats, carries out the exec and
# signal commands it long-polls for, reports how the command ended, and exits when lessor answers
# 410 (the lease is released). Every call is retried with backoff until it succeeds; a chunk is
# only passed once lessor accepted it, and a retry sends the same bytes under the same number, so
# output is neither lost nor doubled.
set -u

die() { printf 'lessor-agent: %s\n' "$*" >&2; exit 2; }
say() { printf 'lessor-agent: %s\n' "$*" >&2; }

[ -n "${LESSOR_URL:-}" ] || die "set LESSOR_URL"
[ -n "${LESSOR_LEASE_ID:-}" ] || die "set LESSOR_LEASE_ID"
[ -n "${LESSOR_ENROLL_TOKEN:-}${LESSOR_LEASE_TOKEN:-}" ] || die "set LESSOR_ENROLL_TOKEN"
command -v curl >/dev/null 2>&1 || die "curl is needed"

url=${LESSOR_URL%/}
chunk_bytes=${LESSOR_AGENT_CHUNK_BYTES:-65536}
heartbeat_s=${LESSOR_AGENT_HEARTBEAT_S:-30}
poll_wait_s=${LESSOR_AGENT_POLL_WAIT_S:-25}
backoff_max_s=${LESSOR_AGENT_BACKOFF_MAX_S:-30}

model_port=${LESSOR_MODEL_PORT:-8000}

umask 077
dir=${LESSOR_AGENT_DIR:-${TMPDIR:-/tmp}/lessor-agent.$$}
mkdir -p "$dir" || die "cannot make $dir"
spool=$dir/output
: >"$spool"
# The enrollment's nonce, kept outside $dir: an agent started again on the same disk enrolls again.
state=${LESSOR_AGENT_STATE_DIR:-${HOME:-${TMPDIR:-/tmp}}/.lessor-agent}
nonce_file=$state/$LESSOR_LEASE_ID.nonce
# On a machine that serves a model, its key (which the model server keeps in its environment) is
# sent to the server's metrics from a file too.
[ -z "${LESSOR_MODEL_KEY:-}" ] || printf 'Authorization: Bearer %s\n' "$LESSOR_MODEL_KEY" >"$dir/model-headers"
: >"$dir/seen"
role=main
poller=
runner=

# ---- calls ------------------------------------------------------------------------------------

# finish STATUS: stops the command's process group, the poller and the runner, and exits.
finish() {
  trap - TERM INT
  [ -z "$poller" ] || kill "$poller" 2>/dev/null
  [ -z "$runner" ] || { signal TERM; kill "$runner" 2>/dev/null; }
  [ -n "${LESSOR_AGENT_KEEP_DIR:-}" ] || rm -rf "$dir"
  [ "$1" != 0 ] || rm -f "$nonce_file" # released: no agent enrolls again
  exit "$1"
}

# released: lessor answered 410. The main process stops everything; a helper leaves a mark for it.
released() {
  : >"$dir/released"
  [ "$role" = main ] && finish 0
  exit 0
}

# api METHOD PATH OUT [curl options...]: the call, repeated with backoff (1 s doubling to
# LESSOR_AGENT_BACKOFF_MAX_S) until lessor answers 2xx (status 0); 1 when it refuses the request
# for good (400, 404, 409, 413, 415, 416, 422); on 410, released.
api() {
  api_method=$1 api_path=$2 api_out=$3
  shift 3
  api_delay=1
  while :; do
    api_code=$(curl -sS -o "$api_out" -w '%{http_code}' -X "$api_method" -H @"$dir/headers" \
      --connect-timeout 10 --max-time "${api_max_time:-60}" "$@" "$url$api_path" 2>>"$dir/curl.log") || api_code=000
    case $api_code in
      2??) return 0 ;;
      410) released ;;
      400 | 404 | 409 | 413 | 415 | 416 | 422)
        say "$api_method $api_path refused ($api_code): $(head -c 300 "$api_out" 2>/dev/null)"
        return 1
        ;;
    esac
    say "$api_method $api_path answered $api_code; again in ${api_delay}s"
    sleep "$api_delay"
    api_delay=$((api_delay * 2))
    [ "$api_delay" -le "$backoff_max_s" ] || api_delay=$backoff_max_s
  done
}

size_of() { wc -c <"$1" | tr -d ' '; }

field() { sed -n "s/.*\"$1\":\"\\([^\"]*\\)\".*/\\1/p"; }

# ---- the token --------------------------------------------------------------------------------

# Tokens go to curl in a file (mode 600), never on a command line (`ps`), and the command inherits
# neither. The enrollment token, which the provider's records hold, is exchanged with a nonce no
# record holds for the lease token (docs/agent.md "The token").
token=${LESSOR_LEASE_TOKEN:-}
if [ -z "$token" ]; then
  mkdir -p "$state" || die "cannot make $state"
  [ -s "$nonce_file" ] || LC_ALL=C tr -dc 'A-Za-z0-9' </dev/urandom | head -c 43 >"$nonce_file"
  printf '{"nonce":"%s"}' "$(cat "$nonce_file")" >"$dir/enroll.json"
  printf 'Authorization: Bearer %s\nLessor-Lease-Id: %s\n' "$LESSOR_ENROLL_TOKEN" "$LESSOR_LEASE_ID" >"$dir/headers"
  api POST /v1/agent/enroll "$dir/enroll.out" -H "Content-Type: application/json" --data-binary @"$dir/enroll.json" || die "enrollment refused"
  token=$(field token <"$dir/enroll.out")
  rm -f "$dir/enroll.json" "$dir/enroll.out"
  [ -n "$token" ] || die "enrollment answered no token"
fi
printf 'Authorization: Bearer %s\nLessor-Lease-Id: %s\n' "$token" "$LESSOR_LEASE_ID" >"$dir/headers"
unset LESSOR_LEASE_TOKEN LESSOR_ENROLL_TOKEN token

# ---- data in: the workdir (docs/artifacts.md) ---------------------------------------------------

home=${HOME:-${TMPDIR:-/tmp}}
workdir=${LESSOR_WORKDIR:-$home/lessor/work}
out=${LESSOR_OUT:-$home/lessor/out}
part_bytes=8388608 # the part size of docs/artifacts.md; a part is 8 blocks of 1 MiB for dd
case $out in /*/?*) ;; *) die "LESSOR_OUT must be an absolute path below /: $out" ;; esac

# sha256_of FILE: its SHA-256 in hex, with whichever tool the machine has.
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum <"$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 <"$1" | cut -d' ' -f1
  else
    openssl dgst -sha256 <"$1" | sed 's/.*= *//'
  fi
}

# fetch_workdir: the lease's bundle (404 no_workdir: none), its digest checked, unpacked into $workdir. A bundle
# that arrives damaged is fetched again; after five tries the agent stops without running anything.
fetch_workdir() {
  mkdir -p "$workdir" || die "cannot make $workdir"
  tries=0
  while :; do
    if ! api GET /v1/agent/workdir "$dir/workdir.tgz" -D "$dir/workdir.headers"; then
      [ "$api_code" = 404 ] && grep -q no_workdir "$dir/workdir.tgz" && return 0 # none: the command runs in an empty one
      die "workdir refused"
    fi
    want=$(tr -d '\r' <"$dir/workdir.headers" | sed -n 's/^[Ll]essor-[Ss]ha256: *\([0-9a-fA-F]*\).*/\1/p' | tail -n 1)
    if [ -n "$want" ] && [ "$want" = "$(sha256_of "$dir/workdir.tgz")" ]; then
      tar -xzf "$dir/workdir.tgz" -C "$workdir" || die "cannot unpack the workdir"
      rm -f "$dir/workdir.tgz" "$dir/workdir.headers"
      return 0
    fi
    tries=$((tries + 1))
    [ "$tries" -lt 5 ] || die "the workdir's digest does not match Lessor-Sha256"
    say "the workdir's digest does not match; fetching it again"
    sleep 1
  done
}

if [ -n "${LESSOR_CMD:-}" ] || [ $# -gt 0 ]; then
  fetch_workdir
  rm -rf "$out" && mkdir -p "$out" || die "cannot make $out"
  export LESSOR_WORKDIR="$workdir" LESSOR_OUT="$out"
fi

# ---- the command ------------------------------------------------------------------------------

setsid=
command -v setsid >/dev/null 2>&1 && setsid=setsid

# The command runs in the background of a runner, which records its status when it ends. Under
# setsid the command leads its own process group (a background job of a non-interactive shell is
# never a group leader, so setsid does not fork), and a signal reaches everything it started.
if [ -n "${LESSOR_CMD:-}" ] || [ $# -gt 0 ]; then
  {
    cd "$workdir" || exit 1
    if [ -n "${LESSOR_CMD:-}" ]; then
      $setsid sh -c "$LESSOR_CMD" </dev/null >>"$spool" 2>&1 &
    else
      $setsid "$@" </dev/null >>"$spool" 2>&1 &
    fi
    echo $! >"$dir/pid"
    wait $!
    echo $? >"$dir/status.tmp" && mv "$dir/status.tmp" "$dir/status"
  } &
  runner=$!
fi

# signal NAME: to the command's process group (its process alone without setsid).
signal() {
  [ -f "$dir/pid" ] || return 1
  sig_pid=$(cat "$dir/pid")
  if [ -n "$setsid" ]; then kill -s "$1" -- "-$sig_pid" 2>/dev/null; else kill -s "$1" "$sig_pid" 2>/dev/null; fi
}

# ---- output -----------------------------------------------------------------------------------

# Chunks are numbered from the start time in milliseconds, so an agent started again for the same
# lease numbers above what the one before sent, and lessor's duplicate rule never drops its output.
seq=$(($(date +%s) * 1000))
offset=0

# ship: sends every byte of the spool written so far, in chunks. A chunk is cut once and kept in a
# file until lessor accepts it, so a retry sends the same bytes with the same number.
ship() {
  while :; do
    if [ ! -f "$dir/chunk" ]; then
      ship_size=$(size_of "$spool")
      [ "$ship_size" -gt "$offset" ] || return 0
      tail -c +"$((offset + 1))" "$spool" | head -c "$chunk_bytes" >"$dir/chunk.tmp"
      mv "$dir/chunk.tmp" "$dir/chunk"
    fi
    api POST /v1/agent/logs "$dir/logs.out" -H "Lessor-Log-Seq: $seq" -H "Content-Type: text/plain" \
      --data-binary @"$dir/chunk" || say "chunk $seq refused for good; skipped"
    ship_n=$(size_of "$dir/chunk")
    rm -f "$dir/chunk"
    offset=$((offset + ship_n))
    seq=$((seq + 1))
  done
}

# report_exit: the command's status; 128+n is read as killed by signal n.
report_exit() {
  st=$(cat "$dir/status")
  if [ "$st" -gt 128 ] && [ "$st" -lt 193 ]; then
    sig=$(kill -l "$((st - 128))" 2>/dev/null | tr -cd 'A-Z0-9')
    sig=${sig#SIG}
    case $sig in [A-Z]*) ;; *) sig="SIG$((st - 128))" ;; esac
    body="{\"code\":null,\"signal\":\"$sig\"}"
  else
    body="{\"code\":$st,\"signal\":null}"
  fi
  api POST /v1/agent/exit "$dir/exit.out" -H "Content-Type: application/json" --data-binary "$body" || true
}

# ---- data out: the outputs (docs/artifacts.md) ---------------------------------------------------

# urlencode TEXT: a path for the URL, each byte outside [A-Za-z0-9._~/-] as %XX.
urlencode() {
  printf '%s' "$1" | LC_ALL=C awk 'BEGIN { for (i = 1; i < 256; i++) ord[sprintf("%c", i)] = i }
    { if (NR > 1) printf "%%0A"; n = length($0); for (i = 1; i <= n; i++) { c = substr($0, i, 1); if (c ~ /[A-Za-z0-9._~\/-]/) printf "%s", c; else printf "%%%02X", ord[c] } }'
}

json_string() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g'; }

# upload_file PATH: one file of $out; in parts above the part size, resuming an upload a killed
# agent began (its id kept in the state directory) from the parts lessor lists as stored.
upload_file() {
  up_file=$out/$1
  up_size=$(size_of "$up_file")
  up_sum=$(sha256_of "$up_file")
  up_url=/v1/agent/artifacts/$(urlencode "$1")
  if [ "$up_size" -le "$part_bytes" ]; then
    api PUT "$up_url" "$dir/put.out" -H "Content-Type: application/octet-stream" -H "Lessor-Sha256: $up_sum" --data-binary @"$up_file" ||
      say "$1: refused for good"
    return
  fi
  mkdir -p "$state" || die "cannot make $state"
  printf '%s %s' "$1" "$up_sum" >"$dir/upload-key"
  up_state=$state/$LESSOR_LEASE_ID.upload.$(sha256_of "$dir/upload-key" | cut -c1-32)
  up_id=
  if [ -s "$up_state" ]; then
    up_id=$(cat "$up_state")
    api GET "$up_url?upload_id=$up_id" "$dir/parts.json" || up_id=
  fi
  if [ -z "$up_id" ]; then
    api POST "$up_url?uploads" "$dir/parts.json" -H "Content-Type: application/json" \
      --data-binary "{\"size\":$up_size,\"sha256\":\"$up_sum\"}" || { say "$1: refused for good"; return; }
    up_id=$(field upload_id <"$dir/parts.json")
    printf '%s' "$up_id" >"$up_state"
  fi
  up_parts=$(sed -n 's/.*"parts":\([0-9]*\).*/\1/p' "$dir/parts.json")
  up_n=1
  while [ "$up_n" -le "$up_parts" ]; do
    if ! grep -q "\"part\":$up_n," "$dir/parts.json"; then
      dd if="$up_file" of="$dir/part" bs=1048576 skip=$(((up_n - 1) * 8)) count=8 2>/dev/null
      api PUT "$up_url?upload_id=$up_id&part=$up_n" "$dir/part.out" -H "Content-Type: application/octet-stream" \
        -H "Lessor-Sha256: $(sha256_of "$dir/part")" --data-binary @"$dir/part" || { say "$1: part $up_n refused for good"; return; }
    fi
    up_n=$((up_n + 1))
  done
  rm -f "$dir/part"
  api POST "$up_url?upload_id=$up_id&complete" "$dir/complete.out" -H "Content-Type: application/json" \
    --data-binary "{\"size\":$up_size,\"sha256\":\"$up_sum\"}" || say "$1: completion refused for good"
  rm -f "$up_state"
}

# upload_outputs: the manifest of every file under $out, then each file. A path holding a newline
# cannot be named this way and is left out.
upload_outputs() {
  [ -d "$out" ] || return 0
  (cd "$out" && find . -type f) | sed 's|^\./||' | LC_ALL=C sort >"$dir/files"
  {
    printf '{"files":['
    sep=
    while IFS= read -r f; do
      printf '%s{"path":"%s","size":%s,"sha256":"%s"}' "$sep" "$(json_string "$f")" "$(size_of "$out/$f")" "$(sha256_of "$out/$f")"
      sep=,
    done <"$dir/files"
    printf ']}'
  } >"$dir/manifest.json"
  api PUT /v1/agent/outputs "$dir/outputs.out" -H "Content-Type: application/json" --data-binary @"$dir/manifest.json" ||
    say "the outputs' manifest was refused"
  while IFS= read -r f; do upload_file "$f"; done <"$dir/files"
}

# heartbeat: liveness; on a machine that serves a model, with the lines of its server's metrics
# that tell whether requests reach it (docs/deployments.md "Activity"), or null when they cannot
# be read. lessor judges them.
heartbeat() {
  if [ ! -f "$dir/model-headers" ]; then
    api POST /v1/agent/heartbeat "$dir/heartbeat.out" || true
    return
  fi
  if curl -sf -o "$dir/metrics.txt" --max-time 5 -H @"$dir/model-headers" "http://127.0.0.1:$model_port/metrics" 2>>"$dir/curl.log"; then
    {
      printf '{"metrics":"'
      grep -E '^vllm:(num_requests_running|num_requests_waiting|request_success_total|prompt_tokens_total|generation_tokens_total)[{ ]' "$dir/metrics.txt" | head -c 60000 | json_text
      printf '"}'
    } >"$dir/heartbeat.json"
  else
    printf '{"metrics":null}' >"$dir/heartbeat.json"
  fi
  api POST /v1/agent/heartbeat "$dir/heartbeat.out" -H "Content-Type: application/json" --data-binary @"$dir/heartbeat.json" || true
}

# ---- commands ---------------------------------------------------------------------------------

# json_text: stdin as the inside of a JSON string (control characters other than tab and newline
# are dropped; an invalid UTF-8 byte is lessor's to replace).
json_text() {
  tr -d '\000-\010\013-\037\177' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e "s/$(printf '\t')/\\\\t/g" | awk '{ printf "%s\\n", $0 }'
}

# run_exec ID BASE64: runs the command line with sh, posts its exit code and the last 256 KiB of
# its output.
run_exec() {
  role=exec
  printf '%s' "$2" | base64 -d >"$dir/exec.$1.sh" 2>/dev/null || : >"$dir/exec.$1.sh"
  sh "$dir/exec.$1.sh" </dev/null >"$dir/exec.$1.out" 2>&1
  exec_code=$?
  {
    printf '{"exit_code":%d,"output":"' "$exec_code"
    tail -c 262144 "$dir/exec.$1.out" | json_text
    printf '"}'
  } >"$dir/exec.$1.json"
  api POST "/v1/agent/commands/$1" "$dir/exec.$1.resp" -H "Content-Type: application/json" --data-binary @"$dir/exec.$1.json" || true
  rm -f "$dir/exec.$1.sh" "$dir/exec.$1.out" "$dir/exec.$1.json" "$dir/exec.$1.resp"
}

# poll: long-polls for commands and carries each out once (lessor delivers one again when its
# result did not arrive in time; the ids seen are remembered). With a command it says it can
# collect the outputs (collect=1), so a release waits for them.
poll() {
  role=poller
  api_max_time=$((poll_wait_s + 20))
  poll_collect=
  [ -z "$runner" ] || poll_collect='&collect=1'
  while :; do
    api GET "/v1/agent/commands?wait=$poll_wait_s$poll_collect" "$dir/commands.json" || { sleep 5; continue; }
    # One command a line (the answer ends without a newline, which `read` would not return).
    { tr '{' '\n' <"$dir/commands.json" && echo; } | while IFS= read -r line; do
      id=$(printf '%s\n' "$line" | field id)
      [ -n "$id" ] || continue
      grep -qx "$id" "$dir/seen" && continue
      printf '%s\n' "$id" >>"$dir/seen"
      case $(printf '%s\n' "$line" | field kind) in
        exec) (run_exec "$id" "$(printf '%s\n' "$line" | field cmd_base64)") & ;;
        signal)
          if signal "$(printf '%s\n' "$line" | field signal)"; then sent=0; else sent=1; fi
          printf '{"exit_code":%d,"output":""}' "$sent" >"$dir/signal.json"
          api POST "/v1/agent/commands/$id" "$dir/signal.resp" -H "Content-Type: application/json" --data-binary @"$dir/signal.json" || true
          ;;
        collect)
          # A release waits for the outputs: the command is ended (TERM now, KILL 10 s later, by
          # the main loop), its outputs go up, and the main loop answers once they have.
          date +%s >"$dir/collect.$id"
          [ -f "$dir/status" ] || signal TERM || true
          ;;
      esac
    done
  done
}

poll &
poller=$!

# ---- the main loop ----------------------------------------------------------------------------

trap 'finish 143' TERM
trap 'finish 130' INT

# After the command ends the agent stays: output its children still write is shipped, and execs
# are carried out, until the lease is released.
beat_at=0
reported=0
while :; do
  [ -f "$dir/released" ] && finish 0
  ship
  now=$(date +%s)
  if [ $((now - beat_at)) -ge "$heartbeat_s" ]; then
    heartbeat
    beat_at=$now
  fi
  if [ "$reported" = 0 ] && [ -f "$dir/status" ]; then
    ship
    # The outputs before the exit: a job is released on its exit (docs/artifacts.md).
    upload_outputs
    report_exit
    reported=1
  fi
  # Each `collect` is answered once the outputs are up (or the agent runs no command).
  for mark in "$dir"/collect.*; do
    [ -f "$mark" ] || continue
    if [ "$reported" = 1 ] || [ -z "$runner" ]; then
      api POST "/v1/agent/commands/${mark##*/collect.}" "$dir/collected.out" -H "Content-Type: application/json" \
        --data-binary '{"exit_code":0,"output":""}' || true
      rm -f "$mark"
    elif [ ! -f "$dir/status" ] && [ $((now - $(cat "$mark"))) -ge 10 ]; then
      signal KILL || true
    fi
  done
  sleep 1
done
