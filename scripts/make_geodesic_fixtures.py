#!/usr/bin/env python3
"""Generate the geodesic reference fixtures for GeoCoreTests with GeographicLib.

    pip install geographiclib==2.1 && python3 scripts/make_geodesic_fixtures.py

Writes Tests/GeoCoreTests/Fixtures/geodesic_inverse.csv (lat1,lon1,lat2,lon2,s12 in metres,
a label) and circle_boundary.csv (centre, radius, azimuth and the point at that distance and
azimuth: GeographicLib's Direct solution), deterministic (seeded).
"""
import csv
import os
import random
from geographiclib.geodesic import Geodesic

G = Geodesic.WGS84
rng = random.Random(20261122)
out = os.path.join(os.path.dirname(__file__), "..", "Tests", "GeoCoreTests", "Fixtures")
os.makedirs(out, exist_ok=True)


def rand_point():
    # uniform on the sphere-ish: latitude by arcsin of uniform
    import math
    lat = math.degrees(math.asin(rng.uniform(-1, 1)))
    return lat, rng.uniform(-180, 180)


rows = []
def add(lat1, lon1, lat2, lon2, label):
    s = G.Inverse(lat1, lon1, lat2, lon2)["s12"]
    rows.append((repr(lat1), repr(lon1), repr(lat2), repr(lon2), "%.6f" % s, label))

for _ in range(1500):
    add(*rand_point(), *rand_point(), "random")
for _ in range(1000):
    lat, lon = rand_point()
    d = G.Direct(lat, lon, rng.uniform(0, 360), 10 ** rng.uniform(-1, 5.3))
    add(lat, lon, d["lat2"], d["lon2"], "short")
for _ in range(600):
    lat, lon = rand_point()
    lat2 = -lat + rng.uniform(-0.5, 0.5)
    lon2 = lon + 180 + rng.uniform(-0.5, 0.5)
    lon2 = (lon2 + 180) % 360 - 180
    lat2 = max(-90, min(90, lat2))
    add(lat, lon, lat2, lon2, "near-antipodal")
for _ in range(100):
    lat = rng.uniform(-1e-3, 1e-3)
    add(lat, 0.0, -lat + rng.uniform(-1e-3, 1e-3), 179.0 + rng.uniform(0, 1), "equatorial-antipodal")
for _ in range(300):
    pole = rng.choice([90.0, -90.0])
    lat1 = pole - rng.uniform(0, 2) * (1 if pole > 0 else -1)
    add(lat1, rng.uniform(-180, 180), pole - rng.uniform(0, 5) * (1 if pole > 0 else -1),
        rng.uniform(-180, 180), "polar")
    add(pole, 0.0, *rand_point(), "from-pole")
for _ in range(100):
    lat1, lat2 = rng.uniform(-90, 90), rng.uniform(-90, 90)
    lon = rng.uniform(-180, 180)
    add(lat1, lon, lat2, lon, "meridional")
    add(0.0, rng.uniform(-180, 180), 0.0, rng.uniform(-180, 180), "equatorial")
for _ in range(100):
    lat, lon = rand_point()
    add(lat, lon, lat, lon, "identical")
    lon1 = rng.uniform(179.9, 180.0)
    add(lat, lon1, lat + rng.uniform(-0.05, 0.05), rng.uniform(-180.0, -179.9), "antimeridian")

with open(os.path.join(out, "geodesic_inverse.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["lat1", "lon1", "lat2", "lon2", "s12", "label"])
    w.writerows(rows)

circle = []
centres = [(48.8584, 2.2945), (0.0, 179.95), (0.0, -179.95), (89.9, 0.0), (-89.5, 45.0),
           (60.0, 179.0), (-33.8688, 151.2093), (78.2232, 15.6267), (90.0, 0.0), (-90.0, 0.0)]
centres += [rand_point() for _ in range(30)]
for lat, lon in centres:
    for radius in (0.0, 1.0, 1000.0, 32186.88, 500000.0, 5e6, 1e7, 19e6, 20003931.0):
        for k in range(12):
            azi = k * 30.0 + rng.uniform(0, 30)
            d = G.Direct(lat, lon, azi, radius)
            circle.append((repr(lat), repr(lon), repr(radius), repr(azi), repr(d["lat2"]), repr(d["lon2"])))
with open(os.path.join(out, "circle_boundary.csv"), "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["lat", "lon", "radius_m", "azimuth", "lat2", "lon2"])
    w.writerows(circle)
print(len(rows), "inverse rows,", len(circle), "circle rows")
