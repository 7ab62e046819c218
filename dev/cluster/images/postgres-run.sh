#!/bin/sh
# The PostgreSQL image's entrypoint (Debian's PostgreSQL): a cluster made on first start with the
# user and database POSTGRES_USER / POSTGRES_DB and the password POSTGRES_PASSWORD (scram-sha-256
# from anywhere), then the server in the foreground. Runs as the image's postgres user.
set -eu
data=${PGDATA:-/var/lib/postgresql/data/pgdata} # below the volume, which initdb cannot chmod
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
exec "$bin/postgres" -D "$data" -c listen_addresses='*' -c unix_socket_directories=/tmp
