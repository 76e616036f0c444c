/// The version of GeoQuery, said in one place: `geoquery --version`, the OpenAPI description's
/// `info.version` (`scripts/make_openapi.py` reads it from this file) and the newest heading of
/// CHANGELOG.md.
public enum GeoQueryVersion {
    public static let current = "0.3.0"
}
