#!/usr/bin/env python3
"""Writes the seed corpora of `make fuzz` into DIR/<target>/, from ../shared/data (or
$GEOQUERY_SHARED_DATA), the repository's fixtures and recorded provider answers.

Seeds are kept small (a few KiB) so that libFuzzer mutates them quickly; the OSM PBF seed is
written here, a minimal valid file with dense nodes, a way and a relation."""
import os, sys, zlib, struct, glob, shutil

out = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
shared = os.environ.get("GEOQUERY_SHARED_DATA") or os.path.join(root, "..", "shared", "data")

def seed(target, name, data):
    os.makedirs(os.path.join(out, target), exist_ok=True)
    with open(os.path.join(out, target, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())

def head(path, lines=40):
    try:
        with open(path, "rb") as f:
            return b"".join(f.readline() for _ in range(lines))
    except OSError:
        return None

for target, path in [("geonames-csv", "geonames/cities15000.csv"), ("airports-csv", "airports/airports.csv"),
                     ("foursquare-csv", "places/fsq_os_places_sample.csv"), ("geonames", "geonames/geonames_cities15000_2014.txt"),
                     ("csv", "geonames/cities15000.csv")]:
    data = head(os.path.join(shared, path)) or head(os.path.join(root, "geodata", os.path.basename(path)))
    if data: seed(target, "head", data)
seed("csv", "tabs", "id\tname\tlat\tlon\tcategory\n1\tCafé\t48.85\t2.35\tfood.cafe\n")
seed("geojson", "points", '{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"name":"Louvre","category":"culture.museum"}},{"type":"Feature","properties":{"id":"b","name":"Park","categories":["nature.park"]},"geometry":{"type":"Polygon","coordinates":[[[2.3,48.8],[2.4,48.8],[2.4,48.9],[2.3,48.8]]]}}]}')
# Nesting at the readers' depth limit (64) and just past it, so the fuzzer starts beside it.
seed("geojson", "deep", '{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"a":' + '[' * 62 + ']' * 62 + ',"b":' + '{"c":' * 63 + '1' + '}' * 63 + '}}]}')
seed("geojsonseq", "deep", '{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"a":' + '[' * 70 + ']' * 70 + '}}\n')
seed("geojsonseq", "lines", '{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[2.35,48.85]},"properties":{"name":"Louvre"}}\n\x1e{"type":"Feature","id":"b","geometry":{"type":"LineString","coordinates":[[0,0],[1,1]]},"properties":{"name":"Road"}}\n')
for fixture in glob.glob(os.path.join(root, "Tests/PlaceImportTests/Fixtures/*.osm")):
    seed("osm-xml", os.path.basename(fixture), open(fixture, "rb").read())
for tsp in sorted(glob.glob(os.path.join(shared, "tsplib", "*.tsp")))[:4]:
    seed("tsplib", os.path.basename(tsp), open(tsp, "rb").read()[:4096])
seed("tsplib", "explicit", "NAME: e\nTYPE: TSP\nDIMENSION: 4\nEDGE_WEIGHT_TYPE: EXPLICIT\nEDGE_WEIGHT_FORMAT: UPPER_ROW\nEDGE_WEIGHT_SECTION\n1 2 3\n4 5\n6\nEOF\n")
seed("matrix-json", "square", '{"ids":["a","b","c"],"matrix":[[0,1,2],[1,0,3],[2,3,0]]}')
seed("matrix-json", "bare", "[[0,5,9],[5,0,4],[9,4,0]]")
seed("route-points", "features", '{"type":"FeatureCollection","features":[{"type":"Feature","id":"p","properties":{"name":"Paris"},"geometry":{"type":"Point","coordinates":[2.35,48.85]}},{"type":"Feature","id":"l","properties":{"name":"Lyon"},"geometry":{"type":"Point","coordinates":[4.83,45.76]}}]}')
seed("cursor", "valid", "QJYuLk6qPdPSZ8XKk4qymmdlb25hbWVzOjI5ODgzOTQ")
for i, q in enumerate(["lat=48.8584&lon=2.2945&radius=20mi&limit=5", "bbox=2.2,48.8,2.4,48.9&category=food&price=1-3",
                       "lat=0&lon=0&k=10&max_distance=5km&country=fr,de&continent=EU&open_at=2026-11-23T18:30:00%2B01:00",
                       "lat=1&lon=2&radius=1e308ft&min_rating=4.5&query=sao+paulo&open_now=true&source=osm&format=geojson"]):
    seed("query-string", "q%d" % i, q)
recorded = os.path.join(root, "Tests/ProviderTestSupport/Recorded")
for target, prefix in [("google", "google"), ("yelp", "yelp"), ("foursquare", "foursquare"), ("here", "here"),
                       ("open-meteo", "openmeteo"), ("openweathermap", "openweathermap"), ("pirateweather", "pirateweather"),
                       ("commons", "commons"), ("pixabay", "pixabay"), ("unsplash", "unsplash")]:
    for path in glob.glob(os.path.join(recorded, prefix + "*.json")):
        seed(target, os.path.basename(path), open(path, "rb").read()[:16384])

# A minimal OSM PBF: header blob, one data block with dense nodes, a way and a relation.
def varint(v):
    out = b""
    while v >= 0x80:
        out += bytes([(v & 0x7F) | 0x80]); v >>= 7
    return out + bytes([v])
def zz(v): return (v << 1) ^ (v >> 63)
def field(n, payload): return varint(n << 3 | 2) + varint(len(payload)) + payload
def vfield(n, v): return varint(n << 3) + varint(v)
def packed(n, values): return field(n, b"".join(varint(v) for v in values))
def blob(kind, data):
    packed_data = zlib.compress(data)
    body = vfield(2, len(data)) + field(3, packed_data)
    header = field(1, kind.encode()) + vfield(3, len(body))
    return struct.pack(">I", len(header)) + header + body
strings = [b"", b"amenity", b"cafe", b"name", b"Chez K", b"building", b"yes", b"type", b"multipolygon", b"outer", b"tourism", b"museum"]
table = field(1, b"".join(field(1, s) for s in strings))
ids, lats, lons = [1, 1, 1, 1], [zz(437000000 // 100), zz(10000), zz(10000), zz(-20000)], [zz(74000000 // 100), zz(10000), zz(-10000), zz(0)]
dense = field(2, packed(1, [zz(d) for d in ids]) + packed(8, lats) + packed(9, lons) + packed(10, [1, 2, 3, 4, 0, 0, 0, 0]))
way = field(3, vfield(1, 10) + packed(2, [5, 3]) + packed(3, [6, 4]) + packed(8, [zz(1), zz(1), zz(1), zz(-2)]))
relation = field(4, vfield(1, 20) + packed(2, [7, 10, 3]) + packed(3, [8, 11, 4]) + packed(8, [9]) + packed(9, [zz(10)]) + packed(10, [1]))
block = table + field(2, dense) + field(2, way) + field(2, relation) + vfield(17, 100)
header = field(4, b"OsmSchema-V0.6") + field(4, b"DenseNodes")
seed("osm-pbf", "tiny.osm.pbf", blob("OSMHeader", header) + blob("OSMData", block))

# Service bodies: photos (a PNG with a text chunk, a JPEG with an EXIF segment, a WebP with EXIF)
# and the JSON bodies of accounts and gems.
def png_chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
seed("photo", "text.png", b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0))
     + png_chunk(b"tEXt", b"Comment\x00GPS 48.85 2.35") + png_chunk(b"IDAT", zlib.compress(b"\x00\x80")) + png_chunk(b"IEND", b""))
exif = b"Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08\x00\x01\x88\x25\x00\x04\x00\x00\x00\x01\x00\x00\x00\x1a\x00\x00\x00\x00"
seed("photo", "exif.jpg", b"\xff\xd8\xff\xe1" + struct.pack(">H", len(exif) + 2) + exif + b"\xff\xdb\x00\x05\x00\x01\x02"
     + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00" + b"\x12\x34\xff\x00\x56" + b"\xff\xd9")
webp_body = b"WEBP" + b"VP8X" + struct.pack("<I", 10) + bytes([0x08, 0, 0, 0, 0, 0, 0, 0, 0, 0]) + b"EXIF" + struct.pack("<I", 4) + b"abcd"
seed("photo", "exif.webp", b"RIFF" + struct.pack("<I", len(webp_body)) + webp_body)
seed("service-body", "gem", '{"name":"Secret cove","lat":43.73,"lon":7.42,"categories":["water.beach"],"tags":{"access":"stairs"},"description":"Quiet","visibility":"public"}')
seed("service-body", "signup", '{"username":"Anna.B","email":"anna@example.org","password":"a long passphrase"}')
seed("service-body", "profile", '{"display_name":"Anna","units":"metric","home_location":{"lat":43.7,"lon":7.4},"language":"pt-BR"}')

# Every route of the service (the service-routes target): `METHOD /path?query` on the first line
# (a leading '-' sends no token; {gem}, {itinerary}, {trip}, {user} are the fixture's), the body after.
routes = [
    "GET /v1/places/near?lat=43.73&lon=7.42&radius=20mi&limit=5&category=transport&region=EU",
    "GET /v1/places/near?region=Paris&min_rating=3&open_at=2026-11-23T18:30:00%2B01:00",
    "GET /v1/places/bbox?bbox=2.2,48.8,2.4,48.9&country=fr&format=geojson",
    "GET /v1/places/nearest?lat=0&lon=179.9&k=3&max_distance=5000km&continent=OC",
    "GET /v1/places/geonames:2988507",
    "GET /v1/cities?q=par&limit=5&country=FR",
    "GET /v1/airports/near?lat=48.85&lon=2.35&radius=100km",
    "GET /v1/search?lat=48.85&lon=2.35&radius=2km&query=cafe&providers=local",
    "GET /v1/weather?lat=48.85&lon=2.35&days=3",
    "GET /v1/images?lat=48.85&lon=2.35&title=Paris&limit=3",
    "GET /v1/discover/random-city?continent=EU&min_population=100000&weighting=population&seed=7",
    "GET /v1/discover/popular?region=FR&category=culture&period=30d&kind=destinations&limit=5",
    'POST /v1/discover/itinerary\n{"destination":{"lat":43.7384,"lon":7.4246},"days":2,"start_date":"2027-05-03","day_start":"10:00","day_end":"17:00","budget":{"amount":40,"currency":"EUR"},"preferred":["culture"],"pace":"relaxed","mode":"walk","save":true}',
    'POST /v1/me/favorites\n{"place_id":"geonames:2988507","suggestions":["airport:LFPG"],"title":"Paris"}',
    'POST /v1/route\n{"stops":[{"lat":48.85,"lon":2.35},{"lat":45.76,"lon":4.83},{"place_id":"geonames:2988507"}],"roundtrip":true,"deadline":"1s"}',
    '-POST /v1/users\n{"username":"anna.b","email":"anna@example.org","password":"a long passphrase"}',
    '-POST /v1/sessions\n{"username":"fuzzer","password":"wrong password here"}',
    "GET /v1/me",
    'PATCH /v1/me\n{"display_name":"Fuzz","units":"imperial","home_location":{"lat":43.7,"lon":7.4},"language":"pt-BR","bio":"x"}',
    "GET /v1/users/{user}", "GET /v1/users?q=fu&limit=3",
    'POST /v1/gems\n{"name":"Cove","lat":43.73,"lon":7.42,"categories":["water.beach"],"tags":{"a":"b"},"description":"Quiet","visibility":"friends"}',
    "GET /v1/gems/near?lat=43.73&lon=7.42&radius=50mi&limit=3", "GET /v1/gems/{gem}", "GET /v1/me/gems?limit=2",
    'PATCH /v1/gems/{gem}\n{"description":"Quieter","visibility":"unlisted","lat":43.74}',
    'PUT /v1/gems/{gem}/rating\n{"stars":4}', "GET /v1/gems/{gem}/rating",
    "PUT /v1/me/favorites/geonames:2988507", "GET /v1/me/favorites?limit=5", "DELETE /v1/me/favorites/airport:LFPG",
    # Provider ids (keys are set against a closed local port): never URL text.
    "PUT /v1/me/favorites/google:a%20b", "PUT /v1/me/favorites/google:ChIJLU7jZClu5kcR4PcOOO6p3I0", "PUT /v1/me/favorites/yelp:caf%C3%A9-x",
    "PUT /v1/me/favorites/here:here:pds:place:276u0vhj", "PUT /v1/me/favorites/foursquare:4b058754f964a52073a922e3",
    'POST /v1/trips\n{"title":"x","place":{"place_id":"google:a/b%"},"start":"2030-06-12T12:00:00+02:00","end":"2030-06-12T16:00:00+02:00"}',
    'POST /v1/itineraries\n{"title":"Paris in spring","destination":{"place_id":"geonames:2988507"},"start_date":"2027-04-10","end_date":"2027-04-12","budget":{"amount":1000,"currency":"EUR"},"lodging":[{"name":"Hotel","location":{"lat":48.859,"lon":2.362},"check_in":"2027-04-10","check_out":"2027-04-12","price":{"amount":310.2,"currency":"EUR"}}],"stops":[{"id":"louvre","location":{"lat":48.8606,"lon":2.3376,"name":"Louvre"},"day":2,"duration_minutes":120,"fixed_start":"15:00","price":{"amount":22,"currency":"EUR"}}]}',
    "GET /v1/itineraries?limit=3", "GET /v1/itineraries/{itinerary}?format=geojson",
    'PATCH /v1/itineraries/{itinerary}\n{"notes":"x","visibility":"public","transport":[{"mode":"train","from":{"lat":51.53,"lon":-0.12},"to":{"lat":48.88,"lon":2.35},"departure":"2027-04-10T08:01:00+01:00","arrival":"2027-04-10T11:20:00+02:00"}]}',
    'POST /v1/itineraries/{itinerary}/stops\n{"place_id":"geonames:2988507","day":1}',
    'PUT /v1/itineraries/{itinerary}/collaborators/nobody\n{"role":"editor"}',
    'POST /v1/itineraries/{itinerary}/days/1/optimize\n{"mode":"walk"}',
    'POST /v1/itineraries/{itinerary}/shares\n{"expires_at":"2030-01-01T00:00:00Z"}',
    'POST /v1/trips\n{"title":"Picnic","place":{"place_id":"geonames:2988507"},"start":"2030-06-12T12:00:00+02:00","end":"2030-06-12T16:00:00+02:00","invitees":["fuzzer"]}',
    "GET /v1/trips/{trip}", 'PATCH /v1/trips/{trip}\n{"notes":"bring a blanket","invitees":[]}',
    'PUT /v1/trips/{trip}/rsvp\n{"answer":"accepted"}',
    'PUT /v1/trips/{trip}/availability\n{"busy":[{"start":"2030-03-30T09:00:00+01:00","end":"2030-03-30T12:00:00+01:00"}]}',
    "GET /v1/trips/{trip}/meeting-times?duration=90m&within=2030-06-01/2030-06-30",
    "GET /v1/me/trips?when=upcoming", "POST /v1/trips/{trip}/shares", "GET /v1/trips/{trip}/shares", "GET /v1/me/friends", "POST /v1/me/friends/nobody", "GET /v1/me/notifications?limit=5",
    'POST /v1/me/notifications/read\n{"ids":["n1"]}', "GET /v1/shared/abcdef", 'PUT /v1/me/webhook\n{"url":"https://example.org/hook"}',
    "GET /v1/me/webhook", "-GET /healthz", "-GET /openapi.json", "-GET /?lat=1&lon=2",
]
for i, route in enumerate(routes):
    seed("service-routes", "r%02d" % i, route)
