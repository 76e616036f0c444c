import Foundation
import PlaceModel

/// Foursquare Open Source Places category labels (`[Dining and Drinking > Restaurant > …, …]`)
/// → the common taxonomy, by the longest matching label path (most specific first).
enum FoursquareCategories {
    static let topLevels = [
        "Arts and Entertainment", "Business and Professional Services", "Community and Government",
        "Dining and Drinking", "Event", "Health and Medicine", "Landmarks and Outdoors", "Retail",
        "Sports and Recreation", "Travel and Transportation",
    ]

    static let table: [String: String] = [
        "Dining and Drinking > Restaurant": "food.restaurant",
        "Dining and Drinking > Cafe, Coffee, and Tea House": "food.cafe",
        "Dining and Drinking > Bakery": "food.bakery",
        "Dining and Drinking > Dessert Shop": "food.dessert",
        "Dining and Drinking > Bar": "drink.bar",
        "Dining and Drinking > Brewery": "drink.brewery",
        "Dining and Drinking > Winery": "drink.winery",
        "Dining and Drinking": "food",
        "Travel and Transportation > Lodging > Hotel": "lodging.hotel",
        "Travel and Transportation > Lodging": "lodging",
        "Travel and Transportation > Transport Hub > Airport": "transport.airport",
        "Travel and Transportation > Transport Hub > Rail Station": "transport.station",
        "Travel and Transportation > Transport Hub": "transport",
        "Travel and Transportation > Fuel Station": "service.fuel",
        "Travel and Transportation": "transport",
        "Landmarks and Outdoors > Park": "nature.park",
        "Landmarks and Outdoors > Beach": "water.beach",
        "Landmarks and Outdoors > Lake": "water.lake",
        "Landmarks and Outdoors > Mountain": "nature.peak",
        "Landmarks and Outdoors > Waterfall": "water.waterfall",
        "Landmarks and Outdoors > Monument": "landmark.monument",
        "Landmarks and Outdoors > Historic and Protected Site": "historic",
        "Landmarks and Outdoors > Castle": "historic.castle",
        "Landmarks and Outdoors > States and Municipalities": "city",
        "Landmarks and Outdoors": "landmark",
        "Arts and Entertainment > Museum": "culture.museum",
        "Arts and Entertainment > Art Gallery": "culture.gallery",
        "Arts and Entertainment > Performing Arts Venue": "culture.theatre",
        "Arts and Entertainment > Zoo": "activity.zoo",
        "Arts and Entertainment > Amusement Park": "activity.amusement_park",
        "Arts and Entertainment": "culture",
        "Community and Government > Spiritual Center": "religious",
        "Community and Government": "service",
        "Sports and Recreation": "activity",
        "Event": "activity",
        "Retail": "shopping",
        "Health and Medicine": "service.health",
        "Business and Professional Services": "service",
    ]

    /// Splits the bracketed list at the commas that start a new label (labels themselves may
    /// contain commas: "Cafe, Coffee, and Tea House").
    static func labels(_ text: String) -> [String] {
        var inner = Substring(text.trimmingCharacters(in: .whitespaces))
        if inner.hasPrefix("[") { inner = inner.dropFirst() }
        if inner.hasSuffix("]") { inner = inner.dropLast() }
        var labels: [String] = []
        var current = ""
        var rest = inner
        while !rest.isEmpty {
            if rest.hasPrefix(", "), topLevels.contains(where: { rest.dropFirst(2).hasPrefix($0) }) {
                labels.append(current)
                current = ""
                rest = rest.dropFirst(2)
                continue
            }
            current.append(rest.removeFirst())
        }
        if !current.isEmpty { labels.append(current) }
        return labels.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " '\"")) }.filter { !$0.isEmpty }
    }

    /// The taxonomy categories for a label list, most specific match per label, duplicates removed.
    static func categories(_ text: String) -> [Category] {
        var result: [Category] = []
        for label in labels(text) {
            var segments = label.components(separatedBy: " > ")
            while !segments.isEmpty {
                if let id = table[segments.joined(separator: " > ")], let category = try? Category(id) {
                    if !result.contains(category) { result.append(category) }
                    break
                }
                segments.removeLast()
            }
        }
        return result
    }
}
