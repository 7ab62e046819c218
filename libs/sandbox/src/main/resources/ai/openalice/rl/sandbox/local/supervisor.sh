# The supervisor of a local sandbox: pid 1 of its pid namespace, alive as long as the sandbox.
# It reads requests on stdin, each a token line and a NUL-terminated command, runs the command
# with bash -c in a process group of its own (job control), stdin /dev/null, stdout and stderr the
# supervisor's own, then kills everything else in the namespace, waits until nothing but itself is
# alive, and ends the command's output on each stream with NUL, the token and (stdout) the exit
# status. As pid 1 it ignores signals sent from inside the sandbox; its job notices go to
# /dev/null (fd 2), the commands' stderr is fd 3, which commands do not inherit.
set -m
exec 3>&2 2>/dev/null
while IFS= read -r tok && IFS= read -r -d '' cmd; do
  bash -c "$cmd" </dev/null 2>&3 3>&- &
  pid=$!
  # wait returns early on a signal or a stopped job: wait again (resuming it) until it has ended.
  while :; do
    wait "$pid"
    rc=$?
    kill -0 "$pid" || break
    kill -CONT -- "-$pid"
  done
  # Nothing a command started survives into the next one: kill -1 from pid 1 reaches every other
  # process of the namespace; repeat until only zombies (which hold no files) are left.
  kill -9 -1
  while :; do
    live=
    for d in /proc/[0-9]*; do
      p=${d#/proc/}
      [ "$p" = 1 ] && continue
      st=
      read -r st < "$d/stat" || continue
      st=${st##*) }
      st=${st%% *}
      case $st in Z | X | '') ;; *) live=1; kill -9 "$p" ;; esac
    done
    [ -z "$live" ] && break
  done
  printf '\0%s %d\n' "$tok" "$rc"
  printf '\0%s\n' "$tok" >&3
done
