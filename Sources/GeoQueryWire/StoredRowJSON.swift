import Foundation
import GeoCore
import PlaceModel
import PlaceQuery

/// A place's JSON written straight from its stored row (``StoredPlaceRow``): the same bytes
/// ``PlaceJSON`` writes from the decoded ``Place``, without building it — no string, array or
/// dictionary per field, which was half the cost of a large answer.
///
/// The record is read once to find each field; anything this path does not mirror exactly
/// (opening-hours periods and photos, which are stored as JSON of their own; tag keys that are
/// not ASCII or not in order; text that is not UTF-8; a damaged record) makes it answer false
/// before writing anything, and the caller writes the decoded place instead.
enum StoredRowJSON {
    private typealias Tag = PlaceDetailsCodec.Tag

    /// Writes the row as ``PlaceJSON/write(_:distance:to:includeCoordinates:extra:)`` writes its
    /// place; false (nothing written) when the row needs the decoded place.
    static func write(_ row: StoredPlaceRow, distance: Distance?, to json: inout JSONWriter, includeCoordinates: Bool) -> Bool {
        withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: 32) { fields in
            fields.initialize(repeating: 0..<0)
            var found: UInt32 = 0
            let details = row.details
            var index = 0
            while index < details.count {
                guard let (tag, length) = PlaceDetailsCodec.fieldHeader(details, at: &index) else { return false }
                if tag < 32 {
                    fields[Int(tag)] = index..<(index + length)
                    found |= 1 << UInt32(tag)
                }
                index += length
            }
            // A constant for the helpers below: a `var` they captured was checked for exclusive
            // access at run time on every field read.
            let present = found
            func has(_ tag: Tag) -> Bool { present & (1 << UInt32(tag.rawValue)) != 0 }
            func bytes(_ tag: Tag) -> UnsafeRawBufferPointer? {
                has(tag) ? UnsafeRawBufferPointer(rebasing: details[fields[Int(tag.rawValue)]]) : nil
            }
            func number(_ tag: Tag) -> Double? {
                guard let payload = bytes(tag), payload.count == 8 else { return nil }
                return Double(bitPattern: UInt64(littleEndian: payload.loadUnaligned(as: UInt64.self)))
            }
            if has(.hoursPeriods) || has(.photos) { return false }
            // Every text this path copies must be valid UTF-8 (the decoded place would repair it).
            guard isUTF8(row.id), isUTF8(row.name) else { return false }
            for tag in textTags {
                if let text = bytes(tag), !isUTF8(text) { return false }
            }
            let rating = number(.rating).flatMap { value -> (Double, Int?, Double)? in
                let scale = number(.ratingScale) ?? 5
                guard scale > 0, value.isFinite, (0...5).contains(value) else { return nil }
                return (value, number(.ratingCount).map { Int($0) }, scale)
            }
            if let count = number(.ratingCount), rating != nil, !(count.isFinite && abs(count) < 9e18) { return false }
            let tags = bytes(.tags)
            if let tags, !tagsAreOrderedASCII(tags) { return false }

            json.beginObject()
            json.key("id")
            json.string(utf8: row.id)
            json.key("name")
            json.string(utf8: row.name)
            if includeCoordinates {
                json.key("lat")
                json.double(row.latitude)
                json.key("lon")
                json.double(row.longitude)
            }
            json.key("distance_m")
            if let distance { json.meters(distance.meters) } else { json.null() }
            json.key("categories")
            json.beginArray()
            if let list = bytes(.categories) {
                var start = 0
                for (offset, byte) in list.enumerated() where byte == 0x20 {
                    if offset > start { json.string(utf8: UnsafeRawBufferPointer(rebasing: list[start..<offset])) }
                    start = offset + 1
                }
                if list.count > start { json.string(utf8: UnsafeRawBufferPointer(rebasing: list[start...])) }
            }
            json.endArray()
            json.key("source")
            if let source = bytes(.source) {
                json.string(utf8: source)
            } else {
                let colon = row.id.firstIndex(of: UInt8(ascii: ":")) ?? row.id.count
                json.string(utf8: UnsafeRawBufferPointer(rebasing: row.id[..<colon]))
            }
            if addressTags.contains(where: { has($0.1) }) {
                json.key("address")
                json.beginObject()
                for (name, tag) in addressTags { member(name, bytes(tag), &json) }
                json.endObject()
            }
            if let (value, count, scale) = rating {
                json.key("rating")
                json.beginObject()
                json.key("value")
                json.double(value)
                if let count {
                    json.key("count")
                    json.int(count)
                }
                json.key("scale")
                json.double(scale)
                json.endObject()
            }
            if let level = bytes(.priceLevel), level.count == 1, (1...4).contains(level[0]) {
                json.key("price_level")
                json.int(Int(level[0]))
            }
            let continent = bytes(.continent).flatMap { stored in continents.first { $0.bytes.elementsEqual(stored) }?.value }
            if has(.regionCountry) || has(.continent) {
                member("country_code", bytes(.regionCountry), &json)
                if let continent {
                    json.key("continent")
                    json.string(continent.rawValue)
                }
            }
            member("time_zone", bytes(.timeZone), &json)
            member("phone", bytes(.phone), &json)
            member("website", bytes(.website), &json)
            if let text = bytes(.hoursText) {
                json.key("opening_hours")
                json.beginObject()
                json.key("text")
                json.string(utf8: text)
                json.key("periods")
                json.beginArray()
                json.endArray()
                json.endObject()
            }
            if let tags, tags.count > 0 {
                json.key("tags")
                json.beginObject()
                var cursor = 0
                while cursor < tags.count, let key = lengthPrefixed(tags, &cursor), let value = lengthPrefixed(tags, &cursor) {
                    json.key(utf8: key)
                    json.string(utf8: value)
                }
                json.endObject()
            }
            if let owner = bytes(.gemOwner) {
                json.key("gem")
                json.beginObject()
                json.key("owner")
                json.string(utf8: owner)
                let visibility = bytes(.gemVisibility).flatMap { stored in visibilities.first { $0.bytes.elementsEqual(stored) }?.value }
                json.key("visibility")
                json.string((visibility ?? .private).rawValue)
                member("description", bytes(.gemDescription), &json)
                if let created = number(.gemCreatedAt) {
                    json.key("created_at")
                    json.timestamp(Date(timeIntervalSince1970: created))
                }
                if let updated = number(.gemUpdatedAt) {
                    json.key("updated_at")
                    json.timestamp(Date(timeIntervalSince1970: updated))
                }
                json.endObject()
            }
            if let imported = number(.importedAt) {
                json.key("imported_at")
                json.timestamp(Date(timeIntervalSince1970: imported))
            }
            if let fetched = number(.fetchedAt) {
                json.key("fetched_at")
                json.timestamp(Date(timeIntervalSince1970: fetched))
            }
            json.endObject()
            return true
        }
    }

    /// The enums' raw values as bytes, to read stored fields without making a `String` of each.
    private static let continents = Continent.allCases.map { (bytes: Array($0.rawValue.utf8), value: $0) }
    private static let visibilities = HiddenGem.Visibility.allCases.map { (bytes: Array($0.rawValue.utf8), value: $0) }

    /// The text fields this path copies (checked to be UTF-8 first).
    private static let textTags: [Tag] = [
        .categories, .source, .street, .locality, .region, .postcode, .countryCode,
        .formattedAddress, .regionCountry, .timeZone, .phone, .website, .hoursText,
        .gemOwner, .gemDescription,
    ]
    /// The address's members in ``PlaceJSON``'s order.
    private static let addressTags: [(StaticString, Tag)] = [
        ("street", .street), ("locality", .locality), ("region", .region),
        ("postcode", .postcode), ("country_code", .countryCode),
        ("formatted", .formattedAddress),
    ]

    private static func member(_ name: StaticString, _ value: UnsafeRawBufferPointer?, _ json: inout JSONWriter) {
        guard let value else { return }
        json.key(name)
        json.string(utf8: value)
    }

    /// A varint length and that many bytes, or nil when they run past the end.
    private static func lengthPrefixed(_ bytes: UnsafeRawBufferPointer, _ index: inout Int) -> UnsafeRawBufferPointer? {
        var length = 0, shift = 0
        while true {
            guard index < bytes.count, shift < 63 else { return nil }
            let byte = bytes[index]
            index += 1
            length |= Int(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        guard length >= 0, length <= bytes.count - index else { return nil }
        defer { index += length }
        return UnsafeRawBufferPointer(rebasing: bytes[index..<(index + length)])
    }

    /// Whether the tag pairs are whole, with ASCII keys in strictly increasing order and UTF-8
    /// values: then the stored order is the decoded dictionary's sorted order.
    private static func tagsAreOrderedASCII(_ tags: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        var previous: UnsafeRawBufferPointer?
        while index < tags.count {
            guard let key = lengthPrefixed(tags, &index), let value = lengthPrefixed(tags, &index) else { return false }
            guard key.allSatisfy({ $0 < 0x80 }), isUTF8(value) else { return false }
            if let previous, !previous.lexicographicallyPrecedes(key) { return false }
            previous = key
        }
        return true
    }

    /// Whether the bytes are well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF).
    static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int, minimum: UInt32
            var scalar: UInt32
            switch lead {
            case 0xC2...0xDF:
                length = 2
                minimum = 0x80
                scalar = UInt32(lead & 0x1F)
            case 0xE0...0xEF:
                length = 3
                minimum = 0x800
                scalar = UInt32(lead & 0x0F)
            case 0xF0...0xF4:
                length = 4
                minimum = 0x10000
                scalar = UInt32(lead & 0x07)
            default: return false
            }
            guard index + length <= count else { return false }
            for offset in 1..<length {
                let byte = bytes[index + offset]
                guard byte & 0xC0 == 0x80 else { return false }
                scalar = scalar << 6 | UInt32(byte & 0x3F)
            }
            guard scalar >= minimum, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return false }
            index += length
        }
        return true
    }
}
