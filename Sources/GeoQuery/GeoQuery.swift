// GeoQuery, the library in one import: the engine's public targets, re-exported.
//
// `import GeoQuery` gives coordinates and exact distances (GeoCore), the place model
// (PlaceModel), the backend-neutral query seam (PlaceQuery) and its SpatiaLite store
// (PlaceStore), imports (PlaceImport), countries and time zones (Regions), visiting orders
// (Routing), itineraries and trips (Trips), discovery (Discovery), provider adapters
// (Providers) and the answers' formats (GeoQueryWire). The HTTP service (GeoQueryServer),
// the PostgreSQL/PostGIS store (PostGISStore) and accounts (Accounts) are products of their
// own: they bring Hummingbird, PostgresNIO and bcrypt, which a library user may not want.

@_exported import Discovery
@_exported import GeoCore
@_exported import GeoQueryWire
@_exported import PlaceImport
@_exported import PlaceModel
@_exported import PlaceQuery
@_exported import PlaceStore
@_exported import Providers
@_exported import Regions
@_exported import Routing
@_exported import Trips
