#!/usr/bin/env python3
"""Writes Sources/GeoQueryServer/Resources/openapi.json, the service's OpenAPI 3.1 description.

The description is committed and served at /openapi.json; a test fails when it and the routes
disagree, and `make test` runs schemathesis against a live server with it. Edit this script,
run it, and commit both.
"""
import json, pathlib, sys

import re

def ref(name): return {"$ref": f"#/components/schemas/{name}"}

def taxonomy():
    """The taxonomy's ids, read from Category.tree in Sources/PlaceModel/Taxonomy.swift (a test
    checks that the description's Category enum is Category.taxonomy)."""
    source = (pathlib.Path(__file__).resolve().parent.parent / "Sources/PlaceModel/Taxonomy.swift").read_text()
    tree = source[source.index("static let tree"):source.index("static let taxonomy:")]
    ids = []
    for top, subs in re.findall(r'\(\s*"([a-z_]+)",\s*\[([^\]]*)\]\s*\)', tree):
        ids.append(top)
        ids += [f"{top}.{sub}" for sub in re.findall(r'"([a-z0-9_]+)"', subs)]
    if len(ids) < 20: sys.exit("make_openapi.py: could not read the taxonomy from Taxonomy.swift")
    return ids

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

# Answers that change only with a new version carry an entity tag; If-None-Match with it is 304.
unchanging_etag = {"ETag": {"description": "The answer's version, quoted.", "schema": {"type": "string"}}}
not_modified = {"description": "Not modified: If-None-Match names the current ETag.", "headers": unchanging_etag}

