#!/usr/bin/env bash
# Runs schemathesis (from the virtual environment `make` installs under .build/) against a live
# `geoquery serve` on a loopback port, over an index of the shipped data made in a temporary
# directory; stops the server and removes the directory after. Exit status: schemathesis's.
#   scripts/schemathesis.sh GEOQUERY_BINARY SCHEMATHESIS_BINARY
set -euo pipefail
geoquery=$(realpath "$1")
schemathesis=$(realpath "$2")
cd "$(dirname "$0")/.."
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill -TERM "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

"$geoquery" import geodata/cities15000.csv --format geonames-csv --db "$work/places.sqlite" >/dev/null
"$geoquery" import geodata/airports.csv --format airports-csv --db "$work/places.sqlite" >/dev/null
"$geoquery" import geodata/monaco.osm.pbf --source osm-monaco --db "$work/places.sqlite" >/dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# No provider is reachable or keyed: every base URL is a closed loopback port.
closed=http://127.0.0.1:9
env -u GOOGLE_PLACES_API_KEY -u YELP_API_KEY -u FOURSQUARE_API_KEY -u HERE_API_KEY \
    -u OPENWEATHERMAP_API_KEY -u PIRATEWEATHER_API_KEY -u PIXABAY_API_KEY -u UNSPLASH_ACCESS_KEY \
    GEOQUERY_GOOGLE_BASE_URL=$closed GEOQUERY_YELP_BASE_URL=$closed GEOQUERY_FOURSQUARE_BASE_URL=$closed \
    GEOQUERY_HERE_BASE_URL=$closed GEOQUERY_OPENMETEO_BASE_URL=$closed GEOQUERY_OPENWEATHERMAP_BASE_URL=$closed \
    GEOQUERY_PIRATEWEATHER_BASE_URL=$closed GEOQUERY_COMMONS_BASE_URL=$closed GEOQUERY_LOG_LEVEL=warning \
    "$geoquery" serve --host 127.0.0.1 --port "$port" --db "$work/places.sqlite" --data-dir geodata --users-db "$work/users.sqlite" \
    --moderators schemathesis --creations-per-user-per-hour none 2>"$work/serve.log" &
server=$!
python3 - "$port" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/healthz", timeout=1); break
    except Exception:
        time.sleep(0.1)
else:
    sys.exit("geoquery serve did not answer /healthz within 10 s")
PY

# A signed-in user, so that the routes behind a bearer token are exercised too (not only their
# 401), and a second one for the routes that end a session or an account: with one token for
# everything, the first `DELETE /v1/me` would leave every later request anonymous.
tokens=$(python3 - "$port" <<'PY'
import json, sys, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
def post(path, body):
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request, timeout=30))
for name in ["schemathesis", "throwaway"]:
    post("/v1/users", {"username": name, "email": f"{name}@example.org", "password": "a long fuzzing passphrase"})
    print(post("/v1/sessions", {"username": name, "password": "a long fuzzing passphrase"})["token"])
PY
)
# Read by scripts/schemathesis.toml.
export GEOQUERY_ST_TOKEN=$(echo "$tokens" | sed -n 1p)
export GEOQUERY_ST_THROWAWAY_TOKEN=$(echo "$tokens" | sed -n 2p)

status=0
# No example database: a run by hand generates what CI's first run does (a cache under
# .hypothesis/ once hid a crash that CI's run found).
"$schemathesis" --config-file scripts/schemathesis.toml run "http://127.0.0.1:$port/openapi.json" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-40}" --seed 1 --generation-database none --no-color || status=$?
if grep -q "request failed" "$work/serve.log"; then
  echo "server errors logged by geoquery serve:"; grep "request failed" "$work/serve.log"; status=1
fi
exit $status
