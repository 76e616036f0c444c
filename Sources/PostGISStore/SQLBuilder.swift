import Foundation
import GeoCore
import PlaceModel
import PlaceQuery
import PostgresNIO

/// A statement under construction: SQL text from this target's constants, every value bound
/// as a numbered parameter (`$1`, `$2`…), never spliced into the text.
struct SQLBuilder {
    private(set) var bindings = PostgresBindings()

    /// Binds a value and returns its placeholder.
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> String {
        bindings.append(value)
        return "$\(bindings.count)"
    }

    func query(_ text: String) -> PostgresQuery { PostgresQuery(unsafeSQL: text, binds: bindings) }

    /// The condition that a row's point is in `box` (either part of one that crosses the
    /// antimeridian), which the 2-D GiST index on `geog::geometry` answers.
    mutating func pointIsIn(_ box: BoundingBox) -> String {
        let parts = box.nonWrappingParts.map { part in
            "geog::geometry && ST_MakeEnvelope(\(bind(part.west)), \(bind(part.south)), \(bind(part.east)), \(bind(part.north)), 4326)"
        }
        return "(" + parts.joined(separator: " OR ") + ")"
    }

    /// The conditions of `filter` that SQL tests on a place table's typed columns (everything but
    /// ``PlaceFilter/openAt``, which needs the opening hours and is tested in Swift).
    mutating func conditions(for filter: PlaceFilter) throws -> [String] {
        var conditions: [String] = []
        if !filter.categories.isEmpty {
            conditions.append("categories && \(bind(filter.categories.map(\.identifier)))::text[]")
        }
        if let text = filter.text, !text.trimmingCharacters(in: .whitespaces).isEmpty {
            let words = PlaceRecord.words(text)
            if words.isEmpty { conditions.append("false") }
            for word in words {
                conditions.append("EXISTS (SELECT 1 FROM unnest(name_words) w WHERE starts_with(w, \(bind(word))))")
            }
        }
        if let minimum = filter.minimumRating { conditions.append("rating >= \(bind(minimum))") }
        if let prices = filter.priceLevels {
            conditions.append("price BETWEEN \(bind(prices.lowerBound)) AND \(bind(prices.upperBound))")
        }
        if !filter.sources.isEmpty { conditions.append("source = ANY(\(bind(filter.sources))::text[])") }
        if !filter.countries.isEmpty { conditions.append("country = ANY(\(bind(filter.countries))::text[])") }
        if !filter.continents.isEmpty { conditions.append("continent = ANY(\(bind(filter.continents.map(\.rawValue)))::text[])") }
        // Gems by who asks (HiddenGem.isListed(to:)): public for all, private and friends-only for
        // the owner, friends-only also for the owner's friends.
        if let viewer = filter.viewer {
            var visible =
                "(gem_visibility IS NULL OR gem_visibility = 'public' OR "
                + "(gem_visibility IN ('private', 'friends') AND gem_owner = \(bind(viewer)))"
            if !filter.viewerFriends.isEmpty {
                visible += " OR (gem_visibility = 'friends' AND gem_owner = ANY(\(bind(filter.viewerFriends))::text[]))"
            }
            conditions.append(visible + ")")
        } else {
            conditions.append("(gem_visibility IS NULL OR gem_visibility = 'public')")
        }
        return conditions
    }
}
