/// A position on the WGS84 ellipsoid in decimal degrees.
///
/// A `Coordinate` is always valid: latitude in [-90, 90], longitude in [-180, 180], never NaN or
/// infinite. Coordinates are always written latitude first in Swift; GeoJSON alone puts
/// longitude first (RFC 7946 §3.1.1).
///
/// ```swift
/// let eiffelTower = try Coordinate(latitude: 48.8584, longitude: 2.2945)
/// ```
public struct Coordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Geodetic latitude in degrees, positive north.
    public let latitude: Double
    /// Longitude in degrees, positive east.
    public let longitude: Double

    /// Creates a validated coordinate.
    /// - Throws: ``GeoCoreError/invalidLatitude(_:)`` or ``GeoCoreError/invalidLongitude(_:)``
    ///   naming the bad value.
    public init(latitude: Double, longitude: Double) throws {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw GeoCoreError.invalidLatitude(latitude)
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw GeoCoreError.invalidLongitude(longitude)
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Creates a coordinate whose longitude may lie outside [-180, 180] (for example 190° from
    /// adding an offset); it is wrapped into [-180, 180).
    /// - Throws: ``GeoCoreError`` if latitude is invalid or longitude is not finite.
    public init(latitude: Double, normalizingLongitude longitude: Double) throws {
        guard longitude.isFinite else { throw GeoCoreError.invalidLongitude(longitude) }
        try self.init(latitude: latitude, longitude: Coordinate.normalizedLongitude(longitude))
    }

    /// Creates a coordinate from values already known to be valid (stored data, arithmetic on
    /// valid values). Checked only in debug builds.
    public init(uncheckedLatitude latitude: Double, longitude: Double) {
        assert(
            latitude.isFinite && abs(latitude) <= 90 && longitude.isFinite && abs(longitude) <= 180,
            "invalid coordinate \(latitude), \(longitude)")
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Wraps any finite longitude into [-180, 180). 180 becomes -180; both name the same meridian.
    public static func normalizedLongitude(_ longitude: Double) -> Double {
        guard longitude.isFinite else { return longitude }
        if longitude >= -180 && longitude < 180 { return longitude }
        var wrapped = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if wrapped < 0 { wrapped += 360 }
        return wrapped - 180
    }

    public var description: String { "\(latitude),\(longitude)" }

    private enum CodingKeys: String, CodingKey { case latitude, longitude }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            latitude: try container.decode(Double.self, forKey: .latitude),
            longitude: try container.decode(Double.self, forKey: .longitude))
    }
}
