import Foundation

/// A longitude/latitude rectangle: west, south, east, north, in degrees.
///
/// When `west > east` the box crosses the antimeridian (RFC 7946 §5.2): it spans from `west`
/// eastwards through 180° to `east`. A box with `west = -180, east = 180` spans every longitude.
public struct BoundingBox: Sendable, Hashable, Codable, CustomStringConvertible {
    public let west: Double
    public let south: Double
    public let east: Double
    public let north: Double

    /// Creates a validated box.
    /// - Throws: ``GeoCoreError`` when an edge is out of range or south is north of north.
    public init(west: Double, south: Double, east: Double, north: Double) throws {
        for (value, isLatitude) in [(west, false), (east, false), (south, true), (north, true)] {
            if isLatitude {
                guard value.isFinite, abs(value) <= 90 else { throw GeoCoreError.invalidLatitude(value) }
            } else {
                guard value.isFinite, abs(value) <= 180 else { throw GeoCoreError.invalidLongitude(value) }
            }
        }
        guard south <= north else {
            throw GeoCoreError.invalidBoundingBox(
                "\(west),\(south),\(east),\(north)",
                reason: "south \(south) is north of north \(north)")
        }
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// A box from edges already known to be valid. Checked only in debug builds.
    public init(uncheckedWest west: Double, south: Double, east: Double, north: Double) {
        assert(abs(west) <= 180 && abs(east) <= 180 && south >= -90 && north <= 90 && south <= north)
        self.west = west
        self.south = south
        self.east = east
        self.north = north
    }

    /// Parses `W,S,E,N` as typed on a command line.
    /// - Throws: ``GeoCoreError/invalidBoundingBox(_:reason:)`` naming the text.
    public init(parsing text: String) throws {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 4 else {
            throw GeoCoreError.invalidBoundingBox(text, reason: "expected four numbers W,S,E,N, e.g. 2.2,48.8,2.4,48.9")
        }
        let edges = ["west", "south", "east", "north"]
        let numbers = try zip(edges, parts).map { edge, part -> Double in
            guard !part.isEmpty else {
                throw GeoCoreError.invalidBoundingBox(
                    text, reason: "the \(edge) edge is missing; expected four numbers W,S,E,N, e.g. 2.2,48.8,2.4,48.9")
            }
            guard let value = Double(part) else {
                throw GeoCoreError.invalidBoundingBox(text, reason: "the \(edge) edge '\(part)' is not a number")
            }
            return value
        }
        try self.init(west: numbers[0], south: numbers[1], east: numbers[2], north: numbers[3])
    }

    /// The whole Earth.
    public static let world = BoundingBox(uncheckedWest: -180, south: -90, east: 180, north: 90)

    /// True when the box spans the antimeridian (`west > east`).
    public var crossesAntimeridian: Bool { west > east }

    /// Whether the coordinate lies inside or on the edge of the box.
    public func contains(_ coordinate: Coordinate) -> Bool {
        contains(latitude: coordinate.latitude, longitude: coordinate.longitude)
    }

    /// ``contains(_:)`` for raw degrees. Longitude -180 and 180 are the same meridian.
    @inlinable
    public func contains(latitude: Double, longitude: Double) -> Bool {
        guard latitude >= south && latitude <= north else { return false }
        if west <= east {
            if longitude >= west && longitude <= east { return true }
            // ±180 name one meridian.
            if longitude == 180 { return west <= -180 }
            if longitude == -180 { return east >= 180 }
            return false
        }
        return longitude >= west || longitude <= east
    }

    /// The box as one or two boxes that do not cross the antimeridian (each with west ≤ east),
    /// for indexes that cannot wrap.
    public var nonWrappingParts: [BoundingBox] {
        guard crossesAntimeridian else { return [self] }
        return [
            BoundingBox(uncheckedWest: west, south: south, east: 180, north: north),
            BoundingBox(uncheckedWest: -180, south: south, east: east, north: north),
        ]
    }

    public var description: String { "\(west),\(south),\(east),\(north)" }

    /// A box that contains every point whose geodesic distance from `center` is at most `radius`.
    ///
    /// The latitude span is exact-safe: no geodesic is shorter than the meridian arc between its
    /// end latitudes, and no meridian arc is shorter than ``WGS84/minimumRadiusOfCurvature`` times
    /// its angle. The longitude span uses the spherical tangent-circle formula on that same
    /// smallest radius, evaluated at the band's most poleward latitude, which only widens it. When
    /// the circle reaches a pole the box spans every longitude; when it crosses the antimeridian
    /// the box has `west > east`. Radii of half the meridian or more give ``world``.
    public static func covering(center: Coordinate, radius: Distance) -> BoundingBox {
        let r = radius.meters
        if r >= WGS84.halfMeridianLength { return .world }
        let toDegrees = 180 / Double.pi
        // A tiny absolute pad absorbs floating-point round-off in the checks downstream.
        let angular = r / WGS84.minimumRadiusOfCurvature * 1.000_001 + 1e-9
        let dLat = angular * toDegrees
        let south = center.latitude - dLat
        let north = center.latitude + dLat
        if north >= 90 || south <= -90 {
            return BoundingBox(uncheckedWest: -180, south: max(-90, south), east: 180, north: min(90, north))
        }
        let poleward = max(abs(south), abs(north)) / toDegrees
        let ratio = sin(min(angular, Double.pi / 2)) / cos(poleward)
        if angular >= Double.pi / 2 || ratio >= 1 {
            return BoundingBox(uncheckedWest: -180, south: south, east: 180, north: north)
        }
        let dLon = asin(ratio) * toDegrees
        var west = center.longitude - dLon
        var east = center.longitude + dLon
        if dLon >= 180 { return BoundingBox(uncheckedWest: -180, south: south, east: 180, north: north) }
        if west < -180 { west += 360 }
        if east > 180 { east -= 360 }
        if west == east { return BoundingBox(uncheckedWest: -180, south: south, east: 180, north: north) }
        return BoundingBox(uncheckedWest: west, south: south, east: east, north: north)
    }
}
