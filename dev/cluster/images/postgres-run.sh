#!/bin/sh
# The PostgreSQL image's entrypoint (Debian's PostgreSQL), with the postgres image's variables: a
# cluster made on first start with the user and database POSTGRES_USER / POSTGRES_DB and the
# password POSTGRES_PASSWORD (scram-sha-256 from anywhere), then the server in the foreground.
# Started as root (the image's user), it gives the data and socket folders to postgres and runs
# as postgres from there on: a fresh volume mounted over the data folder belongs to root.
set -eu
data=${PGDATA:-/var/lib/postgresql/data/pgdata} # below the volume, which initdb cannot chmod
sockets=/var/run/postgresql # where pg_isready and psql look by default
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$data" "$sockets"
  chown postgres:postgres "$data" "$sockets"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
bin=$(ls -d /usr/lib/postgresql/*/bin | tail -1)
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
user=${POSTGRES_USER:-postgres}
if [ ! -s "$data/PG_VERSION" ]; then
  mkdir -p "$data"
  printf '%s\n' "$POSTGRES_PASSWORD" > /tmp/pwfile
  "$bin/initdb" -D "$data" -U "$user" --pwfile=/tmp/pwfile --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f /tmp/pwfile
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$data/pg_hba.conf"
  if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != "$user" ]; then
    "$bin/postgres" --single -D "$data" -c unix_socket_directories=/tmp postgres <<SQL >/dev/null
CREATE DATABASE "$POSTGRES_DB" OWNER "$user";
SQL
  fi
fi
exec "$bin/postgres" -D "$data" -c listen_addresses='*' -c "unix_socket_directories=$sockets"
