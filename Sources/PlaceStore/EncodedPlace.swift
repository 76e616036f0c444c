import GeoCore
import PlaceModel

/// A place with its stored form worked out: the `details` record, the SpatiaLite geometry and
/// the Hilbert-curve key.
///
/// Encoding is most of the per-place work of a write that is not SQLite's, and it needs no
/// connection, so an importer can encode on one thread while another writes
/// (``PlaceWriter/merge(encoded:)``).
public struct EncodedPlace: Sendable {
    public let place: Place
    let details: [UInt8]?
    /// The `geom` column (``PlaceRowCodec/pointGeometry(longitude:latitude:)``).
    let geometry: [UInt8]
    let hilbert: UInt32

    /// Encodes `place`.
    /// - Throws: ``PlaceStoreError`` when a field cannot be stored.
    public init(_ place: Place) throws {
        self.place = place
        details = try PlaceDetailsCodec.encode(place)
        geometry = PlaceRowCodec.pointGeometry(longitude: place.coordinate.longitude, latitude: place.coordinate.latitude)
        hilbert = HilbertCurve.index(latitude: place.coordinate.latitude, longitude: place.coordinate.longitude)
    }
}
