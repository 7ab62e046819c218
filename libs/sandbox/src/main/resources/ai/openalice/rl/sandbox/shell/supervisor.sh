# The supervisor of a sandbox, alive as long as it: pid 1 of a local sandbox's pid namespace, or a
# process of the exec stream a pod's sandbox keeps open. It reads requests on stdin, each a token
# line and a NUL-terminated command, runs the command with bash -c in a process group of its own
# (job control), stdin /dev/null, stdout and stderr the supervisor's own, then kills everything else
# it may signal, waits until nothing but itself (and the namespace's pid 1) is alive, and ends the
# command's output on each stream with NUL, the token and (stdout) the exit status. As pid 1 it
# ignores signals sent from inside the sandbox; its job notices go to /dev/null (fd 2), the
# commands' stderr is fd 3, which commands do not inherit.
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
  # Nothing a command started survives into the next one: kill -1 reaches every process of the
  # namespace but pid 1 and the caller; repeat until only zombies (which hold no files) are left.
  kill -9 -1
  while :; do
    live=
    for d in /proc/[0-9]*; do
      p=${d#/proc/}
      [ "$p" = 1 ] || [ "$p" = $$ ] && continue
      st=
      read -r st < "$d/stat" || continue
      st=${st##*) }
      st=${st%% *}
      case $st in Z | X | '') ;; *) kill -9 "$p" && live=1 ;; esac # one it may not signal is not its to wait for
    done
    [ -z "$live" ] && break
  done
  printf '\0%s %d\n' "$tok" "$rc"
  printf '\0%s\n' "$tok" >&3
done
