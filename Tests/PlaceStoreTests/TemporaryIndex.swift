import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

@testable import PlaceStore

/// Runs `body` with a new index in a temporary directory that is always removed.
func withTemporaryIndex<T>(_ body: (SpatiaLitePlaceIndex, String) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("geoquery-test-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("places.sqlite").path
    let index = try SpatiaLitePlaceIndex(path: path, mode: .createIfMissing)
    return try body(index, path)
}

func makePlace(
    _ id: String, _ latitude: Double, _ longitude: Double, name: String? = nil,
    categories: [String] = ["landmark"], rating: Double? = nil
) throws -> Place {
    try Place(
        id: PlaceID(id), name: name ?? "Place \(id)", coordinate: Coordinate(latitude: latitude, longitude: longitude),
        categories: categories.map(Category.init), rating: rating.map { try Rating(sourceValue: $0) })
}
