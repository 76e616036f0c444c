import Foundation

/// GeoJSON types as RFC 7946 defines them: positions are `[longitude, latitude]`
/// (§3.1.1), `type` members are checked on decoding, and `bbox` is optional (§5).
public enum GeoJSON {
    /// A Point geometry (RFC 7946 §3.1.2).
    public struct Point: Sendable, Hashable, Codable {
        public var coordinate: Coordinate
        /// Optional altitude in metres, the third position element.
        public var altitude: Double?

        public init(_ coordinate: Coordinate, altitude: Double? = nil) {
            self.coordinate = coordinate
            self.altitude = altitude
        }

        private enum CodingKeys: String, CodingKey { case type, coordinates }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let type = try container.decode(String.self, forKey: .type)
            guard type == "Point" else { throw GeoCoreError.invalidGeoJSON("expected type Point, found \(type)") }
            let position = try container.decode([Double].self, forKey: .coordinates)
            guard position.count == 2 || position.count == 3 else {
                throw GeoCoreError.invalidGeoJSON("a position has 2 or 3 numbers [lon, lat(, alt)], found \(position.count)")
            }
            coordinate = try Coordinate(latitude: position[1], longitude: position[0])
            altitude = position.count == 3 ? position[2] : nil
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("Point", forKey: .type)
            var position = [coordinate.longitude, coordinate.latitude]
            if let altitude { position.append(altitude) }
            try container.encode(position, forKey: .coordinates)
        }
    }

    /// A Feature with a Point geometry (or none) and free-form properties (RFC 7946 §3.2).
    public struct Feature: Sendable, Hashable, Codable {
        public var id: String?
        public var geometry: Point?
        public var properties: [String: JSONValue]?
        public var bbox: [Double]?

        public init(id: String? = nil, geometry: Point?, properties: [String: JSONValue]?, bbox: [Double]? = nil) {
            self.id = id
            self.geometry = geometry
            self.properties = properties
            self.bbox = bbox
        }

        private enum CodingKeys: String, CodingKey { case type, id, geometry, properties, bbox }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let type = try container.decode(String.self, forKey: .type)
            guard type == "Feature" else { throw GeoCoreError.invalidGeoJSON("expected type Feature, found \(type)") }
            if let text = try? container.decodeIfPresent(String.self, forKey: .id) {
                id = text
            } else if let number = try? container.decodeIfPresent(Int64.self, forKey: .id) {
                id = String(number)
            } else {
                id = nil
            }
            geometry = try container.decodeIfPresent(Point.self, forKey: .geometry)
            properties = try container.decodeIfPresent([String: JSONValue].self, forKey: .properties)
            bbox = try container.decodeIfPresent([Double].self, forKey: .bbox)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("Feature", forKey: .type)
            try container.encodeIfPresent(id, forKey: .id)
            // RFC 7946 §3.2: geometry and properties are always present, possibly null.
            if let geometry { try container.encode(geometry, forKey: .geometry) } else { try container.encodeNil(forKey: .geometry) }
            if let properties { try container.encode(properties, forKey: .properties) } else { try container.encodeNil(forKey: .properties) }
            try container.encodeIfPresent(bbox, forKey: .bbox)
        }
    }

    /// A FeatureCollection (RFC 7946 §3.3).
    public struct FeatureCollection: Sendable, Hashable, Codable {
        public var features: [Feature]
        public var bbox: [Double]?

        public init(features: [Feature], bbox: [Double]? = nil) {
            self.features = features
            self.bbox = bbox
        }

        private enum CodingKeys: String, CodingKey { case type, features, bbox }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let type = try container.decode(String.self, forKey: .type)
            guard type == "FeatureCollection" else {
                throw GeoCoreError.invalidGeoJSON("expected type FeatureCollection, found \(type)")
            }
            features = try container.decode([Feature].self, forKey: .features)
            bbox = try container.decodeIfPresent([Double].self, forKey: .bbox)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("FeatureCollection", forKey: .type)
            try container.encodeIfPresent(bbox, forKey: .bbox)
            try container.encode(features, forKey: .features)
        }
    }
}
