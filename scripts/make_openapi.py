#!/usr/bin/env python3
"""Writes Sources/GeoQueryServer/Resources/openapi.json, the service's OpenAPI 3.1 description.

The description is committed and served at /openapi.json; a test fails when it and the routes
disagree, and `make test` runs schemathesis against a live server with it. Edit this script,
run it, and commit both.
"""
import json, pathlib

def ref(name): return {"$ref": f"#/components/schemas/{name}"}
def param(name, schema, description, required=False, explode=None):
    p = {"name": name, "in": "query", "required": required, "description": description, "schema": schema}
    # An empty value (`cursor=`, as a form sends an empty field) means the parameter is absent.
    if not required: p["allowEmptyValue"] = True
    if explode is not None: p["explode"] = explode; p["style"] = "form"
    return p
def problem(description): return {"description": description, "content": {"application/problem+json": {"schema": ref("Problem")}}}
def json_body(schema, description="OK", geo=False, csv=False, headers=None):
    content = {"application/json": {"schema": schema}}
    if geo: content["application/geo+json"] = {"schema": ref("FeatureCollection")}
    if csv: content["text/csv"] = {"schema": {"type": "string"}}
    r = {"description": description, "content": content}
    if headers: r["headers"] = headers
    return r

lat = param("lat", {"type": "number", "minimum": -90, "maximum": 90}, "Latitude of the centre, WGS84 degrees.", True)
lon = param("lon", {"type": "number", "minimum": -180, "maximum": 180}, "Longitude of the centre, WGS84 degrees.", True)
distance_schema = {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?(e[0-9]{1,2})? ?(m|km|mi|ft|yd|nmi)?$", "examples": ["20mi", "5km", "800m"]}
radius = param("radius", distance_schema, "Radius with a unit: m, km, mi, ft, yd, nmi (a bare number is metres).", True)
filters = [
    param("category", {"type": "array", "items": {"type": "string"}}, "Taxonomy categories, any of (a parent matches its children): food, transport.airport, …", explode=True),
    param("query", {"type": "string", "maxLength": 200}, "Words that must begin words of the name (case and accents ignored)."),
    param("source", {"type": "array", "items": {"type": "string"}}, "Sources, any of: geonames, airport, osm-monaco, …", explode=True),
    param("min_rating", {"type": "number", "minimum": 0, "maximum": 5}, "Normalised rating at least this."),
    param("price", {"type": "string", "pattern": "^[1-4](-[1-4])?$"}, "Price level or range: 2, 1-3."),
    param("country", {"type": "array", "items": {"type": "string", "pattern": "^[A-Za-z]{2}$"}}, "Countries, any of, ISO 3166-1 alpha-2 (FR, us): decided from Natural Earth boundaries when the place was imported.", explode=True),
    param("continent", {"type": "array", "items": {"type": "string", "enum": ["AF", "AN", "AS", "EU", "NA", "OC", "SA"]}}, "Continents, any of (GeoNames' codes; names such as Europe work too).", explode=True),
    param("open_now", {"type": "boolean"}, "Only places open now, by their opening hours in their time zone (places whose hours are unknown are left out)."),
    param("open_at", {"type": "string", "format": "date-time"}, "Only places open at this RFC 3339 time, e.g. 2026-11-23T18:30:00+01:00 (not with open_now)."),
]
limit = param("limit", {"type": "integer", "minimum": 1, "maximum": 500, "default": 50}, "Places per page; use next_cursor for more.")
cursor = param("cursor", {"type": "string"}, "next_cursor of the previous page of the same query.")
fmt = param("format", {"type": "string", "enum": ["json", "geojson", "csv"], "default": "json"}, "Answer format.")
link = {"Link": {"description": "<url>; rel=\"next\" when there is a next page.", "schema": {"type": "string"}}}
common_errors = {"400": problem("Bad input: the detail names the bad value and what is valid."),
                 "503": problem("The request ran past the service's deadline, or a source it needs is unavailable.")}

def place_query(summary, params, description):
    return {"get": {"summary": summary, "description": description, "parameters": params,
                    "responses": {"200": json_body(ref("PlaceAnswer"), geo=True, csv=True, headers=link), **common_errors}}}

paths = {
  "/v1/places/near": place_query("Places within a radius, nearest first", [lat, lon, radius, *filters, limit, cursor, fmt],
      "Every place whose WGS84 ellipsoidal distance to the centre is at most the radius, sorted by distance then id."),
  "/v1/places/bbox": place_query("Places in a box, by id",
      [param("bbox", {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?(,-?[0-9]+(\\.[0-9]+)?){3}$", "examples": ["2.2,48.8,2.4,48.9"]}, "west,south,east,north in degrees; west > east crosses the antimeridian.", True), *filters, limit, cursor, fmt],
      "Places inside a box, sorted by id."),
  "/v1/places/nearest": place_query("The k nearest places",
      [lat, lon, param("k", {"type": "integer", "minimum": 1, "maximum": 500, "default": 10}, "How many."),
       param("max_distance", distance_schema, "Ignore places further than this, e.g. 50km."), *filters, fmt],
      "The k places nearest to a point, nearest first."),
  "/v1/places/{id}": {"get": {"summary": "One place by id", "parameters": [
      {"name": "id", "in": "path", "required": True, "schema": {"type": "string", "examples": ["geonames:2988507", "airport:LFPG"]}, "example": "airport:LFPG", "description": "source:localId, e.g. geonames:2988507"}, fmt],
      "responses": {"200": json_body(ref("PlaceAnswer"), geo=True, csv=True), "404": problem("No place with that id."), **common_errors}}},
  "/v1/search": {"get": {"summary": "Federated search: the local index and the providers with keys, merged", "parameters": [
      lat, lon, radius, param("query", {"type": "string"}, "Free text."),
      param("category", {"type": "array", "items": {"type": "string"}}, "Taxonomy categories.", explode=True),
      param("provider", {"type": "array", "items": {"type": "string", "enum": ["google", "yelp", "foursquare", "here", "local", "all"]}}, "Sources to ask (default all).", explode=True),
      param("limit", {"type": "integer", "minimum": 1, "maximum": 240, "default": 20}, "At most this many places."),
      param("format", {"type": "string", "enum": ["json", "geojson"]}, "Answer format.")],
      "responses": {"200": json_body(ref("SearchAnswer"), geo=True), **common_errors}}},
  "/v1/weather": {"get": {"summary": "Current weather and a daily forecast", "parameters": [
      lat, lon, param("provider", {"type": "string", "enum": ["open-meteo", "openweathermap", "pirateweather"]}, "Weather source (default open-meteo)."),
      param("days", {"type": "integer", "minimum": 1, "maximum": 16, "default": 7}, "Days of forecast.")],
      "responses": {"200": json_body(ref("Weather")), **common_errors}}},
  "/v1/route": {"post": {"summary": "The shortest visiting order of stops", "parameters": [
      param("start", {"type": "string"}, "Id of the first stop."), param("end", {"type": "string"}, "Id of the last stop."),
      param("closed", {"type": "boolean"}, "A round trip back to the first stop."),
      param("deadline", {"type": "string", "examples": ["250ms", "1s"]}, "Time allowed, at most 5s."),
      param("seed", {"type": "integer", "minimum": 0}, "Seed of the randomised search."),
      param("format", {"type": "string", "enum": ["json", "geojson"]}, "Answer format.")],
      "requestBody": {"required": True, "content": {
          "application/json": {"schema": ref("RouteStops"), "example": {"places": ["airport:LFPG", "airport:LFPO", "geonames:2988507"]}}, "application/geo+json": {"schema": ref("FeatureCollection")}}},
      "responses": {"200": json_body(ref("Route"), geo=True), "413": problem("The body is too large."),
                    "415": problem("The body is not JSON."), "422": problem("The stops cannot be read or have no route."), **common_errors}}},
  "/v1/cities": {"get": {"summary": "City search for an autocomplete box", "description": "Cities with a word of the name starting with q (case and accents ignored); names starting with q first, then by population.",
      "parameters": [param("q", {"type": "string", "minLength": 1, "maxLength": 100}, "What the user typed.", True),
                     param("limit", {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}, "At most this many."),
                     param("country", {"type": "string", "pattern": "^[A-Za-z]{2}$"}, "ISO 3166 alpha-2 code."),
                     param("continent", {"type": "string", "enum": ["AF", "AN", "AS", "EU", "NA", "OC", "SA"]}, "Continent code.")],
      "responses": {"200": json_body(ref("CityAnswer")), **common_errors}}},
  "/v1/airports/near": {"get": {"summary": "Airports with an IATA code nearest to a point", "parameters": [
      lat, lon, param("k", {"type": "integer", "minimum": 1, "maximum": 50, "default": 5}, "How many."),
      param("max_distance", distance_schema, "Ignore airports further than this.")],
      "responses": {"200": json_body(ref("PlaceAnswer")), **common_errors}}},
  "/healthz": {"get": {"summary": "Liveness and the index size", "responses": {"200": json_body({"type": "object", "required": ["status", "places"],
      "properties": {"status": {"const": "ok"}, "places": {"type": "integer"}}}), "503": problem("The index does not answer.")}}},
  "/metrics": {"get": {"summary": "Prometheus metrics", "responses": {"200": {"description": "Prometheus text format",
      "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
  "/openapi.json": {"get": {"summary": "This description", "responses": {"200": {"description": "OpenAPI 3.1", "content": {"application/json": {"schema": {"type": "object"}}}}}}},
  "/": {"get": {"summary": "The map page", "responses": {"200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}}}},
  "/leaflet/{file}": {"get": {"summary": "Leaflet (Debian's libjs-leaflet)", "parameters": [{"name": "file", "in": "path", "required": True, "schema": {"type": "string"}, "example": "leaflet.js"}],
      "responses": {"200": {"description": "A Leaflet file", "content": {"*/*": {"schema": {}}}}, "404": problem("No such file.")}}},
  "/leaflet/images/{file}": {"get": {"summary": "Leaflet's images", "parameters": [{"name": "file", "in": "path", "required": True, "schema": {"type": "string"}, "example": "marker-icon.png"}],
      "responses": {"200": {"description": "An image", "content": {"*/*": {"schema": {}}}}, "404": problem("No such file.")}}},
}

nullable = lambda t: {"type": [t, "null"]}
place_props = {
  "id": {"type": "string"}, "name": {"type": "string"}, "lat": {"type": "number"}, "lon": {"type": "number"},
  "distance_m": {"type": ["number", "null"], "description": "WGS84 ellipsoidal distance from the centre in metres, to the millimetre; null without a centre."},
  "categories": {"type": "array", "items": {"type": "string"}}, "source": {"type": "string"},
  "address": {"type": "object", "additionalProperties": {"type": "string"}},
  "rating": {"type": "object", "required": ["value", "scale"], "properties": {"value": {"type": "number", "minimum": 0, "maximum": 5}, "count": {"type": "integer"}, "scale": {"type": "number"}}},
  "price_level": {"type": "integer", "minimum": 1, "maximum": 4}, "phone": {"type": "string"}, "website": {"type": "string"},
  "country": {"type": "string", "description": "ISO 3166-1 alpha-2 code of the country the place lies in (Natural Earth boundaries)."},
  "continent": {"type": "string", "enum": ["AF", "AN", "AS", "EU", "NA", "OC", "SA"]},
  "time_zone": {"type": "string", "description": "IANA time zone, e.g. Europe/Paris."},
  "opening_hours": {"type": "object"}, "photos": {"type": "array", "items": {"type": "object"}},
  "tags": {"type": "object", "additionalProperties": {"type": "string"}},
  "gem": {"type": "object"}, "imported_at": {"type": "string", "format": "date-time"}, "fetched_at": {"type": "string", "format": "date-time"},
}
schemas = {
  "Problem": {"type": "object", "description": "RFC 9457 problem details.", "required": ["type", "title", "status", "detail"],
              "properties": {"type": {"type": "string"}, "title": {"type": "string"}, "status": {"type": "integer"}, "detail": {"type": "string"}, "instance": {"type": "string"}}},
  "Place": {"type": "object", "required": ["id", "name", "lat", "lon", "distance_m", "categories", "source"], "properties": place_props},
  "Query": {"type": "object", "required": ["kind"], "properties": {"kind": {"type": "string"}}},
  "PlaceAnswer": {"type": "object", "required": ["query", "count", "places", "next_cursor"], "properties": {
      "query": ref("Query"), "count": {"type": "integer", "minimum": 0}, "places": {"type": "array", "items": ref("Place")}, "next_cursor": nullable("string")}},
  "SearchAnswer": {"type": "object", "required": ["query", "count", "places", "providers"], "properties": {
      "query": ref("Query"), "count": {"type": "integer"}, "places": {"type": "array", "items": ref("Place")},
      "next_cursor": {"type": "null"}, "providers": {"type": "object", "additionalProperties": {"type": "object", "required": ["status", "count"],
          "properties": {"status": {"type": "string", "enum": ["ok", "failed", "timed_out"]}, "count": {"type": "integer"}, "error": {"type": "string"}}}}}},
  "FeatureCollection": {"type": "object", "required": ["type", "features"], "properties": {"type": {"const": "FeatureCollection"}, "features": {"type": "array", "items": {"type": "object"}}}},
  "CityAnswer": {"type": "object", "required": ["query", "count", "cities"], "properties": {
      "query": {"type": "object"}, "count": {"type": "integer"}, "cities": {"type": "array", "items": {"type": "object",
          "required": ["id", "name", "lat", "lon", "country_code", "country", "continent", "population"],
          "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "lat": {"type": "number"}, "lon": {"type": "number"},
                         "country_code": nullable("string"), "country": nullable("string"), "continent": nullable("string"),
                         "region": nullable("string"), "population": nullable("integer"), "timezone": nullable("string")}}}}},
  "RouteStops": {"description": "GeoJSON points, place ids, or a distance matrix.", "oneOf": [
      {"type": "object", "required": ["type", "features"], "properties": {"type": {"const": "FeatureCollection"},
          "features": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["type", "geometry"],
              "properties": {"type": {"const": "Feature"}, "id": {"type": "string"}, "geometry": {"type": "object", "required": ["type", "coordinates"],
                  "properties": {"type": {"const": "Point"}, "coordinates": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "number"}}}}}}}}},
      {"type": "object", "required": ["places"], "properties": {"places": {"type": "array", "minItems": 1, "items": {"type": "string"}}}},
      {"type": "object", "required": ["distances"], "properties": {"ids": {"type": "array", "items": {"type": ["string", "integer"]}},
          "distances": {"type": "array", "items": {"type": "array", "items": {"type": ["number", "null"]}}}}}]},
  "Route": {"type": "object", "required": ["order", "length", "unit", "closed", "proven_optimal", "lower_bound", "method", "legs"], "properties": {
      "order": {"type": "array", "items": {"type": "string"}}, "length": {"type": "number"}, "unit": {"type": "string", "enum": ["m", "matrix"]},
      "closed": {"type": "boolean"}, "proven_optimal": {"type": "boolean"}, "lower_bound": {"type": "number"}, "method": {"type": "string"},
      "legs": {"type": "array", "items": {"type": "object", "required": ["from", "to", "length"]}}}},
  "Weather": {"type": "object", "required": ["provider", "lat", "lon", "units", "current", "daily", "attribution"], "properties": {
      "provider": {"type": "string"}, "lat": {"type": "number"}, "lon": {"type": "number"}, "timezone": nullable("string"),
      "units": {"type": "object"}, "current": {"type": ["object", "null"]}, "daily": {"type": "array", "items": {"type": "object"}}, "attribution": {"type": "string"}}},
}

doc = {"openapi": "3.1.0",
       "info": {"title": "GeoQuery", "version": "1.0.0",
                "description": "Places near a point, in a box or nearest to it, exact on the WGS84 ellipsoid; federated search, weather, visiting orders and city search. Errors are RFC 9457 application/problem+json.",
                "license": {"name": "Data: see /openapi.json info and geodata/README.md (GeoNames CC BY 4.0, OpenStreetMap ODbL, airportsdata MIT)"}},
       "servers": [{"url": "/"}], "paths": paths, "components": {"schemas": schemas}}
out = pathlib.Path(__file__).resolve().parent.parent / "Sources/GeoQueryServer/Resources/openapi.json"
out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
print(f"wrote {out}")
