import Foundation

/// The WGS84 ellipsoid, defined once for the whole project.
///
/// Constants from NIMA TR8350.2 (2000), table 3.1: semi-major axis and inverse flattening are
/// defining parameters; the rest is derived.
public enum WGS84 {
    /// Equatorial radius `a`, metres.
    public static let semiMajorAxis: Double = 6_378_137.0
    /// Flattening `f = 1 / 298.257223563`.
    public static let flattening: Double = 1.0 / 298.257223563
    /// Polar radius `b = a (1 - f)`, metres.
    public static let semiMinorAxis: Double = semiMajorAxis * (1 - flattening)
    /// First eccentricity squared `e² = f (2 - f)`.
    public static let eccentricitySquared: Double = flattening * (2 - flattening)
    /// The IUGG mean radius `R1 = (2a + b) / 3` = 6 371 008.8 m, used by the haversine formula.
    public static let meanRadius: Double = 6_371_008.8
    /// The smallest radius of curvature anywhere on the ellipsoid: the meridional radius at the
    /// equator, `a (1 - e²)` ≈ 6 335 439 m. No geodesic is shorter than this radius times the
    /// latitude difference it spans, which makes it the safe radius for covering boxes.
    public static let minimumRadiusOfCurvature: Double = semiMajorAxis * (1 - eccentricitySquared)
    /// Length of the meridian from pole to pole, 20 003 931.46 m: the longest geodesic.
    public static let halfMeridianLength: Double = 20_003_931.458_625_2
}

/// Great-circle distance on the sphere of radius ``WGS84/meanRadius`` by the haversine formula.
///
/// It differs from the ellipsoidal distance by up to about 0.56 %; GeoQuery uses it only for
/// coarse filtering with that error band, never to decide inclusion.
@inlinable
public func haversineDistance(_ a: Coordinate, _ b: Coordinate) -> Double {
    let toRadians = Double.pi / 180
    let lat1 = a.latitude * toRadians, lat2 = b.latitude * toRadians
    let dLat = lat2 - lat1
    let dLon = (b.longitude - a.longitude) * toRadians
    let sinHalfLat = sin(dLat / 2), sinHalfLon = sin(dLon / 2)
    let h = sinHalfLat * sinHalfLat + cos(lat1) * cos(lat2) * sinHalfLon * sinHalfLon
    return 2 * WGS84.meanRadius * asin(min(1, h.squareRoot()))
}