lat = param("lat", {"type": "number", "minimum": -90, "maximum": 90}, "Latitude of the centre, WGS84 degrees.", True)
lon = param("lon", {"type": "number", "minimum": -180, "maximum": 180}, "Longitude of the centre, WGS84 degrees.", True)
distance_schema = {"type": "string", "pattern": "^[0-9]+(\\.[0-9]+)?(e[0-9]{1,2})? ?(m|km|mi|ft|yd|nmi)?$", "examples": ["20mi", "5km", "800m"]}
radius = param("radius", distance_schema, "Radius with a unit: m, km, mi, ft, yd, nmi (a bare number is metres).", True)
filters = [
    param("category", {"type": "array", "items": ref("Category")}, "Taxonomy categories, any of (a parent matches its children): food, transport.airport, … (GET /v1/categories lists them).", explode=True),
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
      param("category", {"type": "array", "items": ref("Category")}, "Taxonomy categories (GET /v1/categories lists them).", explode=True),
      param("provider", {"type": "array", "items": {"type": "string", "enum": ["google", "yelp", "foursquare", "here", "local", "all"]}}, "Sources to ask (default all).", explode=True),
      param("limit", {"type": "integer", "minimum": 1, "maximum": 240, "default": 20}, "At most this many places."),
      param("format", {"type": "string", "enum": ["json", "geojson"]}, "Answer format.")],
      "responses": {"200": json_body(ref("SearchAnswer"), geo=True), **common_errors}}},
  "/v1/weather": {"get": {"summary": "Current weather and a daily forecast", "parameters": [
      lat, lon, param("provider", {"type": "string", "enum": ["open-meteo", "openweathermap", "pirateweather"]}, "Weather source (default open-meteo)."),
      param("days", {"type": "integer", "minimum": 1, "maximum": 16, "default": 7}, "Days of forecast.")],
      "responses": {"200": json_body(ref("Weather")), **common_errors}}},
  "/v1/images": {"get": {"summary": "Pictures of a point or a name, each with its author and licence",
      "description": "Wikimedia Commons (by point, within 10 km, or by title) by default; Pixabay and Unsplash (by title) when their keys are set. Without provider, the first source with any image answers and the others' failures are listed.",
      "parameters": [
      param("lat", {"type": "number", "minimum": -90, "maximum": 90}, "Latitude of the point (with lon)."),
      param("lon", {"type": "number", "minimum": -180, "maximum": 180}, "Longitude of the point (with lat)."),
      param("title", {"type": "string", "maxLength": 200}, "A name to search for, e.g. Lisbon."),
      param("radius", distance_schema, "Search this far from the point (default 2km; Commons stops at 10 km)."),
      param("provider", {"type": "string", "enum": ["wikimedia-commons", "pixabay", "unsplash"]}, "Ask this source only."),
      param("limit", {"type": "integer", "minimum": 1, "maximum": 50, "default": 5}, "At most this many.")],
      "responses": {"200": json_body(ref("ImageAnswer")), **common_errors}}},
  "/v1/route": {"post": {"summary": "The shortest visiting order of stops",
      "description": "Stops as GeoJSON points, a distance matrix, or place ids: places of the index and gems the caller may see (signed in, their own and their friends' friends-only gems too); any other id is answered 422 as unknown.",
      "parameters": [
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
  "/v1/categories": {"get": {"summary": "The taxonomy: every category a filter or a gem may name", "description": "Each top level in display order with its subcategories, each with a label for people. A parent matches its children in every filter. It changes only with a new version (cached for a day).",
      "responses": {"200": json_body(ref("CategoryAnswer"), headers=unchanging_etag), "304": not_modified, **common_errors}}},
  "/v1/airports/near": {"get": {"summary": "Airports with an IATA code nearest to a point", "parameters": [
      lat, lon, param("k", {"type": "integer", "minimum": 1, "maximum": 50, "default": 5}, "How many."),
      param("max_distance", distance_schema, "Ignore airports further than this.")],
      "responses": {"200": json_body(ref("PlaceAnswer")), **common_errors}}},
  "/v1/where": {"get": {"summary": "Where a point is: its country, continent and time zone, the city it is near, the cities around it",
      "description": "A reverse lookup for a caption (\"near Paris, France\"): the country from Natural Earth boundaries, the time zone and cities from GeoNames.",
      "parameters": [lat, lon,
                     param("radius", distance_schema, "How far to look for cities, at most 500km (default 50km)."),
                     param("limit", {"type": "integer", "minimum": 1, "maximum": 50, "default": 5}, "How many cities to list.")],
      "responses": {"200": json_body(ref("Whereabouts")), **common_errors}}},
  "/healthz": {"get": {"summary": "Liveness and the index size", "responses": {"200": json_body({"type": "object", "required": ["status", "places"],
      "properties": {"status": {"const": "ok"}, "places": {"type": "integer"}}}), "503": problem("The index does not answer.")}}},
  "/metrics": {"get": {"summary": "Prometheus metrics", "responses": {"200": {"description": "Prometheus text format",
      "content": {"text/plain": {"schema": {"type": "string"}}}}}}},
  "/openapi.json": {"get": {"summary": "This description", "description": "Revalidated by its ETag: If-None-Match with it answers 304.",
      "responses": {"200": {"description": "OpenAPI 3.1", "headers": unchanging_etag, "content": {"application/json": {"schema": {"type": "object"}}}},
                    "304": not_modified}}},
  "/": {"get": {"summary": "The map page", "responses": {"200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}}}},
  "/s/{token}": {"get": {"summary": "The map page showing a shared itinerary", "parameters": [{"name": "token", "in": "path", "required": True, "schema": {"type": "string"}, "description": "The token of a share link."}],
      "responses": {"200": {"description": "HTML", "content": {"text/html": {"schema": {"type": "string"}}}}}}},
  "/map/countries.geojson": {"get": {"summary": "The map page's base map: country borders, simplified", "description": "Natural Earth's admin-0 boundaries simplified to about 2 km (Douglas–Peucker at 0.02°), each feature with its ISO code and name; the map page draws them when its tiles do not load.", "responses": {"200": {"description": "A GeoJSON FeatureCollection of MultiPolygons", "content": {"application/geo+json": {"schema": {"type": "object", "required": ["type", "features"], "properties": {"type": {"const": "FeatureCollection"}, "features": {"type": "array", "items": {"type": "object"}}}}}}}, "404": problem("No country borders were given to the service.")}}},
  "/leaflet/{file}": {"get": {"summary": "Leaflet (Debian's libjs-leaflet)", "parameters": [{"name": "file", "in": "path", "required": True, "schema": {"type": "string"}, "example": "leaflet.js"}],
      "responses": {"200": {"description": "A Leaflet file", "content": {"*/*": {"schema": {}}}}, "404": problem("No such file.")}}},
  "/leaflet/images/{file}": {"get": {"summary": "Leaflet's images", "parameters": [{"name": "file", "in": "path", "required": True, "schema": {"type": "string"}, "example": "marker-icon.png"}],
      "responses": {"200": {"description": "An image", "content": {"*/*": {"schema": {}}}}, "404": problem("No such file.")}}},
}


nullable = lambda t: {"type": [t, "null"]}

# Accounts, gems, favourites, ratings, photos.
bearer = [{"bearer": []}]
optional_bearer = [{}, {"bearer": []}]
unauthorized = problem("No valid bearer token: sign in with POST /v1/sessions (WWW-Authenticate: Bearer).")
def body(schema, example=None):
    content = {"schema": schema}
    if example is not None: content["example"] = example
    return {"required": True, "content": {"application/json": content}}
def path_param(name, description, example):
    return {"name": name, "in": "path", "required": True, "schema": {"type": "string"}, "example": example, "description": description}
gem_id = path_param("id", "A gem id, gem:<24 hex digits>.", "gem:0123456789abcdef01234567")
gem_etag = {"ETag": {"description": "The gem's version, quoted (opaque): send it back in If-Match to refuse overwriting a change made since.", "schema": {"type": "string"}}}
created_location = {"Location": {"description": "The URL of what was created.", "schema": {"type": "string"}}}
gem_if_match = {"name": "If-Match", "in": "header", "required": False, "schema": {"type": "string"},
                "description": "The ETag of the gem you read (several comma-separated, or *): a change made since is refused with 412 and nothing is written. Without it the edit is applied to the gem as it is when written; edits at once never lose one another."}
gem_changed = {"409": problem("Others kept changing the gem at this moment: try again."), "412": problem("The gem changed since the version in If-Match: read it again.")}
sign_up = {"type": "object", "required": ["username", "email", "password"], "additionalProperties": False, "properties": {
    "username": {"type": "string", "pattern": "^[A-Za-z0-9_.]{3,30}$"}, "email": {"type": "string", "format": "email"},
    "password": {"type": "string", "minLength": 12, "description": "12 characters or more, not all white space, at most 72 bytes of UTF-8 (bcrypt reads no further), not a common password, and containing neither the username nor the email address."}}}
sign_in = {"type": "object", "required": ["password"], "additionalProperties": False, "properties": {
    "username": {"type": "string", "description": "The username or the email."}, "email": {"type": "string"}, "password": {"type": "string"}}}
notification_kinds = ["friend_request", "friend_accepted", "new_follower", "trip_invitation", "trip_answer", "share_viewed", "trip_reminder", "itinerary_reminder", "gem_hidden", "gem_restored"]
notification_settings = {"type": ["object", "null"], "additionalProperties": False,
    "description": "Which kinds of notification reach you over which channels (in_app: kept for GET /v1/me/notifications; webhook: also POSTed to your webhook; [] turns a kind off; kinds not named keep theirs) and quiet hours, during which webhook deliveries wait for their end. null: every kind over every channel, at any hour.",
    "properties": {
      "channels": {"type": "object", "additionalProperties": False, "properties": {kind: {"type": "array", "maxItems": 2, "uniqueItems": True, "items": {"enum": ["in_app", "webhook"]}} for kind in notification_kinds}},
      "quiet_hours": {"type": ["object", "null"], "additionalProperties": False, "required": ["start", "end", "time_zone"], "properties": {
          "start": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$", "example": "22:00"},
          "end": {"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$", "example": "07:00"},
          "time_zone": {"type": "string", "example": "Europe/Paris"}}}}}
profile_patch = {"type": "object", "additionalProperties": False, "properties": {
    "display_name": nullable("string"), "bio": nullable("string"), "avatar_photo": nullable("string"),
    "language": nullable("string"), "units": {"enum": ["metric", "imperial", None]},
    "home_location": {"type": ["object", "null"], "required": ["lat", "lon"], "properties": {"lat": {"type": "number", "minimum": -90, "maximum": 90}, "lon": {"type": "number", "minimum": -180, "maximum": 180}}},
    "email": {"type": "string"}, "password": {"type": "string", "description": "A new password; needs current_password. Every other session ends."},
    "current_password": {"type": "string"}, "notifications": notification_settings,
    "settings": {"type": "object", "additionalProperties": False, "description": "language, home_location, units and notifications as GET /v1/me shows them; each may instead be given at the top level, not both.",
                 "properties": {"language": nullable("string"), "units": {"enum": ["metric", "imperial", None]}, "notifications": notification_settings,
                                "home_location": {"type": ["object", "null"], "required": ["lat", "lon"], "properties": {"lat": {"type": "number", "minimum": -90, "maximum": 90}, "lon": {"type": "number", "minimum": -180, "maximum": 180}}}}}}}
gem_fields = {"name": {"type": "string", "minLength": 1, "maxLength": 200}, "lat": {"type": "number", "minimum": -90, "maximum": 90},
    "lon": {"type": "number", "minimum": -180, "maximum": 180}, "categories": {"type": "array", "maxItems": 10, "items": ref("Category")},
    "tags": {"type": "object", "additionalProperties": {"type": "string"}}, "description": nullable("string"),
    "visibility": {"type": "string", "enum": ["public", "unlisted", "friends", "private"], "default": "private",
                   "description": "public: listed to everyone; unlisted: reachable by id, never listed; friends: the owner and their accepted friends; private: the owner alone."}}
gem_new = {"type": "object", "required": ["name", "lat", "lon"], "additionalProperties": False, "properties": gem_fields}
gem_patch = {"type": "object", "additionalProperties": False, "properties": gem_fields}
image = {"required": True, "content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}},
    "image/png": {"schema": {"type": "string", "format": "binary"}}, "image/webp": {"schema": {"type": "string", "format": "binary"}}}}
rating_answer = {"type": "object", "required": ["gem", "your_stars", "rating", "rating_count"], "properties": {
    "gem": {"type": "string"}, "your_stars": nullable("integer"), "rating": nullable("number"), "rating_count": {"type": "integer"}}}
# One photo object wherever a photo people uploaded appears (docs/api-conventions.md); answers add
# members of their own (content_type and bytes for the uploader, uploader and added_at in an album).
photo_core_properties = {
    "id": {"type": "string", "description": "SHA-256 of the stored bytes, 64 hex digits."},
    "url": {"type": "string", "description": "Absolute: on --public-url, else the request's Host."},
    "width": nullable("integer"), "height": nullable("integer")}
def photo_object(required=(), **extra):
    return {"type": "object", "required": ["id", "url", "width", "height", *required], "properties": {**photo_core_properties, **extra}}
photo_answer = photo_object(["content_type", "bytes"], content_type={"type": "string"}, bytes={"type": "integer"})
album_photo = photo_object(["uploader", "added_at"], uploader={"type": "string"}, added_at={"type": "string", "format": "date-time"},
                           photo_id={"type": "string", "deprecated": True, "description": "The id again, for clients written before 0.3; goes in 0.4."})
no_content = {"description": "Done."}
paths.update({
  "/v1/users": {
    "post": {"summary": "Sign up, and be signed in: the same answer as sign-in", "requestBody": body(sign_up, {"username": "anna", "email": "anna@example.org", "password": "a long passphrase"}),
             "responses": {"201": json_body(ref("SignedIn"), "Created"), "409": problem("The username or email is taken."), "413": problem("The body is too large."),
                           "429": {**problem("Too many sign-ups from this address; Retry-After says when to try again."), "headers": {"Retry-After": {"schema": {"type": "integer"}}}}, **common_errors}},
    "get": {"summary": "Find people by username prefix", "parameters": [
        param("q", {"type": "string", "minLength": 1, "maxLength": 30}, "The first characters of a username.", True),
        param("limit", {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}, "At most this many."), cursor],
        "responses": {"200": json_body({"type": "object", "required": ["query", "count", "users", "next_cursor"], "properties": {
            "query": {"type": "object"}, "count": {"type": "integer"}, "users": {"type": "array", "items": ref("PublicProfile")}, "next_cursor": nullable("string")}}), **common_errors}}},
  "/v1/users/{username}": {"get": {"summary": "A public profile, with how many accounts it follows and how many follow it", "security": optional_bearer,
      "parameters": [path_param("username", "A username.", "anna")],
      "responses": {"200": json_body({"type": "object", "required": ["username", "display_name", "bio", "avatar_url", "created_at", "following_count", "followers_count"], "properties": {
          "username": {"type": "string"}, "display_name": nullable("string"), "bio": nullable("string"), "avatar_url": nullable("string"),
          "created_at": {"type": "string", "format": "date-time"},
          "following_count": {"type": "integer", "minimum": 0}, "followers_count": {"type": "integer", "minimum": 0}}}),
          "401": unauthorized, "404": problem("No such user (or one of you blocked the other)."), **common_errors}}},
  "/v1/sessions": {"post": {"summary": "Sign in: a bearer token for 30 days after its last use",
      "description": "Rate limited per account (failed attempts) and per client address; a wrong username and a wrong password answer alike.",
      "requestBody": body(sign_in, {"username": "anna", "password": "a long passphrase"}),
      "responses": {"201": json_body(ref("SignedIn"), "Created"),
          "401": problem("The login and password match no account."),
          "413": problem("The body is too large."),
          "429": {**problem("Too many attempts; Retry-After says when to try again."), "headers": {"Retry-After": {"schema": {"type": "integer"}}}}, **common_errors}}},
  "/v1/sessions/current": {"delete": {"summary": "Sign out", "security": bearer, "responses": {"204": no_content, "401": unauthorized, **common_errors}}},
  "/v1/me/sessions": {
    "get": {"summary": "Where you are signed in", "security": bearer,
            "description": "Your sessions that have not expired, the newest first: what signed in (its User-Agent), when, and when last used. Never a token.",
            "responses": {"200": json_body({"type": "object", "required": ["count", "sessions"], "properties": {
                "count": {"type": "integer", "minimum": 1}, "sessions": {"type": "array", "items": ref("Session")}}}), "401": unauthorized, **common_errors}},
    "delete": {"summary": "Sign out everywhere else", "security": bearer, "description": "Ends every session of yours but the one asking.",
               "responses": {"200": json_body({"type": "object", "required": ["ended"], "properties": {"ended": {"type": "integer", "minimum": 0}}},
                                              "How many sessions ended."), "401": unauthorized, **common_errors}}},
  "/v1/me/sessions/{sessionId}": {"delete": {"summary": "End one of your sessions (a lost phone)", "security": bearer,
      "parameters": [path_param("sessionId", "A session id from GET /v1/me/sessions, 16 hex digits.", "0123456789abcdef")],
      "responses": {"204": no_content, "401": unauthorized, "404": problem("No session of yours with this id."), **common_errors}}},
  "/v1/me": {
    "get": {"summary": "Your profile and settings", "security": bearer, "responses": {"200": json_body(ref("PrivateProfile")), "401": unauthorized, **common_errors}},
    "patch": {"summary": "Change your profile, settings, email or password", "security": bearer, "requestBody": body(profile_patch, {"display_name": "Anna", "units": "metric"}),
              "responses": {"200": json_body(ref("PrivateProfile")), "401": unauthorized, "409": problem("The email is taken."), "413": problem("The body is too large."),
                            "429": {**problem("Too many wrong current passwords; Retry-After says when to try again."), "headers": {"Retry-After": {"schema": {"type": "integer"}}}}, **common_errors}},
    "delete": {"summary": "Delete your account and everything it made (sessions, gems of every visibility, ratings, favourites, photos)", "security": bearer,
               "responses": {"204": no_content, "401": unauthorized, **common_errors}}},
  "/v1/me/avatar": {"put": {"summary": "Upload your avatar (JPEG, PNG or WebP; metadata removed)", "security": bearer, "requestBody": image,
      "responses": {"200": json_body(photo_answer), "401": unauthorized, "403": problem("Your photos would pass your account's storage limit (photo_storage in GET /v1/me)."),
                    "413": problem("Larger than 10 MB."), "415": problem("Not a JPEG, PNG or WebP image, or one that cannot be decoded."), "422": problem("More than 40 megapixels (judged from the header, before the pixels are decoded)."), **common_errors}}},
  "/v1/me/gems": {"get": {"summary": "Your gems, every visibility, newest first", "security": bearer, "parameters": [limit, cursor, fmt],
      "responses": {"200": json_body(ref("PlaceAnswer"), geo=True, csv=True), "401": unauthorized, **common_errors}}},
  "/v1/me/favorites": {"get": {"summary": "Your favourites, newest first", "security": bearer, "parameters": [limit, cursor],
      "responses": {"200": json_body({"type": "object", "required": ["query", "count", "favorites", "next_cursor"], "properties": {
          "query": {"type": "object"}, "count": {"type": "integer"}, "next_cursor": nullable("string"),
          "favorites": {"type": "array", "items": {"type": "object", "required": ["place_id", "added_at", "status", "place"], "properties": {
              "place_id": {"type": "string"}, "added_at": {"type": "string", "format": "date-time"},
              "status": {"type": "string", "enum": ["ok", "gone", "provider", "unavailable"], "description": "ok: the place as it is now (provider places are fetched again); gone: deleted, no longer visible to you, or no longer at the provider; provider: kept by id only and not fetched (no key for that provider here, or no lookup by id); unavailable: the provider did not answer."},
              "place": {"oneOf": [ref("Place"), {"type": "null"}]}}}}}}), "401": unauthorized, **common_errors}}},
  "/v1/me/favorites/{placeId}": {
    "put": {"summary": "Keep a place (imported, gem or provider id)", "security": bearer, "parameters": [path_param("placeId", "Any place id.", "geonames:2988507")],
            "responses": {"200": json_body({"type": "object"}, "Already a favourite"), "201": json_body({"type": "object"}, "Added"), "401": unauthorized, "404": problem("No such place you can see."), **common_errors}},
    "delete": {"summary": "Forget a favourite", "security": bearer, "parameters": [path_param("placeId", "Any place id.", "geonames:2988507")],
               "responses": {"204": no_content, "401": unauthorized, "404": problem("Not a favourite."), **common_errors}}},
  "/v1/gems": {"post": {"summary": "Add a hidden gem", "security": bearer, "requestBody": body(gem_new, {"name": "Secret cove", "lat": 43.73, "lon": 7.42, "categories": ["water.beach"], "visibility": "public"}),
      "responses": {"201": json_body(ref("Place"), "Created", headers={**gem_etag, **created_location}), "401": unauthorized, "413": problem("The body is too large."), **common_errors}}},
  "/v1/gems/near": {"get": {"summary": "Gems near you (20 miles by default, capped by the deployment)", "security": optional_bearer,
      "parameters": [lat, lon, param("radius", distance_schema, "Radius (default and at most the deployment's cap, 20mi unless configured)."), *filters, limit, cursor, fmt],
      "responses": {"200": json_body(ref("PlaceAnswer"), geo=True, csv=True, headers=link), "401": unauthorized, **common_errors}}},
  "/v1/gems/{id}": {
    "get": {"summary": "A gem by id (private gems only for their owner)", "security": optional_bearer, "parameters": [gem_id],
            "responses": {"200": json_body(ref("Place"), headers=gem_etag), "401": unauthorized, "404": problem("No gem you can see."), **common_errors}},
    "patch": {"summary": "Change your gem", "security": bearer, "parameters": [gem_id, gem_if_match], "requestBody": body(gem_patch, {"visibility": "unlisted"}),
              "responses": {"200": json_body(ref("Place"), headers=gem_etag), "401": unauthorized, "403": problem("Not your gem."), "404": problem("No gem you can see."), "413": problem("The body is too large."), **gem_changed, **common_errors}},
    "delete": {"summary": "Delete your gem", "security": bearer, "parameters": [gem_id],
               "responses": {"204": no_content, "401": unauthorized, "403": problem("Not your gem."), "404": problem("No gem you can see."), **common_errors}}},
  "/v1/gems/{id}/rating": {
    "get": {"summary": "The gem's rating and yours", "security": bearer, "parameters": [gem_id],
            "responses": {"200": json_body(rating_answer), "401": unauthorized, "404": problem("No gem you can see."), **common_errors}},
    "put": {"summary": "Rate a gem 1–5 stars (one rating per user, not your own gem)", "security": bearer, "parameters": [gem_id],
            "requestBody": body({"type": "object", "required": ["stars"], "additionalProperties": False, "properties": {"stars": {"type": "integer", "minimum": 1, "maximum": 5}}}, {"stars": 4}),
            "responses": {"200": json_body(rating_answer), "401": unauthorized, "403": problem("Your own gem."), "404": problem("No gem you can see."), "413": problem("The body is too large."), **common_errors}},
    "delete": {"summary": "Withdraw your rating", "security": bearer, "parameters": [gem_id],
               "responses": {"200": json_body(rating_answer), "401": unauthorized, "404": problem("No gem you can see."), **common_errors}}},
  "/v1/me/photos": {"get": {"summary": "The photos that count against your storage, newest first, with where you show each: your gems, your avatar, the trip albums you added it to. A photo counts against whoever uploaded it first while they show it, then against one of those who show it.", "security": bearer,
      "parameters": [limit, cursor],
      "responses": {"200": json_body({"type": "object", "required": ["photo_storage", "count", "photos", "next_cursor"], "properties": {
          "photo_storage": {"type": "object", "required": ["used_bytes", "limit_bytes"], "properties": {"used_bytes": {"type": "integer", "description": "Of all your photos, not only this page's."}, "limit_bytes": nullable("integer")}},
          "count": {"type": "integer", "description": "Photos on this page."}, "next_cursor": nullable("string"),
          "photos": {"type": "array", "items": photo_object(["content_type", "bytes", "uploaded_at", "used_by"],
              content_type={"type": "string"}, bytes={"type": "integer"}, uploaded_at={"type": "string", "format": "date-time"},
              used_by={"type": "array", "items": {"type": "object", "required": ["kind"], "properties": {
                  "kind": {"enum": ["gem", "avatar", "trip"]}, "id": {"type": "string"}}}})}}}),
                    "401": unauthorized, **common_errors}}},
  "/v1/gems/{id}/photos": {"post": {"summary": "Add a photo to your gem (JPEG, PNG or WebP by its bytes, at most 10 MB and 40 megapixels; decoded and encoded again, so EXIF and all other metadata are gone)", "security": bearer,
      "parameters": [gem_id, gem_if_match], "requestBody": image,
      "responses": {"201": json_body(photo_answer, "Created"), "401": unauthorized,
                    "403": problem("Not your gem, or your photos would pass your account's storage limit (photo_storage in GET /v1/me)."),
                    "404": problem("No gem you can see."), "412": gem_changed["412"],
                    "409": problem("The gem has 20 photos, or others kept changing it at this moment (try again)."), "413": problem("Larger than 10 MB."), "415": problem("Not a JPEG, PNG or WebP image, or one that cannot be decoded."), "422": problem("More than 40 megapixels (judged from the header, before the pixels are decoded)."), **common_errors}}},
  "/v1/gems/{id}/photos/{photoId}": {"delete": {"summary": "Take a photo off your gem (its file goes when nothing else uses it)", "security": bearer,
      "parameters": [gem_id, path_param("photoId", "SHA-256 of the photo, 64 hex digits.", "0" * 64), gem_if_match],
      "responses": {"204": no_content, "401": unauthorized, "403": problem("Not the gem's owner (a gem you can see)."), **gem_changed,
                    "404": problem("No such gem you may see, or not among its photos."), **common_errors}}},
  "/v1/gems/{id}/report": {"put": {"summary": "Report a gem you can see (not your own): one report per person, a second replaces the first", "security": bearer,
      "parameters": [gem_id], "requestBody": body({"type": "object", "additionalProperties": False, "required": ["reason"], "properties": {
          "reason": {"enum": ["spam", "offensive", "dangerous", "private_property", "wrong_location", "closed", "other"]},
          "note": {"type": "string", "maxLength": 1000}}}, {"reason": "wrong_location", "note": "It is on the other side of the river"}),
      "responses": {"201": json_body(ref("Report"), "Reported"), "200": json_body(ref("Report"), "Your earlier report, replaced"), "401": unauthorized,
                    "403": problem("Your own gem."), "404": problem("No gem you can see."), "413": problem("The body is too large."), **common_errors}}},
  "/v1/moderation/reports": {"get": {"summary": "Reported gems, most reports first (moderators only)", "security": bearer,
      "parameters": [param("limit", {"type": "integer", "minimum": 1, "maximum": 100}, "How many gems (default 20)."),
                     param("cursor", {"type": "string"}, "next_cursor of the previous page: the report count and id of its last gem.")],
      "responses": {"200": json_body({"type": "object", "required": ["count", "gems", "next_cursor"], "properties": {
          "count": {"type": "integer"}, "gems": {"type": "array", "items": {"type": "object", "required": ["gem_id", "report_count", "reasons", "reports", "gem"], "properties": {
              "gem_id": {"type": "string"}, "report_count": {"type": "integer"}, "reasons": {"type": "object", "additionalProperties": {"type": "integer"}},
              "reports": {"type": "array", "items": ref("Report")}, "gem": {"oneOf": [ref("Place"), {"type": "null"}]}}}},
          "next_cursor": nullable("string")}}, headers=link),
          "401": unauthorized, "403": problem("Not a moderator of this service."), **common_errors}}},
  "/v1/moderation/gems/{id}/hide": {"post": {"summary": "Hide a gem (moderators only): it becomes private, its owner cannot publish it again, its reports close and its owner is notified", "security": bearer,
      "parameters": [gem_id], "requestBody": body({"type": "object", "additionalProperties": False, "required": ["reason"], "properties": {
          "reason": {"type": "string", "minLength": 1, "maxLength": 500}}}, {"reason": "Insults in the description"}),
      "responses": {"200": json_body({"type": "object", "required": ["gem_id", "hidden", "hidden_at", "moderator", "reason"], "properties": {
          "gem_id": {"type": "string"}, "hidden": {"const": True}, "hidden_at": {"type": "string", "format": "date-time"},
          "moderator": {"type": "string"}, "reason": {"type": "string"}}}),
          "401": unauthorized, "403": problem("Not a moderator of this service."), "404": problem("No such gem."), "413": problem("The body is too large."), **common_errors}}},
  "/v1/moderation/gems/{id}/restore": {"post": {"summary": "Lift a hide (moderators only): the gem stays private until its owner publishes it", "security": bearer,
      "parameters": [gem_id], "responses": {"204": no_content, "401": unauthorized, "403": problem("Not a moderator of this service."),
                                            "404": problem("The gem is not hidden."), **common_errors}}},
  "/v1/moderation/gems/{id}/dismiss": {"post": {"summary": "Close a gem's reports without acting (moderators only)", "security": bearer,
      "parameters": [gem_id], "responses": {"200": json_body({"type": "object", "required": ["gem_id", "dismissed"], "properties": {
          "gem_id": {"type": "string"}, "dismissed": {"type": "integer"}}}), "401": unauthorized, "403": problem("Not a moderator of this service."), **common_errors}}},
  "/v1/photos/{id}": {"get": {"summary": "A photo (content-addressed: immutable, with ETag), or a smaller variant of it (?w=)", "parameters": [path_param("id", "SHA-256 of the stored bytes, 64 hex digits.", "0" * 64),
                     param("w", {"type": "integer", "enum": [160, 320, 640, 1280]}, "A variant at most this many pixels wide, in the photo's format (never enlarged), for lists and pins; its ETag is the id and the width.")],
      "responses": {"200": {"description": "The image", "headers": {"ETag": {"schema": {"type": "string"}}},
                            "content": {"image/jpeg": {"schema": {"type": "string", "format": "binary"}}, "image/png": {"schema": {"type": "string", "format": "binary"}}, "image/webp": {"schema": {"type": "string", "format": "binary"}}}},
                    "304": {"description": "Not modified (If-None-Match)."}, "400": problem("w is not one of the variant widths."), "404": problem("No such photo."), **common_errors}}},
  "/v1/me/export": {"get": {"summary": "Download everything you made or were given", "security": bearer,
      "description": "One JSON document (Content-Disposition: attachment; Cache-Control: no-store): your account and profile, every gem you own (private ones too), your ratings, favourites, photos, friends, the gems you reported, the people you blocked, whom you follow, the itineraries and trips you own or were invited to, your notifications, and where you are signed in. No password hash and no token is included.",
      "responses": {"200": json_body({"type": "object", "required": ["format", "exported_at", "account", "gems", "ratings", "favorites", "photos", "friends", "reports", "blocks",
                                                                     "following", "itineraries", "trips", "notifications", "sessions"], "properties": {
          "format": {"const": "geoquery-export/1"}, "exported_at": {"type": "string", "format": "date-time"}, "account": ref("PrivateProfile"),
          "gems": {"type": "array", "items": ref("Place")},
          "ratings": {"type": "array", "items": {"type": "object", "required": ["gem_id", "stars", "rated_at"], "properties": {
              "gem_id": {"type": "string"}, "stars": {"type": "integer", "minimum": 1, "maximum": 5}, "rated_at": {"type": "string", "format": "date-time"}}}},
          "favorites": {"type": "array", "items": {"type": "object", "required": ["place_id", "added_at"], "properties": {
              "place_id": {"type": "string"}, "added_at": {"type": "string", "format": "date-time"}}}},
          "photos": {"type": "array", "items": photo_object(["content_type", "bytes", "uploaded_at"],
              content_type={"type": "string"}, bytes={"type": "integer"}, uploaded_at={"type": "string", "format": "date-time"})},
          "friends": {"type": "array", "items": {"type": "object", "required": ["username", "state", "since"], "properties": {
              "username": {"type": "string"}, "state": {"enum": ["requested", "incoming", "accepted"]}, "since": {"type": "string", "format": "date-time"}}}},
          "reports": {"type": "array", "items": ref("Report")}, "blocks": {"type": "array", "items": ref("Block")},
          "following": {"type": "array", "items": ref("Follow")},
          "itineraries": {"type": "array", "items": {"type": "object"}}, "trips": {"type": "array", "items": {"type": "object"}},
          "notifications": {"type": "array", "items": {"type": "object", "required": ["id", "kind", "data", "created_at", "read_at"], "properties": {
              "id": {"type": "string"}, "kind": {"type": "string"}, "data": {"type": "object"}, "created_at": {"type": "string", "format": "date-time"},
              "read_at": {"type": ["string", "null"], "format": "date-time"}}}},
          "sessions": {"type": "array", "items": ref("Session")}}}), "401": unauthorized, **common_errors}}},
})

# Friends, itineraries, trips, share links and notifications.
money = {"type": ["object", "null"], "required": ["amount", "currency"], "additionalProperties": False, "properties": {
    "amount": {"type": "number", "minimum": 0}, "currency": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO 4217."}}}
location = {"type": "object", "additionalProperties": False, "description": "A place by id (filled in from the index, a gem you may see, or a provider) or a point; with an optional name.",
    "properties": {"place_id": {"type": "string"}, "lat": {"type": "number", "minimum": -90, "maximum": 90},
                   "lon": {"type": "number", "minimum": -180, "maximum": 180}, "name": {"type": "string", "maxLength": 200}}}
date = {"type": "string", "format": "date", "examples": ["2027-05-02"]}
stop = {"type": "object", "required": ["location", "day"], "additionalProperties": False, "properties": {
    "id": {"type": "string"}, "location": location, "day": {"type": "integer", "minimum": 1, "maximum": 366},
    "fixed_start": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$", "description": "Local time the visit is fixed at."},
    "duration_minutes": {"type": "integer", "minimum": 1, "maximum": 1440, "default": 60}, "notes": {"type": "string"}, "price": money}}
leg = {"type": "object", "required": ["mode", "from", "to", "departure", "arrival"], "additionalProperties": False, "properties": {
    "id": {"type": "string"}, "mode": {"enum": ["flight", "train", "bus", "car", "ferry", "taxi", "walk", "bike", "other"]},
    "from": location, "to": location, "departure": {"type": "string", "format": "date-time"}, "arrival": {"type": "string", "format": "date-time"},
    "reference": {"type": "string"}, "price": money}}
lodging = {"type": "object", "required": ["name", "location", "check_in", "check_out"], "additionalProperties": False, "properties": {
    "id": {"type": "string"}, "name": {"type": "string"}, "location": location, "check_in": date, "check_out": date, "price": money}}
plan_visibility = {"type": "string", "enum": ["private", "friends", "public"], "default": "private",
                   "description": "private: the owner and the people named on it; friends: also the owner's accepted friends; public: anyone."}
itinerary_fields = {"title": {"type": "string", "minLength": 1, "maxLength": 200}, "destination": location, "start_date": date, "end_date": date,
    "time_zone": {"type": "string", "description": "IANA zone; by default the destination's, else the nearest city's."},
    "notes": {"type": ["string", "null"]}, "budget": money, "visibility": plan_visibility,
    "transport": {"type": "array", "items": leg}, "lodging": {"type": "array", "items": lodging}, "stops": {"type": "array", "items": stop}}
itinerary_new = {"type": "object", "required": ["title", "destination", "start_date", "end_date"], "additionalProperties": False, "properties": itinerary_fields}
itinerary_patch = {"type": "object", "additionalProperties": False, "properties": itinerary_fields}
plan_header = {"id": {"type": "string"}, "kind": {"enum": ["itinerary", "trip"]}, "owner": {"type": "string"}, "visibility": plan_visibility,
    "revision": {"type": "integer", "description": "Counts writes; also the ETag. Send If-Match with it to refuse overwriting someone else's change (412)."},
    "created_at": {"type": "string", "format": "date-time"}, "updated_at": {"type": "string", "format": "date-time"},
    "your_access": {"enum": ["own", "edit", "read", "shared_link"]}}
itinerary_answer = {"type": "object", "required": ["id", "kind", "owner", "visibility", "revision", "title", "destination", "start_date", "end_date",
    "days", "time_zone", "transport", "lodging", "stops", "cost"], "properties": {**plan_header,
    "title": {"type": "string"}, "destination": {"type": "object"}, "start_date": date, "end_date": date, "days": {"type": "integer"},
    "time_zone": {"type": "string"}, "notes": {"type": ["string", "null"]}, "budget": {"type": ["object", "null"]},
    "collaborators": {"type": "array", "items": {"type": "object", "required": ["username", "role"]}, "description": "Absent for a share link's holder."},
    "transport": {"type": "array", "items": {"type": "object"}}, "lodging": {"type": "array", "items": {"type": "object"}},
    "stops": {"type": "array", "items": {"type": "object"}},
    "cost": {"type": "object", "required": ["transport", "lodging", "stops", "total", "remaining", "other_currencies"],
             "description": "Sums per category and per currency; no exchange rate is applied. remaining is the budget less the total in the budget's currency."}}}
trip_fields = {"title": {"type": "string", "minLength": 1, "maxLength": 200}, "place": location,
    "start": {"type": "string", "format": "date-time"}, "end": {"type": "string", "format": "date-time"},
    "time_zone": {"type": "string"}, "notes": {"type": ["string", "null"]}, "budget": money, "visibility": plan_visibility,
    "invitees": {"type": "array", "maxItems": 100, "items": {"type": "string"}, "description": "Usernames; on a change, those still listed keep their answers."}}
trip_new = {"type": "object", "required": ["title", "place", "start", "end"], "additionalProperties": False, "properties": trip_fields}
trip_patch = {"type": "object", "additionalProperties": False, "properties": trip_fields}
trip_answer = {"type": "object", "required": ["id", "kind", "owner", "visibility", "revision", "title", "place", "start", "end", "time_zone"],
    "properties": {**plan_header, "title": {"type": "string"}, "place": {"type": "object"}, "start": {"type": "string"}, "end": {"type": "string"},
    "time_zone": {"type": "string"}, "notes": {"type": ["string", "null"]}, "budget": {"type": ["object", "null"]},
    "invitees": {"type": "array", "items": {"type": "object", "required": ["username", "answer"]}, "description": "Absent for a share link's holder."},
    "album": {"type": "array", "items": album_photo, "description": "Absent for a share link's holder."}}}
etag = {"ETag": {"description": "The revision, quoted.", "schema": {"type": "string"}}}
itinerary_id = path_param("id", "An itinerary id, it_<24 hex digits>.", "it_0123456789abcdef01234567")
trip_id = path_param("id", "A trip id, tr_<24 hex digits>.", "tr_0123456789abcdef01234567")
not_yours = problem("You may see it but not do this (only its owner, or its editors, may).")
unseen = problem("No such plan you may see.")
too_large = problem("The body is too large.")
def plan_ok(schema, description="OK"): return json_body(schema, description, headers=etag)
def listing(key, item, headers=None): return json_body({"type": "object", "required": ["count", key, "next_cursor"], "properties": {
    "count": {"type": "integer"}, key: {"type": "array", "items": item}, "next_cursor": nullable("string")}}, headers=headers)
when = param("when", {"type": "string", "enum": ["upcoming", "past", "all"]}, "upcoming: not yet ended, earliest first; past: ended, latest first; all (default): by start.")
if_match = {"name": "If-Match", "in": "header", "required": False, "schema": {"type": "string"}, "description": "The revision you read, quoted: a change made since is refused with 412."}
changed = {"409": problem("Others kept changing it at the same moment: try again."), "412": problem("It changed since the revision in If-Match: read it again.")}
friendship = {"type": "object", "required": ["username", "state", "since"], "properties": {"username": {"type": "string"},
    "state": {"enum": ["requested", "incoming", "accepted"]}, "since": {"type": "string", "format": "date-time"}}}
share = {"type": "object", "required": ["id", "plan", "created_at", "expires_at", "revoked_at", "live", "view_count", "last_viewed_at"], "properties": {
    "id": {"type": "string"}, "plan": {"type": "string"}, "token": {"type": "string", "description": "Only when made: it is not stored and cannot be shown again."},
    "url": {"type": "string"}, "map_url": {"type": "string"}, "created_at": {"type": "string", "format": "date-time"},
    "expires_at": nullable("string"), "revoked_at": nullable("string"), "live": {"type": "boolean"}, "view_count": {"type": "integer"}, "last_viewed_at": nullable("string")}}
def share_routes(base, pid, noun):
    return {
      base: {
        "post": {"summary": f"Make a share link of your {noun} (read-only, no account needed)", "security": bearer, "parameters": [pid],
                 "requestBody": {"required": False, "content": {"application/json": {"schema": {"type": "object", "additionalProperties": False,
                     "properties": {"expires_at": {"type": "string", "format": "date-time"}}}}}},
                 "responses": {"201": json_body(share, "Created"), "401": unauthorized, "403": not_yours, "404": unseen, "413": too_large, **common_errors}},
        "get": {"summary": f"The links of your {noun}, with views", "security": bearer, "parameters": [pid],
                "responses": {"200": json_body({"type": "object", "required": ["shares"], "properties": {"shares": {"type": "array", "items": share}}}),
                              "401": unauthorized, "403": not_yours, "404": unseen, **common_errors}}},
      base + "/{shareId}": {"delete": {"summary": "Revoke a link (it then answers 404, like one that never existed)", "security": bearer,
          "parameters": [pid, path_param("shareId", "The link's id (not its token).", "sh_0123456789abcdef01234567")],
          "responses": {"204": no_content, "401": unauthorized, "403": not_yours, "404": problem("No such live link."), **common_errors}}}}
busy_body = {"type": "object", "required": ["busy"], "additionalProperties": False, "properties": {"busy": {"type": "array", "maxItems": 10000,
    "items": {"type": "object", "required": ["start", "end"], "additionalProperties": False, "properties": {
        "start": {"type": "string", "format": "date-time"}, "end": {"type": "string", "format": "date-time"}}}}}}
paths.update({
  "/v1/me/friends": {"get": {"summary": "Your friends and requests, by username, in pages", "security": bearer,
      "parameters": [param("state", {"type": "string", "pattern": "^(accepted|requested|incoming)(,(accepted|requested|incoming))*$"},
                           "Only these states, comma-separated: accepted (friends), requested (you asked), incoming (asked of you)."),
                     limit, cursor],
      "responses": {"200": json_body({"type": "object", "required": ["count", "total", "friends", "next_cursor"], "properties": {
          "count": {"type": "integer", "description": "On this page."}, "total": {"type": "integer", "description": "In the whole list (with this state filter)."}, "friends": {"type": "array", "items": friendship},
          "next_cursor": nullable("string")}}, headers=link), "401": unauthorized, **common_errors}}},
  "/v1/me/friends/{username}": {
    "post": {"summary": "Ask someone to be friends (or accept their request)", "security": bearer, "parameters": [path_param("username", "A username.", "anna")],
             "responses": {"200": json_body(friendship, "Already asked or accepted"), "201": json_body(friendship, "Asked"), "401": unauthorized, "404": problem("No such user."),
                           "409": problem("Accepting would give one of you more friends than an account may have (5000 unless the deployment says otherwise)."), **common_errors}},
    "delete": {"summary": "Decline a request, withdraw yours, or end a friendship", "security": bearer, "parameters": [path_param("username", "A username.", "anna")],
               "responses": {"204": no_content, "401": unauthorized, "404": problem("No friendship or request with them."), **common_errors}}},
  "/v1/me/blocks": {"get": {"summary": "The people you blocked, newest first, in pages", "security": bearer, "parameters": [limit, cursor],
      "responses": {"200": json_body({"type": "object", "required": ["count", "total", "blocks", "next_cursor"], "properties": {
          "count": {"type": "integer", "description": "On this page."}, "total": {"type": "integer", "description": "In the whole list."}, "blocks": {"type": "array", "items": ref("Block")},
          "next_cursor": nullable("string")}}, headers=link), "401": unauthorized, **common_errors}}},
  "/v1/me/blocks/{username}": {
    "put": {"summary": "Block someone: any friendship or request ends, and neither of you can ask the other to be a friend, invite them or add them to an itinerary",
            "security": bearer, "parameters": [path_param("username", "A username.", "anna")],
            "responses": {"201": json_body(ref("Block"), "Blocked"), "200": json_body(ref("Block"), "Already blocked"), "401": unauthorized,
                          "404": problem("No such user."), **common_errors}},
    "delete": {"summary": "Lift your block", "security": bearer, "parameters": [path_param("username", "A username.", "anna")],
               "responses": {"204": no_content, "401": unauthorized, "404": problem("You have not blocked them."), **common_errors}}},
  "/v1/me/following": {"get": {"summary": "Whom you follow, newest first, in pages", "security": bearer, "parameters": [limit, cursor],
      "responses": {"200": json_body({"type": "object", "required": ["count", "total", "following", "next_cursor"], "properties": {
          "count": {"type": "integer", "description": "On this page."}, "total": {"type": "integer", "description": "In the whole list."},
          "following": {"type": "array", "items": ref("Follow")}, "next_cursor": nullable("string")}}, headers=link), "401": unauthorized, **common_errors}}},
  "/v1/me/following/{username}": {
    "put": {"summary": "Follow someone: their posts reach your feed. No acceptance is needed; they are told once. A block between you ends it and prevents it",
            "security": bearer, "parameters": [path_param("username", "A username.", "anna")],
            "responses": {"201": json_body(ref("Follow"), "Followed"), "200": json_body(ref("Follow"), "Already followed"), "401": unauthorized,
                          "404": problem("No such user (or one of you blocked the other)."), **common_errors}},
    "delete": {"summary": "Stop following someone", "security": bearer, "parameters": [path_param("username", "A username.", "anna")],
               "responses": {"204": no_content, "401": unauthorized, "404": problem("You do not follow them."), **common_errors}}},
  "/v1/users/{username}/followers": {"get": {"summary": "Who follows someone, newest first, in pages", "security": optional_bearer,
      "parameters": [path_param("username", "A username.", "anna"), limit, cursor],
      "responses": {"200": json_body({"type": "object", "required": ["count", "total", "followers", "next_cursor"], "properties": {
          "count": {"type": "integer", "description": "On this page."}, "total": {"type": "integer", "description": "In the whole list."},
          "followers": {"type": "array", "items": ref("Follow")}, "next_cursor": nullable("string")}}, headers=link),
          "401": unauthorized, "404": problem("No such user (or one of you blocked the other)."), **common_errors}}},
  "/v1/me/notifications": {"get": {"summary": "Your notifications, newest first", "security": bearer, "parameters": [
      param("unread", {"type": "boolean"}, "Only unread ones."), limit, cursor],
      "responses": {"200": listing("notifications", headers=link, item={"type": "object", "required": ["id", "kind", "data", "created_at", "read_at"], "properties": {
          "id": {"type": "string"}, "kind": {"enum": notification_kinds},
          "data": {"type": "object", "additionalProperties": {"type": "string"}}, "created_at": {"type": "string", "format": "date-time"}, "read_at": nullable("string")}}),
          "401": unauthorized, **common_errors}}},
  "/v1/me/notifications/read": {"post": {"summary": "Mark notifications read (all of them without ids)", "security": bearer,
      "requestBody": body({"type": "object", "additionalProperties": False, "properties": {"ids": {"type": "array", "maxItems": 500, "items": {"type": "string"}}}}, {"ids": ["n_0123456789abcdef01234567"]}),
      "responses": {"200": json_body({"type": "object", "required": ["marked_read"], "properties": {"marked_read": {"type": "integer"}}}), "401": unauthorized, "413": too_large, **common_errors}}},
  "/v1/itineraries": {
    "post": {"summary": "Make an itinerary", "security": bearer, "requestBody": body(itinerary_new, {"title": "Lisbon long weekend",
                 "destination": {"lat": 38.7223, "lon": -9.1393, "name": "Lisbon"}, "start_date": "2027-05-01", "end_date": "2027-05-03"}),
             "responses": {"201": plan_ok(itinerary_answer, "Created"), "401": unauthorized, "413": too_large, **common_errors}},
    "get": {"summary": "Your itineraries and those you collaborate on, by start", "security": bearer, "parameters": [when, limit, cursor],
            "responses": {"200": listing("itineraries", itinerary_answer), "401": unauthorized, **common_errors}}},
  "/v1/itineraries/{id}": {
    "get": {"summary": "An itinerary (JSON, or GeoJSON: numbered stops and each day's line)", "security": optional_bearer,
            "parameters": [itinerary_id, param("format", {"type": "string", "enum": ["json", "geojson"]}, "Answer format.")],
            "responses": {"200": {"description": "OK", "headers": etag, "content": {"application/json": {"schema": itinerary_answer},
                                  "application/geo+json": {"schema": ref("FeatureCollection")}}}, "401": unauthorized, "404": unseen, **common_errors}},
    "patch": {"summary": "Change an itinerary (owner and editors; visibility only the owner); lists given replace the stored ones", "security": bearer,
              "parameters": [itinerary_id, if_match], "requestBody": body(itinerary_patch, {"notes": "Book the tram tour"}),
              "responses": {"200": plan_ok(itinerary_answer), "401": unauthorized, "403": not_yours, "404": unseen, "413": too_large, **changed, **common_errors}},
    "delete": {"summary": "Delete your itinerary with its links", "security": bearer, "parameters": [itinerary_id],
               "responses": {"204": no_content, "401": unauthorized, "403": not_yours, "404": unseen, **common_errors}}},
  "/v1/itineraries/{id}/stops": {"post": {"summary": "Add a stop: a favourite or any place by place_id, or a location", "security": bearer,
      "parameters": [itinerary_id, if_match], "requestBody": body({"type": "object", "required": ["day"], "additionalProperties": False,
          "properties": {**{k: v for k, v in stop["properties"].items() if k != "id"}, "place_id": {"type": "string"}}}, {"place_id": "geonames:2267057", "day": 1}),
      "responses": {"201": plan_ok(itinerary_answer, "Added"), "401": unauthorized, "403": not_yours, "404": unseen, "413": too_large, **changed, **common_errors}}},
  "/v1/itineraries/{id}/collaborators/{username}": {
    "put": {"summary": "Add or change a collaborator (owner only)", "security": bearer,
            "parameters": [itinerary_id, path_param("username", "A username.", "anna"), if_match],
            "requestBody": body({"type": "object", "required": ["role"], "additionalProperties": False, "properties": {"role": {"enum": ["editor", "viewer"]}}}, {"role": "editor"}),
            "responses": {"200": plan_ok(itinerary_answer), "401": unauthorized, "403": not_yours, "404": problem("No such itinerary you may see, or no such user."), "413": too_large, **changed, **common_errors}},
    "delete": {"summary": "Remove a collaborator (owner), or leave (the collaborator)", "security": bearer,
               "parameters": [itinerary_id, path_param("username", "A username.", "anna"), if_match],
               "responses": {"204": no_content, "401": unauthorized, "403": not_yours, "404": problem("No such itinerary, or not a collaborator."), **changed, **common_errors}}},
  "/v1/itineraries/{id}/days/{day}/optimize": {"post": {"summary": "Order a day's stops: least travel from the night's lodging and back, fixed times and opening hours kept",
      "description": "Exact up to 13 stops, insertion beyond. Travel is the WGS84 distance × 1.3 at 5 (walk), 15 (bike) or 30 (car) km/h. A day that cannot hold every stop answers 422 naming each stop that does not fit and why, and changes nothing.",
      "security": bearer, "parameters": [itinerary_id, path_param("day", "The day's number, 1 for the first.", "1"), if_match],
      "requestBody": {"required": False, "content": {"application/json": {"schema": {"type": "object", "additionalProperties": False, "properties": {
          "mode": {"enum": ["walk", "bike", "car"]}, "day_start": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$", "default": "09:00"},
          "day_end": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$", "default": "21:00"}}}}}},
      "responses": {"200": plan_ok({"type": "object", "required": ["itinerary", "day", "order", "schedule", "travel_minutes", "proven_optimal"], "properties": {
          "itinerary": {"type": "string"}, "day": {"type": "integer"}, "order": {"type": "array", "items": {"type": "string"}},
          "schedule": {"type": "array", "items": {"type": "object", "required": ["stop_id", "start", "end"]}},
          "travel_minutes": {"type": "integer"}, "proven_optimal": {"type": "boolean"}}}),
          "401": unauthorized, "403": not_yours, "404": unseen, "413": too_large,
          "422": {"description": "Some stops cannot fit the day; `unplaced` names each with the reason.", "content": {"application/problem+json": {"schema": {
              "allOf": [ref("Problem"), {"type": "object", "properties": {"unplaced": {"type": "array", "items": {"type": "object", "required": ["stop_id", "reason"]}}}}]}}}},
          **changed, **common_errors}}},
  "/v1/trips": {"post": {"summary": "Plan a group trip and invite people", "security": bearer,
      "requestBody": body(trip_new, {"title": "Picnic", "place": {"lat": 48.8462, "lon": 2.3371, "name": "Jardin du Luxembourg"},
                                     "start": "2027-06-12T12:00:00+02:00", "end": "2027-06-12T16:00:00+02:00", "invitees": []}),
      "responses": {"201": plan_ok(trip_answer, "Created"), "401": unauthorized, "404": problem("An invitee has no account."), "413": too_large, **common_errors}}},
  "/v1/me/trips": {"get": {"summary": "Trips you made or are invited to", "security": bearer, "parameters": [when, limit, cursor],
      "responses": {"200": listing("trips", trip_answer), "401": unauthorized, **common_errors}}},
  "/v1/trips/{id}": {
    "get": {"summary": "A trip", "security": optional_bearer, "parameters": [trip_id],
            "responses": {"200": plan_ok(trip_answer), "401": unauthorized, "404": unseen, **common_errors}},
    "patch": {"summary": "Change your trip (author only)", "security": bearer, "parameters": [trip_id, if_match], "requestBody": body(trip_patch, {"notes": "Bring a blanket"}),
              "responses": {"200": plan_ok(trip_answer), "401": unauthorized, "403": not_yours, "404": problem("No such trip you may see, or an invitee has no account."), "413": too_large, **changed, **common_errors}},
    "delete": {"summary": "Delete your trip with its album and links", "security": bearer, "parameters": [trip_id],
               "responses": {"204": no_content, "401": unauthorized, "403": not_yours, "404": unseen, **common_errors}}},
  "/v1/trips/{id}/rsvp": {"put": {"summary": "Answer an invitation", "security": bearer, "parameters": [trip_id, if_match],
      "requestBody": body({"type": "object", "required": ["answer"], "additionalProperties": False, "properties": {"answer": {"enum": ["accepted", "declined", "maybe"]}}}, {"answer": "accepted"}),
      "responses": {"200": plan_ok(trip_answer), "401": unauthorized, "403": problem("You are not invited (the author does not answer)."), "404": unseen, "413": too_large, **changed, **common_errors}}},
  "/v1/trips/{id}/availability": {"put": {"summary": "Give your busy times (JSON, or an iCalendar VFREEBUSY body)", "security": bearer, "parameters": [trip_id],
      "requestBody": {"required": True, "content": {"application/json": {"schema": busy_body, "example": {"busy": [{"start": "2027-06-12T09:00:00+02:00", "end": "2027-06-12T11:00:00+02:00"}]}},
                                                    "text/calendar": {"schema": {"type": "string"}}}},
      "responses": {"200": json_body({"type": "object", "required": ["trip", "username", "busy_periods"]}), "401": unauthorized,
                    "403": problem("Only the author and invitees who have not declined."), "404": unseen, "413": too_large, **common_errors}}},
  "/v1/trips/{id}/meeting-times": {"get": {"summary": "When everyone who accepted is free (then when most are)", "security": bearer, "parameters": [trip_id,
      param("duration", {"type": "string", "pattern": "^([0-9]{1,2}h)?([0-9]{1,4}m)?$", "default": "2h"}, "How long: 90m, 2h, 1h30m (15m to 24h)."),
      param("from", {"type": "string", "format": "date-time"}, "Earliest start (default the next quarter hour)."),
      param("to", {"type": "string", "format": "date-time"}, "Latest end (default 14 days after from; at most 92)."),
      param("daily", {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]-[0-2][0-9]:[0-5][0-9]$", "default": "09:00-22:00"}, "Local hours each day, in the trip's time zone."),
      param("limit", {"type": "integer", "minimum": 1, "maximum": 100, "default": 10}, "At most this many slots.")],
      "responses": {"200": json_body({"type": "object", "required": ["trip", "time_zone", "people", "without_availability", "slots"], "properties": {
          "slots": {"type": "array", "items": {"type": "object", "required": ["start", "end", "free", "busy"]}}}}),
          "401": unauthorized, "403": problem("Only the author and invitees who have not declined."), "404": unseen, **common_errors}}},
  "/v1/trips/{id}/photos": {"post": {"summary": "Add a photo to the trip's album (author and invitees who have not declined)", "security": bearer,
      "parameters": [trip_id], "requestBody": image,
      "responses": {"200": json_body({"type": "object"}, "Already in the album"), "201": json_body({**album_photo, "required": album_photo["required"] + ["added"], "properties": {**album_photo["properties"], "added": {"type": "boolean"}}}, "Added"),
                    "401": unauthorized, "403": problem("Not an attendee, or your photos would pass your account's storage limit."), "404": unseen, "413": problem("Larger than 10 MB."), "415": problem("Not a JPEG, PNG or WebP image, or one that cannot be decoded."), "422": problem("More than 40 megapixels (judged from the header, before the pixels are decoded)."), **common_errors}}},
  "/v1/trips/{id}/photos/{photoId}": {"delete": {"summary": "Remove a photo from the album (the author or its uploader)", "security": bearer,
      "parameters": [trip_id, path_param("photoId", "SHA-256 of the photo, 64 hex digits.", "0" * 64)],
      "responses": {"204": no_content, "401": unauthorized, "403": problem("Neither the author nor the uploader."), "404": problem("No such trip you may see, or not in its album."), **common_errors}}},
  "/v1/shared/{token}": {"get": {"summary": "A shared itinerary or trip, read-only, by its link's token (no account needed)",
      "parameters": [path_param("token", "The token of a share link.", "abc"), param("format", {"type": "string", "enum": ["json", "geojson"]}, "Answer format (geojson for itineraries).")],
      "responses": {"200": {"description": "OK", "headers": etag, "content": {"application/json": {"schema": {"oneOf": [itinerary_answer, trip_answer]}},
                                                                          "application/geo+json": {"schema": ref("FeatureCollection")}}},
                    "404": problem("No live link with this token (revoked, expired or never made)."), **common_errors}}},
})
paths.update({
  "/v1/me/webhook": {
    "put": {"summary": "Send your notifications to a URL too (JSON, signed; retried with backoff)", "security": bearer,
            "description": "Each delivery is a POST of the notification as JSON with X-GeoQuery-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 keyed with the secret over '<t>.<body>'>. The secret is answered here only; setting the webhook again makes a new one. Loopback, private and other non-public addresses are refused.",
            "requestBody": body({"type": "object", "required": ["url"], "additionalProperties": False, "properties": {"url": {"type": "string", "format": "uri"}}}, {"url": "https://example.org/hooks/geoquery"}),
            "responses": {"201": json_body({"type": "object", "required": ["url", "id", "secret", "signature_header"]}, "Set"), "401": unauthorized, "413": too_large, **common_errors}},
    "get": {"summary": "Your webhook (without its secret)", "security": bearer,
            "responses": {"200": json_body({"type": "object", "required": ["url", "id"]}), "401": unauthorized, "404": problem("No webhook."), **common_errors}},
    "delete": {"summary": "Stop sending notifications to your webhook", "security": bearer,
               "responses": {"204": no_content, "401": unauthorized, "404": problem("No webhook."), **common_errors}}},
})
paths.update(share_routes("/v1/itineraries/{id}/shares", itinerary_id, "itinerary"))
paths.update(share_routes("/v1/trips/{id}/shares", trip_id, "trip"))
# Discovery: places by region, surprise-me cities, suggested itineraries.
region = param("region", {"type": "string", "maxLength": 200, "examples": ["fr", "France", "EU", "Europe", "Paris", "country:SA", "continent:SA"]},
               "A country (ISO code or name), a continent (code or name) or a city by name. A city sets the centre (leave out lat and lon) and, unless radius is given, a radius that fits it. AF, AS, NA and SA are both a continent and a country: write continent:SA or country:SA.")
for route, unless in [("/v1/places/near", " Required unless region is given: a city sets the centre; a country or continent with no centre lists its places best first, as /v1/places does."),
                      ("/v1/search", " Required unless region names a city.")]:
    operation = paths[route]["get"]
    # New dicts: lat, lon and radius are shared with every other route, which still requires them.
    operation["parameters"] = [{**p, "required": False, "allowEmptyValue": True, "description": p["description"] + unless}
                               if p["name"] in ("lat", "lon", "radius") else p for p in operation["parameters"]]
    operation["parameters"].append(region)
paths["/v1/places/bbox"]["get"]["parameters"].append(region)
paths["/v1/places"] = place_query("Places of a country or continent, best first",
    [param("region", region["schema"], "A country (ISO code or name) or a continent (code or name); or give country= or continent= instead. A city is refused: ask /v1/places/near?region=<city>."),
     *filters, limit, cursor, fmt],
    "Every place of the region that passes the filters, sorted by rating (highest first, to the hundredth of a star), then by how many ratings it has, then by id; unrated places come last. Each page walks the region's rank index from the cursor, so a continent costs no more than a country.")
paths.update({
  "/v1/discover/random-city": {"get": {"summary": "Surprise me: a random city with a picture, the weather, airports and suggestions",
      "description": "A city from the index, uniformly or by population, reproducible with seed (the answer gives the seed it used); a signed-in user never gets the same city twice in a row. Suggestions around it are grouped by the taxonomy's top level, nearest first, empty groups left out. The picture and the weather are left out, and named under sources, when their source fails.",
      "security": optional_bearer, "parameters": [
      param("continent", {"type": "string", "examples": ["EU", "Europe"]}, "A continent, code or name."),
      param("country", {"type": "string", "examples": ["fr", "France"]}, "A country, ISO code or name."),
      param("min_population", {"type": "integer", "minimum": 0, "maximum": 100000000}, "Only cities at least this large."),
      param("weighting", {"type": "string", "enum": ["uniform", "population"], "default": "uniform"}, "Every city equally likely, or in proportion to population."),
      param("seed", {"type": "integer", "minimum": 0, "maximum": 9007199254740991}, "The same seed gives the same city."),
      param("per_group", {"type": "integer", "minimum": 1, "maximum": 20, "default": 5}, "Suggestions per group.")],
      "responses": {"200": json_body({"type": "object", "required": ["seed", "weighting", "candidates", "city", "image", "weather", "airports", "suggestions", "sources"], "properties": {
          "seed": {"type": "integer"}, "weighting": {"type": "string"}, "candidates": {"type": "integer", "description": "How many cities could have been drawn."},
          "city": ref("City"), "image": {"oneOf": [ref("Image"), {"type": "null"}]}, "weather": {"oneOf": [ref("Weather"), {"type": "null"}]},
          "airports": {"type": "array", "items": ref("Place")}, "suggestion_radius_m": {"type": "number"},
          "suggestions": {"type": "array", "items": {"type": "object", "required": ["group", "places"], "properties": {"group": {"type": "string"}, "places": {"type": "array", "items": ref("Place")}}}},
          "sources": {"type": "array", "items": {"type": "object", "required": ["provider", "error"], "properties": {"provider": {"type": "string"}, "error": {"type": "string"}}}}}}),
          "401": unauthorized, "404": problem("No city matches the filters."), **common_errors}}},
  "/v1/discover/itinerary": {"post": {"summary": "A suggested itinerary: the best stops for the days, hours and budget, in visiting order",
      "description": "Chooses stops that maximise the sum of their scores (rating, popularity, preference) within each day's hours (travel at the mode's speed, visit lengths by category and pace, opening hours by weekday when start_date is given) and the money budget (costs estimated from price levels), and orders each day. Exact for up to 12 candidates; beyond, a heuristic with an upper bound. With save: true (signed in, start_date required) it is saved as a private itinerary.",
      "security": optional_bearer, "requestBody": body({"type": "object", "required": ["destination"], "additionalProperties": False, "properties": {
          "destination": {"oneOf": [{"type": "string", "description": "A city's name."}, {"type": "object", "properties": {"place_id": {"type": "string"}, "lat": {"type": "number"}, "lon": {"type": "number"}, "name": {"type": "string"}}}]},
          "days": {"type": "integer", "minimum": 1, "maximum": 14, "default": 1}, "start_date": {"type": "string", "format": "date"},
          "day_start": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$", "default": "09:00"}, "day_end": {"type": "string", "pattern": "^[0-2][0-9]:[0-5][0-9]$", "default": "18:00"},
          "budget": {"type": "object", "required": ["amount", "currency"], "properties": {"amount": {"type": "number", "minimum": 0}, "currency": {"type": "string", "pattern": "^[A-Z]{3}$"}}},
          "preferred": {"type": "array", "items": ref("Category"), "maxItems": 20}, "pace": {"type": "string", "enum": ["relaxed", "normal", "packed"]},
          "mode": {"type": "string", "enum": ["walk", "bike", "car"]}, "start": {"type": "object", "required": ["lat", "lon"], "properties": {"lat": {"type": "number"}, "lon": {"type": "number"}}},
          "radius": distance_schema, "save": {"type": "boolean"}, "title": {"type": "string"}, "visibility": {"type": "string"}}},
          {"destination": "Lisbon", "days": 2, "start_date": "2027-05-03", "budget": {"amount": 80, "currency": "EUR"}, "preferred": ["culture"], "pace": "normal", "mode": "walk"}),
      "responses": {"200": json_body(ref("SuggestedItinerary")), "201": json_body(ref("SuggestedItinerary"), "Saved as an itinerary (itinerary_id)."),
                    "401": unauthorized, "413": problem("The body is too large."), "415": problem("The body is not JSON."), **common_errors}}},
})
paths["/v1/discover/popular"] = {"get": {"summary": "Places (or destinations) ranked by what the service's users do",
    "description": "Favourites (3), first ratings (2), itinerary stops (2) and views of shared itineraries (1), each decaying with a half-life of a third of the period; counted as they happen, read in order from an index. A place's provider ratings add a prior of at most 2. Destinations are the cities the places lie in or by (within 30 km). Gems are listed as the viewer may see them.",
    "security": optional_bearer, "parameters": [
    param("kind", {"type": "string", "enum": ["places", "destinations"], "default": "places"}, "Places, or the cities they lie in or by."),
    region, param("category", {"type": "array", "items": ref("Category")}, "Taxonomy categories, any of (places only).", explode=True),
    param("period", {"type": "string", "enum": ["7d", "30d", "365d"], "default": "30d"}, "Activity within this period counts."),
    param("limit", {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}, "At most this many."), cursor],
    "responses": {"200": json_body({"type": "object", "required": ["query", "count", "results", "next_cursor"], "properties": {
        "query": {"type": "object"}, "count": {"type": "integer"}, "next_cursor": nullable("string"),
        "results": {"type": "array", "items": {"type": "object", "required": ["score", "activity", "prior", "events", "last_activity_at", "place"], "properties": {
            "score": {"type": "number"}, "activity": {"type": "number"}, "prior": {"type": "number"}, "events": {"type": "integer"},
            "last_activity_at": {"type": "string", "format": "date-time"}, "place": ref("Place")}}}}}), "401": unauthorized, **common_errors}}}
paths["/v1/me/favorites"]["post"] = {"summary": "Keep a place, and the suggestions shown with it as a one-day itinerary", "security": bearer,
    "requestBody": body({"type": "object", "required": ["place_id"], "additionalProperties": False, "properties": {
        "place_id": {"type": "string"}, "suggestions": {"type": "array", "items": {"type": "string"}, "maxItems": 100}, "title": {"type": "string"}}},
        {"place_id": "geonames:2267057", "suggestions": ["airport:LIS"]}),
    "responses": {"200": json_body({"type": "object"}, "Already a favourite; nothing saved."), "201": json_body({"type": "object", "required": ["place_id", "favorite", "itinerary_id"], "properties": {
        "place_id": {"type": "string"}, "favorite": {"type": "boolean"}, "itinerary_id": nullable("string")}}),
        "401": unauthorized, "404": problem("No such place."), "413": problem("The body is too large."), "415": problem("The body is not JSON."), **common_errors}}
for route, method in [("/v1/places/near", "get"), ("/v1/places/bbox", "get"), ("/v1/places/nearest", "get"), ("/v1/places/{id}", "get"),
                      ("/v1/places", "get"), ("/v1/search", "get"), ("/v1/route", "post")]:
    operation = paths[route][method]
    operation["security"] = optional_bearer
    operation["responses"]["401"] = unauthorized

place_props = {
  "id": {"type": "string"}, "name": {"type": "string"}, "lat": {"type": "number"}, "lon": {"type": "number"},
  "distance_m": {"type": ["number", "null"], "description": "WGS84 ellipsoidal distance from the centre in metres, to the millimetre; null without a centre."},
  "categories": {"type": "array", "items": {"type": "string"}}, "source": {"type": "string"},
  "address": {"type": "object", "additionalProperties": {"type": "string"}},
  "rating": {"type": "object", "required": ["value", "scale"], "properties": {"value": {"type": "number", "minimum": 0, "maximum": 5}, "count": {"type": "integer"}, "scale": {"type": "number"}}},
  "price_level": {"type": "integer", "minimum": 1, "maximum": 4}, "phone": {"type": "string"}, "website": {"type": "string"},
  "country_code": {"type": "string", "description": "ISO 3166-1 alpha-2 code of the country the place lies in (Natural Earth boundaries)."},
  "continent": {"type": "string", "enum": ["AF", "AN", "AS", "EU", "NA", "OC", "SA"]},
  "time_zone": {"type": "string", "description": "IANA time zone, e.g. Europe/Paris."},
  "opening_hours": {"type": "object"}, "photos": {"type": "array", "items": {"type": "object", "description": "A photo people uploaded has the photo object's id, url, width and height; a provider's has its url or reference, its size when known and its attribution.",
      "properties": {**photo_core_properties, "reference": {"type": "string"}, "attribution": {"type": "string"}}}},
  "tags": {"type": "object", "additionalProperties": {"type": "string"}},
  "gem": {"type": "object"},
  "moderation": {"type": "object", "description": "Only in the owner's answers of GET and PATCH /v1/gems/{id} and GET /v1/me/gems (JSON), for a gem a moderator hid: why and when. It stays private until a moderator restores it.",
                 "required": ["hidden", "reason", "hidden_at"],
                 "properties": {"hidden": {"const": True}, "reason": {"type": "string"}, "hidden_at": {"type": "string", "format": "date-time"}}},
  "imported_at": {"type": "string", "format": "date-time"}, "fetched_at": {"type": "string", "format": "date-time"},
}
schemas = {
  "Follow": {"type": "object", "required": ["username", "followed_at"], "properties": {
      "username": {"type": "string", "description": "The other account: whom you follow, or who follows."},
      "followed_at": {"type": "string", "format": "date-time"}}},
  "Block": {"type": "object", "required": ["username", "blocked_at"], "properties": {
      "username": {"type": "string"}, "blocked_at": {"type": "string", "format": "date-time"}}},
  "Report": {"type": "object", "required": ["gem_id", "reason", "note", "reported_at"], "properties": {
      "gem_id": {"type": "string"}, "username": {"type": "string", "description": "Who reported (shown to moderators only)."},
      "reason": {"enum": ["spam", "offensive", "dangerous", "private_property", "wrong_location", "closed", "other"]},
      "note": nullable("string"), "reported_at": {"type": "string", "format": "date-time"}}},
  "SignedIn": {"type": "object", "required": ["token", "token_type", "expires_at", "username", "user"], "additionalProperties": False, "properties": {
      "token": {"type": "string", "description": "The bearer token; shown once, stored only as a hash."}, "token_type": {"const": "Bearer"},
      "expires_at": {"type": "string", "format": "date-time"}, "username": {"type": "string"}, "user": ref("PrivateProfile")}},
  "Session": {"type": "object", "required": ["id", "current", "client", "created_at", "last_used_at", "expires_at"], "properties": {
      "id": {"type": "string", "pattern": "^[0-9a-f]{16}$", "description": "The session's public name (not its token)."},
      "current": {"type": "boolean", "description": "The session of the token that asks."},
      "client": {"type": ["string", "null"], "description": "The User-Agent it signed in with, shortened to 200 characters."},
      "created_at": {"type": "string", "format": "date-time"},
      "last_used_at": {"type": "string", "format": "date-time", "description": "To the hour."},
      "expires_at": {"type": "string", "format": "date-time", "description": "30 days after the last use (sliding)."}}},
  "PublicProfile": {"type": "object", "required": ["username", "display_name", "bio", "avatar_url", "created_at"], "properties": {
      "username": {"type": "string"}, "display_name": nullable("string"), "bio": nullable("string"), "avatar_url": nullable("string"),
      "created_at": {"type": "string", "format": "date-time"}}},
  "PrivateProfile": {"type": "object", "required": ["username", "email", "settings", "created_at"], "properties": {
      "username": {"type": "string"}, "email": {"type": "string"}, "display_name": nullable("string"), "bio": nullable("string"),
      "avatar_photo": nullable("string"), "avatar_url": nullable("string"), "settings": {"type": "object"},
      "photo_storage": {"type": "object", "description": "The bytes of the photos you uploaded first (a photo someone stored already costs nothing) and the most an account may store (null: no limit). In GET and PATCH /v1/me and the sign-up answer.",
                        "required": ["used_bytes", "limit_bytes"],
                        "properties": {"used_bytes": {"type": "integer", "minimum": 0}, "limit_bytes": nullable("integer")}},
      "created_at": {"type": "string", "format": "date-time"}}},
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
  "Category": {"type": "string", "enum": taxonomy(), "description": "A category of the taxonomy (GET /v1/categories)."},
  "CategoryAnswer": {"type": "object", "required": ["count", "categories"], "properties": {
      "count": {"type": "integer", "description": "Every category, top levels and subcategories."},
      "categories": {"type": "array", "items": {"type": "object", "required": ["id", "label", "subcategories"], "properties": {
          "id": ref("Category"), "label": {"type": "string"}, "subcategories": {"type": "array", "items": {"type": "object",
              "required": ["id", "label"], "properties": {"id": ref("Category"), "label": {"type": "string"}}}}}}}}},
  "City": {"type": "object", "required": ["id", "name", "lat", "lon", "country_code", "country_name", "continent", "population"],
      "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "lat": {"type": "number"}, "lon": {"type": "number"},
                     "country_code": nullable("string"), "country_name": nullable("string"), "continent": nullable("string"),
                     "region": nullable("string"), "population": nullable("integer"), "time_zone": nullable("string"),
                     "distance_m": {"type": "number", "minimum": 0, "description": "From the point asked about (GET /v1/where only)."}}},
  "CityAnswer": {"type": "object", "required": ["query", "count", "cities"], "properties": {
      "query": {"type": "object"}, "count": {"type": "integer"}, "cities": {"type": "array", "items": ref("City")}}},
  "Whereabouts": {"type": "object", "required": ["query", "country_code", "country_name", "continent", "time_zone", "city", "cities"], "properties": {
      "query": {"type": "object"},
      "country_code": {**nullable("string"), "description": "ISO 3166 alpha-2 of the country the point lies in (25 km off a coast still counts); null at sea."},
      "country_name": nullable("string"), "continent": {"enum": ["AF", "AN", "AS", "EU", "NA", "OC", "SA", None]},
      "time_zone": {**nullable("string"), "description": "IANA time zone, from the nearest city in the country."},
      "city": {"description": "The city the point is best described as near: the smallest distance against the square root of the population, among the 50 nearest in reach; null when none is in reach.",
               "oneOf": [ref("City"), {"type": "null"}]},
      "cities": {"type": "array", "items": ref("City"), "description": "The cities in reach, nearest first, each with distance_m."}}},
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
  "SuggestedItinerary": {"type": "object", "required": ["destination", "method", "proven_optimal", "score", "upper_bound", "candidates", "days"], "properties": {
      "destination": {"type": "object"}, "method": {"type": "string", "enum": ["exact", "heuristic"]}, "proven_optimal": {"type": "boolean"},
      "score": {"type": "number"}, "upper_bound": {"type": "number"}, "candidates": {"type": "integer"}, "opening_hours_applied": {"type": "boolean"},
      "estimated_cost": {"type": "object"}, "budget": {"type": ["object", "null"]}, "itinerary_id": nullable("string"),
      "note": {"type": ["string", "null"], "description": "Why the days are empty, when no place to visit is within the radius."},
      "days": {"type": "array", "items": {"type": "object", "required": ["day", "travel_minutes", "stops"], "properties": {
          "day": {"type": "integer"}, "date": nullable("string"), "travel_minutes": {"type": "integer"},
          "stops": {"type": "array", "items": {"type": "object", "required": ["place_id", "name", "start", "duration_minutes", "score", "why"], "properties": {
              "place_id": {"type": "string"}, "name": {"type": "string"}, "lat": {"type": "number"}, "lon": {"type": "number"},
              "categories": {"type": "array", "items": {"type": "string"}}, "start": {"type": "string"}, "duration_minutes": {"type": "integer"},
              "estimated_cost": {"type": ["number", "null"]}, "score": {"type": "number"}, "why": {"type": "array", "items": {"type": "string"}}}}}}}}}},
  "Image": {"type": "object", "required": ["url", "licence", "source_url", "provider"], "properties": {
      "url": {"type": "string"}, "thumbnail_url": {"type": ["string", "null"]}, "width": {"type": ["integer", "null"]},
      "height": {"type": ["integer", "null"]}, "title": {"type": ["string", "null"]}, "author": {"type": ["string", "null"]},
      "author_url": {"type": ["string", "null"]}, "licence": {"type": "string"}, "licence_url": {"type": ["string", "null"]},
      "source_url": {"type": "string"}, "provider": {"type": "string", "enum": ["wikimedia-commons", "pixabay", "unsplash"]}}},
  "ImageAnswer": {"type": "object", "required": ["images", "failures"], "properties": {
      "images": {"type": "array", "items": ref("Image")},
      "failures": {"type": "array", "items": {"type": "object", "required": ["provider", "error"], "properties": {"provider": {"type": "string"}, "error": {"type": "string"}}}}}},
  "Weather": {"type": "object", "required": ["provider", "lat", "lon", "units", "current", "daily", "attribution"], "properties": {
      "provider": {"type": "string"}, "lat": {"type": "number"}, "lon": {"type": "number"}, "time_zone": nullable("string"),
      "units": {"type": "object"}, "current": {"type": ["object", "null"]}, "daily": {"type": "array", "items": {"type": "object"}}, "attribution": {"type": "string"}}},
}

# Creations spend the account's budget (serve --creations-per-user-per-hour, default 300).
for route, method in [("/v1/gems", "post"), ("/v1/me/favorites", "post"), ("/v1/me/favorites/{placeId}", "put"), ("/v1/gems/{id}/photos", "post"), ("/v1/me/avatar", "put"), ("/v1/gems/{id}/report", "put"),
                      ("/v1/me/friends/{username}", "post"), ("/v1/itineraries", "post"), ("/v1/trips", "post"),
                      ("/v1/trips/{id}/photos", "post"), ("/v1/itineraries/{id}/shares", "post"), ("/v1/trips/{id}/shares", "post")]:
    paths[route][method]["responses"]["429"] = {
        **problem("The account has created as many things (gems, photos, favourites, reports, friend requests, itineraries, trips, share links) as it may this hour; Retry-After says when to try again."),
        "headers": {"Retry-After": {"schema": {"type": "integer"}}}}
# A JSON body sent as another media type is refused before it is read (JSONBody.unacceptedMediaType).
for item in paths.values():
    for operation in item.values():
        if "application/json" in operation.get("requestBody", {}).get("content", {}) and "415" not in operation["responses"]:
            operation["responses"]["415"] = problem("The body is sent as another media type than JSON (application/json).")
# Idempotency-Key on every POST a signed-in account makes (IdempotencyMiddleware).
idempotency_key = {"name": "Idempotency-Key", "in": "header", "required": False,
                   "schema": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": "^[!-~]+$"},
                   "description": "Any client-chosen key: a retry with the same key, route and body within a day answers the first successful answer again (Idempotent-Replayed: true) and creates nothing."}
for item in paths.values():
    operation = item.get("post")
    if operation is None or operation.get("security") != bearer:
        continue
    operation["parameters"] = operation.get("parameters", []) + [idempotency_key]
    operation["responses"].setdefault("409", problem("A request with this Idempotency-Key is still being done; Retry-After says when to ask again."))
    operation["responses"].setdefault("422", problem("This Idempotency-Key was used for a different request (another route or body)."))
# The one version (Sources/GeoQueryWire/Version.swift), as `geoquery --version` says it.
version = re.search(r'static let current = "([^"]+)"', (pathlib.Path(__file__).resolve().parent.parent / "Sources/GeoQueryWire/Version.swift").read_text()).group(1)
doc = {"openapi": "3.1.0",
       "info": {"title": "GeoQuery", "version": version,
                "description": "Places near a point, in a box or nearest to it, exact on the WGS84 ellipsoid; federated search, weather, visiting orders and city search. Errors are RFC 9457 application/problem+json.",
                "license": {"name": "Data: see /openapi.json info and geodata/README.md (GeoNames CC BY 4.0, OpenStreetMap ODbL, airportsdata MIT)"}},
       "servers": [{"url": "/"}], "paths": paths,
       "components": {"schemas": schemas, "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
           "description": "A token from POST /v1/sessions; it ends 30 days after its last use, at sign-out and when the password changes."}}}}
# Another path as the first argument (the test that the committed file is this script's output).
out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent / "Sources/GeoQueryServer/Resources/openapi.json"
out.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
print(f"wrote {out}")
