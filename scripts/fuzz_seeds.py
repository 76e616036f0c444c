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
                       ("open-meteo", "openmeteo"), ("openweathermap", "openweathermap"), ("pirateweather", "pirateweather")]:
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
