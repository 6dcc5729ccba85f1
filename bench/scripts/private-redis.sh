# Sourced by the bench scripts that need a throw-away redis-server: stock settings, no
# persistence, on a free loopback port, stopped (and its directory removed) when the script exits.
#   private_redis [extra redis-server options...]
# sets: work (its directory, for the script's files too), port, and cli() (redis-cli on it).
private_redis() {
  work="$(mktemp -d)"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --dir "$work" --pidfile "$work/redis.pid" "$@" >/dev/null
  trap 'kill "$(cat "$work/redis.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT
  sleep 0.5
}
cli() { redis-cli -p "$port" "$@"; }
